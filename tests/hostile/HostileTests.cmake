# Hostile inputs (issue 14): each class of crash, hang or silent wrong answer found by hand or by
# fuzzing (tests/fuzz) keeps one input here. Every test has a TIMEOUT far above its run time, so a
# hang fails it instead of stalling the suite; none measures speed.
set(hostile_dir ${CMAKE_CURRENT_SOURCE_DIR}/hostile)
function(ttlplan_hostile_test name expect lines contains)
  ttlplan_cli_test(hostile_${name} ${expect} ${lines} "${contains}" ${ARGN})
  set_tests_properties(cli.hostile_${name} PROPERTIES TIMEOUT 120)
endfunction()

# Checked arithmetic (support/Checked.h): overflows are located errors naming the value.
ttlplan_hostile_test(work_overflow 1 1
                     "work_overflow.ttl:8:3: error: work \\[9223372036854775807, 9223372036854775807\\] has more items than fit in 64 bits"
                     plan ${hostile_dir}/work_overflow.ttl)
ttlplan_hostile_test(cb_bytes_overflow 1 1
                     "cb_bytes_overflow.ttl:10:12: error: CB %cba needs 2 x 1 tiles of 2048 B x 99,999,999,999 blocks, more than 1,099,511,627,776 B"
                     plan ${hostile_dir}/cb_bytes_overflow.ttl)
# The L1 fix search bisects under the step's deadline: 10^8 blocks end at once, not after 10^8
# solves. 337 = floor((1,395,424 - 8,192 - 4,096) / 4,096): wormhole_b0's free L1 less %cbb
# and %cbc, in blocks of 2 bf16 tiles.
ttlplan_hostile_test(cb_huge_count 1 1 "cb_huge_count.ttl:8:3: error: L1: .*no single block_count change fits"
                     plan --time-limit 0.5 ${hostile_dir}/cb_huge_count.ttl)
ttlplan_hostile_test(cb_one_huge_count 1 1 "block_count of %cba from 100000000 to 337 frees"
                     plan ${hostile_dir}/cb_one_huge_count.ttl)
# Flags and CSVs: no silent clamping; a byte order mark (spreadsheets write one) is not a column.
ttlplan_hostile_test(capacity_overflow 2 1 "expected an integer in .*got '99999999999999999999'"
                     alloc ${hostile_dir}/bom.csv --capacity 99999999999999999999)
ttlplan_hostile_test(csv_byte_order_mark 0 1 "alloc: optimal; peak 110 B" alloc ${hostile_dir}/bom.csv)
# An endless input ends in a refusal (a file ttlplan cannot read: usage, exit 2), not in
# std::bad_alloc (exit 134).
ttlplan_hostile_test(endless_input 2 1 "'/dev/zero' is larger than 256 MiB" verify /dev/zero)
# ... for every command that reads a kernel, and for a .py name (the Python front end's path)
ttlplan_hostile_test(endless_input_plan 2 1 "'/dev/zero' is larger than 256 MiB" plan /dev/zero)
add_test(NAME cli.hostile_endless_python_input
         COMMAND bash -c "d=$(mktemp -d) && ln -s /dev/zero \"$d/k.py\" && \"$0\" plan \"$d/k.py\"; rc=$?; rm -rf \"$d\"; test $rc -eq 2"
                 $<TARGET_FILE:ttlplan>)
# run --timeout stops an emulated program that does not end (10^15 iterations per thread): the
# emulator's report names each thread and the TTL op it is blocked in or called last; the work
# directory goes with it (the reference interpreter's report: tests/reference).
ttlplan_hostile_test(run_timeout 1 -1
                     "did not finish within --timeout 2 s and was stopped .*emulator: error: timeout: the run did not finish within 2 s; the unfinished threads:\n  core \\(0,0\\) reader: (running, its last kernel API call|blocked in cb_reserve_back[^\n]*)\n    at [^\n]*endless_loop.ttl:[0-9]+:[0-9]+: [^\n]*\n  core \\(0,0\\) compute: [^\n]*\n    at [^\n]*endless_loop.ttl:[0-9]+:[0-9]+: [^\n]*\n  core \\(0,0\\) writer: .*exit status 4"
                     run --timeout 2 ${hostile_dir}/endless_loop.ttl)
# Threads that never pair up (10^15 iterations against one fewer): the cost model cannot sample
# them and refuses to walk every step (fuzz_plan found the hang); the plan stands, with a warning.
ttlplan_hostile_test(unpaired_endless_loop 0 -1
                     "warning: no predicted time: .*blocks forever in wait on empty CB %cbc.*limit of 20000000 steps"
                     plan ${hostile_dir}/unpaired_endless_loop.ttl)
ttlplan_hostile_test(run_timeout_nan 2 1 "--timeout: expected a number in \\[0, 1000000\\], got 'nan'"
                     run --timeout nan ${hostile_dir}/endless_loop.ttl)
