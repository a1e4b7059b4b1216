#!/usr/bin/env bash
# Does every L1 back end stop at --time-limit, the work before its search included (issue 14)?
# Wall time of `ttlplan alloc` per solver and limit on inputs that used to overrun: 30,000 rows
# that all overlap (quadratic overlap lists and ILP models) and minimalloc's hardest benchmarks
# (capacity-bounded, the ILPs' root LPs); and of `ttlplan plan` on a CB of 10^8 blocks (the L1 fix
# search). Target: wall <= 1.1 x limit + 0.2 s. Usage: bench/time_limits.sh [BUILD_DIR] (default
# build), then bench/time_limits_solvers for the other sub-problems. A benchmark, not a test:
# machines are noisy; compare the columns of one run.
set -euo pipefail
cd "$(dirname "$0")/.."
ttlplan=$(pwd)/${1:-build}/tools/ttlplan
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$work/overlap30k.csv" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("id,lower,upper,size\n")
    for i in range(30000):
        f.write(f"b{i},{i},{60000 - i},{64 + i % 7}\n")
PY
printf "%-28s %-22s %7s %8s %8s %s\n" input solver limit_s wall_s target ok
measure() { # NAME SOLVER LIMIT ARGS...
  local name=$1 solver=$2 limit=$3
  shift 3
  local start end wall target
  start=$(date +%s.%N)
  "$ttlplan" "$@" --time-limit "$limit" >/dev/null 2>&1 || true
  end=$(date +%s.%N)
  wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
  target=$(awk -v l="$limit" 'BEGIN { printf "%.2f", 1.1 * l + 0.2 }')
  printf "%-28s %-22s %7s %8s %8s %s\n" "$name" "$solver" "$limit" "$wall" "$target" \
    "$(awk -v w="$wall" -v t="$target" 'BEGIN { print (w <= t ? "yes" : "NO") }')"
}
solvers=(exact cbc glpk first-fit-decreasing best-fit-decreasing)
for limit in 0.1 1; do
  for s in "${solvers[@]}"; do
    measure "30,000 overlapping rows" "$s" "$limit" alloc "$work/overlap30k.csv" --solver "$s" -o /dev/null
  done
  for f in data/minimalloc/{A,F,K}.1048576.csv; do
    for s in "${solvers[@]}"; do
      measure "minimalloc $(basename "$f")" "$s" "$limit" alloc "$f" --capacity 1048576 --solver "$s" -o /dev/null
    done
  done
  sed 's/!ttl.cb<\[2, 1\], !tile, 2>/!ttl.cb<[2, 1], !tile, 100000000>/' examples/eltwise_add.ttl >"$work/deep.ttl"
  for s in exact cbc glpk; do
    measure "plan: CB of 10^8 blocks" "$s" "$limit" plan "$work/deep.ttl" --solver "$s"
  done
done
echo
# The other planner sub-problems (cb-index, multicast, cores, dst), at the library level.
"$(pwd)/${1:-build}/bench/time_limits_solvers" 0.1 1
