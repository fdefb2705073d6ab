#!/usr/bin/env bash
# Installs, builds and runs toolwire's main job on an embedded offline default:
# the `toolwire chat` demo on its built-in scripted model, with real tools (the
# read-only built-ins in this directory and a to-do list kept in SQLite).
# Two turns, two runs: the second run lists what the first one stored.
# Interactive use: build/src/cli/toolwire chat
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc)" --target toolwire
tw=build/src/cli/toolwire
data=build/demo-data
rm -rf "$data"
echo "== toolwire chat (offline scripted model): add a to-do"
$tw chat --data-dir "$data" --once "add 'buy milk' to my to-do list"
echo "== a second run lists what the first stored"
$tw chat --data-dir "$data" --once "show my to-do list"
echo "== and toolwire convert: an Anthropic tool-use stream as OpenAI SSE"
$tw convert --from anthropic --to openai --kind stream < tests/data/wire/anthropic-messages-stream-tool-use.sse
