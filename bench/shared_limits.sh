#!/usr/bin/env bash
# The shared limiter's cost per request against the in-process one, side by
# side in one run (bench/shared_limits_bench.cc): starts redis-server on a free
# port of 127.0.0.1 (nothing persisted), runs the benchmark, stops it by PID.
#
#   bench/shared_limits.sh [build dir, default build] [benchmark flags...]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
shift || true
BENCH=$BUILD/bench/shared_limits_bench
[ -x "$BENCH" ] || { echo "build $BENCH first (cmake --build $BUILD --target shared_limits_bench)" >&2; exit 2; }
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
DIR=$(mktemp -d /tmp/toolwire-limits.XXXXXX)
redis-server --port "$PORT" --bind 127.0.0.1 --save '' --appendonly no --dir "$DIR" >"$DIR/redis.log" 2>&1 &
RPID=$!
trap 'kill $RPID 2>/dev/null; wait $RPID 2>/dev/null; rm -rf "$DIR"' EXIT
for _ in $(seq 1 100); do grep -q "Ready to accept" "$DIR/redis.log" && break; sleep 0.05; done
TOOLWIRE_BENCH_REDIS=redis://127.0.0.1:$PORT/0 "$BENCH" --benchmark_counters_tabular=true "$@"
