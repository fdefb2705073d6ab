#!/usr/bin/env bash
# The gateway benchmark (issue 13): one run, one mock upstream, one load
# generator (wrk), the ways to reach the mock — direct, through toolwire,
# through nginx (the reference proxy: Debian's nginx, 1 worker, proxy_pass with
# upstream keep-alive, the same request sent on as it is: no JSON work), through
# the Portkey AI gateway, and over TLS (toolwire and nginx with the same
# certificate, made at run time) — for
#   ns   OpenAI client -> Anthropic upstream, non-stream, tool call in the answer
#   st   the same, streamed (text + one tool call)
#   pt   OpenAI -> OpenAI passthrough (same dialect), non-stream
#   pts  the same, streamed
# at 32 connections (throughput, gateway CPU per request) and at 1 connection
# (p50 latency), then the time to a stream's first byte, idle / loaded RSS,
# and RSS with 1,000 open streams (the mock drips one event a second).
#
# Placement on a 2-core machine: each gateway on CPU 1 alone (toolwire with one
# server thread; node is one event loop), wrk (one thread), the mock and the
# probes on CPU 0. Override with GW_CPU / LOAD_CPU.
#
#   bench/gateway/run.sh                 # everything; results in $OUT (default /tmp/...)
#   DURATION=5 SKIP_PORTKEY=1 bench/gateway/run.sh
#   PERF=1 bench/gateway/run.sh          # also perf-profile toolwire under load (ns and st)
#   KINDS="ns st" SKIP_PROBES=1 SKIP_TLS=1 SKIP_H2=1 bench/gateway/run.sh   # a subset
#   TW_BASE=build/src/cli/toolwire TW_BASE_ARGS=--no-traces bench/gateway/run.sh
#                                        # the same binary without traces, as "toolwire_base"
#   TW_BASE=/path/to/older/toolwire bench/gateway/run.sh   # A/B: that binary as
#                                        # "toolwire_base" (O→A), interleaved with this one
#
# HTTP/2 (h2c with prior knowledge, and h2 over TLS by ALPN; toolwire's and
# nginx's) is loaded by h2load (nghttp2-client) instead of wrk, 32 connections
# of one stream each, O→A only.
#
# Every process it starts binds 127.0.0.1 port 0 (ports are read from their
# output; nginx, which cannot, gets a port the kernel just handed out) and is
# stopped by PID on exit. Needs: cmake, ninja, wrk, node/npm, python3, perl,
# taskset, nginx, openssl; perf for PERF=1.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$ROOT/bench/gateway
BUILD=${BUILD_DIR:-$ROOT/build-gwbench}
DURATION=${DURATION:-10}
WARMUP=${WARMUP:-3}
GW_CPU=${GW_CPU:-1}
LOAD_CPU=${LOAD_CPU:-0}
PORTKEY_VERSION=1.15.2
PORTKEY_DIR=$HERE/.portkey
OUT=${OUT:-$(mktemp -d /tmp/toolwire-gwbench.XXXXXX)}
mkdir -p "$OUT"
RESULTS=$OUT/results.txt
: > "$RESULTS"
TW=$BUILD/src/cli/toolwire
MOCK=$BUILD/bench/mock_upstream
HZ=$(getconf CLK_TCK)

log() { echo "[gwbench] $*" >&2; }
# free_port, self_signed_cert, nginx_conf (port_of is redefined below for $OUT/NAME.out).
. "$HERE/lib.sh"

# ---- build -------------------------------------------------------------------
# RelWithDebInfo (-O2 -g), as every toolwire benchmark: GCC 12 at -O3 (Release)
# stops on false -Wrestrict warnings in the codecs, and perf wants the symbols.
if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DTOOLWIRE_BENCH=ON -DTOOLWIRE_TESTS=OFF >/dev/null
fi
[ -n "${SKIP_BUILD:-}" ] || ninja -C "$BUILD" -j2 toolwire mock_upstream >/dev/null

# ---- Portkey (pinned, patched) ---------------------------------------------
PK_JS=$PORTKEY_DIR/node_modules/@portkey-ai/gateway/build/start-server.js
if [ -z "${SKIP_PORTKEY:-}" ]; then
  if [ ! -f "$PK_JS" ]; then
    log "installing @portkey-ai/gateway@$PORTKEY_VERSION into $PORTKEY_DIR"
    mkdir -p "$PORTKEY_DIR"
    npm install --prefix "$PORTKEY_DIR" --no-audit --no-fund --ignore-scripts \
      "@portkey-ai/gateway@$PORTKEY_VERSION" >/dev/null
  fi
  if ! grep -q '/\*pr1551\*/' "$PK_JS"; then
    perl -0pi "$HERE/portkey_pr1551.pl" "$PK_JS"
    grep -q '/\*pr1551\*/' "$PK_JS" || { log "PR #1551 patch did not apply"; exit 1; }
  fi
