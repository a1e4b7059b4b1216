# The pto target's flags (docs/pto.md): what `plan --target pto` refuses and the commands that
# plan for Tenstorrent only so far. The plans and located errors are lit tests beside this file.
ttlplan_cli_test(pto_unknown_device 2 1
                 "unknown Ascend device 'wormhole_b0'; known Ascend devices: ascend_a2a3, ascend_a5"
                 plan --target pto --device wormhole_b0 ${eltwise})
ttlplan_cli_test(pto_grid 2 1 "--grid sets a Tenstorrent compute grid"
                 plan --target pto --grid 2x2 ${eltwise})
ttlplan_cli_test(pto_plan_output 2 1 "-o: under --target pto `plan` writes the report, --json and --html"
                 plan --target pto -o ${CMAKE_CURRENT_BINARY_DIR}/pto.mlir ${eltwise})
ttlplan_cli_test(pto_config 2 1 "--config picks Tenstorrent matmul configs"
                 plan --target pto --config ttnn-default ${eltwise})
ttlplan_cli_test(pto_lower_not_yet 2 1 "--target pto: this command works on Tenstorrent devices only so far"
                 lower --target pto ${eltwise})
# cost and tune --target pto (search/cost/pto/Model.h, search/PtoEvaluator.h). A5 has no cost
# numbers in pto-isa: a usage error names the device that has.
ttlplan_cli_test(pto_cost_a5 2 1 "ascend_a5 has no cost model.*use --device ascend_a2a3"
                 cost --target pto --device ascend_a5 ${eltwise})
ttlplan_cli_test(pto_tune_a5 2 1 "ascend_a5 has no cost model"
                 tune --target pto --device ascend_a5 ${PROJECT_SOURCE_DIR}/examples/eltwise_add_template.ttl)
ttlplan_cli_test(pto_tune_db 2 1 "--db, --resume and --config are for Tenstorrent tuning so far"
                 tune --target pto --db ${CMAKE_CURRENT_BINARY_DIR}/pto.jsonl
                 ${PROJECT_SOURCE_DIR}/examples/eltwise_add_template.ttl)

ttlplan_cli_test(pto_run_force_address 2 1 "--no-validate, --force-cb-address and --pipeline are for the Tenstorrent target"
                 run --target pto --force-cb-address cba=0 ${eltwise})
ttlplan_cli_test(pto_compile_emulator 2 1 "--list-outputs, --emulator, --depfile and --stamp are for the Tenstorrent target so far"
                 compile --target pto --emulator -o ${CMAKE_CURRENT_BINARY_DIR}/pto-out ${eltwise})
ttlplan_cli_test(pto_unknown_target 2 1 "--target: avx not in"
                 plan --target avx ${eltwise})

# The pto emulator (codegen/pto-emu/include, docs/pto.md): hand-written kernels whose flags are
# missing, mis-numbered or reused are reported, a correct double-buffered one is not, and a tile
# past its memory is refused. tests/pto/emulate.py builds each with g++ -Wall -Wextra -Werror.
set(pto_emulate ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/pto/emulate.py
    --include ${PROJECT_SOURCE_DIR}/codegen/pto-emu/include)
set(pto_emu_dir ${CMAKE_CURRENT_SOURCE_DIR}/pto/emu)
add_test(NAME pto.emu.race_missing_flag
         COMMAND ${pto_emulate} ${pto_emu_dir}/race_missing_flag.cpp --expect-fail
                 "race: (V's TADD reads|MTE2's TLOAD writes) ub bytes \\[0, 4096\\) that (MTE2's TLOAD at race.ttl:10:5 writes|V's TADD at race.ttl:11:5 reads), and no flag orders the two")
add_test(NAME pto.emu.deadlock
         COMMAND ${pto_emulate} ${pto_emu_dir}/deadlock.cpp
                 --expect-fail "deadlock: .*\n  V: deadlock.ttl:8:3: wait_flag\\(MTE2, V, 1\\)"
                 --expect-fail "deadlock.ttl:7:3: set_flag\\(MTE2, V, 0\\) is never waited for")
add_test(NAME pto.emu.flag_set_twice
         COMMAND ${pto_emulate} ${pto_emu_dir}/flag_set_twice.cpp --expect-fail
                 "twice.ttl:7:3: set_flag\\(MTE2, V, 0\\): the flag is set again before a wait_flag took the set at twice.ttl:5:3")
add_test(NAME pto.emu.tassign_out_of_range
         COMMAND ${pto_emulate} ${pto_emu_dir}/tassign_out_of_range.cpp --expect-fail
                 "range.ttl:3:3: TLOAD: a tile of 4096 B at ub offset 194560 runs past the memory's 196608 B")
add_test(NAME pto.emu.double_buffered COMMAND ${pto_emulate} ${pto_emu_dir}/double_buffered.cpp)
add_test(NAME pto.emu.expand_and_scalar_ops
         COMMAND ${pto_emulate} ${pto_emu_dir}/expand_and_scalar_ops.cpp)
