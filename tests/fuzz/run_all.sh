#!/usr/bin/env bash
# Runs every fuzz target built in BUILD_DIR, seeded from its corpus folder;
# any crash fails the run. TOTAL_SECONDS is the budget of the whole stage,
# shared equally (at least 1 s each), so adding a target does not make CI
# longer.
set -euo pipefail
build=${1:?build dir}; total=${2:-160}
here=$(cd "$(dirname "$0")" && pwd)
shopt -s nullglob
bins=()
# Targets with an open, understood-to-be-unexplained finding are built but not
# run here (they would fail CI at random); each line of quarantine.txt names
# one and says why. Run them by hand: build-check/tests/fuzz/NAME CORPUS.
quarantined=$(grep -v '^#' "$here/quarantine.txt" 2>/dev/null | awk '{print $1}' || true)
for bin in "$build"/tests/fuzz/fuzz_*; do
  [ -x "$bin" ] || continue
  if grep -qx "$(basename "$bin")" <<<"$quarantined"; then
    echo "fuzz: $(basename "$bin") quarantined (tests/fuzz/quarantine.txt)"
    continue
  fi
  bins+=("$bin")
done
((${#bins[@]})) || { echo "fuzz: no targets in $build"; exit 1; }
seconds=$(( total / ${#bins[@]} ))
(( seconds >= 1 )) || seconds=1
count=0
for bin in "${bins[@]}"; do
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
echo "fuzz: $count targets ran clean (${seconds}s each, ${total}s budget)"
