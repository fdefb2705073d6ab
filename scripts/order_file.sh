#!/usr/bin/env bash
# Writes src/cli/toolwire.order: the functions of the toolwire executable that
# run when the gateway starts and serves, hottest first. lld lays them out
# together, in that order (--symbol-ordering-file, src/cli/CMakeLists.txt), so
# the code a gateway runs lies on few pages: fewer resident pages (idle RSS),
# fewer instruction-cache and TLB misses. A function missing from the file
# (renamed, or new since the file was made) is laid out as before, so an old
# file only gets less useful; make it again after large changes.
#
#   scripts/order_file.sh [BUILD_DIR]    # default build; needs bench/mock_upstream
#
# The training: under callgrind, the gateway with traces, in front of the
# benchmarks' mock upstream (Anthropic, then OpenAI-compatible), serves the
# benchmarks' request whole and streamed over HTTP/1.1 and h2c, then over TLS
# (HTTP/1.1 and h2); the offline scripted model answers too. Needs valgrind,
# curl (with HTTP/2) and openssl. Every server binds 127.0.0.1 port 0 and is
# stopped by its PID.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
TW=$BUILD/src/cli/toolwire
MOCK=$BUILD/bench/mock_upstream
[ -x "$TW" ] && [ -x "$MOCK" ] || { echo "order_file: needs $TW and $MOCK (TOOLWIRE_BENCH=ON)" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "order_file: needs valgrind" >&2; exit 2; }
HERE=$ROOT/bench/gateway
. "$HERE/lib.sh"
OUT=$(mktemp -d /tmp/toolwire-order.XXXXXX)
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$OUT"' EXIT

"$MOCK" >"$OUT/mock.out" 2>&1 &
PIDS+=($!)
MPORT=$(port_of "$OUT/mock.out")
self_signed_cert "$OUT/tls"

# train NAME SCHEME CURL_FLAGS... -- SERVE_ARGS... : one gateway under callgrind,
# the requests, then SIGTERM (callgrind writes its file as the process ends).
train() {
  local name=$1 scheme=$2 flags=() args=() port pid body i
  shift 2
  while [ "$1" != -- ]; do flags+=("$1"); shift; done
  shift
  args=("$@")
  valgrind --tool=callgrind --demangle=no --callgrind-out-file="$OUT/$name.cg" \
    "$TW" serve --listen 127.0.0.1:0 --quiet "${args[@]}" >"$OUT/$name.out" 2>"$OUT/$name.err" &
  pid=$!
  PIDS+=("$pid")
  port=$(port_of "$OUT/$name.out" 120)
  for body in openai_request.json openai_request_stream.json; do
    for i in $(seq 12); do
      curl -sS -o /dev/null --max-time 60 "${flags[@]}" -H "Authorization: Bearer sk-mock" \
        -H 'content-type: application/json' --data-binary "@$HERE/$body" \
        "$scheme://127.0.0.1:$port/v1/chat/completions"
    done
  done
  kill -TERM "$pid"
  wait "$pid" || true
}

train anthropic http -- --data-dir "$OUT/data" --upstream "anthropic=http://127.0.0.1:$MPORT"
train anthropic_h2c http --http2-prior-knowledge -- --data-dir "$OUT/data" \
  --upstream "anthropic=http://127.0.0.1:$MPORT"
train openai http -- --data-dir "$OUT/data" --upstream "openai_compatible=http://127.0.0.1:$MPORT/v1"
train tls https -k -- --upstream "anthropic=http://127.0.0.1:$MPORT" \
  --tls-cert "$OUT/tls/cert.pem" --tls-key "$OUT/tls/key.pem"
train tls_h2 https -k --http2 -- --upstream "anthropic=http://127.0.0.1:$MPORT" \
  --tls-cert "$OUT/tls/cert.pem" --tls-key "$OUT/tls/key.pem"
train scripted http -- --data-dir "$OUT/data"

python3 - "$TW" "$OUT" "$ROOT/src/cli/toolwire.order" <<'PY'
# Self cost per function of the executable, summed over the runs' callgrind
# files (format: valgrind.org/docs/manual/cl-format.html); a cost line right
# after "calls=" is the call's inclusive cost, not the caller's own.
import glob, os, re, sys
exe, out, dest = os.path.realpath(sys.argv[1]), sys.argv[2], sys.argv[3]
cost = {}
name_re = re.compile(r'^(ob|fn|cfn|cob)=\((\d+)\)(?: (.*))?$')
for path in glob.glob(os.path.join(out, '*.cg*')):
    names = {'ob': {}, 'fn': {}}
    ob = fn = None
    after_calls = False
    for line in open(path, errors='replace'):
        line = line.rstrip('\n')
        m = name_re.match(line)
        if m:
            kind = 'ob' if m.group(1) in ('ob', 'cob') else 'fn'
            if m.group(3) is not None:
                names[kind][m.group(2)] = m.group(3)
            if m.group(1) == 'ob':
                ob = names['ob'].get(m.group(2))
            elif m.group(1) == 'fn':
                fn = names['fn'].get(m.group(2))
                if fn and ob and os.path.realpath(ob) == exe and not fn.startswith('0x'):
                    cost.setdefault(fn, 0)
                else:
                    fn = None
            continue
        if line.startswith('calls='):
            after_calls = True
            continue
        if line and (line[0].isdigit() or line[0] in '+-*'):
            if after_calls:
                after_calls = False
            elif fn is not None:
                cost[fn] += int(line.split()[-1])
ranked = sorted(cost, key=lambda f: (-cost[f], f))
with open(dest, 'w') as f:
    f.write('# The toolwire executable\'s functions that run when the gateway starts and serves,\n'
            '# hottest first: lld lays them out together (src/cli/CMakeLists.txt).\n'
            '# Made by scripts/order_file.sh; make it again after large changes.\n')
    f.write('\n'.join(ranked) + '\n')
print(f'order_file: {len(ranked)} functions -> {dest}')
PY
