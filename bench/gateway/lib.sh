# Shared by the gateway benchmark scripts (sourced).

# port_of FILE [SECONDS]: the port of FILE's "listening on" line, waiting up
# to SECONDS (default 10) for it.
port_of() {
  local tries=$(( ${2:-10} * 20 )) p
  for _ in $(seq "$tries"); do
    p=$(grep -aoE 'listening on https?://127\.0\.0\.1:[0-9]*' "$1" 2>/dev/null | grep -o '[0-9]*$' || true)
    [ -n "$p" ] && { echo "$p"; return 0; }
    sleep 0.05
  done
  echo "no port in $1" >&2; return 1
}

# free_port: a port the kernel just handed out on 127.0.0.1 (for nginx, which
# cannot listen on port 0 and report it).
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# self_signed_cert DIR: DIR/cert.pem and DIR/key.pem, P-256, for 127.0.0.1,
# its own CA (a client may trust it as one, or not verify at all).
self_signed_cert() {
  mkdir -p "$1"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$1/key.pem" \
    -out "$1/cert.pem" -days 2 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
    -addext basicConstraints=critical,CA:TRUE 2>/dev/null
}

# nginx_conf DIR MOCK_PORT TLS_DIR LISTEN... : DIR/nginx.conf for the reference
# proxy: 1 worker, keep-alive to the mock, no buffering of streamed answers
# (it forwards each read at once, as toolwire does), no access log, no limit
# on requests per connection (toolwire has none); one `listen` line per
# LISTEN ("127.0.0.1:PORT ssl http2"), TLS with TLS_DIR's cert.pem / key.pem.
nginx_conf() {
  local dir=$1 mport=$2 tls=$3 listens="" l
  shift 3
  for l in "$@"; do listens+="    listen $l;"$'\n'; done
  mkdir -p "$dir/logs"
  cat >"$dir/nginx.conf" <<NGX
worker_processes 1;
daemon off;
pid $dir/nginx.pid;
error_log $dir/logs/error.log warn;
events { worker_connections 8192; }
http {
  access_log off;
  client_body_temp_path $dir/body;
  proxy_temp_path $dir/proxy;
  client_body_buffer_size 64k;
  keepalive_requests 100000000;
  upstream mock { server 127.0.0.1:$mport; keepalive 64; keepalive_requests 100000000; }
  server {
${listens}    ssl_protocols TLSv1.2 TLSv1.3;
    ssl_certificate $tls/cert.pem;
    ssl_certificate_key $tls/key.pem;
    location / {
      proxy_pass http://mock;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
    }
  }
}
NGX
}

# start_mock OUT: the C mock upstream on CPU 0 (its PID added to PIDS, which
# the caller's exit trap stops); sets MPORT.
start_mock() {
  taskset -c 0 "$BUILD/bench/mock_upstream" >"$1/mock.out" 2>&1 &
  PIDS+=($!)
  MPORT=$(port_of "$1/mock.out")
}

# wrk_load PID URL BODY : wrk (CPU 0, one thread, CONNS connections, DURATION
# seconds, post.lua) against the server PID listens for; prints
# "RPS CPU_US_PER_REQ", the server's CPU (all its threads) per request.
wrk_load() {
  local pid=$1 t0 t1 line req dur
  t0=$(awk '{print $14 + $15}' "/proc/$pid/stat")
  line=$(BODY=$3 HEADERS="Authorization: Bearer sk-mock" taskset -c 0 wrk -t1 -c"$CONNS" \
           -d"${DURATION}s" --timeout 10s -s "$HERE/post.lua" "$2" | grep '^WRK ')
  t1=$(awk '{print $14 + $15}' "/proc/$pid/stat")
  req=$(sed 's/.*requests=\([0-9]*\).*/\1/' <<<"$line")
  dur=$(sed 's/.*duration_us=\([0-9]*\).*/\1/' <<<"$line")
  awk -v r="$req" -v d="$dur" -v t=$((t1 - t0)) -v hz="$(getconf CLK_TCK)" \
    'BEGIN {printf "%.0f %.1f\n", r / (d / 1e6), t / hz * 1e6 / r}'
}
