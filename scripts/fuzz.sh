#!/usr/bin/env bash
# scripts/fuzz.sh: build and run ttlplan's libFuzzer harnesses (tests/fuzz, docs/fuzzing.md).
#
# Usage: scripts/fuzz.sh [SECONDS_PER_HARNESS] [HARNESS...]
#        scripts/fuzz.sh --help
#
#   SECONDS_PER_HARNESS  how long each harness runs (default 60)
#   HARNESS              any of: fuzz_parse_verify fuzz_print_roundtrip fuzz_alloc fuzz_plan
#                        fuzz_lower_codegen (default: all five, in that order)
#
# Steps: configure build-fuzz/ with clang (-DTTLPLAN_BUILD_FUZZ=ON, tests and benchmarks off,
# RelWithDebInfo at -O1 -g with assertions on), build the harnesses with -j2, gather the seed
# corpus (examples/*.ttl, tests/**/*.ttl and *.mlir, each `// -----` chunk of them too, the alloc
# CSVs under tests/ and the small ones of data/) into build-fuzz/fuzz-corpus/NAME/,
# run each harness for the given time with tests/fuzz/ttl.dict, and print the executions per
# harness and a summary. Crash, leak, timeout and out-of-memory inputs are saved under
# build-fuzz/fuzz-artifacts/NAME/; reproduce one with `build-fuzz/tests/fuzz/NAME FILE`.
#
# Exit status: 0 when no harness found anything, 1 when any did, 2 on a usage error.
#
# Environment:
#   FUZZ_JOBS=N        build parallelism (default 2)
#   FUZZ_KEEP_GOING=1  run libFuzzer in fork mode and go on after a crash, leak or timeout (finds
#                      several bugs per run; the executions are then the fork mode's count)
#   FUZZ_FORKS=N       fork mode with N worker processes per harness (implies FUZZ_KEEP_GOING)
#   FUZZ_PARALLEL=1    run the harnesses at the same time instead of one after another (with
#                      FUZZ_FORKS=3, five harnesses keep 15 cores busy)
#   FUZZ_NO_BUILD=1    skip configure and build (use the harnesses already in build-fuzz/)
#   FUZZ_EXTRA_ARGS    more libFuzzer flags for every harness (e.g. "-max_len=4096")
set -euo pipefail

ALL_HARNESSES=(fuzz_parse_verify fuzz_print_roundtrip fuzz_alloc fuzz_plan fuzz_lower_codegen)

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }

if [[ ${1:-} == -h || ${1:-} == --help ]]; then
  usage
  exit 0
fi

