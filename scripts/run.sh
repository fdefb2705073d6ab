#!/usr/bin/env bash
# Installs, builds and runs toolwire's main job on an embedded offline default:
# the gateway (`toolwire serve`) on its built-in scripted model, with tools the
# gateway runs itself (a to-do list in SQLite, read-only file tools here).
# It starts the gateway on a free port, sends an OpenAI-style request with
# curl, prints the answer — two tool rounds happened inside the gateway —
# streams a second request as Anthropic SSE, and stops the gateway.
# Interactive use: build/src/cli/toolwire serve   (then point any SDK at it)
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc)" --target toolwire
tw=build/src/cli/toolwire
data=build/demo-data
rm -rf "$data"
mkdir -p "$data"

echo "== toolwire serve (offline scripted model, server-side tools)"
"$tw" serve --listen 127.0.0.1:0 --data-dir "$data" >"$data/serve.out" 2>"$data/serve.log" &
pid=$!
trap 'kill "$pid" 2>/dev/null || true' EXIT
for _ in $(seq 100); do
  grep -q listening "$data/serve.out" 2>/dev/null && break
  kill -0 "$pid" 2>/dev/null || { cat "$data/serve.log"; exit 1; }
  sleep 0.05
done
url=$(sed -E 's/.* on (http[^ ]+)$/\1/' "$data/serve.out")
echo "gateway at $url"

echo "== POST /v1/chat/completions: \"add 'buy milk' to my to-do list\""
curl -sS "$url/v1/chat/completions" -H 'content-type: application/json' \
  -d "{\"model\":\"demo\",\"messages\":[{\"role\":\"user\",\"content\":\"add 'buy milk' to my to-do list\"}]}"
echo
echo "== POST /v1/messages (stream): \"show my to-do list\""
curl -sS -N "$url/v1/messages" -H 'content-type: application/json' -H 'anthropic-version: 2023-06-01' \
  -d '{"model":"demo","max_tokens":256,"stream":true,"messages":[{"role":"user","content":"show my to-do list"}]}'
echo
echo "== WebSocket conductor: a device that runs its own tools (examples/conductor_device.py)"
ws_url="ws://${url#http://}/v1/conductor"
timeout 30 /usr/bin/python3 examples/conductor_device.py "$ws_url" "call get_battery and get_location"
echo "== gateway log"
kill -TERM "$pid"
wait "$pid"
trap - EXIT
cat "$data/serve.log"
