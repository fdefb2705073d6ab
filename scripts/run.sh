#!/usr/bin/env bash
# Installs, builds and runs toolwire's main job on an embedded offline default.
# Today: `toolwire convert` translating a bundled Anthropic tool-use stream into
# the OpenAI Chat Completions stream format (and a request, both ways).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc)" --target toolwire
tw=build/src/cli/toolwire
echo "== Anthropic request -> OpenAI request"
$tw convert --from anthropic --to openai --kind request < tests/data/wire/anthropic-messages-tool-use.request.json
echo "== Anthropic SSE stream -> OpenAI SSE stream"
$tw convert --from anthropic --to openai --kind stream < tests/data/wire/anthropic-messages-stream-tool-use.sse
