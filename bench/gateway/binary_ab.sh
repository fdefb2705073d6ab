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
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done' EXIT

. "$HERE/lib.sh"

start_mock "$OUT"
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
    read -r rps cpu < <(wrk_load "$pid" "http://127.0.0.1:$port/v1/chat/completions" "$body")
    kill "$pid"; wait "$pid" 2>/dev/null || true
    echo "AB round=$round who=$label threads=$THREADS rps=$rps cpu_us_per_req=$cpu"
  done
done
