#!/usr/bin/env bash
# Installs, builds and runs the whole test suite:
#   1. Release build (-O3, warnings as errors), every CTest test, then an
#      install of it that examples/embed is built against and run;
#   2. one clang build with ASan+UBSan: the same tests, then every libFuzzer
#      target for a share of one fixed budget.
# Set TOOLWIRE_SKIP_SANITIZE=1 / TOOLWIRE_SKIP_FUZZ=1 to skip stages locally,
# TOOLWIRE_FUZZ_SECONDS to change the fuzz stage's total budget (default 160 s,
# shared by all targets).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh

jobs=$(nproc)

# ccache keys relative to the checkout, without its folder in debug info, so
# that a fresh clone in another folder (CI's) reuses what an earlier build on
# this machine compiled, in each stage.
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true
ccache --max-size=8G >/dev/null 2>&1 || true
stage() { echo "== $1 (${SECONDS}s so far)"; }

stage "format (clang-format, .clang-format)"
./scripts/check_format.sh

stage "build (Release, warnings as errors)"
# The benchmarks are compiled by the clang build below (they are run by hand,
# from a Release build: docs/benchmarks.md), not twice.
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DTOOLWIRE_WARNINGS_AS_ERRORS=ON \
  -DTOOLWIRE_BENCH=OFF >/dev/null
cmake --build build -j "$jobs"
stage "test"
ctest --test-dir build --output-on-failure -j "$jobs"
stage "install (examples/embed against the installed package)"
./scripts/check_install.sh build

# One clang build serves the last two stages: every test under ASan+UBSan, and
# the libFuzzer targets (also under ASan+UBSan), from the same objects; it
# also proves that the benchmarks compile.
# -O1 -g1: ASan's recommended level, with line tables for its reports. (-O0
# compiles in less than half the time, but its ASan frames are so large that
# the hardening tests' JSON 1,000 levels deep, which the server must handle,
# overflow a thread's stack: hardening_json_depth_test fails there.)
if [ "${TOOLWIRE_SKIP_SANITIZE:-0}" != 1 ] || [ "${TOOLWIRE_SKIP_FUZZ:-0}" != 1 ]; then
  stage "build (clang, ASan+UBSan, libFuzzer targets)"
  CXX=clang++ cmake -S . -B build-check -G Ninja -DCMAKE_BUILD_TYPE=Debug \
    -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" -DTOOLWIRE_SANITIZE=ON -DTOOLWIRE_FUZZ=ON \
    -DTOOLWIRE_BENCH=ON >/dev/null
  cmake --build build-check -j "$jobs"
fi

if [ "${TOOLWIRE_SKIP_SANITIZE:-0}" != 1 ]; then
  stage "test (ASan+UBSan)"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-check --output-on-failure -j "$jobs"
fi

if [ "${TOOLWIRE_SKIP_FUZZ:-0}" != 1 ]; then
  stage "fuzz (libFuzzer, ${TOOLWIRE_FUZZ_SECONDS:-160}s in all)"
  ./tests/fuzz/run_all.sh build-check "${TOOLWIRE_FUZZ_SECONDS:-160}"
fi
echo "== all stages passed in ${SECONDS}s"
