#!/usr/bin/env bash
# Scale-out through Redis, end to end (docs/benchmarks.md, "Shared state"):
# wrk against `toolwire serve` on the scripted model with a gateway key whose
# requests_per_minute never refuses (so every request pays the limiter), in
# one run:
#   inproc      one replica, the in-process limiter
#   redis       one replica, --redis (one EVALSHA per request)
#   haproxy-1   HAProxy in front of that one replica
#   haproxy-2   HAProxy round-robin over two replicas (--redis)
# Each replica runs one server thread (--threads 1). Everything binds
# 127.0.0.1 (free ports) and is stopped by PID on exit.
#
#   bench/shared_state.sh [build dir, default build]     DURATION=5 CONNECTIONS=16
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
TW=$BUILD/src/cli/toolwire
DURATION=${DURATION:-5}
CONNECTIONS=${CONNECTIONS:-16}
DIR=$(mktemp -d /tmp/toolwire-shared.XXXXXX)
# The PIDs of what this run started, one a line (processes are started in
# command substitutions too, so a file, not an array).
PIDS=$DIR/pids
cleanup() {
  while read -r p; do kill "$p" 2>/dev/null || true; done <"$PIDS"
  while read -r p; do wait "$p" 2>/dev/null || true; done <"$PIDS"
  rm -rf "$DIR"
}
: >"$PIDS"
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_for() {  # file, text: bounded wait for a line
  for _ in $(seq 1 200); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.05; done
  echo "timed out waiting for '$2' in $1" >&2; return 1
}

RPORT=$(free_port)
redis-server --port "$RPORT" --bind 127.0.0.1 --save '' --appendonly no --dir "$DIR" >"$DIR/redis.log" 2>&1 &
echo $! >>"$PIDS"
wait_for "$DIR/redis.log" "Ready to accept"

SECRET=bench-secret
HASH=$(echo "$SECRET" | "$TW" serve --hash-key)
cat >"$DIR/gw.yaml" <<YAML
log_requests: false
keys:
  - name: bench
    sha256: "$HASH"
    requests_per_minute: 1000000
upstreams:
  s: {profile: scripted}
routes:
  - model: "*"
    upstreams: [s]
    tools: {mode: passthrough}
YAML
echo '{"model":"m","messages":[{"role":"user","content":"hello"}]}' >"$DIR/body.json"

replica() {  # name [extra args]: starts one, prints its port
  local name=$1; shift
  "$TW" serve --config "$DIR/gw.yaml" --listen 127.0.0.1:0 --threads 1 --quiet "$@" \
    >"$DIR/$name.out" 2>"$DIR/$name.err" &
  echo $! >>"$PIDS"
  wait_for "$DIR/$name.out" "listening on" >&2 || { cat "$DIR/$name.err" >&2; exit 1; }
  [ $# -eq 0 ] || wait_for "$DIR/$name.err" "redis: connected" >&2
  sed -n 's/.*listening on http:\/\/127.0.0.1:\([0-9]*\).*/\1/p' "$DIR/$name.out"
}
balancer() {  # name ports...: HAProxy round-robin, prints its port
  local name=$1; shift
  local port; port=$(free_port)
  {
    printf 'global\n  maxconn 2000\n  nbthread 1\ndefaults\n  mode http\n  timeout connect 2s\n'
    printf '  timeout client 30s\n  timeout server 30s\nfrontend fe\n  bind 127.0.0.1:%s\n' "$port"
    printf '  default_backend be\nbackend be\n  balance roundrobin\n'
    local i=0
    for p in "$@"; do printf '  server r%s 127.0.0.1:%s\n' $i "$p"; i=$((i + 1)); done
  } >"$DIR/$name.cfg"
  haproxy -db -f "$DIR/$name.cfg" >"$DIR/$name.log" 2>&1 &
  echo $! >>"$PIDS"
  for _ in $(seq 1 200); do
    curl -s -o /dev/null "http://127.0.0.1:$port/health" && break
    sleep 0.05
  done
  echo "$port"
}
load() {  # label port
  local out
  out=$(BODY=$DIR/body.json HEADERS="Authorization: Bearer $SECRET" \
    wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" -s "$ROOT/bench/gateway/post.lua" \
    "http://127.0.0.1:$2/v1/chat/completions" | grep '^WRK')
  local req dur p50 p99 err
  req=$(sed -n 's/.* requests=\([0-9]*\).*/\1/p' <<<"$out")
  dur=$(sed -n 's/.* duration_us=\([0-9]*\).*/\1/p' <<<"$out")
  p50=$(sed -n 's/.* p50_us=\([0-9.]*\).*/\1/p' <<<"$out")
  p99=$(sed -n 's/.* p99_us=\([0-9.]*\).*/\1/p' <<<"$out")
  err=$(sed -n 's/.* status_err=\([0-9]*\).*/\1/p' <<<"$out")
  printf '%-10s %10.0f req/s  p50 %8.0f us  p99 %8.0f us  non-2xx %s\n' "$1" \
    "$(echo "$req * 1000000 / $dur" | bc -l)" "$p50" "$p99" "$err"
}

REDIS=redis://127.0.0.1:$RPORT/0
P_IN=$(replica inproc)
P_R1=$(replica r1 --redis "$REDIS")
P_R2=$(replica r2 --redis "$REDIS")
H1=$(balancer h1 "$P_R1")
H2=$(balancer h2 "$P_R1" "$P_R2")
echo "# $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); wrk -t1 -c$CONNECTIONS -d${DURATION}s"
load inproc "$P_IN"
load redis "$P_R1"
load haproxy-1 "$H1"
load haproxy-2 "$H2"
