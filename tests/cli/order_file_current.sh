#!/usr/bin/env bash
# src/cli/toolwire.order is still the executable's: at least MIN_PERCENT of the
# functions it lists are defined in the built toolwire (names change as code
# does; a list gone stale lays out little of what runs and the idle RSS creeps
# back). When this fails: scripts/order_file.sh BUILD_DIR, and commit the list.
#
#   tests/cli/order_file_current.sh TOOLWIRE ORDER_FILE [MIN_PERCENT]
set -euo pipefail
exe=$1 order=$2 min=${3:-80}
listed=$(grep -v '^#' "$order" | sed '/^$/d' | sort -u)
total=$(wc -l <<<"$listed")
found=$(comm -12 <(nm --defined-only "$exe" | awk 'NF == 3 {print $3}' | sort -u) <(echo "$listed") | wc -l)
echo "order file: $found of $total listed functions are in $exe"
if [ $((found * 100)) -lt $((total * min)) ]; then
  echo "order file: under $min %: remake it with scripts/order_file.sh and commit src/cli/toolwire.order" >&2
  exit 1
fi
