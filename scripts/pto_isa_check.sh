#!/usr/bin/env bash
# Compiles the pto-isa C++ that `ttlplan compile --target pto` writes for the shipped examples
# against hw-native-sys/pto-isa's own headers in its CPU-simulation mode (-D__CPU_SIM), the
# independent check of docs/pto.md ("Checked against pto-isa"): every instruction, tile type and
# signature the generator emits must be one pto-isa declares. Not part of the test suite (CI has
# no pto-isa checkout); run it by hand:
#   scripts/pto_isa_check.sh build/tools/ttlplan PATH/TO/pto-isa
# pto-isa's headers need two things g++ 12 and clang 14 do not give on their own: <cstdint>
# before include/pto/common/type.hpp, and `static_assert(false, ...)` in templates (accepted from
# g++ 13 and clang 17): with an older compiler the script copies include/ and rewrites those into
# a dependent false.
set -euo pipefail
ttlplan=${1:?usage: $0 TTLPLAN PTO_ISA_DIR}
pto=${2:?usage: $0 TTLPLAN PTO_ISA_DIR}
cxx=${CXX:-g++}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$pto/include" "$work/include"
{ grep -rl 'static_assert(false' "$work/include" || true; } | xargs -r sed -i \
  's/static_assert(false,/static_assert(sizeof(int*) == 0 \&\& !std::is_void_v<void>,/'
failed=0
check() { # FILE [BINDING]
  local file=$1 bind=${2:-} out="$work/out-$(basename "$1" .ttl)"
  "$ttlplan" compile --target pto ${bind:+--bind "$bind"} "$root/examples/$file" -o "$out" >/dev/null
  for kernel in "$out"/*.cpp; do
    if "$cxx" -std=c++20 -D__CPU_SIM -fsyntax-only -I "$work/include" -include cstdint \
        -include type_traits "$kernel" 2> "$work/errors"; then
      echo "ok    $file ${bind:+($bind) }$(basename "$kernel")"
    else
      echo "FAIL  $file ${bind:+($bind) }$(basename "$kernel")"
      head -20 "$work/errors"
      failed=1
    fi
  done
}
check eltwise_add.ttl
check matmul_single_core.ttl
check softmax_row.ttl
check eltwise_add_template.ttl BM=2,BN=4,WM=4,WN=2
check bias_gelu_template.ttl BM=2,BN=4,WM=4,WN=2
check softmax_rows_template.ttl BR=1,WR=8
check matmul_template.ttl BM=2,BN=4,BK=4,WM=4,WN=2
exit $failed