# The generated kernel of tests/pto/plan_eltwise.ttl on 4 emulated cores, every element checked.
add_test(NAME pto.eltwise_emulated
         COMMAND ${pto_emulate} ${CMAKE_CURRENT_SOURCE_DIR}/pto/eltwise_harness.cpp
                 --ttlplan $<TARGET_FILE:ttlplan> --ttl ${CMAKE_CURRENT_SOURCE_DIR}/pto/plan_eltwise.ttl
                 --kernel chain)
# The same kernel with a flag broken on purpose (--mutate OLD@@NEW on the generated file): the
# emulator's report fails the run with every EXPECTED message.
function(pto_eltwise_mutant name mutation)
  set(expects)
  foreach(expected IN LISTS ARGN)
    list(APPEND expects --expect-fail ${expected})
  endforeach()
  add_test(NAME pto.eltwise_${name}
           COMMAND ${pto_emulate} ${CMAKE_CURRENT_SOURCE_DIR}/pto/eltwise_harness.cpp
                   --ttlplan $<TARGET_FILE:ttlplan> --ttl ${CMAKE_CURRENT_SOURCE_DIR}/pto/plan_eltwise.ttl
                   --kernel chain "--mutate=${mutation}" ${expects})
endfunction()
# - V's wait for %cba's ready flag takes %cbb's id instead: V waits twice per block on one id
#   that MTE2 sets once, and %cba's ids are never taken: a deadlock, with flags left set.
pto_eltwise_mutant(misnumbered_flag
  "wait_flag(PIPE_MTE2, PIPE_V, (event_t)kCbaReady[x_slot])@@wait_flag(PIPE_MTE2, PIPE_V, (event_t)kCbbReady[x_slot])"
  "deadlock: the kernel issued everything"
  "\n  V: [^\n]*plan_eltwise.ttl:[0-9]+:[0-9]+: wait_flag\\(MTE2, V, [23]\\)")
# - %cba's free flag is never set after its pop: MTE2's third reserve (column 15 of the
#   `%va = ttl.cb_reserve %cba` line) waits forever.
pto_eltwise_mutant(missing_flag
  "set_flag(PIPE_V, PIPE_MTE2, (event_t)kCbaFree[x_slot]);@@"
  "deadlock: the kernel issued everything"
  "\n  MTE2: [^\n]*plan_eltwise.ttl:[0-9]+:15: wait_flag\\(V, MTE2, [01]\\)")
# The generated matmul of tests/pto/plan_matmul.ttl (TEXTRACT, TMATMUL/TMATMUL_ACC, TSTORE from
# L0C) on 2 emulated cores (the kernel has no `work`: core 0 computes, core 1 returns).
add_test(NAME pto.matmul_emulated
         COMMAND ${pto_emulate} ${CMAKE_CURRENT_SOURCE_DIR}/pto/matmul_harness.cpp
                 --ttlplan $<TARGET_FILE:ttlplan> --ttl ${CMAKE_CURRENT_SOURCE_DIR}/pto/plan_matmul.ttl
                 --kernel mm)

# `run --target pto`: the shipped examples that map, planned, generated, built against the pto
# emulator, run on the part's cores and compared with the reference interpreter. `run` exits 0
# only on PASS (every argument within tolerance and no emulator report), 1 otherwise.
foreach(example eltwise_add matmul_single_core softmax_row)
  ttlplan_cli_test(pto_run_${example} 0 -1 ""
                   run --target pto ${PROJECT_SOURCE_DIR}/examples/${example}.ttl)
  set_tests_properties(cli.pto_run_${example} PROPERTIES TIMEOUT 300)
endforeach()
# exp(relu(exp(a + b))) within the reference's tolerance: the chain computes in float.
ttlplan_cli_test(pto_run_chain 0 -1 "" run --target pto ${CMAKE_CURRENT_SOURCE_DIR}/pto/plan_eltwise.ttl)
set_tests_properties(cli.pto_run_chain PROPERTIES TIMEOUT 300)
# The templates with their block sizes tuned (`run` tunes the unbound knobs with the pto cost
# model, then runs the pick): a row reduction with its broadcasts, a column broadcast with gelu's
# composite program, an elementwise block, a matmul with a K loop.
foreach(example bias_gelu_template softmax_rows_template eltwise_add_template matmul_template)
  ttlplan_cli_test(pto_run_${example} 0 -1 "tuned [0-9]+ unbound knobs"
                   run --target pto ${PROJECT_SOURCE_DIR}/examples/${example}.ttl)
  set_tests_properties(cli.pto_run_${example} PROPERTIES TIMEOUT 300)
endforeach()
ttlplan_cli_test(pto_run_eltwise_add_a5 0 -1 ""
                 run --target pto --device ascend_a5 ${PROJECT_SOURCE_DIR}/examples/eltwise_add.ttl)
set_tests_properties(cli.pto_run_eltwise_add_a5 PROPERTIES TIMEOUT 300)
