# ctest `schema.*`: real outputs of `ttlplan plan|cost|tune ... --json -` validate against the JSON
# Schemas in docs/schema/, and outputs with a field deleted, a wrong type or an unknown key do not.
# Included from tests/CMakeLists.txt. Needs python3 with jsonschema >= 4 (Draft202012Validator;
# Debian 12: python3-jsonschema).
set(schema_dir ${PROJECT_SOURCE_DIR}/docs/schema)
set(schema_tests ${CMAKE_CURRENT_LIST_DIR})
# python3-jsonschema is a test tool scripts/setup.sh installs; without it the tests fail (the
# validator cannot import it), they are not skipped.
find_package(Python3 COMPONENTS Interpreter REQUIRED)

# ttlplan_schema_test(NAME KIND [EXPECT_RC rc] [STATUS s] [MUTATE m...] ARGS ttlplan-args...)
# KIND: plan, cost or tune (the schema). The test is schema.NAME.
function(ttlplan_schema_test name kind)
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "EXPECT_RC;STATUS" "ARGS;MUTATE")
  set(extra)
  if(DEFINED arg_EXPECT_RC)
    list(APPEND extra -DEXPECT_RC=${arg_EXPECT_RC})
  endif()
  if(DEFINED arg_STATUS)
    list(APPEND extra -DSTATUS=${arg_STATUS})
  endif()
  if(DEFINED arg_MUTATE)
    # '^' between mutations: a ';' would split the test's command-line argument.
    list(JOIN arg_MUTATE "^" mutations)
    list(APPEND extra "-DMUTATE=${mutations}")
  endif()
  add_test(NAME schema.${name}
           COMMAND ${CMAKE_COMMAND} -DTTLPLAN=$<TARGET_FILE:ttlplan> -DPYTHON=${Python3_EXECUTABLE}
                   -DSCHEMA=${schema_dir}/${kind}.schema.json
                   -DWORK=${CMAKE_CURRENT_BINARY_DIR}/schema/${name} "-DARGS=${arg_ARGS}" ${extra}
                   -P ${schema_tests}/RunAndValidate.cmake)
endfunction()

set(schema_sizes M=256,K=256,N=256,DTYPE=bf16,FIDELITY=HiFi4,FP32_DEST_ACC=0)
file(GLOB schema_examples CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/examples/*.ttl)
foreach(input IN LISTS schema_examples)
  get_filename_component(stem ${input} NAME_WE)
  # Every example as it is (the templates' knobs tuned, their problem knobs from the example's
  # `// example-bind:` line) on both devices, plan and cost.
  ttlplan_example_bind(${input} example_bind)
  foreach(device wormhole_b0 blackhole_p150)
    ttlplan_schema_test(plan.${stem}.${device} plan STATUS planned
                        ARGS plan ${input} ${example_bind} --json - --device ${device})
    ttlplan_schema_test(cost.${stem}.${device} cost
                        ARGS cost ${input} ${example_bind} --json - --device ${device})
  endforeach()
endforeach()
# The ttnn templates with the problem bound, and ttnn's default config.
set(schema_2d ${PROJECT_SOURCE_DIR}/examples/matmul_2d_template.ttl)
set(schema_1d ${PROJECT_SOURCE_DIR}/examples/matmul_1d_template.ttl)
foreach(kind plan cost)
  ttlplan_schema_test(${kind}.matmul_2d_template.bound ${kind}
                      ARGS ${kind} ${schema_2d} --json - --bind ${schema_sizes})
  ttlplan_schema_test(${kind}.matmul_2d_template.ttnn_default ${kind}
                      ARGS ${kind} ${schema_2d} --json - --bind ${schema_sizes}
                           --config ttnn-default)
  # ttnn picks 1-D (in0 multicast) for this wide shape; on a 1x8 grid it fits the template's row.
  ttlplan_schema_test(${kind}.matmul_1d_template.ttnn_default ${kind}
                      ARGS ${kind} ${schema_1d} --json - --grid 1x8 --config ttnn-default
                           --bind M=64,K=256,N=2048,DTYPE=bf16,FIDELITY=HiFi4,FP32_DEST_ACC=0)
endforeach()
# Several kernels (the cost JSON has no top-level predicted_ns then).
foreach(kind plan cost)
  ttlplan_schema_test(${kind}.multi_kernel ${kind}
                      ARGS ${kind} ${PROJECT_SOURCE_DIR}/tests/lower/infer-dst.ttl --json -)
endforeach()
# A tt-lang thread on its own: the kernel's `assumptions`, and no cost.
ttlplan_schema_test(plan.ttlang_thread_alone plan STATUS planned
                    ARGS plan ${PROJECT_SOURCE_DIR}/tests/mlir/ttlang-thread-alone.mlir --json -)
# An infeasible kernel: exit 1, and the JSON says why ("status": "infeasible", "rejection").
ttlplan_schema_test(plan.infeasible plan EXPECT_RC 1 STATUS infeasible
                    ARGS plan ${PROJECT_SOURCE_DIR}/tests/plan/huge_cbs.ttl --json -)
# tune: the default run, --top 3 (with a baseline: none, the template is not ttnn's), a budgeted
# random search of the 1-D template (ttnn's baseline), and a file where nothing fits (best null).
set(schema_template ${PROJECT_SOURCE_DIR}/examples/matmul_template.ttl)
ttlplan_schema_test(tune.matmul_template tune ARGS tune ${schema_template} --json - --quiet)
ttlplan_schema_test(tune.matmul_template.top3 tune
                    ARGS tune ${schema_template} --json - --quiet --top 3)
ttlplan_schema_test(tune.matmul_1d_template.random tune
                    ARGS tune ${schema_1d} --json - --quiet --budget-evals 300 --strategy random
                         --bind M=256,K=256,N=512,DTYPE=bf16,FIDELITY=HiFi4,FP32_DEST_ACC=0)
ttlplan_schema_test(tune.matmul_2d_template.blackhole tune
                    ARGS tune ${schema_2d} --json - --quiet --device blackhole_p150
                         --bind ${schema_sizes} --config ttnn-default)
ttlplan_schema_test(tune.nothing_fits tune
                    ARGS tune ${PROJECT_SOURCE_DIR}/tests/plan/huge_cbs.ttl --json - --quiet)

# Negative: each schema rejects a real output with a required field deleted, a value of the wrong
# type, and an unknown key in an object whose keys are fixed (each mutation on its own, one run of
# ttlplan per schema).
set(schema_mcast ${PROJECT_SOURCE_DIR}/examples/matmul_mcast_2d.ttl)
ttlplan_schema_test(negative.plan plan ARGS plan ${schema_mcast} --json -
                    MUTATE "delete|kernels.0.cbs.0.bytes" "set|kernels.0.l1.used|\"24576\""
                           "add|kernels.0.multicast.nets.0.extra|1"
                           "add|rejection|{\"kernel\":\"@k\"}")
ttlplan_schema_test(negative.cost cost ARGS cost ${schema_mcast} --json -
                    MUTATE "delete|kernels.0.bounds_cycles.dram" "set|binding|{}"
                           "add|kernels.0.critical_core.extra|1"
                           "set|kernels.0.bound|\"memory\"")
ttlplan_schema_test(negative.tune tune ARGS tune ${schema_template} --json - --quiet --top 2
                    MUTATE "delete|top.0.l1_bytes" "set|seed|\"1\"" "add|space.extra|1"
                           "set|best|null")