fi

# ---- processes -------------------------------------------------------------
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
}
trap cleanup EXIT

# start NAME CPU CMD... : runs CMD pinned to CPU, output in $OUT/NAME.{out,err}; sets LAST_PID
start() {
  local name=$1 cpu=$2
  shift 2
  taskset -c "$cpu" "$@" >"$OUT/$name.out" 2>"$OUT/$name.err" &
  LAST_PID=$!
  PIDS+=("$LAST_PID")
}

# port_of NAME : the port in NAME's "listening on http://127.0.0.1:PORT" line (waits ≤ 20 s)
port_of() {
  local p
  for _ in $(seq 400); do
    p=$(grep -aoE 'listening on https?://127\.0\.0\.1:[0-9]*' "$OUT/$1.out" 2>/dev/null | head -1 |
        grep -o '[0-9]*$' || true)
    if [ -n "$p" ]; then echo "$p"; return 0; fi
    sleep 0.05
  done
  log "$1 printed no port"; cat "$OUT/$1.err" >&2; return 1
}

stop_pid() { kill -TERM "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
rss_kb() { awk "/^$2:/ {print \$2}" "/proc/$1/status"; }

ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"

start mock "$LOAD_CPU" "$MOCK"; MOCK_PID=$LAST_PID; MPORT=$(port_of mock)
start mock_drip "$LOAD_CPU" "$MOCK" --drip-ms 1000; DRIP_PORT=$(port_of mock_drip)
# toolwire: one instance per upstream dialect (traces on, the default, kept in
# $OUT/data; traces_ab.sh measures their cost). With FRESH_TOOLWIRE=1 (the
# default) every wrk run and probe gets a fresh instance: the asio upstream
# client of this commit can crash after clients disconnect mid-request (what
# the end of every wrk run does); see docs/benchmarks.md, "Gateway".
FRESH_TOOLWIRE=${FRESH_TOOLWIRE:-1}
TW_N=0
tw_start() { # a|o|t|b : (re)starts the instance for that upstream dialect (t: Anthropic, TLS; b: Anthropic, $TW_BASE)
  local up=$1 name
  TW_N=$((TW_N + 1)); name=tw_${up}_$TW_N
  if [ "$up" = b ]; then
    [ -n "${TWB_PID:-}" ] && stop_pid "$TWB_PID"
    # shellcheck disable=SC2086 # TW_BASE_ARGS: flags, split on spaces
    start "$name" "$GW_CPU" "$TW_BASE" serve ${TW_BASE_ARGS:-} --listen 127.0.0.1:0 --threads 1 --quiet --data-dir "$OUT/data_base" \
      --upstream "anthropic=http://127.0.0.1:$MPORT"
    TWB_PID=$LAST_PID; TWB_PORT=$(port_of "$name")
  elif [ "$up" = t ]; then
    [ -n "${TWT_PID:-}" ] && stop_pid "$TWT_PID"
    start "$name" "$GW_CPU" "$TW" serve --listen 127.0.0.1:0 --threads 1 --quiet \
      --upstream "anthropic=http://127.0.0.1:$MPORT" --tls-cert "$TLS_DIR/cert.pem" \
      --tls-key "$TLS_DIR/key.pem"
    TWT_PID=$LAST_PID; TWT_PORT=$(port_of "$name")
  elif [ "$up" = a ]; then
    [ -n "${TWA_PID:-}" ] && stop_pid "$TWA_PID"
    start "$name" "$GW_CPU" "$TW" serve --listen 127.0.0.1:0 --threads 1 --quiet --data-dir "$OUT/data" \
      --upstream "anthropic=http://127.0.0.1:$MPORT"
    TWA_PID=$LAST_PID; TWA_PORT=$(port_of "$name")
  else
    [ -n "${TWO_PID:-}" ] && stop_pid "$TWO_PID"
    start "$name" "$GW_CPU" "$TW" serve --listen 127.0.0.1:0 --threads 1 --quiet --data-dir "$OUT/data" \
      --upstream "openai_compatible=http://127.0.0.1:$MPORT/v1"
    TWO_PID=$LAST_PID; TWO_PORT=$(port_of "$name")
  fi
}
# One certificate for toolwire's and nginx's TLS (P-256, self-signed: wrk
# does not verify).
TLS_DIR=$OUT/tls
self_signed_cert "$TLS_DIR"
tw_start a
tw_start o
[ -z "${SKIP_TLS:-}" ] && tw_start t
[ -n "${TW_BASE:-}" ] && tw_start b

# nginx (lib.sh's nginx_conf): plain, TLS and h2c listeners.
NGX_DIR=$OUT/nginx
NGX_PORT=$(free_port); NGX_TLS_PORT=$(free_port); NGX_H2_PORT=$(free_port); NGX_H2S_PORT=$(free_port)
nginx_conf "$NGX_DIR" "$MPORT" "$TLS_DIR" "127.0.0.1:$NGX_PORT" "127.0.0.1:$NGX_TLS_PORT ssl" \
  "127.0.0.1:$NGX_H2_PORT http2" "127.0.0.1:$NGX_H2S_PORT ssl http2"
start nginx "$GW_CPU" nginx -p "$NGX_DIR" -c "$NGX_DIR/nginx.conf" -e "$NGX_DIR/logs/error.log"
NGX_PID=$LAST_PID
for _ in $(seq 200); do
  NGX_WORKER=$(pgrep -P "$NGX_PID" | head -1 || true)
  [ -n "$NGX_WORKER" ] && curl -s -o /dev/null "http://127.0.0.1:$NGX_PORT/" && break
  sleep 0.05
done
[ -n "${NGX_WORKER:-}" ] || { log "nginx did not start: $(cat "$NGX_DIR/logs/error.log")"; exit 1; }
if [ -z "${SKIP_PORTKEY:-}" ]; then
  start portkey "$GW_CPU" env NODE_ENV=production node --require "$HERE/portkey_listen.cjs" \
    "$PK_JS" --headless --port=0
  PK_PID=$LAST_PID; PK_PORT=$(port_of portkey)
fi
log "mock :$MPORT  drip mock :$DRIP_PORT  toolwire(anthropic) :$TWA_PORT  " \
    "toolwire(openai) :$TWO_PORT  toolwire(tls) :${TWT_PORT:-skipped}  nginx :$NGX_PORT" \
    "(tls :$NGX_TLS_PORT)  portkey :${PK_PORT:-skipped}"

# ---- bodies ----------------------------------------------------------------
cp "$HERE/openai_request.json" "$OUT/o.json"
cp "$HERE/openai_request_stream.json" "$OUT/os.json"
"$TW" convert --from openai --to anthropic --kind request <"$OUT/o.json" >"$OUT/a.json"
"$TW" convert --from openai --to anthropic --kind request <"$OUT/os.json" >"$OUT/as.json"
grep -q '"stream":true' "$OUT/as.json"

# target KIND TARGET -> "SCHEME PORT PATH BODY HEADERS" (HEADERS: "k: v|k: v")
target() {
  local kind=$1 who=$2 body path port headers="" scheme=http
  case $kind in
    ns) body=o.json ;; st) body=os.json ;; pt) body=o.json ;; pts) body=os.json ;;
  esac
  path=/v1/chat/completions
  case $who in
    direct|nginx|nginx_tls|nginx_h2|nginx_h2s)
      case $who in
        direct) port=$MPORT ;; nginx) port=$NGX_PORT ;; nginx_tls) port=$NGX_TLS_PORT; scheme=https ;;
        nginx_h2) port=$NGX_H2_PORT ;; nginx_h2s) port=$NGX_H2S_PORT; scheme=https ;;
      esac
      case $kind in ns) body=a.json; path=/v1/messages ;; st) body=as.json; path=/v1/messages ;; esac
      [ "$path" = /v1/messages ] && headers="x-api-key: sk-ant-mock|anthropic-version: 2023-06-01"
      [ "$path" = /v1/chat/completions ] && headers="Authorization: Bearer sk-mock" ;;
    toolwire|toolwire_h2)
      case $kind in ns|st) port=$TWA_PORT ;; *) port=$TWO_PORT ;; esac
      headers="Authorization: Bearer sk-mock" ;;
    toolwire_base)
      port=$TWB_PORT
      headers="Authorization: Bearer sk-mock" ;;
    toolwire_tls|toolwire_h2s)
      port=$TWT_PORT; scheme=https
      headers="Authorization: Bearer sk-mock" ;;
    portkey)
      port=$PK_PORT
      case $kind in
        ns|st) headers="x-portkey-provider: anthropic|Authorization: Bearer sk-ant-mock" ;;
        *) headers="x-portkey-provider: openai|Authorization: Bearer sk-mock" ;;
      esac
      headers="$headers|x-portkey-custom-host: http://127.0.0.1:${UPSTREAM_PORT:-$MPORT}/v1" ;;
  esac
  echo "$scheme" "$port" "$path" "$OUT/$body" "$headers"
}

