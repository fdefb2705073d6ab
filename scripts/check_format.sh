#!/usr/bin/env bash
# Fails when a tracked C++ file differs from what clang-format (.clang-format:
# Google style, 100 columns) makes of it; prints the first differences.
# Fix with: git ls-files '*.cc' '*.h' ':!tests/layering/fixture' | xargs clang-format -i
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "check_format: clang-format is not installed"; exit 1; }
# tests/layering/fixture is data: the layering test expects its lines where they are.
files=$(git ls-files '*.cc' '*.h' ':!tests/layering/fixture')
if ! out=$(echo "$files" | xargs clang-format --dry-run --Werror 2>&1); then
  echo "$out" | head -40
  echo "check_format: $(echo "$out" | grep -c 'error:') lines differ from clang-format's output"
  exit 1
fi
echo "check_format: $(echo "$files" | wc -l) files match .clang-format"
