#!/usr/bin/env bash
# HTTP/2 to the upstream (issue 24, item 5): does it lower toolwire's cost?
# One run, rounds interleaved, OpenAI client -> Anthropic upstream,
# non-stream (STREAM=1: streamed), wrk -c32 on CPU 0, toolwire --threads 1 on
# CPU 1, --no-traces. The upstream is nginx (1 worker, CPU 0) listening with
# TLS and HTTP/2 (`listen ... ssl http2`) in front of the C mock, so both
# clients reach the same server:
#   asio_tls   --transport asio: HTTP/1.1 over TLS, pooled keep-alive connections
#   curl_h2    --transport curl: HTTP/2 over TLS (ALPN), calls multiplexed
#   asio_plain --transport asio straight to the mock over plain HTTP/1.1 (no TLS,
#              no nginx): the floor
# Prints per run: req/s, toolwire's CPU per request (all its threads), and
# the upstream TCP connections toolwire held at the end of the run.
#
#   bench/gateway/upstream_h2.sh                     # BUILD_DIR: a build with bench/mock_upstream
#   ROUNDS=5 DURATION=5 STREAM=1 bench/gateway/upstream_h2.sh
#
# Needs wrk, nginx, openssl, taskset, ss. Every process binds 127.0.0.1 port 0
# (nginx gets a port the kernel just handed out) and is stopped by PID.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$ROOT/bench/gateway
BUILD=${BUILD_DIR:-$ROOT/build-gwbench}
TW=${TW:-$BUILD/src/cli/toolwire}
ROUNDS=${ROUNDS:-3}; DURATION=${DURATION:-4}; CONNS=${CONNS:-32}
OUT=${OUT:-$(mktemp -d /tmp/toolwire-upstream-h2.XXXXXX)}
mkdir -p "$OUT"
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done' EXIT

. "$HERE/lib.sh"

start_mock "$OUT"

# A self-signed certificate for 127.0.0.1, trusted by toolwire through
# --upstream-ca-file (it is its own CA).
self_signed_cert "$OUT"
NGX_PORT=$(free_port)
nginx_conf "$OUT/nginx" "$MPORT" "$OUT" "127.0.0.1:$NGX_PORT ssl http2"
taskset -c 0 nginx -p "$OUT/nginx" -c "$OUT/nginx/nginx.conf" -e "$OUT/nginx/logs/error.log" &
PIDS+=($!)
for _ in $(seq 200); do
  curl -sk -o /dev/null --http2 "https://127.0.0.1:$NGX_PORT/" && break
  sleep 0.05
done

body=$HERE/openai_request.json
[ -n "${STREAM:-}" ] && body=$HERE/openai_request_stream.json

run() { # LABEL ROUND TOOLWIRE-ARGS...
  local label=$1 round=$2; shift 2
  taskset -c 1 "$TW" serve --listen 127.0.0.1:0 --threads 1 --quiet --no-traces "$@" \
    >"$OUT/tw.out" 2>"$OUT/tw.err" &
  local pid=$!
  PIDS+=("$pid")
  local port got
  port=$(port_of "$OUT/tw.out")
  # One request first: it must carry the mock's tool call (a failing upstream
  # would make every later number meaningless). Read whole, then checked: a
  # `curl | grep -q` pipe fails under pipefail when grep stops reading first.
  got=$(curl -sS --max-time 10 "http://127.0.0.1:$port/v1/chat/completions" \
          -H 'content-type: application/json' -H 'Authorization: Bearer sk-mock' \
          --data-binary "@$body")
  grep -q get_weather <<<"$got" || { echo "smoke $label failed: ${got:0:300} $(cat "$OUT/tw.err")" >&2; exit 1; }
  local rps cpu conns
  read -r rps cpu < <(wrk_load "$pid" "http://127.0.0.1:$port/v1/chat/completions" "$body")
  conns=$(ss -tnp state established 2>/dev/null | grep -c "pid=$pid," || true)
  kill "$pid"; wait "$pid" 2>/dev/null || true
  echo "UPSTREAM round=$round who=$label rps=$rps cpu_us_per_req=$cpu upstream_conns=$conns"
}

for round in $(seq "$ROUNDS"); do
  run asio_plain "$round" --upstream "anthropic=http://127.0.0.1:$MPORT"
  run asio_tls "$round" --upstream "anthropic=https://127.0.0.1:$NGX_PORT" \
    --upstream-ca-file "$OUT/cert.pem"
  run curl_h2 "$round" --transport curl --upstream "anthropic=https://127.0.0.1:$NGX_PORT" \
    --upstream-ca-file "$OUT/cert.pem"
done