seconds=60
if [[ $# -gt 0 ]]; then
  if [[ ! $1 =~ ^[0-9]+$ || $1 -eq 0 ]]; then
    echo "fuzz.sh: SECONDS_PER_HARNESS must be a positive integer, got '$1'" >&2
    usage >&2
    exit 2
  fi
  seconds=$1
  shift
fi
harnesses=("$@")
[[ ${#harnesses[@]} -eq 0 ]] && harnesses=("${ALL_HARNESSES[@]}")
for h in "${harnesses[@]}"; do
  if [[ ! " ${ALL_HARNESSES[*]} " == *" $h "* ]]; then
    echo "fuzz.sh: unknown harness '$h' (known: ${ALL_HARNESSES[*]})" >&2
    exit 2
  fi
done

root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build-fuzz
jobs=${FUZZ_JOBS:-2}
dict=$root/tests/fuzz/ttl.dict

# --- Configure and build -------------------------------------------------------------------------
if [[ ${FUZZ_NO_BUILD:-0} != 1 ]]; then
  command -v clang++ >/dev/null || { echo "fuzz.sh: clang++ not found (apt-get install clang)" >&2; exit 1; }
  generator=()
  command -v ninja >/dev/null && [[ ! -f $build/Makefile ]] && generator=(-G Ninja)
  # -O1 -g without -DNDEBUG: assertions stay on, the sanitizers stay fast enough.
  CC=clang CXX=clang++ cmake -S "$root" -B "$build" "${generator[@]}" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g" \
    -DTTLPLAN_BUILD_FUZZ=ON -DTTLPLAN_BUILD_TESTS=OFF -DTTLPLAN_BUILD_BENCH=OFF
  cmake --build "$build" -j "$jobs" --target "${harnesses[@]}"
fi

# --- Seed corpus ---------------------------------------------------------------------------------
# Copies (never links) the repository's inputs; the corpus folder also keeps what libFuzzer adds,
# so later runs start from there.
seed_ttl() { # DIR: TTL/MLIR seeds, whole files and each `// -----` chunk
  local dir=$1 f base
  mkdir -p "$dir"
  while IFS= read -r -d '' f; do
    base=$(echo "${f#"$root"/}" | tr '/' '_')
    cp -f "$f" "$dir/seed_$base"
    if grep -q '^// -----' "$f"; then
      awk -v out="$dir/seed_${base}.chunk" \
        '/^\/\/ -----/ { n++; next } { print > (out n) }' "$f"
    fi
  done < <(find "$root/examples" -maxdepth 1 -name '*.ttl' -print0
           find "$root/tests" \( -name '*.ttl' -o -name '*.mlir' \) -size -64k -print0)
}
seed_csv() { # DIR: alloc CSVs
  local dir=$1 f base first
  mkdir -p "$dir"
  while IFS= read -r -d '' f; do
    first=
    IFS= read -r first <"$f" || true
    [[ $first == *lower* ]] || continue # only alloc CSVs (id,lower,upper,size,...)
    base=$(echo "${f#"$root"/}" | tr '/' '_')
    cp -f "$f" "$dir/seed_$base"
  done < <(find "$root/tests" "$root/data" -name '*.csv' -size -16k -print0)
}

# --- Run -----------------------------------------------------------------------------------------
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
command -v llvm-symbolizer >/dev/null && export ASAN_SYMBOLIZER_PATH=${ASAN_SYMBOLIZER_PATH:-$(command -v llvm-symbolizer)}

forks=${FUZZ_FORKS:-0}
[[ $forks =~ ^[0-9]+$ ]] || { echo "fuzz.sh: FUZZ_FORKS must be a number, got '$forks'" >&2; exit 2; }
[[ $forks -gt 0 ]] && FUZZ_KEEP_GOING=1
results=$build/fuzz-results
rm -rf "$results"
mkdir -p "$results"

# Runs harness $1; writes its executions and status to $results/NAME.{executions,status}.
run_harness() {
  local h=$1
  local bin=$build/tests/fuzz/$h
  [[ -x $bin ]] || { echo "fuzz.sh: $bin is not built" >&2; exit 1; }
  local corpus=$build/fuzz-corpus/$h
  local artifacts=$build/fuzz-artifacts/$h
  local log=$build/fuzz-logs/$h.log
  local before found n rc args
  mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
  if [[ $h == fuzz_alloc ]]; then seed_csv "$corpus"; else seed_ttl "$corpus"; fi
  before=$(find "$artifacts" -type f | wc -l)

  args=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536
        -dict="$dict" -artifact_prefix="$artifacts/" -print_final_stats=1
        -close_fd_mask=1) # the ILP solvers write to stdout
  if [[ ${FUZZ_KEEP_GOING:-0} == 1 ]]; then
    args+=(-fork="$((forks > 0 ? forks : 1))" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
  fi
  # shellcheck disable=SC2206 # FUZZ_EXTRA_ARGS is a list of flags
  args+=(${FUZZ_EXTRA_ARGS:-})

  echo "=== $h: $seconds s, corpus $(find "$corpus" -type f | wc -l) files, log $log"
  rc=0
  (cd "$artifacts" && "$bin" "${args[@]}" "$corpus") >"$log" 2>&1 || rc=$?

  # Executions: the final stats, or in fork mode the last progress line's "#N".
  n=$(grep -oE 'stat::number_of_executed_units: [0-9]+' "$log" | tail -1 | awk '{print $2}' || true)
  [[ -z $n ]] && n=$(grep -oE '^#[0-9]+' "$log" | tail -1 | tr -d '#' || true)
  echo "${n:-?}" >"$results/$h.executions"
  found=$(($(find "$artifacts" -type f | wc -l) - before))
  if [[ $rc -ne 0 || $found -gt 0 ]]; then
    echo "FOUND (exit $rc, $found new artifact(s) in $artifacts)" >"$results/$h.status"
    grep -E '^==[0-9]+==ERROR|SUMMARY:|runtime error|FUZZ INVARIANT|Test unit written' "$log" |
      head -20 | sed "s/^/    $h: /" || true
  else
    echo ok >"$results/$h.status"
  fi
  echo "    $h: executions: ${n:-?}  status: $(cat "$results/$h.status")"
}

for h in "${harnesses[@]}"; do
  if [[ ${FUZZ_PARALLEL:-0} == 1 ]]; then run_harness "$h" & else run_harness "$h"; fi
done
wait
declare -A executions status
failed=0
for h in "${harnesses[@]}"; do
  executions[$h]=$(cat "$results/$h.executions" 2>/dev/null || echo "?")
  status[$h]=$(cat "$results/$h.status" 2>/dev/null || echo "did not run")
  [[ ${status[$h]} == ok ]] || failed=1
done

echo
echo "=== Summary ($seconds s per harness)"
printf '%-22s %12s  %s\n' harness executions status
for h in "${harnesses[@]}"; do
  printf '%-22s %12s  %s\n' "$h" "${executions[$h]}" "${status[$h]}"
done
exit $failed
