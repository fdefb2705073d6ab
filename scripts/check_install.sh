#!/usr/bin/env bash
# Installs a build into a temporary prefix and builds examples/embed against
# it, as a project outside this tree would (find_package(toolwire)); runs the
# program and checks what it printed. Also fails when the installed package
# names a path of the source or build tree (a private include root leaking).
#   scripts/check_install.sh [build dir, default build]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cmake --install "$build" --prefix "$work/prefix" >/dev/null
pkg="$work/prefix/lib/cmake/toolwire"
[ -f "$pkg/toolwireConfig.cmake" ] || { echo "check_install: no $pkg/toolwireConfig.cmake"; exit 1; }
[ -x "$work/prefix/bin/toolwire" ] || { echo "check_install: no bin/toolwire installed"; exit 1; }
if grep -n -e private_include -e "$PWD" "$pkg"/*.cmake; then
  echo "check_install: the installed package names a path of the source or build tree"
  exit 1
fi

cmake -S examples/embed -B "$work/embed" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/embed"
for program in toolwire_embed toolwire_embed_all; do
  "$work/embed/$program" | tee "$work/out.txt"
  for want in 'translate openai_chat -> anthropic_messages: {' \
              'agent: call get_weather {"city":"Paris"}' \
              'agent: answer after 2 model calls: Forecast: sunny, 18C in Paris' \
              'toolwire_embed: ok'; do
    grep -qF -- "$want" "$work/out.txt" || { echo "check_install: $program did not print: $want"; exit 1; }
  done
done
echo "check_install: examples/embed built and ran against the installed package"
