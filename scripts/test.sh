#!/usr/bin/env bash
# Every test: set up, build with AddressSanitizer + UndefinedBehaviorSanitizer, run ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DTTLPLAN_SANITIZE=ON \
      -DTTLPLAN_BUILD_TESTS=ON -DTTLPLAN_BUILD_BENCH=ON \
      -DCMAKE_CXX_FLAGS="-O1" > /dev/null
cmake --build build-asan -j2
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir build-asan --output-on-failure -j2 "$@"