# applies WHO KIND : the TLS targets run the translated kinds only
applies() {
  case $1 in *_tls|*_h2|*_h2s|toolwire_base) [ "$2" = ns ] || [ "$2" = st ] ;; *) true ;; esac
}

pid_of() {
  case $1 in
    direct) echo "$MOCK_PID" ;; portkey) echo "$PK_PID" ;;
    nginx|nginx_tls|nginx_h2|nginx_h2s) echo "$NGX_WORKER" ;; toolwire_tls|toolwire_h2s) echo "$TWT_PID" ;;
    toolwire_base) echo "$TWB_PID" ;;
    toolwire|toolwire_h2) case $2 in ns|st) echo "$TWA_PID" ;; *) echo "$TWO_PID" ;; esac ;;
  esac
}

# smoke KIND WHO : one request with curl; the answer must carry the tool call
smoke() {
  local scheme port path body headers args=()
  applies "$2" "$1" || return 0
  read -r scheme port path body headers <<<"$(target "$1" "$2")"
  IFS='|' read -ra hs <<<"$headers"
  for h in "${hs[@]}"; do args+=(-H "$h"); done
  local got
  [[ $2 == *_h2 ]] && args+=(--http2-prior-knowledge)
  [[ $2 == *_h2s ]] && args+=(--http2)  # h2 by ALPN
  got=$(curl -sS -N -k --max-time 10 "$scheme://127.0.0.1:$port$path" \
        -H 'content-type: application/json' \
        "${args[@]}" --data-binary "@$body")
  if ! grep -q 'get_weather' <<<"$got" || ! grep -qE 'tool_calls|tool_use' <<<"$got"; then
    log "smoke $1 $2 failed: ${got:0:400}"; exit 1
  fi
  printf '%s\n' "$got" >"$OUT/smoke_$1_$2.txt"
}

