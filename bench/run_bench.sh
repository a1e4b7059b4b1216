#!/usr/bin/env bash
# Time of `ttlplan run` (plan + lower + generate C++ + g++ build + emulate + compare) per kernel,
# and the emulator's tiles per second. Usage: bench/run_bench.sh [BUILD_DIR] (default build).
# The issue's target: the multicore matmul on an 8x8 grid under 30 s on the 2-core machine.
set -euo pipefail
cd "$(dirname "$0")/.."
ttlplan=${1:-build}/tools/ttlplan
printf "%-44s %8s %8s %8s %8s %12s %s\n" kernel lower_s build_s emul_s total_s tiles/s verdict
bench() {
  local name=$1
  shift
  local start end out
  start=$(date +%s.%N)
  out=$("$ttlplan" run "$@" 2>&1) || true
  end=$(date +%s.%N)
  local times tiles verdict
  times=$(sed -n 's/.*lower \([0-9.]*\) s, build \([0-9.]*\) s, emulate \([0-9.]*\) s.*/\1 \2 \3/p' <<<"$out")
  tiles=$(sed -n 's/^emulator: .* (\([0-9.]*\) tiles\/s)$/\1/p' <<<"$out" | tail -1)
  verdict=$(grep -oE '^(PASS|FAIL)' <<<"$out" | tail -1)
  read -r lower build emul <<<"$times"
  printf "%-44s %8s %8s %8s %8.2f %12s %s\n" "$name" "$lower" "$build" "$emul" \
    "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')" "${tiles:-?}" "${verdict:-?}"
}
bench "matmul_grid 8x8 grid, 1x1 blocks, K 8" tests/run/matmul_grid.ttl --bind GY=8,GX=8,BM=1,BN=1,BK=8,WM=8,WN=8
bench "matmul_grid 8x8 grid, 1x1 blocks, K 1x8" tests/run/matmul_grid.ttl --bind GY=8,GX=8,BM=1,BN=1,BK=1,WM=8,WN=8
bench "examples/matmul_multicore (auto grid)" examples/matmul_multicore.ttl
bench "examples/matmul_mcast_2d (4x4 grid)" examples/matmul_mcast_2d.ttl
bench "examples/eltwise_add (auto grid)" examples/eltwise_add.ttl
