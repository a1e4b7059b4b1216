# Included from tests/CMakeLists.txt: the HTML reports (`--html` of plan, cost and tune) opened in
# headless Chromium and checked by tests/report/check_page.py (the DOM's pictures against the JSON
# report, a screenshot that is not blank, xmllint on every SVG). Chromium and xmllint are test
# tools scripts/setup.sh installs (Debian's chromium, libxml2-utils); without them these tests
# fail and say so, they are never skipped.
find_package(Python3 COMPONENTS Interpreter REQUIRED)
find_program(TTLPLAN_CHROMIUM NAMES chromium chromium-browser)
find_program(TTLPLAN_XMLLINT NAMES xmllint)

function(ttlplan_report_test name)
  if(NOT TTLPLAN_CHROMIUM OR NOT TTLPLAN_XMLLINT)
    add_test(NAME report.${name}
             COMMAND ${CMAKE_COMMAND} -E echo
                     "chromium or xmllint missing: run scripts/setup.sh (chromium, libxml2-utils)")
    set_tests_properties(report.${name} PROPERTIES WILL_FAIL TRUE PASS_REGULAR_EXPRESSION "^$")
    return()
  endif()
  add_test(NAME report.${name}
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/report/check_page.py
                   --ttlplan $<TARGET_FILE:ttlplan> --chromium ${TTLPLAN_CHROMIUM}
                   --xmllint ${TTLPLAN_XMLLINT}
                   --work ${CMAKE_CURRENT_BINARY_DIR}/scratch/report.${name} -- ${ARGN}
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  # Chromium uses more than one core; two at once keep a 2-core machine busy enough.
  set_tests_properties(report.${name} PROPERTIES RESOURCE_LOCK chromium)
endfunction()

# A split DST chain (4 passes, 3 intermediate CBs), work on 8 of 64 cores.
ttlplan_report_test(plan_softmax plan examples/softmax_row.ttl)
# Multicast: two pipes of four nets; the cost breakdown.
ttlplan_report_test(cost_mcast cost examples/matmul_mcast_2d.ttl)
# Auto grid and work ranges on Blackhole's larger compute grid.
ttlplan_report_test(plan_multicore_blackhole plan examples/matmul_multicore.ttl --device blackhole_p150)
# Every point of a tune with ttnn's baseline, and the pick's plan.
ttlplan_report_test(tune_2d tune examples/matmul_2d_template.ttl
                    --bind M=256,K=256,N=256,DTYPE=bf16,FIDELITY=HiFi2,FP32_DEST_ACC=0
                    --strategy evolve --budget-evals 500 --quiet)
# The pto target's page (docs/pto.md): each memory's slots, the buffers; with cost, the pipes.
ttlplan_report_test(pto_plan_softmax plan --target pto examples/softmax_row.ttl)
ttlplan_report_test(pto_cost_matmul cost --target pto examples/matmul_single_core.ttl)