# h2_load CONNS SECONDS BODY HEADERS URL : one h2load run (h2c, or h2 by ALPN for
# an https URL; one stream per connection), printed as post.lua's WRK line
# (latency: h2load gives the mean only)
h2_load() {
  local hargs=() out
  IFS='|' read -ra hs <<<"$4"
  for h in "${hs[@]}"; do hargs+=(-H "$h"); done
  out=$(taskset -c "$LOAD_CPU" h2load -c"$1" -m1 -D"$2" -d "$3" -H 'content-type: application/json' \
          "${hargs[@]}" "$5" 2>&1 || true)
  awk '/^finished in/ {sub("s,", "", $3); dur = $3 * 1e6}
       /^requests:/ {ok = $8; bad = $10 + $12}
       /^time for request:/ {m = $6; u = (m ~ /ms$/) ? 1e3 : ((m ~ /us$/) ? 1 : 1e6); sub(/[mu]?s$/, "", m); mean = m * u}
       END {printf "WRK requests=%d duration_us=%d bytes=0 connect_err=0 read_err=0 write_err=0 " \
                   "status_err=%d timeout=0 p50_us=0 p90_us=0 p99_us=0 mean_us=%.1f\n", ok, dur, bad, mean}' <<<"$out"
}

# bench KIND WHO CONNS SECONDS [record] : one wrk run; appends a RESULT line when recording
bench() {
  local kind=$1 who=$2 conns=$3 secs=$4 record=${5:-}
  local scheme port path body headers pid t0 t1 line hwm
  applies "$who" "$kind" || return 0
  [[ $who == *_h2 || $who == *_h2s ]] && [ "$conns" != 32 ] && return 0
  if { [ "$who" = toolwire ] || [ "$who" = toolwire_h2 ]; } && [ "$FRESH_TOOLWIRE" = 1 ]; then
    case $kind in ns|st) tw_start a ;; *) tw_start o ;; esac
  fi
  { [ "$who" = toolwire_tls ] || [ "$who" = toolwire_h2s ]; } && [ "$FRESH_TOOLWIRE" = 1 ] && tw_start t
  [ "$who" = toolwire_base ] && [ "$FRESH_TOOLWIRE" = 1 ] && tw_start b
  read -r scheme port path body headers <<<"$(target "$kind" "$who")"
  pid=$(pid_of "$who" "$kind")
  t0=$(cpu_ticks "$pid")
  if [[ $who == *_h2 || $who == *_h2s ]]; then
    line=$(h2_load "$conns" "$secs" "$body" "$headers" "$scheme://127.0.0.1:$port$path")
  else
    line=$(BODY=$body HEADERS=$headers taskset -c "$LOAD_CPU" wrk -t1 -c"$conns" -d"${secs}s" \
             --timeout 10s -s "$HERE/post.lua" "$scheme://127.0.0.1:$port$path" | grep '^WRK ' || true)
  fi
  t1=$(cpu_ticks "$pid" 2>/dev/null || true)
  hwm=$(rss_kb "$pid" VmHWM 2>/dev/null || true)
  if [ -z "$t1" ]; then
    echo "CRASH who=$who kind=$kind conns=$conns during or at the end of the run" | tee -a "$RESULTS" >&2
    [ -z "$record" ] && return 0
    t1=$t0
  fi
  [ -z "$record" ] && return 0
  [ -n "$hwm" ] && echo "RSS who=$who-$kind-c$conns phase=load_peak rss_kb=$hwm" >>"$RESULTS"
  local req dur
  req=$(sed 's/.*requests=\([0-9]*\).*/\1/' <<<"$line")
  dur=$(sed 's/.*duration_us=\([0-9]*\).*/\1/' <<<"$line")
  echo "RESULT who=$who kind=$kind conns=$conns ${line#WRK } " \
       "rps=$(awk -v r="$req" -v d="$dur" 'BEGIN{printf "%.0f", r/(d/1e6)}')" \
       "cpu_us_per_req=$(awk -v t=$((t1 - t0)) -v hz="$HZ" -v r="$req" \
                           'BEGIN{printf "%.1f", t/hz*1e6/r}')" \
       "cpu_util=$(awk -v t=$((t1 - t0)) -v hz="$HZ" -v d="$dur" \
                     'BEGIN{printf "%.2f", t/hz/(d/1e6)}')" | tee -a "$RESULTS" >&2
}

