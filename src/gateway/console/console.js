// The toolwire console (GET /ui): traces with filters, one trace as a
// timeline, live conductor sessions, traffic charts. It reads the gateway's
// JSON endpoints (docs/console.md) with the admin key kept in this tab's
// sessionStorage. Everything shown is data from the gateway: it goes into
// the page as text nodes and attributes only, never as markup.
'use strict';

(() => {
  const KEY_STORE = 'toolwire.console.key';
  const REFRESH_MS = 5000;
  const SVG_NS = 'http://www.w3.org/2000/svg';

  const $ = (id) => document.getElementById(id);
  let selectedTrace = null;
  let selectedSpan = null;
  let timer = null;
  let loading = false;
  // Refused for want of a (valid) key: the timer waits for one instead of
  // asking again every 5 s.
  let needKey = false;
  // A key that is not an admin key reads its own traces but no sessions.
  let sessionsDenied = false;

  // ---- DOM helpers: text only -------------------------------------------

  function el(tag, attrs, ...children) {
    const n = document.createElement(tag);
    setAttrs(n, attrs);
    append(n, children);
    return n;
  }

  function svg(tag, attrs, ...children) {
    const n = document.createElementNS(SVG_NS, tag);
    setAttrs(n, attrs);
    append(n, children);
    return n;
  }

  function setAttrs(n, attrs) {
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      n.setAttribute(k, v === true ? '' : String(v));
    }
  }

  function append(n, children) {
    for (const c of children.flat()) {
      if (c === undefined || c === null) continue;
      n.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
    }
  }

  function clear(n) {
    while (n.firstChild) n.removeChild(n.firstChild);
  }

  // ---- formatting -------------------------------------------------------

  const pad = (n) => String(n).padStart(2, '0');
  function clock(us) {
    const d = new Date(us / 1000);
    return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  }
  function day(us) {
    const d = new Date(us / 1000);
    return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${clock(us)}`;
  }
  function ms(us) {
    const v = us / 1000;
    return v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2);
  }
  function compact(n) {
    if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
    if (n >= 1e4) return `${(n / 1e3).toFixed(0)}k`;
    if (n >= 1e3) return `${(n / 1e3).toFixed(1)}k`;
    return String(Math.round(n * 100) / 100);
  }

  // ---- the gateway's JSON -----------------------------------------------

  class HttpError extends Error {
    constructor(status, message) {
      super(message);
      this.status = status;
    }
  }

  async function api(path) {
    const key = sessionStorage.getItem(KEY_STORE);
    const headers = { Accept: 'application/json' };
    if (key) headers.Authorization = `Bearer ${key}`;
    const r = await fetch(path, { headers, cache: 'no-store' });
    const text = await r.text();
    let body = null;
    try {
      body = JSON.parse(text);
    } catch {
      body = null;
    }
    if (!r.ok) {
      const m = body && body.error && (body.error.message || body.error);
      throw new HttpError(r.status, typeof m === 'string' ? m : `HTTP ${r.status}`);
    }
    return body;
  }

  function setStatus(text, bad) {
    const s = $('status');
    s.textContent = text;
    s.classList.toggle('bad', !!bad);
  }

  // 401/403 ask for the admin key; other failures are shown in the panel.
  function failed(e, where) {
    if (e instanceof HttpError && (e.status === 401 || e.status === 403)) {
      needKey = true;
      const hasKey = !!sessionStorage.getItem(KEY_STORE);
      setStatus(hasKey ? `${where}: ${e.message}` : 'This gateway takes keys: enter an admin key', true);
      $('admin-key').focus();
      return true;
    }
    setStatus(`${where}: ${e.message}`, true);
    return false;
  }

  // ---- traces -----------------------------------------------------------

  function traceQuery() {
    const p = new URLSearchParams();
    const key = $('f-key').value.trim();
    const model = $('f-model').value.trim();
    const status = $('f-status').value.trim();
    if (key) p.set('key', key);
    if (model) p.set('model', model);
    if (status) p.set('status', status);
    if ($('f-errors').checked) p.set('errors', 'true');
    p.set('limit', '100');
    return p.toString();
  }

  async function loadTraces() {
    const data = await api(`/v1/traces?${traceQuery()}`);
    const body = $('traces').tBodies[0];
    clear(body);
    for (const t of data.traces) {
      const tokens = (t.input_tokens || 0) + (t.output_tokens || 0);
      const row = el('tr', {
        class: [t.error ? 'error' : '', t.trace_id === selectedTrace ? 'selected' : ''].join(' ').trim(),
        'data-trace-id': t.trace_id,
        title: `${t.trace_id} (${t.kind})`,
      },
      el('td', {}, clock(t.start_us)),
      el('td', {}, t.name),
      el('td', {}, t.key || '—'),
      el('td', {}, t.model || '—'),
      el('td', { class: 'status' }, t.status),
      el('td', { class: 'num' }, ms(t.duration_us)),
      el('td', { class: 'num' }, t.spans),
      el('td', { class: 'num', title: `in ${t.input_tokens || 0}, out ${t.output_tokens || 0}` },
        tokens ? compact(tokens) : '—'));
      row.addEventListener('click', () => showTrace(t.trace_id));
      body.appendChild(row);
    }
    $('traces-empty').hidden = data.traces.length > 0;
  }

  // ---- one trace: the timeline ------------------------------------------

  const attr = (span, name) => (span.attributes || {})[name];

  function runnerOf(span) {
    return span.kind === 'tool_call' ? attr(span, 'toolwire.tool.runner') || 'server' : '';
  }

  function warningsOf(span) {
    const w = attr(span, 'toolwire.warnings');
    if (!w) return [];
    return String(w).split(/[;,]/).map((x) => x.trim()).filter(Boolean);
  }

  function label(span) {
    const runner = runnerOf(span);
    return runner ? `${span.name} · ${runner}` : span.name;
  }

  async function showTrace(id) {
    selectedTrace = id;
    selectedSpan = null;
    if (location.hash !== `#trace=${id}`) history.replaceState(null, '', `#trace=${id}`);
    for (const r of $('traces').tBodies[0].rows)
      r.classList.toggle('selected', r.dataset.traceId === id);
    let t;
    try {
      t = await api(`/v1/traces/${encodeURIComponent(id)}`);
    } catch (e) {
      failed(e, 'trace');
      return;
    }
    if (selectedTrace !== id) return;
    renderTrace(t);
  }

  function renderTrace(t) {
    $('trace-title').textContent = t.trace_id;
    const sum = $('trace-summary');
    clear(sum);
    const item = (k, v, cls) => el('span', { class: cls }, el('b', {}, `${k} `), v);
    const tokens = t.spans.reduce((a, s) => {
      a[0] += Number(attr(s, 'gen_ai.usage.input_tokens') || 0);
      a[1] += Number(attr(s, 'gen_ai.usage.output_tokens') || 0);
      return a;
    }, [0, 0]);
    append(sum, [
      item('started', day(t.start_us)),
      item(t.kind === 'conductor_turn' ? 'turn' : 'endpoint', t.name),
      item('key', t.key || '—'),
      item('model', t.model || '—'),
      item('status', t.status, t.error ? 'error-text' : ''),
      item('duration', `${ms(t.duration_us)} ms`),
      item('tokens', `${tokens[0]} in, ${tokens[1]} out`),
    ]);
    renderTimeline(t);
    const detail = $('span-detail');
    clear(detail);
    if (t.spans.length)
      detail.appendChild(el('p', { class: 'muted' }, 'Click a bar for its arguments, result and attributes.'));
  }

  function renderTimeline(t) {
    const box = $('timeline');
    clear(box);
    const spans = [...t.spans].sort((a, b) => a.start_us - b.start_us);
    const t0 = t.start_us;
    let end = t0 + Math.max(t.duration_us, 1);
    for (const s of spans) end = Math.max(end, s.start_us + s.duration_us);
    const total = Math.max(end - t0, 1);

    const W = 760, LABEL = 250, ROW = 24, TOP = 24, RIGHT = 60;
    const plotW = W - LABEL - RIGHT;
    const H = TOP + Math.max(spans.length, 1) * ROW + 30;
    const x = (us) => LABEL + ((us - t0) / total) * plotW;
    const root = svg('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': 'trace timeline' });

    // Time axis: five ticks from the trace's start.
    for (let i = 0; i <= 4; i++) {
      const us = t0 + (total * i) / 4;
      const xi = x(us);
      root.appendChild(svg('line', { class: 'grid', x1: xi, x2: xi, y1: TOP - 6, y2: H - 28 }));
      root.appendChild(svg('text', { class: 'tick', x: xi, y: TOP - 10, 'text-anchor': 'middle' },
        `${ms(us - t0)} ms`));
    }
    if (!spans.length)
      root.appendChild(svg('text', { x: LABEL, y: TOP + 16 }, 'no spans (the request failed before any model call)'));

    spans.forEach((s, i) => {
      const y = TOP + i * ROW;
      const runner = runnerOf(s);
      const warnings = warningsOf(s);
      const cls = ['span', s.kind, runner ? `runner-${runner}` : '', s.error ? 'failed' : ''].join(' ');
      const g = svg('g', {
        class: cls.replace(/\s+/g, ' ').trim(),
        'data-name': s.name,
        'data-span-id': s.span_id,
        tabindex: 0,
      });
      g.appendChild(svg('rect', { class: 'hit', x: 0, y, width: W, height: ROW }));
      const short = label(s);
      g.appendChild(svg('text', { x: 4, y: y + 16 }, short.length > 40 ? `${short.slice(0, 39)}…` : short));
      const bx = x(s.start_us);
      const bw = Math.max(((s.duration_us) / total) * plotW, 2);
      g.appendChild(svg('rect', { class: 'bar', x: bx, y: y + 5, width: bw, height: ROW - 10, rx: 2 }));
      g.appendChild(svg('text', { class: 'tick', x: Math.min(bx + bw + 4, W - RIGHT + 4), y: y + 16 },
        `${ms(s.duration_us)} ms`));
      if (warnings.length || s.error) {
        // A triangle at the bar's start: something was dropped or failed.
        const wx = Math.max(bx - 10, LABEL - 12);
        g.appendChild(svg('path', {
          class: 'warn', d: `M${wx} ${y + 18} l5 -10 l5 10 z`,
        }, svg('title', {}, s.error ? `failed: ${s.status_message || 'error'}` : `warnings: ${warnings.join(', ')}`)));
      }
      g.appendChild(svg('title', {}, `${s.name} — ${ms(s.duration_us)} ms${runner ? `, run by ${runner}` : ''}`));
      const pick = () => selectSpan(s, g);
      g.addEventListener('click', pick);
      g.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' || e.key === ' ') pick();
      });
      root.appendChild(g);
    });

    // Legend.
    const ly = H - 12;
    const legend = svg('g', { class: 'legend' });
    let lx = LABEL;
    for (const [cls, text] of [['model', 'model call'], ['server', 'server tool'], ['client', 'client tool'],
      ['device', 'device tool'], ['mcp', 'MCP tool'], ['failed', 'failed']]) {
      legend.appendChild(svg('rect', { class: cls, x: lx, y: ly - 9, width: 10, height: 10, rx: 2 }));
      legend.appendChild(svg('text', { x: lx + 14, y: ly }, text));
      lx += 14 + text.length * 6 + 14;
    }
    root.appendChild(legend);
    box.appendChild(root);
  }

  // Arguments and results are JSON text when they parse: shown indented.
  function pretty(v) {
    if (typeof v !== 'string') return JSON.stringify(v);
    const s = v.trim();
    if (s.startsWith('{') || s.startsWith('[')) {
      try {
        return JSON.stringify(JSON.parse(s), null, 2);
      } catch {
        return v;
      }
    }
    return v;
  }

  function selectSpan(s, g) {
    selectedSpan = s.span_id;
    for (const n of $('timeline').querySelectorAll('g.span'))
      n.classList.toggle('selected', n === g);
    const d = $('span-detail');
    clear(d);
    d.appendChild(el('h3', {}, label(s)));
    const rows = [
      ['kind', s.kind],
      ['span id', s.span_id],
      ['duration', `${ms(s.duration_us)} ms`],
    ];
    if (s.error) rows.push(['failed', s.status_message || 'error']);
    const first = ['gen_ai.tool.call.arguments', 'gen_ai.tool.call.result', 'toolwire.output.text', 'toolwire.warnings'];
    const attrs = s.attributes || {};
    const names = [...first.filter((n) => n in attrs), ...Object.keys(attrs).filter((n) => !first.includes(n)).sort()];
    for (const n of names) rows.push([n, attrs[n]]);
    const table = el('table', { class: 'attributes' });
    for (const [k, v] of rows) {
      const big = typeof v === 'string'
        && (v.length > 60 || v.includes('\n') || k === 'gen_ai.tool.call.arguments' || k === 'gen_ai.tool.call.result');
      table.appendChild(el('tr', { 'data-attr': k },
        el('th', {}, k),
        el('td', { class: k === 'failed' ? 'error-text' : '' }, big ? el('pre', {}, pretty(v)) : String(v))));
    }
    d.appendChild(table);
    if (s.kind === 'tool_call' && !('gen_ai.tool.call.arguments' in attrs))
      d.appendChild(el('p', { class: 'muted' },
        'Arguments and results are kept only on routes with capture_content: true.'));
  }

  // ---- conductor sessions -----------------------------------------------

  async function loadSessions() {
    const data = await api('/v1/conductor/sessions');
    const body = $('sessions').tBodies[0];
    clear(body);
    const now = Date.now() * 1000;
    $('sessions-count').textContent = `${data.sessions.length} live`;
    if (!data.sessions.length) {
      body.appendChild(el('tr', {}, el('td', { colspan: 8, class: 'muted' }, 'No live sessions.')));
      return;
    }
    for (const s of data.sessions) {
      const pending = el('td', {});
      if (!s.pending_calls.length) pending.appendChild(el('span', { class: 'muted' }, 'none'));
      for (const c of s.pending_calls) {
        const left = (c.deadline_us - now) / 1e6;
        pending.appendChild(el('span', { class: `pending${left < 0 ? ' late' : ''}`, 'data-call-id': c.call_id },
          `${c.name} (${c.call_id}) waiting ${((now - c.since_us) / 1e6).toFixed(1)} s, `
          + `${left >= 0 ? `deadline in ${left.toFixed(1)} s` : 'past its deadline'}`));
      }
      const trace = el('td', {});
      if (s.trace_id) {
        const a = el('a', { class: 'trace-link', tabindex: 0 }, s.trace_id.slice(0, 12));
        a.addEventListener('click', () => showTrace(s.trace_id));
        trace.appendChild(a);
      } else {
        trace.appendChild(el('span', { class: 'muted' }, '—'));
      }
      body.appendChild(el('tr', { 'data-session-id': s.session_id, title: `tools: ${s.device_tools.join(', ')}` },
        el('td', {}, s.session_id),
        el('td', {}, s.key || '—'),
        el('td', {}, s.model),
        el('td', {}, s.state),
        el('td', {}, s.connected ? 'connected' : 'away (grace period)'),
        el('td', { class: 'num' }, s.turns),
        pending,
        trace));
    }
  }

  // ---- charts (SVG) -----------------------------------------------------

  function niceMax(v) {
    if (!(v > 0)) return 1;
    const p = 10 ** Math.floor(Math.log10(v));
    for (const m of [1, 2, 2.5, 5, 10]) if (v <= m * p) return m * p;
    return 10 * p;
  }

  // kind 'bars' (one series) or 'lines'; series: [{field, cls, label}].
  function chart(box, stats, kind, series) {
    clear(box);
    const W = 320, H = 150, L = 38, R = 8, T = 8, B = 30;
    const pw = W - L - R, ph = H - T - B;
    const bs = stats.buckets;
    let max = 0;
    for (const b of bs) for (const s of series) max = Math.max(max, b[s.field] || 0);
    max = niceMax(max);
    const root = svg('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img' });
    const y = (v) => T + ph - (v / max) * ph;
    for (const f of [0, 0.5, 1]) {
      root.appendChild(svg('line', { class: f ? 'grid' : 'axis', x1: L, x2: W - R, y1: y(max * f), y2: y(max * f) }));
      root.appendChild(svg('text', { class: 'tick', x: L - 4, y: y(max * f) + 4, 'text-anchor': 'end' }, compact(max * f)));
    }
    const n = Math.max(bs.length, 1);
    const step = pw / n;
    const xAt = (i) => L + step * i + step / 2;
    if (kind === 'bars') {
      const s = series[0];
      bs.forEach((b, i) => {
        const v = b[s.field] || 0;
        if (!v) return;
        root.appendChild(svg('rect', {
          class: s.cls, x: L + step * i + step * 0.1, y: y(v), width: Math.max(step * 0.8, 1), height: y(0) - y(v),
        }, svg('title', {}, `${clock(b.start_us)}: ${v} ${s.label}`)));
      });
    } else {
      for (const s of series) {
        // A gap where a bucket had no traffic (null percentiles).
        let d = '';
        let pen = false;
        bs.forEach((b, i) => {
          const v = b[s.field];
          if (v === null || v === undefined || (s.field.endsWith('_ms') && !b.requests)) {
            pen = false;
            return;
          }
          d += `${pen ? 'L' : 'M'}${xAt(i).toFixed(1)} ${y(v).toFixed(1)} `;
          pen = true;
        });
        if (d) root.appendChild(svg('path', { class: `line ${s.cls}`, d }));
        bs.forEach((b, i) => {
          const v = b[s.field];
          // A dot where there is something to point at.
          if (v === null || v === undefined || !b.requests) return;
          root.appendChild(svg('circle', { class: s.cls.replace('l-', 'k-'), cx: xAt(i), cy: y(v), r: 1.8 },
            svg('title', {}, `${clock(b.start_us)}: ${s.label} ${compact(v)}`)));
        });
      }
    }
    if (bs.length) {
      root.appendChild(svg('text', { class: 'tick', x: L, y: H - 16 }, clock(bs[0].start_us)));
      root.appendChild(svg('text', { class: 'tick', x: W - R, y: H - 16, 'text-anchor': 'end' }, 'now'));
    }
    let lx = L;
    for (const s of series) {
      root.appendChild(svg('rect', { class: s.cls.replace('l-', 'k-'), x: lx, y: H - 9, width: 8, height: 8 }));
      root.appendChild(svg('text', { x: lx + 11, y: H - 1 }, s.label));
      lx += 18 + s.label.length * 6;
    }
    box.appendChild(root);
  }

  async function loadStats() {
    const [win, bucket] = $('window').value.split(':');
    const stats = await api(`/v1/traces/stats?window=${win}&bucket=${bucket}`);
    chart($('chart-requests'), stats, 'bars', [{ field: 'requests', cls: 's-requests', label: 'requests' }]);
    chart($('chart-latency'), stats, 'lines', [
      { field: 'p50_ms', cls: 'l-p50', label: 'p50' },
      { field: 'p95_ms', cls: 'l-p95', label: 'p95' },
      { field: 'p99_ms', cls: 'l-p99', label: 'p99' }]);
    chart($('chart-tokens'), stats, 'lines', [
      { field: 'input_tokens', cls: 'l-in', label: 'in' },
      { field: 'output_tokens', cls: 'l-out', label: 'out' }]);
    chart($('chart-errors'), stats, 'bars', [{ field: 'errors', cls: 's-errors', label: 'errors' }]);
    const t = stats.totals;
    $('totals').textContent = `${t.requests} requests, ${t.errors} errors, p95 ${t.p95_ms ?? '—'} ms, `
      + `${t.input_tokens} tokens in, ${t.output_tokens} out`;
  }

  // ---- refresh ----------------------------------------------------------

  let again = false;  // asked while loading: once more when done (a new key)

  async function refresh() {
    if (loading) {
      again = true;
      return;
    }
    loading = true;
    needKey = false;
    let ok = true;
    for (const [what, load] of [['traces', loadTraces], ['stats', loadStats], ['sessions', loadSessions]]) {
      if (what === 'sessions' && sessionsDenied) continue;
      try {
        await load();
      } catch (e) {
        if (what === 'sessions' && e instanceof HttpError && e.status === 403) {
          sessionsDenied = true;
          const body = $('sessions').tBodies[0];
          clear(body);
          body.appendChild(el('tr', {}, el('td', { colspan: 8, class: 'muted' },
            `Sessions need an admin key: ${e.message}`)));
          continue;
        }
        ok = false;
        if (failed(e, what)) break;
      }
    }
    if (ok) setStatus(`updated ${clock(Date.now() * 1000)}`, false);
    loading = false;
    if (again) {
      again = false;
      refresh();
    }
  }

  function schedule() {
    clearInterval(timer);
    timer = null;
    if ($('auto-refresh').checked)
      timer = setInterval(() => {
        if (!document.hidden && !needKey) refresh();
      }, REFRESH_MS);
  }

  function init() {
    $('key-form').addEventListener('submit', (e) => {
      e.preventDefault();
      const k = $('admin-key').value.trim();
      if (k) sessionStorage.setItem(KEY_STORE, k);
      else sessionStorage.removeItem(KEY_STORE);
      $('admin-key').value = '';
      $('admin-key').placeholder = k ? 'key set for this tab' : 'only when the gateway has keys';
      sessionsDenied = false;
      refresh();
    });
    $('key-forget').addEventListener('click', () => {
      sessionStorage.removeItem(KEY_STORE);
      $('admin-key').placeholder = 'only when the gateway has keys';
      sessionsDenied = false;
      refresh();
    });
    if (sessionStorage.getItem(KEY_STORE)) $('admin-key').placeholder = 'key set for this tab';
    $('filters').addEventListener('submit', (e) => {
      e.preventDefault();
      loadTraces().catch((err) => failed(err, 'traces'));
    });
    $('f-errors').addEventListener('change', () => loadTraces().catch((err) => failed(err, 'traces')));
    $('window').addEventListener('change', () => loadStats().catch((err) => failed(err, 'stats')));
    $('auto-refresh').addEventListener('change', schedule);
    const m = /^#trace=([0-9a-f]{32})$/.exec(location.hash);
    refresh().then(() => {
      if (m) showTrace(m[1]);
    });
    schedule();
  }

  init();
})();
