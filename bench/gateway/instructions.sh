#!/usr/bin/env bash
# Instructions per request on the gateway's hot path, counted by callgrind:
# deterministic, so a loaded machine does not move it (wall-clock figures on a
# shared 2-core host vary by ±30 %). One server thread, OpenAI client ->
# Anthropic mock, the 0.9 KB tool-calling request of run.sh, sent N times on
# one keep-alive connection after 200 warm-up requests; only those N are
# counted (callgrind_control -z before, -d after). Every thread of the
# process is counted (the trace writer's too, with TRACES=1).
#
#   bench/gateway/instructions.sh OLD_TOOLWIRE NEW_TOOLWIRE   # A/B, one line each
#   N=2000 TRACES=1 bench/gateway/instructions.sh build/src/cli/toolwire
#   callgrind_annotate --inclusive=yes $OUT/<name>.cg.1      # where they go
#   OLD_FLAGS=1 bench/gateway/instructions.sh OLD   # a binary without --no-traces
#   bench/gateway/instructions.sh nginx build/src/cli/toolwire   # the reference proxy too
#
# "nginx" runs Debian's nginx as run.sh configures it (one worker, keep-alive
# to the mock, here without a master process), forwarding the same request
# to the mock's OpenAI endpoint unchanged: what a proxy that reads no JSON
# spends per request.
#
# Needs valgrind, python3 and a build with the benchmarks (bench/mock_upstream;
# BUILD_DIR, default build-gwbench). Every process binds 127.0.0.1 port 0 and
# is stopped by PID.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$ROOT/bench/gateway
BUILD=${BUILD_DIR:-$ROOT/build-gwbench}
N=${N:-2000}
BODY=${BODY:-$HERE/openai_request.json}
OUT=${OUT:-$(mktemp -d /tmp/toolwire-instructions.XXXXXX)}
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done' EXIT
[ $# -ge 1 ] || { echo "usage: $0 TOOLWIRE [TOOLWIRE...]" >&2; exit 2; }

. "$HERE/lib.sh"

send() { # PORT COUNT : COUNT requests on one keep-alive connection, each checked
  python3 - "$1" "$2" "$BODY" <<'EOF'
import http.client, sys
port, n, body = int(sys.argv[1]), int(sys.argv[2]), open(sys.argv[3], 'rb').read()
c = http.client.HTTPConnection('127.0.0.1', port, timeout=60)
for _ in range(n):
    c.request('POST', '/v1/chat/completions', body,
              {'Content-Type': 'application/json', 'Authorization': 'Bearer sk-mock'})
    r = c.getresponse()
    data = r.read()
    if r.status != 200:
        sys.exit(f'HTTP {r.status}: {data[:300]!r}')
EOF
}

"$BUILD/bench/mock_upstream" >"$OUT/mock.out" 2>&1 &
PIDS+=($!)
MPORT=$(port_of "$OUT/mock.out")
traces=(--no-traces)
[ -n "${TRACES:-}" ] && traces=(--data-dir "$OUT/data")
# A binary from before traces (2026-11-27 morning) has no --no-traces.
[ -n "${OLD_FLAGS:-}" ] && traces=()

# Waits up to 60 s for a listener on PORT (nginx prints no port line).
wait_listening() {
  for _ in $(seq 600); do
    python3 -c "import socket,sys; socket.create_connection(('127.0.0.1', int(sys.argv[1])))" \
      "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "nothing listens on $1" >&2; return 1
}

i=0
for bin in "$@"; do
  i=$((i + 1))
  name=$i-$(basename "$bin")
  if [ "$bin" = nginx ]; then
    port=$(free_port)
    self_signed_cert "$OUT/tls"
    nginx_conf "$OUT/nginx" "$MPORT" "$OUT/tls" "127.0.0.1:$port"
    sed -i 's/^daemon off;$/daemon off;\nmaster_process off;/' "$OUT/nginx/nginx.conf"
    valgrind --tool=callgrind --callgrind-out-file="$OUT/$name.cg" /usr/sbin/nginx \
      -p "$OUT/nginx" -c "$OUT/nginx/nginx.conf" >"$OUT/$name.out" 2>"$OUT/$name.err" &
    pid=$!
    PIDS+=($pid)
    wait_listening "$port"
  else
    valgrind --tool=callgrind --callgrind-out-file="$OUT/$name.cg" "$bin" serve \
      --listen 127.0.0.1:0 --threads 1 --quiet "${traces[@]}" \
      --upstream "anthropic=http://127.0.0.1:$MPORT" >"$OUT/$name.out" 2>"$OUT/$name.err" &
    pid=$!
    PIDS+=($pid)
    port=$(port_of "$OUT/$name.out" 60)
  fi
  send "$port" 200
  callgrind_control -z "$pid" >/dev/null
  send "$port" "$N"
  callgrind_control -d "$pid" >/dev/null
  kill -INT "$pid"; wait "$pid" 2>/dev/null || true
  awk -v who="$bin" -v n="$N" '/^summary:/ {printf "IR who=%s requests=%d ir_per_request=%.0f\n", who, n, $2 / n}' \
    "$OUT/$name.cg.1"
done
echo "callgrind files in $OUT" >&2
