#!/usr/bin/env bash
# A/B of two toolwire binaries on the gateway's hot path, interleaved in one
# run: OpenAI client -> Anthropic mock upstream, non-stream (or streamed with
# STREAM=1), wrk on CPU 0, a fresh instance per run, --no-traces (TRACES=1:
# the default traces). Prints req/s and the server's CPU per request per run.
#
#   bench/gateway/binary_ab.sh OLD_TOOLWIRE NEW_TOOLWIRE
#   THREADS=2 GW_CPU=0,1 ROUNDS=5 DURATION=3 bench/gateway/binary_ab.sh old new
#
# Needs wrk, taskset and a build with the benchmarks (bench/mock_upstream;
# BUILD_DIR, default build). Every process binds 127.0.0.1 port 0 and is
# stopped by PID.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$ROOT/bench/gateway
BUILD=${BUILD_DIR:-$ROOT/build}
THREADS=${THREADS:-1}; GW_CPU=${GW_CPU:-1}; ROUNDS=${ROUNDS:-3}; DURATION=${DURATION:-3}
CONNS=${CONNS:-32}
[ $# -eq 2 ] || { echo "usage: $0 OLD_TOOLWIRE NEW_TOOLWIRE" >&2; exit 2; }
OUT=$(mktemp -d /tmp/toolwire-binary-ab.XXXXXX)
HZ=$(getconf CLK_TCK)
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done' EXIT

. "$HERE/lib.sh"

taskset -c 0 "$BUILD/bench/mock_upstream" >"$OUT/mock.out" 2>&1 &
PIDS+=($!)
MPORT=$(port_of "$OUT/mock.out")
body=$HERE/openai_request.json
[ -n "${STREAM:-}" ] && body=$HERE/openai_request_stream.json
traces=(--no-traces)
[ -n "${TRACES:-}" ] && traces=(--data-dir "$OUT/data")

for round in $(seq "$ROUNDS"); do
  for label in old new; do
    bin=$1; [ $label = new ] && bin=$2
    taskset -c "$GW_CPU" "$bin" serve --listen 127.0.0.1:0 --threads "$THREADS" --quiet \
      "${traces[@]}" --upstream "anthropic=http://127.0.0.1:$MPORT" >"$OUT/tw.out" 2>"$OUT/tw.err" &
    pid=$!
    port=$(port_of "$OUT/tw.out")
    t0=$(awk '{print $14 + $15}' "/proc/$pid/stat")
    line=$(BODY=$body HEADERS="Authorization: Bearer sk-mock" taskset -c 0 wrk -t1 -c"$CONNS" \
             -d"${DURATION}s" --timeout 10s -s "$HERE/post.lua" \
             "http://127.0.0.1:$port/v1/chat/completions" | grep '^WRK ')
    t1=$(awk '{print $14 + $15}' "/proc/$pid/stat")
    kill "$pid"; wait "$pid" 2>/dev/null || true
    req=$(sed 's/.*requests=\([0-9]*\).*/\1/' <<<"$line")
    dur=$(sed 's/.*duration_us=\([0-9]*\).*/\1/' <<<"$line")
    awk -v l=$label -v r="$req" -v d="$dur" -v t=$((t1 - t0)) -v hz="$HZ" -v th="$THREADS" -v rd="$round" \
      'BEGIN {printf "AB round=%d who=%s threads=%s rps=%.0f cpu_us_per_req=%.1f\n", rd, l, th, r / (d / 1e6), t / hz * 1e6 / r}'
  done
done
