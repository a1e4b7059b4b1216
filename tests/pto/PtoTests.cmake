# The pto target's flags (docs/pto.md): what `plan --target pto` refuses and the commands that
# plan for Tenstorrent only so far. The plans and located errors are lit tests beside this file.
ttlplan_cli_test(pto_unknown_device 2 1
                 "unknown Ascend device 'wormhole_b0'; known Ascend devices: ascend_a2a3, ascend_a5"
                 plan --target pto --device wormhole_b0 ${eltwise})
ttlplan_cli_test(pto_grid 2 1 "--grid sets a Tenstorrent compute grid"
                 plan --target pto --grid 2x2 ${eltwise})
ttlplan_cli_test(pto_html_not_yet 2 1 "--html: under --target pto `plan` writes the report and --json only so far"
                 plan --target pto --html ${CMAKE_CURRENT_BINARY_DIR}/pto.html ${eltwise})
ttlplan_cli_test(pto_config 2 1 "--config picks Tenstorrent matmul configs"
                 plan --target pto --config ttnn-default ${eltwise})
foreach(command cost lower tune)
  ttlplan_cli_test(pto_${command}_not_yet 2 1 "--target pto: this command works on Tenstorrent devices only so far"
                   ${command} --target pto ${eltwise})
endforeach()
ttlplan_cli_test(pto_compile_not_yet 2 1 "--target pto: this command works on Tenstorrent devices only so far"
                 compile --target pto -o ${CMAKE_CURRENT_BINARY_DIR}/pto-out ${eltwise})
ttlplan_cli_test(pto_unknown_target 2 1 "--target: avx not in"
                 plan --target avx ${eltwise})