WHOS=(direct nginx toolwire)
[ -n "${TW_BASE:-}" ] && WHOS+=(toolwire_base)
[ -z "${SKIP_PORTKEY:-}" ] && WHOS+=(portkey)
[ -z "${SKIP_TLS:-}" ] && WHOS+=(nginx_tls toolwire_tls)
[ -z "${SKIP_H2:-}" ] && WHOS+=(nginx_h2 toolwire_h2)
[ -z "${SKIP_H2:-}" ] && [ -z "${SKIP_TLS:-}" ] && WHOS+=(nginx_h2s toolwire_h2s)
read -ra KINDS <<<"${KINDS:-ns st pt pts}"

for k in "${KINDS[@]}"; do for w in "${WHOS[@]}"; do smoke "$k" "$w"; done; done
log "smoke tests passed"
for w in toolwire_a toolwire_o toolwire_t nginx portkey; do
  case $w in
    toolwire_a) p=$TWA_PID ;; toolwire_o) p=$TWO_PID ;; toolwire_t) p=${TWT_PID:-} ;;
    nginx) p=$NGX_WORKER ;; portkey) p=${PK_PID:-} ;;
  esac
  [ -n "$p" ] && echo "RSS who=$w phase=idle rss_kb=$(rss_kb "$p" VmRSS)" | tee -a "$RESULTS" >&2
done

# Warm-up (node's JIT, toolwire's pools), then the measured runs, targets
# interleaved within each scenario so that they share the host's phases.
for k in "${KINDS[@]}"; do
  for w in "${WHOS[@]}"; do
    [[ $w == toolwire* ]] && [ "$FRESH_TOOLWIRE" = 1 ] && continue
    bench "$k" "$w" 32 "$WARMUP"
  done
done
for c in 32 1; do
  for k in "${KINDS[@]}"; do for w in "${WHOS[@]}"; do bench "$k" "$w" "$c" "$DURATION" rec; done; done
done
[ -n "${PK_PID:-}" ] &&
  echo "RSS who=portkey phase=load_peak rss_kb=$(rss_kb "$PK_PID" VmHWM)" | tee -a "$RESULTS" >&2

