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
  # The registry can fail for a moment: npm retries each fetch, and the whole
  # install is tried three times before the setup gives up and shows npm's errors.
  for attempt in 1 2 3; do
    if (cd tests/npm && npm install --no-audit --no-fund --loglevel=error \
          --fetch-retries=5 --fetch-retry-mintimeout=2000 --fetch-retry-maxtimeout=30000 \
          >/dev/null 2>/tmp/toolwire-npm-install.err); then
      break
    fi
    echo "setup: npm install failed (attempt $attempt of 3):"
    tail -n 20 /tmp/toolwire-npm-install.err
    if [ "$attempt" -eq 3 ]; then exit 1; fi
    sleep $((attempt * 15))
  done
  touch tests/npm/node_modules
fi
