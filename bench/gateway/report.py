#!/usr/bin/env python3
"""Turns run.sh's results.txt (RESULT / RSS lines) into Markdown tables with
ratios and the issue 13 targets: python3 bench/gateway/report.py results.txt"""
import sys

KINDS = {"ns": "O→A non-stream (tool call)", "st": "O→A stream (text + tool call)",
         "pt": "O→O passthrough, non-stream", "pts": "O→O passthrough, stream"}


def parse(path):
    runs, ttfb, rss = {}, {}, {}
    crashes = []
    for line in open(path):
        words = line.split()
        if words and words[0] == "CRASH":
            crashes.append(" ".join(words[1:]))
        if not words or words[0] not in ("RESULT", "RSS"):
            continue
        kv = dict(w.split("=", 1) for w in words[1:] if "=" in w)
        if words[0] == "RSS":
            rss[(kv["who"], kv["phase"])] = int(kv["rss_kb"]) / 1024
        elif "event_p50_us" in kv:
            ttfb[(kv["who"], kv["kind"])] = kv
        else:
            runs[(kv["who"], kv["kind"], int(kv["conns"]))] = kv
    return runs, ttfb, rss, crashes


def f(x, fmt="{:,.0f}"):
    return "—" if x is None else fmt.format(x)


def ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


