#!/usr/bin/env bash
# The cost of tracing (issue 26): req/s of `toolwire serve` with traces off
# (--no-traces) and on (the default: SQLite under --data-dir, content capture
# off), side by side — the two instances alternate in short wrk runs (ABAB...)
# so that both see the same phases of a shared host; the median of each.
# OpenAI client → Anthropic upstream (the mock), non-stream with a tool call
# in the answer ("ns" of run.sh), and streamed ("st"). Also the gateway
# process's CPU per request (its threads together: the trace writer's too),
# which a loaded host disturbs less than req/s.
#
#   BUILD_DIR=build ROUNDS=6 DURATION=4 bench/gateway/traces_ab.sh
#   ON=otlp BUILD_DIR=build bench/gateway/traces_ab.sh   # "on" = OTLP export only
#
# ON picks what "on" is: `store` (default: SQLite), `otlp` (--no-traces
# --otlp-endpoint: every trace exported over OTLP/HTTP to the mock, which
# answers a POST whose path holds "/messages" with 200 — the sink's cost is
# the mock's, on the load CPU) or `both`.
#
# Every process binds 127.0.0.1 port 0 and is stopped by PID on exit. Needs
# wrk and taskset; the gateway on CPU 1, wrk and the mock on CPU 0.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$ROOT/bench/gateway
BUILD=${BUILD_DIR:-$ROOT/build}
ROUNDS=${ROUNDS:-6}
DURATION=${DURATION:-4}
CONNS=${CONNS:-32}
GW_CPU=${GW_CPU:-1}
LOAD_CPU=${LOAD_CPU:-0}
OUT=${OUT:-$(mktemp -d /tmp/toolwire-traces-ab.XXXXXX)}
mkdir -p "$OUT"
TW=$BUILD/src/cli/toolwire
MOCK=$BUILD/bench/mock_upstream
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
}
trap cleanup EXIT
start() { # NAME CPU CMD... ; sets LAST_PID
  local name=$1 cpu=$2
  shift 2
  taskset -c "$cpu" "$@" >"$OUT/$name.out" 2>"$OUT/$name.err" &
  LAST_PID=$!
  PIDS+=("$LAST_PID")
}
port_of() { # waits ≤ 20 s for NAME's "listening on" line
  for _ in $(seq 400); do
    p=$(grep -ao 'listening on http://127\.0\.0\.1:[0-9]*' "$OUT/$1.out" 2>/dev/null | head -1 |
        grep -o '[0-9]*$' || true)
    [ -n "$p" ] && { echo "$p"; return 0; }
    sleep 0.05
  done
  echo "$1 printed no port" >&2; cat "$OUT/$1.err" >&2; return 1
}
ulimit -n 65536 2>/dev/null || true
start mock "$LOAD_CPU" "$MOCK"; MPORT=$(port_of mock)
cp "$HERE/openai_request.json" "$OUT/ns.json"
cp "$HERE/openai_request_stream.json" "$OUT/st.json"

N=0
HZ=$(getconf CLK_TCK)
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
run() { # MODE(off|on) KIND : a fresh instance (as run.sh), one wrk run; prints "req/s cpu_us/req"
  local mode=$1 kind=$2 flags name pid port line req dur
  N=$((N + 1)); name=tw_${mode}_$N
  local sink="http://127.0.0.1:$MPORT/otlp-sink/messages"  # → .../messages/v1/traces: a 200
  if [ "$mode" = off ]; then flags=(--no-traces)
  elif [ "${ON:-store}" = otlp ]; then flags=(--no-traces --otlp-endpoint "$sink")
  elif [ "${ON:-store}" = both ]; then flags=(--data-dir "$OUT/data" --otlp-endpoint "$sink")
  else flags=(--data-dir "$OUT/data"); fi
  start "$name" "$GW_CPU" "$TW" serve --listen 127.0.0.1:0 --threads 1 --quiet \
    --upstream "anthropic=http://127.0.0.1:$MPORT" "${flags[@]}"
  pid=$LAST_PID; port=$(port_of "$name")
  t0=$(cpu_ticks "$pid")
  line=$(BODY=$OUT/$kind.json HEADERS="Authorization: Bearer sk-mock" taskset -c "$LOAD_CPU" \
         wrk -t1 -c"$CONNS" -d"${DURATION}s" --timeout 10s -s "$HERE/post.lua" \
         "http://127.0.0.1:$port/v1/chat/completions" | grep '^WRK ')
  sleep 0.4  # the writer's last batch (gathered for 250 ms) is the traced run's cost too
  if [ "$mode" = on ] && [ "${ON:-store}" != store ]; then
    # The export's counters: every span accepted by the sink, none dropped?
    curl -s "http://127.0.0.1:$port/metrics" | grep '^toolwire_otlp' | tr '\n' ' ' >>"$OUT/otlp.log"
    echo >>"$OUT/otlp.log"
  fi
  t1=$(cpu_ticks "$pid")
  kill -TERM "$pid"; wait "$pid" 2>/dev/null || true
  req=$(sed 's/.*requests=\([0-9]*\).*/\1/' <<<"$line")
  dur=$(sed 's/.*duration_us=\([0-9]*\).*/\1/' <<<"$line")
  grep -q 'status_err=0 ' <<<"$line" || echo "warning: HTTP errors in $name: $line" >&2
  awk -v r="$req" -v d="$dur" -v t=$((t1 - t0)) -v hz="$HZ" \
    'BEGIN{printf "%.0f %.1f\n", r/(d/1e6), t/hz*1e6/r}'
}
median() { sort -n | awk '{a[NR]=$1} END{print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

for kind in ns st; do
  : >"$OUT/$kind.off"; : >"$OUT/$kind.on"  # lines "req/s cpu_us_per_req"
  for r in $(seq "$ROUNDS"); do
    # Alternate which goes first, so neither always follows the other.
    if [ $((r % 2)) = 1 ]; then order=(off on); else order=(on off); fi
    for m in "${order[@]}"; do run "$m" "$kind" >>"$OUT/$kind.$m"; done
  done
  off=$(cut -d' ' -f1 "$OUT/$kind.off" | median); on=$(cut -d' ' -f1 "$OUT/$kind.on" | median)
  offc=$(cut -d' ' -f2 "$OUT/$kind.off" | median); onc=$(cut -d' ' -f2 "$OUT/$kind.on" | median)
  echo "RESULT on=${ON:-store} kind=$kind conns=$CONNS rounds=$ROUNDS off_rps=$off on_rps=$on" \
       "on_vs_off=$(awk -v a="$on" -v b="$off" 'BEGIN{printf "%.3f", a/b}')" \
       "off_cpu_us_per_req=$offc on_cpu_us_per_req=$onc" \
       "cpu_on_vs_off=$(awk -v a="$onc" -v b="$offc" 'BEGIN{printf "%.3f", a/b}')" \
       "off_runs=$(cut -d' ' -f1 "$OUT/$kind.off" | paste -sd,)" \
       "on_runs=$(cut -d' ' -f1 "$OUT/$kind.on" | paste -sd,)"
done
echo "traces written: $(ls -la "$OUT/data" 2>/dev/null | grep -c traces.db) database(s) in $OUT/data" >&2
