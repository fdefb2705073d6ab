#!/usr/bin/env bash
# Runs every fuzz target built in BUILD_DIR for SECONDS each, seeded from its
# corpus folder; any crash fails the run.
set -euo pipefail
build=${1:?build dir}; seconds=${2:-20}
here=$(cd "$(dirname "$0")" && pwd)
shopt -s nullglob
count=0
for bin in "$build"/tests/fuzz/fuzz_*; do
  [ -x "$bin" ] || continue
  name=$(basename "$bin")
  corpus=$(mktemp -d)
  seeds=("$here/corpus/${name#fuzz_}")
  [ -d "${seeds[0]}" ] || seeds=()
  echo "fuzz: $name for ${seconds}s"
  "$bin" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=0 "$corpus" "${seeds[@]}" 2>"$corpus.log" \
    || { tail -50 "$corpus.log"; echo "fuzz: $name FAILED"; exit 1; }
  grep -E "^Done|^#[0-9]+.*DONE" "$corpus.log" | tail -1 || true
  count=$((count+1))
done
echo "fuzz: $count targets ran clean"
