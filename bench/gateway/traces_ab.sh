#!/usr/bin/env bash
# The cost of tracing (issue 26): req/s of `toolwire serve` with traces off
# (--no-traces) and on (the default: SQLite under --data-dir, content capture
# off), side by side — the two instances alternate in short wrk runs (ABAB...)
# so that both see the same phases of a shared host; the median of each.
# OpenAI client → Anthropic upstream (the mock), non-stream with a tool call
# in the answer ("ns" of run.sh), and streamed ("st").
#
#   BUILD_DIR=build ROUNDS=6 DURATION=4 bench/gateway/traces_ab.sh
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
run() { # MODE(off|on) KIND : a fresh instance (as run.sh), one wrk run; prints req/s
  local mode=$1 kind=$2 flags name pid port line req dur
  N=$((N + 1)); name=tw_${mode}_$N
  if [ "$mode" = off ]; then flags=(--no-traces); else flags=(--data-dir "$OUT/data"); fi
  start "$name" "$GW_CPU" "$TW" serve --listen 127.0.0.1:0 --threads 1 --quiet \
    --upstream "anthropic=http://127.0.0.1:$MPORT" "${flags[@]}"
  pid=$LAST_PID; port=$(port_of "$name")
  line=$(BODY=$OUT/$kind.json HEADERS="Authorization: Bearer sk-mock" taskset -c "$LOAD_CPU" \
         wrk -t1 -c"$CONNS" -d"${DURATION}s" --timeout 10s -s "$HERE/post.lua" \
         "http://127.0.0.1:$port/v1/chat/completions" | grep '^WRK ')
  kill -TERM "$pid"; wait "$pid" 2>/dev/null || true
  req=$(sed 's/.*requests=\([0-9]*\).*/\1/' <<<"$line")
  dur=$(sed 's/.*duration_us=\([0-9]*\).*/\1/' <<<"$line")
  grep -q 'status_err=0 ' <<<"$line" || echo "warning: HTTP errors in $name: $line" >&2
  awk -v r="$req" -v d="$dur" 'BEGIN{printf "%.0f\n", r/(d/1e6)}'
}
median() { sort -n | awk '{a[NR]=$1} END{print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

for kind in ns st; do
  : >"$OUT/$kind.off"; : >"$OUT/$kind.on"
  for r in $(seq "$ROUNDS"); do
    # Alternate which goes first, so neither always follows the other.
    if [ $((r % 2)) = 1 ]; then order=(off on); else order=(on off); fi
    for m in "${order[@]}"; do run "$m" "$kind" >>"$OUT/$kind.$m"; done
  done
  off=$(median <"$OUT/$kind.off"); on=$(median <"$OUT/$kind.on")
  echo "RESULT kind=$kind conns=$CONNS rounds=$ROUNDS off_rps=$off on_rps=$on" \
       "on_vs_off=$(awk -v a="$on" -v b="$off" 'BEGIN{printf "%.3f", a/b}')" \
       "off_runs=$(paste -sd, "$OUT/$kind.off") on_runs=$(paste -sd, "$OUT/$kind.on")"
done
echo "traces written: $(ls -la "$OUT/data" 2>/dev/null | grep -c traces.db) database(s) in $OUT/data" >&2
