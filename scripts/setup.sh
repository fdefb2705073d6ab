#!/usr/bin/env bash
# Installs everything toolwire needs to build and test on Debian 12:
# Debian's -dev packages (and chromium: the console's browser test), and the official
# client SDKs, MCP servers and playwright-core (npm) used as test peers.
# Safe to run again: it installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config clang clang-format libclang-rt-14-dev lld
  libsimdjson-dev nlohmann-json3-dev libfmt-dev libspdlog-dev libcli11-dev
  libgtest-dev libgmock-dev libbenchmark-dev libvalijson-dev libre2-dev
  libcurl4-openssl-dev libboost-dev libboost-system-dev libsqlite3-dev libssl-dev
  libyaml-cpp-dev libhiredis-dev redis-server haproxy wrk curl ca-certificates ripgrep python3 python3-websockets
  openssl nginx libnghttp2-dev libmimalloc-dev nghttp2-client chromium
)

missing=()
# Node.js and npm (test peers): the machine's own install if it has one (it may
# ship npm inside its nodejs package), else Debian's.
command -v node >/dev/null 2>&1 || PACKAGES+=(nodejs)
command -v npm >/dev/null 2>&1 || PACKAGES+=(npm)
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Test peers: the official SDKs, into the git-ignored tests/npm/node_modules.
if [ ! -d tests/npm/node_modules ] || [ tests/npm/package.json -nt tests/npm/node_modules ]; then
  echo "setup: installing npm test peers"
  (cd tests/npm && npm install --no-audit --no-fund --loglevel=error >/dev/null)
  touch tests/npm/node_modules
fi
