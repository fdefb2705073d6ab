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
HZ=$(getconf CLK_TCK)
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done' EXIT

. "$HERE/lib.sh"

taskset -c 0 "$BUILD/bench/mock_upstream" >"$OUT/mock.out" 2>&1 &
PIDS+=($!)
MPORT=$(port_of "$OUT/mock.out")

# A self-signed certificate for 127.0.0.1, trusted by toolwire through
# --upstream-ca-file (it is its own CA).
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$OUT/key.pem" \
  -out "$OUT/cert.pem" -days 2 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
  -addext basicConstraints=critical,CA:TRUE 2>/dev/null

NGX_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
mkdir -p "$OUT/nginx/logs"
cat >"$OUT/nginx/nginx.conf" <<NGX
worker_processes 1;
daemon off;
pid $OUT/nginx/nginx.pid;
error_log $OUT/nginx/logs/error.log warn;
events { worker_connections 8192; }
http {
  access_log off;
  client_body_temp_path $OUT/nginx/body;
  proxy_temp_path $OUT/nginx/proxy;
  client_body_buffer_size 64k;
  keepalive_requests 100000000;
  http2_max_concurrent_streams 256;
  upstream mock { server 127.0.0.1:$MPORT; keepalive 64; keepalive_requests 100000000; }
  server {
    listen 127.0.0.1:$NGX_PORT ssl http2;
    ssl_protocols TLSv1.2 TLSv1.3;
    ssl_certificate $OUT/cert.pem;
    ssl_certificate_key $OUT/key.pem;
    location / {
      proxy_pass http://mock;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
    }
  }
}
NGX
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
  local t0 t1 line req dur conns
  t0=$(awk '{print $14 + $15}' "/proc/$pid/stat")
  line=$(BODY=$body HEADERS="Authorization: Bearer sk-mock" taskset -c 0 wrk -t1 -c"$CONNS" \
           -d"${DURATION}s" --timeout 10s -s "$HERE/post.lua" \
           "http://127.0.0.1:$port/v1/chat/completions" | grep '^WRK ')
  t1=$(awk '{print $14 + $15}' "/proc/$pid/stat")
  conns=$(ss -tnp state established 2>/dev/null | grep -c "pid=$pid," || true)
  kill "$pid"; wait "$pid" 2>/dev/null || true
  req=$(sed 's/.*requests=\([0-9]*\).*/\1/' <<<"$line")
  dur=$(sed 's/.*duration_us=\([0-9]*\).*/\1/' <<<"$line")
  awk -v l="$label" -v r="$req" -v d="$dur" -v t=$((t1 - t0)) -v hz="$HZ" -v rd="$round" -v c="$conns" \
    'BEGIN {printf "UPSTREAM round=%d who=%s rps=%.0f cpu_us_per_req=%.1f upstream_conns=%d\n", rd, l, r / (d / 1e6), t / hz * 1e6 / r, c}'
}

for round in $(seq "$ROUNDS"); do
  run asio_plain "$round" --upstream "anthropic=http://127.0.0.1:$MPORT"
  run asio_tls "$round" --upstream "anthropic=https://127.0.0.1:$NGX_PORT" \
    --upstream-ca-file "$OUT/cert.pem"
  run curl_h2 "$round" --transport curl --upstream "anthropic=https://127.0.0.1:$NGX_PORT" \
    --upstream-ca-file "$OUT/cert.pem"
done
