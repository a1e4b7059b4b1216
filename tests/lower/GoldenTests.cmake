# Golden tests of the lowering passes (lit style): each tests/lower/<pass>.ttl holds the input
# kernel, a `// RUN:` comment with the command, and `// CHECK:` lines verified by hand.
find_program(FILECHECK NAMES FileCheck-16 FileCheck PATHS /usr/lib/llvm-16/bin)

# ttlplan_golden(NAME CHECKS_FILE ARGS...): runs `ttlplan ARGS...` and FileChecks its stdout.
function(ttlplan_golden name checks)
  add_test(NAME golden.${name}
           COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:ttlplan>;${ARGN}" -DCHECKS=${checks}
                   -DFILECHECK=${FILECHECK} -P ${CMAKE_CURRENT_SOURCE_DIR}/RunFileCheck.cmake)
endfunction()

set(golden_lower_dir ${CMAKE_CURRENT_SOURCE_DIR}/lower)

# --- expand-threads ---
ttlplan_golden(expand-threads ${golden_lower_dir}/expand-threads.ttl lower
               --pipeline verify,plan,apply-plan,expand-threads ${golden_lower_dir}/expand-threads.ttl)

# --- infer-dst and lower-compute (compute lowering) ---
ttlplan_golden(infer-dst ${golden_lower_dir}/infer-dst.ttl lower
               --pipeline verify,plan,apply-plan,infer-dst ${golden_lower_dir}/infer-dst.ttl)
ttlplan_golden(lower-compute ${golden_lower_dir}/lower-compute.ttl lower
               --pipeline verify,plan,apply-plan,infer-dst,expand-threads,lower-compute
               ${golden_lower_dir}/lower-compute.ttl)
# Every example lowers through lower-compute with the default pipeline's passes before it; the
# EXAMPLE lines of lower-compute.ttl check the compute func.
foreach(example eltwise_add eltwise_bcast_scalar matmul_single_core matmul_multicore
                matmul_mcast_2d matmul_template softmax_row)
  add_test(NAME golden.lower-compute.${example}
           COMMAND ${CMAKE_COMMAND}
                   "-DCMD=$<TARGET_FILE:ttlplan>;lower;--pipeline;verify,infer-pipe-semaphores,insert-sync,plan,apply-plan,infer-dst,expand-threads,lower-compute;${PROJECT_SOURCE_DIR}/examples/${example}.ttl"
                   -DCHECKS=${golden_lower_dir}/lower-compute.ttl -DPREFIX=EXAMPLE
                   -DFILECHECK=${FILECHECK} -P ${CMAKE_CURRENT_SOURCE_DIR}/RunFileCheck.cmake)
endforeach()

# --- data movement: infer-pipe-semaphores, insert-sync, lower-data-movement, lower-sync ---
# ttlplan_golden_error(NAME CHECKS_FILE ARGS...): `ttlplan ARGS...` must fail; FileChecks stderr.
function(ttlplan_golden_error name checks)
  add_test(NAME golden.${name}
           COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:ttlplan>;${ARGN}" -DCHECKS=${checks}
                   -DFILECHECK=${FILECHECK} -DEXPECT_FAIL=1
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/RunFileCheck.cmake)
endfunction()
set(dm_front verify,infer-pipe-semaphores,insert-sync,plan,apply-plan,expand-threads)
ttlplan_golden(infer-pipe-semaphores ${golden_lower_dir}/infer-pipe-semaphores.ttl lower
               --pipeline verify,infer-pipe-semaphores ${golden_lower_dir}/infer-pipe-semaphores.ttl)
ttlplan_golden_error(infer-pipe-semaphores-errors ${golden_lower_dir}/infer-pipe-semaphores-errors.ttl
                     lower --pipeline infer-pipe-semaphores
                     ${golden_lower_dir}/infer-pipe-semaphores-errors.ttl)
ttlplan_golden(insert-sync ${golden_lower_dir}/insert-sync.ttl lower
               --pipeline insert-sync,verify,infer-pipe-semaphores ${golden_lower_dir}/insert-sync.ttl)
ttlplan_golden(lower-data-movement ${golden_lower_dir}/lower-data-movement.ttl lower
               --pipeline ${dm_front},lower-data-movement ${golden_lower_dir}/lower-data-movement.ttl)
ttlplan_golden(lower-data-movement-clip ${golden_lower_dir}/lower-data-movement-clip.ttl lower
               --pipeline ${dm_front},lower-data-movement
               ${golden_lower_dir}/lower-data-movement-clip.ttl)
ttlplan_golden(lower-sync ${golden_lower_dir}/lower-sync.ttl lower
               --pipeline ${dm_front},lower-data-movement,lower-sync ${golden_lower_dir}/lower-sync.ttl)

# --- apply-plan (the lead's block) ---
ttlplan_golden(apply-plan ${golden_lower_dir}/apply-plan.ttl lower
               --pipeline verify,plan,apply-plan --bind B=2 ${golden_lower_dir}/apply-plan.ttl)

# --- knob bindings on the command line (tests/print/knobs.ttl: symbol knobs, expressions) ---
set(knobs_ttl ${CMAKE_CURRENT_SOURCE_DIR}/print/knobs.ttl)
# Partial --bind: the bound knobs are fixed, the rest are tuned (the point `ttlplan tune` finds
# best; BN = 4 makes N = 64 an inexact @N / (32 * @BN), so N is 128); symbols reach the tile types.
ttlplan_golden(bind-partial ${golden_lower_dir}/bind-partial.check plan
               --bind DTYPE=bfp8_b,FP32=1,BN=4 ${knobs_ttl})
# Bad --bind: an unknown knob, a value outside the domain, a symbol for an integer knob (the
# binding does not fit the file: exit 1), a malformed entry (usage: exit 2).
ttlplan_cli_test(bind_unknown_knob 1 1 "no knob @Q; its knobs are @M, @K, @N, @DTYPE"
                 plan --bind Q=1 ${knobs_ttl})
ttlplan_cli_test(bind_not_in_domain 1 1 "DTYPE=f64 is not a value of @DTYPE; its domain is \\[bf16, bfp8_b, bfp4_b\\]"
                 lower --bind DTYPE=f64 ${knobs_ttl})
ttlplan_cli_test(bind_symbol_for_integer 1 1 "BM=bf16 is not a value of @BM \\(a symbol for an integer knob\\)"
                 compile --bind BM=bf16 ${knobs_ttl} -o ${CMAKE_CURRENT_BINARY_DIR}/bind_symbol_out)
ttlplan_cli_test(bind_malformed 2 1 "'BM' is not NAME=VALUE" plan --bind BM ${knobs_ttl})
# The template runs on the emulator with a partial binding (bf16; the rest tuned) and matches the
# reference.
add_test(NAME run.knobs_partial_bind
         COMMAND ttlplan run --bind DTYPE=bf16,FIDELITY=HiFi4 ${knobs_ttl})