# ^C or kill of `run` kills its child's process group and removes the work directory.
add_test(NAME cli.hostile_interrupt_run
         COMMAND bash ${hostile_dir}/interrupt_run.sh $<TARGET_FILE:ttlplan>
                 ${hostile_dir}/endless_loop.ttl)
set_tests_properties(cli.hostile_interrupt_run PROPERTIES TIMEOUT 180)
# Planner rejections carry one location prefix (ExpectExit fails a doubled one).
ttlplan_hostile_test(grid_too_large 1 1
                     "grid_too_large.ttl:8:3: error: grid \\[9, 9\\] does not fit the device's 8 x 8 compute grid \\(wormhole_b0\\)"
                     plan ${hostile_dir}/grid_too_large.ttl)
# Every command ends with exit 0, 1 or 2 on mutants of every example and hostile input: no
# signal, no sanitizer report, no hang, one error prefix (exit_codes.py says how they are made).
add_test(NAME cli.hostile_exit_codes
         COMMAND python3 ${hostile_dir}/exit_codes.py $<TARGET_FILE:ttlplan> ${PROJECT_SOURCE_DIR}
                 --mutants 5 --jobs 2)
set_tests_properties(cli.hostile_exit_codes PROPERTIES TIMEOUT 1200)
# A tensor type beyond 2^48 elements is an error naming it, before any size is computed.
ttlplan_hostile_test(tensor_too_large 1 3
                     "tensor_too_large.ttl:8:3: error: tensor<4294967296x4294967296xbf16, #ttl.layout<dram, interleaved>> has more than 2\\^48 elements"
                     verify ${hostile_dir}/tensor_too_large.ttl)
# Attributes the passes write are checked when a pass reads them: a hand-made planned grid of 2^62
# rows is refused, not used to size a vector.
ttlplan_hostile_test(grid_planned_huge 1 3
                     "grid_planned_huge.ttl:8:3: error: expand-threads needs the planned grid \\(ttl.grid_planned = \\[rows, cols\\], sides in \\[1, 1024\\]\\)"
                     lower ${hostile_dir}/grid_planned_huge.ttl --pipeline expand-threads)
# kill -9 of `run`: its emulated program ends with it and the next run removes its work directory.
add_test(NAME cli.hostile_kill_run
         COMMAND bash ${hostile_dir}/kill_run.sh $<TARGET_FILE:ttlplan> ${hostile_dir}/endless_loop.ttl)
set_tests_properties(cli.hostile_kill_run PROPERTIES TIMEOUT 300)
# Lines longer than 1 MiB (support/ReadFile.h kMaxLineBytes) are a located error, in TTL and CSV;
# the inputs are written at configure time rather than kept in the repository.
string(REPEAT "x" 1100000 long_token)
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/long_line.ttl "module {\n// ${long_token}\n}\n")
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/long_line.csv "id,lower,upper,size\nb0,0,1,1${long_token}\n")
ttlplan_hostile_test(long_line_ttl 1 3
                     "long_line.ttl:2:1: error: line 2 is 1100003 bytes long; a line may hold at most 1 MiB"
                     verify ${CMAKE_CURRENT_BINARY_DIR}/long_line.ttl)
ttlplan_hostile_test(long_line_csv 1 1
                     "long_line.csv:2: line 2 is 1100008 bytes long; a line may hold at most 1 MiB"
                     alloc ${CMAKE_CURRENT_BINARY_DIR}/long_line.csv)
# An absent attribute reads as empty (ir::Attribute), and a ttl.kernel without a name is a verifier
# error: `plan` used to dereference the missing sym_name.
ttlplan_hostile_test(kernel_without_name 1 -1
                     "kernel_without_name.mlir:4:3: error: ttl.kernel needs a name: sym_name = \"NAME\""
                     plan ${hostile_dir}/kernel_without_name.mlir)
# A kernel location naming a file that is not UTF-8: the JSON ttlplan writes replaces the bytes
# (U+FFFD) instead of aborting on nlohmann's type_error 316 (exit 134 before; fuzz_lower_codegen).
ttlplan_hostile_test(invalid_utf8_plan_json 0 0 ""
                     plan ${hostile_dir}/invalid_utf8_location.ttl --json ${CMAKE_CURRENT_BINARY_DIR}/utf8-plan.json)
ttlplan_hostile_test(invalid_utf8_compile 0 -1 ""
                     compile ${hostile_dir}/invalid_utf8_location.ttl -o ${CMAKE_CURRENT_BINARY_DIR}/utf8-out)
ttlplan_hostile_test(invalid_utf8_pto_cost 0 0 ""
                     cost --target pto ${hostile_dir}/invalid_utf8_location.ttl --json ${CMAKE_CURRENT_BINARY_DIR}/utf8-cost.json)
