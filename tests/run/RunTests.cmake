# End-to-end tests of `ttlplan run` (tests/run/): plan, lower, compile with g++ against the CPU
# emulator, run on random inputs and compare with the independent reference.
set(run_dir ${CMAKE_CURRENT_SOURCE_DIR}/run)

# ttlplan_run_test(NAME EXPECT MATCHES ARGS...): `ttlplan run ARGS...` exits EXPECT and its output
# matches each '|'-separated regular expression of MATCHES.
function(ttlplan_run_test name expect matches)
  add_test(NAME run.${name}
           COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:ttlplan>;run;${ARGN}" -DEXPECT=${expect}
                   "-DMATCHES=${matches}" -P ${run_dir}/ExpectRun.cmake)
  set_tests_properties(run.${name} PROPERTIES TIMEOUT 300)
endfunction()

# Every example passes.
file(GLOB run_examples CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/examples/*.ttl)
foreach(example IN LISTS run_examples)
  get_filename_component(stem ${example} NAME_WE)
  ttlplan_example_bind(${example} example_bind)
  ttlplan_run_test(example.${stem} 0 "PASS" ${example} ${example_bind})
endforeach()

# Eltwise and matmul over 3 grids and 3 block shapes each (knobs of tests/run/*_grid.ttl).
foreach(bind IN ITEMS "GY=1,GX=1,BR=2,BC=1,WM=4,WN=8" "GY=2,GX=4,BR=1,BC=4,WM=8,WN=2"
                      "GY=8,GX=8,BR=4,BC=4,WM=2,WN=2" "GY=4,GX=4,BR=1,BC=1,WM=8,WN=8"
                      "GY=2,GX=2,BR=2,BC=2,WM=4,WN=4" "GY=1,GX=8,BR=4,BC=2,WM=2,WN=4")
  string(REGEX REPLACE "[=,]" "_" tag "${bind}")
  ttlplan_run_test(eltwise.${tag} 0 "PASS" ${run_dir}/eltwise_grid.ttl --bind ${bind})
endforeach()
foreach(bind IN ITEMS "GY=1,GX=1,BM=2,BN=2,BK=2,WM=4,WN=4" "GY=2,GX=2,BM=4,BN=2,BK=1,WM=2,WN=4"
                      "GY=4,GX=8,BM=1,BN=4,BK=4,WM=8,WN=2" "GY=8,GX=8,BM=1,BN=1,BK=8,WM=8,WN=8"
                      "GY=2,GX=4,BM=2,BN=4,BK=2,WM=4,WN=2" "GY=1,GX=4,BM=8,BN=1,BK=1,WM=1,WN=8")
  string(REGEX REPLACE "[=,]" "_" tag "${bind}")
  ttlplan_run_test(matmul.${tag} 0 "PASS" ${run_dir}/matmul_grid.ttl --bind ${bind})
endforeach()

# ttl.sin, the op that shows what adding a unary SFPU op touches, emulated against the reference.
ttlplan_run_test(unary_sin 0 "PASS" ${run_dir}/unary_sin.ttl)

# ttl.fill (tt-lang's ttl.block.fill): fill_tile emulated against the reference's fill.
ttlplan_run_test(fill_add 0 "PASS" ${run_dir}/fill_add.ttl)
# ttl.identity (a waited block stored unchanged): copy_tile and pack, against the reference.
ttlplan_run_test(identity_store 0 "PASS" ${run_dir}/identity_store.ttl)

# s * c + a @ b: matmul_tiles adds into a DST slot the chain used before, which is zeroed first.
ttlplan_run_test(mul_add_matmul 0 "PASS" ${run_dir}/mul_add_matmul.ttl)

# A file with two operations: run names them and asks for --kernel; --kernel runs that one.
ttlplan_run_test(two_operations_need_kernel 1
                 "runs one kernel and .*two_operations.py has 2 .absolute, exponential.; choose one with --kernel NAME"
                 ${run_dir}/two_operations.py)
ttlplan_run_test(two_operations_kernel 0 "PASS" ${run_dir}/two_operations.py --kernel exponential)
# Tensors with a batch dimension, folded into the rows.
foreach(kernel IN ITEMS swapped whole_rows)
  ttlplan_run_test(batch_3d.${kernel} 0 "PASS" ${run_dir}/batch_3d.py --kernel ${kernel})
endforeach()
# One value stored into two DFBs: computed anew for the second store.
ttlplan_run_test(two_stores 0 "PASS" ${run_dir}/two_stores.py)
# ttl.div (a / b of blocks): div_binary_tile emulated against the reference.
ttlplan_run_test(divide 0 "PASS" ${run_dir}/divide.py)
# ttl.Semaphore (the spec's barriers): a multicast set of the whole grid, unicast inc and set.
ttlplan_run_test(semaphores 0 "PASS" ${run_dir}/semaphores.py)
# A pipe into another DFB than the send's: the receivers publish their address.
ttlplan_run_test(pipe_other_cb 0 "PASS" ${run_dir}/pipe_other_cb.py)
# ttl.transpose: transpose_wh_tile emulated against the reference's element transpose.
foreach(kernel IN ITEMS transposed exp_transposed matmul_bt)
  ttlplan_run_test(transpose.${kernel} 0 "PASS" ${run_dir}/transpose.py --kernel ${kernel})
endforeach()
ttlplan_run_test(two_operations_unknown_kernel 1
                 "--kernel logarithm: .* has no such kernel; it has absolute, exponential"
                 ${run_dir}/two_operations.py --kernel logarithm)

# A CB too shallow for its access pattern deadlocks; the report names the CBs and both threads.
ttlplan_run_test(deadlock_shallow_cb 1
                 "deadlock|reader|compute|ttl.cb_reserve %cba|ttl.cb_wait %cbb"
                 ${run_dir}/shallow_cb.ttl)

# A plan corrupted to overlap two CBs: the validator rejects it ...
ttlplan_run_test(overlap_rejected_by_validator 1 "fails its validator|[Oo]verlap"
                 ${PROJECT_SOURCE_DIR}/examples/eltwise_add.ttl --force-cb-address %cbb=103712)
# ... and with validation off codegen refuses it: TT-Metalium places a program's CBs one after
# another in creation order, so no host program can put %cbb over %cba (docs/codegen.md).
ttlplan_run_test(overlap_not_realisable 1
                 "CB %cbb at L1 address 103712, but TT-Metalium's allocator|no creation order"
                 ${PROJECT_SOURCE_DIR}/examples/eltwise_add.ttl --force-cb-address %cbb=103712
                 --no-validate)

# --dump writes every argument; --inputs reads them back: the same inputs give the same output.
set(dump1 ${CMAKE_CURRENT_BINARY_DIR}/run-dump-1)
set(dump2 ${CMAKE_CURRENT_BINARY_DIR}/run-dump-2)
ttlplan_run_test(dump 0 "PASS" ${PROJECT_SOURCE_DIR}/examples/eltwise_add.ttl --seed 7
                 --dump ${dump1})
ttlplan_run_test(inputs 0 "PASS" ${PROJECT_SOURCE_DIR}/examples/eltwise_add.ttl --seed 99
                 --inputs ${dump1} --dump ${dump2})
set_tests_properties(run.inputs PROPERTIES DEPENDS run.dump)
add_test(NAME run.inputs_reproduce_output
         COMMAND ${CMAKE_COMMAND} -E compare_files ${dump1}/c.npy ${dump2}/c.npy)
set_tests_properties(run.inputs_reproduce_output PROPERTIES DEPENDS run.inputs)

# --- Reductions and split chains (compute lowering; tests/run/reduce_*.ttl) ---
# reduce_sum over rows (dims [1]), reduce_max over columns (dims [0]) of a computed, all-negative
# value (split through an intermediate CB; a maximum that started from 0 instead of -inf fails),
# reduce_sum over whole blocks (dims [0, 1]); split_group: one segment packs two values into two
# intermediate CBs (grouped stores) that the next segment broadcasts. softmax_row runs with the
# examples above.
foreach(kernel reduce_rows reduce_cols reduce_all split_group)
  ttlplan_run_test(${kernel} 0 "PASS" ${run_dir}/${kernel}.ttl)
endforeach()
# A multicast rectangle that contains its source (skipped, as by the NoC): the whole grid.
ttlplan_run_test(mcast_skips_sender 0 "PASS" ${run_dir}/mcast_skips_sender.ttl)

# The matmul templates (ttnn's knob names) on small shapes, every DTYPE and fp32 accumulation;
# 320 = 10 tiles does not fill the 8-row device grid (5 x 5 cores for the 2-D with per_core 2).
set(mm2d ${PROJECT_SOURCE_DIR}/examples/matmul_2d_template.ttl)
set(mm1d ${PROJECT_SOURCE_DIR}/examples/matmul_1d_template.ttl)
foreach(bind IN ITEMS
    "M=256,K=256,N=256,DTYPE=bf16,per_core_M=2,per_core_N=2,in0_block_w=2,out_block_h=2,out_block_w=2,out_subblock_h=2,out_subblock_w=2"
    "M=320,K=128,N=320,DTYPE=bfp8_b,per_core_M=2,per_core_N=2"
    "M=128,K=320,N=256,DTYPE=bfp4_b,per_core_M=2,per_core_N=2,in0_block_w=2"
    "M=320,K=64,N=128,DTYPE=bf16,FP32_DEST_ACC=1,FIDELITY=HiFi4,per_core_M=5,per_core_N=2,out_block_h=5"
    # Edge cores: 10 tiles in per-core blocks of 4 (3 x 3 cores, the last row and column own 2),
    # and 8 columns in blocks of 5 (the last column owns 3).
    "M=320,K=128,N=320,DTYPE=bf16,per_core_M=4,per_core_N=4,out_block_h=2,out_block_w=2"
    "M=320,K=64,N=256,DTYPE=bfp8_b,per_core_M=4,per_core_N=5,out_block_h=2"
    # Partial edge blocks (clipped slices): blocks of 4 x 4 where the edge cores own 2 rows or
    # columns, and of 4 x 5 where the last column owns 3 of 5.
    "M=320,K=256,N=320,DTYPE=bf16,per_core_M=4,per_core_N=4,out_block_h=4,out_block_w=4"
    "M=320,K=64,N=256,DTYPE=bfp4_b,per_core_M=4,per_core_N=5,out_block_h=4,out_block_w=5")
  string(REGEX REPLACE "[=,]" "_" tag "${bind}")
  string(REGEX REPLACE "_out_subblock.*|_out_block.*" "" tag "${tag}")
  ttlplan_run_test(matmul_2d.${tag} 0 "PASS" ${mm2d} --bind ${bind})
endforeach()
foreach(bind IN ITEMS
    "M=64,K=128,N=256,DTYPE=bfp8_b,per_core_M=2,per_core_N=4,out_block_w=2"
    "M=128,K=256,N=512,DTYPE=bfp4_b,per_core_M=4,per_core_N=2,in0_block_w=2,out_block_h=2"
    "M=256,K=64,N=1024,DTYPE=bf16,FP32_DEST_ACC=1,per_core_M=8,per_core_N=4,out_block_h=4,out_block_w=4"
    # Rows of 2 cores: 4 cores on 2 x 2, the last owning 1 of its 3 columns; 3 cores on 2 x 2,
    # the third owning 2 of 4 columns and the fourth none (idle: no B read, no C written).
    "M=64,K=128,N=320,DTYPE=bf16,per_core_M=2,per_core_N=3,out_block_w=3,grid_x=2"
    "M=128,K=64,N=320,DTYPE=bfp4_b,per_core_M=4,per_core_N=4,out_block_h=2,out_block_w=4,grid_x=2")
  string(REGEX REPLACE "[=,]" "_" tag "${bind}")
  string(REGEX REPLACE "_per_core.*" "" tag "${tag}")
  ttlplan_run_test(matmul_1d.${tag} 0 "PASS" ${mm1d} --bind ${bind})
endforeach()

# Tensors that are not whole tiles, padded and cropped by the host program (ir/Padding.h): the
# emulator's output against numpy, one test per case of tests/run/padding_numpy.py (which says
# what each checks and why its inputs are chosen so that a wrong pad value shows) ...
foreach(case IN ITEMS matmul_1000x1000x1000 matmul_33x65x17 softmax_1000_columns row_max_negative
                      eltwise_add_1x1)
  add_test(NAME run.padding_numpy.${case}
           COMMAND ${Python3_EXECUTABLE} ${run_dir}/padding_numpy.py $<TARGET_FILE:ttlplan>
                   ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/scratch/run.padding_numpy ${case})
  set_tests_properties(run.padding_numpy.${case} PROPERTIES TIMEOUT 600)
endforeach()
# Where tiles go (batch dimensions folded into rows, transposes): tests/run/layout_numpy.py.
foreach(case IN ITEMS batch_3d_swapped transpose_2x3_tiles matmul_transpose_rhs deferred_waits
                      self_receive_after_send self_receive_around_send self_receive_across_threads
                      deferred_reserves)
  add_test(NAME run.layout_numpy.${case}
           COMMAND ${Python3_EXECUTABLE} ${run_dir}/layout_numpy.py $<TARGET_FILE:ttlplan>
                   ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/scratch/run.layout_numpy ${case})
  set_tests_properties(run.layout_numpy.${case} PROPERTIES TIMEOUT 600)
endforeach()
# ... and a maximum over block-float tiles, which cannot hold the -inf it needs, is refused.
ttlplan_cli_test(padding_block_float_refused 1 -1 "block-float tensors cannot hold -inf"
                 lower ${run_dir}/padding/max_dtype.ttl --bind DTYPE=bfp8_b)