# ---- time to first byte of a stream ----------------------------------------
probe() { # MODE KIND WHO extra-args...
  local mode=$1 kind=$2 who=$3 scheme port path body headers args=()
  shift 3
  read -r scheme port path body headers <<<"$(target "$kind" "$who")"
  IFS='|' read -ra hs <<<"$headers"
  for h in "${hs[@]}"; do args+=(--header "$h"); done
  taskset -c "$LOAD_CPU" python3 "$HERE/stream_probe.py" "$mode" --port "$port" --path "$path" \
    --body "$body" "${args[@]}" "$@"
}
for k in st pts; do
  [ -n "${SKIP_PROBES:-}" ] && break
  if [ "$FRESH_TOOLWIRE" = 1 ]; then tw_start a; tw_start o; fi
  for w in "${WHOS[@]}"; do
    [[ $w == *_tls || $w == *_h2 || $w == *_h2s ]] && continue  # the probe speaks HTTP/1.1 in clear
    line=$(probe ttfb "$k" "$w" --samples "${TTFB_SAMPLES:-2000}")
    echo "RESULT who=$w kind=$k ${line}" | tee -a "$RESULTS" >&2
  done
done

# ---- 1,000 open streams ------------------------------------------------------
if [ -z "${SKIP_PROBES:-}" ]; then
start tw_drip "$GW_CPU" "$TW" serve --listen 127.0.0.1:0 --threads 1 --quiet --data-dir "$OUT/data" \
  --upstream "anthropic=http://127.0.0.1:$DRIP_PORT"
TWD_PID=$LAST_PID; TWD_PORT=$(port_of tw_drip)
echo "RSS who=toolwire_drip phase=idle rss_kb=$(rss_kb "$TWD_PID" VmRSS)" | tee -a "$RESULTS" >&2
hold_streams() { # WHO PID
  local who=$1 pid=$2 hp
  taskset -c "$LOAD_CPU" python3 "$HERE/stream_probe.py" hold --count 1000 --timeout 120 "${@:3}" \
    >"$OUT/hold_$who.out" 2>"$OUT/hold_$who.err" &
  hp=$!
  PIDS+=("$hp")
  for _ in $(seq 1200); do
    grep -q HOLDING "$OUT/hold_$who.out" && break
    kill -0 "$hp" 2>/dev/null || { log "hold $who failed: $(cat "$OUT/hold_$who.err")"; return 1; }
    sleep 0.1
  done
  grep -q HOLDING "$OUT/hold_$who.out" || { log "hold $who: no HOLDING in 120 s"; return 1; }
  sleep 2  # a couple of drip events through every stream before RSS is read
  echo "RSS who=$who phase=streams_1000 rss_kb=$(rss_kb "$pid" VmRSS)" | tee -a "$RESULTS" >&2
  stop_pid "$hp"
}
hold_streams toolwire_drip "$TWD_PID" --port "$TWD_PORT" --path /v1/chat/completions \
  --body "$OUT/os.json" --header "Authorization: Bearer sk-mock"
if [ -n "${PK_PID:-}" ]; then
  hold_streams portkey "$PK_PID" --port "$PK_PORT" --path /v1/chat/completions --body "$OUT/os.json" \
    --header "x-portkey-provider: anthropic" --header "Authorization: Bearer sk-ant-mock" \
    --header "x-portkey-custom-host: http://127.0.0.1:$DRIP_PORT/v1"
fi
fi

# ---- optional profile ------------------------------------------------------
if [ -n "${PERF:-}" ]; then
  for k in ns st; do
    tw_start a
    perf record -F 2999 -g -o "$OUT/perf_$k.data" -p "$TWA_PID" -- sleep "$DURATION" \
      2>"$OUT/perf_$k.err" &
    pp=$!
    FRESH_TOOLWIRE=0 bench "$k" toolwire 32 "$DURATION"
    wait "$pp" || true
    perf report -i "$OUT/perf_$k.data" --no-children --sort symbol --stdio 2>/dev/null |
      grep -E '^ +[0-9]' | head -40 >"$OUT/perf_${k}_top.txt" || true
    perf report -i "$OUT/perf_$k.data" --children --sort symbol --stdio -g none 2>/dev/null |
      grep -E '^ +[0-9]' | head -60 >"$OUT/perf_${k}_children.txt" || true
  done
fi

python3 "$HERE/report.py" "$RESULTS" | tee "$OUT/report.md"
log "raw results and logs in $OUT"