def main():
    runs, ttfb, rss, crashes = parse(sys.argv[1])
    get = lambda who, kind, c, key: (float(runs[(who, kind, c)][key])
                                     if (who, kind, c) in runs else None)
    errors = [f"{w} {k} c{c}: " + " ".join(f"{e}={v[e]}" for e in
                                            ("connect_err", "read_err", "write_err", "status_err",
                                             "timeout") if v[e] != "0")
              for (w, k, c), v in runs.items()
              if any(v[e] != "0" for e in ("connect_err", "read_err", "write_err", "status_err",
                                           "timeout"))]
    out = []
    out.append("### Throughput at 32 connections (requests/s) and gateway CPU per request\n")
    out.append("| scenario | direct | toolwire | Portkey | toolwire ÷ Portkey | toolwire ÷ direct "
               "| toolwire CPU µs/req | Portkey CPU µs/req | toolwire core busy |")
    out.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for k, name in KINDS.items():
        d, t, p = (get(w, k, 32, "rps") for w in ("direct", "toolwire", "portkey"))
        out.append(f"| {name} | {f(d)} | {f(t)} | {f(p)} | {f(ratio(t, p), '{:.1f}×')} | "
                   f"{f(ratio(t, d), '{:.2f}×')} | {f(get('toolwire', k, 32, 'cpu_us_per_req'), '{:.1f}')} | "
                   f"{f(get('portkey', k, 32, 'cpu_us_per_req'), '{:.0f}')} | "
                   f"{f(get('toolwire', k, 32, 'cpu_util'), '{:.0%}')} |")
    out.append("\n### Against nginx (1 worker, proxy_pass with upstream keep-alive, no JSON work), "
               "32 connections\n")
    out.append("| scenario | nginx req/s | toolwire req/s | toolwire ÷ nginx req/s | nginx CPU µs/req "
               "| toolwire CPU µs/req | toolwire ÷ nginx CPU per request |")
    out.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    pairs = [(name, k, "nginx", "toolwire") for k, name in KINDS.items()]
    pairs += [(KINDS[k] + ", over TLS", k, "nginx_tls", "toolwire_tls") for k in ("ns", "st")]
    pairs += [(KINDS[k] + ", HTTP/2 (h2c, h2load)", k, "nginx_h2", "toolwire_h2")
              for k in ("ns", "st")]
    pairs += [(KINDS[k] + ", HTTP/2 over TLS (ALPN h2, h2load)", k, "nginx_h2s", "toolwire_h2s")
              for k in ("ns", "st") if ("toolwire_h2s", k, 32) in runs]
    pairs += [(KINDS[k] + ", baseline binary (TW_BASE)", k, "nginx", "toolwire_base")
              for k in ("ns", "st") if ("toolwire_base", k, 32) in runs]
    for name, k, ng, tw in pairs:
        n, t = get(ng, k, 32, "rps"), get(tw, k, 32, "rps")
        nc, tc = get(ng, k, 32, "cpu_us_per_req"), get(tw, k, 32, "cpu_us_per_req")
        if n is None and t is None:
            continue
        out.append(f"| {name} | {f(n)} | {f(t)} | {f(ratio(t, n), '{:.2f}×')} | {f(nc, '{:.1f}')} | "
                   f"{f(tc, '{:.1f}')} | {f(ratio(tc, nc), '{:.2f}×')} |")
    out.append("\n### Latency at 1 connection (wrk p50, µs) and what the gateway adds\n")
    out.append("| scenario | direct p50 | toolwire p50 | Portkey p50 | toolwire adds | Portkey adds "
               "| Portkey's addition ÷ toolwire's |")
    out.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for k, name in KINDS.items():
        d, t, p = (get(w, k, 1, "p50_us") for w in ("direct", "toolwire", "portkey"))
        at = None if t is None or d is None else t - d
        ap = None if p is None or d is None else p - d
        out.append(f"| {name} | {f(d, '{:.0f}')} | {f(t, '{:.0f}')} | {f(p, '{:.0f}')} | "
                   f"{f(at, '{:.0f}')} | {f(ap, '{:.0f}')} | {f(ratio(ap, at), '{:.0f}×')} |")
    out.append("\n### A stream's first event (µs after the request, median of the probe's samples)\n")
    out.append("| scenario | direct | toolwire | Portkey | toolwire adds | Portkey adds |")
    out.append("| --- | ---: | ---: | ---: | ---: | ---: |")
    for k in ("st", "pts"):
        g = lambda w: float(ttfb[(w, k)]["event_p50_us"]) if (w, k) in ttfb else None
        d, t, p = g("direct"), g("toolwire"), g("portkey")
        out.append(f"| {KINDS[k]} | {f(d, '{:.0f}')} | {f(t, '{:.0f}')} | {f(p, '{:.0f}')} | "
                   f"{f(None if t is None or d is None else t - d, '{:.0f}')} | "
                   f"{f(None if p is None or d is None else p - d, '{:.0f}')} |")
    out.append("\n### Resident memory (MB)\n")
    out.append("| process | idle | peak under the 32-connection load | 1,000 open streams |")
    out.append("| --- | ---: | ---: | ---: |")
    tw_peak = max([v for (w, ph), v in rss.items() if w.startswith("toolwire-") and w.endswith("-c32")
                   and ph == "load_peak"], default=None)
    if tw_peak is not None:
        rss[("toolwire_a", "load_peak")] = tw_peak
    for who, label in (("toolwire_a", "toolwire (idle: Anthropic upstream; peak: max over "
                                      "the 32-connection runs)"),
                       ("toolwire_o", "toolwire (OpenAI upstream)"),
                       ("toolwire_t", "toolwire (TLS, Anthropic upstream)"),
                       ("nginx", "nginx worker"),
                       ("toolwire_drip", "toolwire (fresh, drip upstream)"),
                       ("portkey", "Portkey (one process, all runs)")):
        g = lambda ph: rss.get((who, ph))
        if not any(g(ph) for ph in ("idle", "load_peak", "streams_1000")):
            continue
        out.append(f"| {label} | {f(g('idle'), '{:.1f}')} | {f(g('load_peak'), '{:.1f}')} | "
                   f"{f(g('streams_1000'), '{:.1f}')} |")

    # Targets.
    t = []
    def check(name, value, ok, fmt):
        t.append(f"| {name} | {f(value, fmt)} | {'—' if value is None else ('met' if ok(value) else 'MISSED')} |")
    check("≥ 1.0× nginx's requests/s, non-stream O→A, 32 conns",
          ratio(get("toolwire", "ns", 32, "rps"), get("nginx", "ns", 32, "rps")), lambda v: v >= 1, "{:.2f}×")
    check("CPU per request ≤ nginx's, non-stream O→A, 32 conns",
          ratio(get("toolwire", "ns", 32, "cpu_us_per_req"), get("nginx", "ns", 32, "cpu_us_per_req")),
          lambda v: v <= 1, "{:.2f}×")
    check("≥ 20× Portkey's requests/s, non-stream O→A, 32 conns",
          ratio(get("toolwire", "ns", 32, "rps"), get("portkey", "ns", 32, "rps")), lambda v: v >= 20, "{:.1f}×")
    check("≥ 40× Portkey's requests/s, stream O→A, 32 conns",
          ratio(get("toolwire", "st", 32, "rps"), get("portkey", "st", 32, "rps")), lambda v: v >= 40, "{:.1f}×")
    for k in ("ns", "st"):
        check(f"≤ 15 µs gateway CPU per translated request ({k})",
              get("toolwire", k, 32, "cpu_us_per_req"), lambda v: v <= 15, "{:.1f} µs")
    for k in ("ns", "st"):
        d, tw = get("direct", k, 1, "p50_us"), get("toolwire", k, 1, "p50_us")
        check(f"≤ 50 µs added p50 at 1 connection ({k})", None if d is None or tw is None else tw - d,
              lambda v: v <= 50, "{:.0f} µs")
    if ("toolwire", "st") in ttfb and ("direct", "st") in ttfb:
        v = (float(ttfb[("toolwire", "st")]["event_p50_us"]) -
             float(ttfb[("direct", "st")]["event_p50_us"])) / 1000
        check("stream's first byte ≤ 0.3 ms after the upstream's", v, lambda v: v <= 0.3, "{:.3f} ms")
    check("RSS ≤ 16 MB idle", rss.get(("toolwire_a", "idle")), lambda v: v <= 16, "{:.1f} MB")
    peak = max([v for (w, ph), v in rss.items() if w.startswith("toolwire-") and w.endswith("-c32")
                and ph == "load_peak"], default=None)
    check("RSS ≤ 32 MB under load", peak, lambda v: v <= 32, "{:.1f} MB")
    check("RSS ≤ 64 MB with 1,000 open streams", rss.get(("toolwire_drip", "streams_1000")),
          lambda v: v <= 64, "{:.1f} MB")
    out.append("\n### Targets\n")
    out.append("| target | reached | |")
    out.append("| --- | ---: | --- |")
    out += t
    if crashes:
        out.append("\n**toolwire crashed:** " + "; ".join(crashes))
    if errors:
        out.append("\n**wrk errors:** " + "; ".join(errors))
    print("\n".join(out))


if __name__ == "__main__":
    main()
