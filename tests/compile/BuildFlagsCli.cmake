# `ttlplan compile`'s build-system flags (what ttlplan_add_kernel uses):
#   cmake -DTTLPLAN=... -DSOURCE=<repo> -DWORK=<scratch dir> -P BuildFlagsCli.cmake
# --list-outputs names exactly the files a compile then writes (wrappers and registry with
# --emulator); --depfile writes "STAMP: INPUTS"; --stamp is written; --no-tune rejects unbound
# knobs by name.
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(input ${SOURCE}/examples/matmul_template.ttl)
set(bind --bind BM=2,BN=2,BK=2,WM=4,WN=4)

execute_process(COMMAND ${TTLPLAN} compile ${input} ${bind} -o ${WORK}/out --emulator --list-outputs
                RESULT_VARIABLE status OUTPUT_VARIABLE listed ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "--list-outputs failed: ${err}")
endif()
if(EXISTS ${WORK}/out)
  message(FATAL_ERROR "--list-outputs wrote files")
endif()
string(STRIP "${listed}" listed)
string(REPLACE "\n" ";" listed "${listed}")

execute_process(COMMAND ${TTLPLAN} compile ${input} ${bind} -o ${WORK}/out --emulator
                        --depfile ${WORK}/out.d --stamp ${WORK}/out.stamp
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "compile failed: ${err}")
endif()
file(GLOB_RECURSE written RELATIVE ${WORK} ${WORK}/out/*)
list(TRANSFORM written PREPEND ${WORK}/)
list(SORT written)
list(SORT listed)
if(NOT written STREQUAL listed)
  message(FATAL_ERROR "--list-outputs said\n  ${listed}\nbut compile wrote\n  ${written}")
endif()
foreach(expected out/matmul_template/compute.emu.cpp out/ttlplan_emu_registry.cpp out/device.json)
  if(NOT ${WORK}/${expected} IN_LIST written)
    message(FATAL_ERROR "--emulator did not write ${expected}")
  endif()
endforeach()
file(READ ${WORK}/out.d depfile)
if(NOT depfile STREQUAL "${WORK}/out.stamp: ${input}\n")
  message(FATAL_ERROR "unexpected depfile:\n${depfile}")
endif()
if(NOT EXISTS ${WORK}/out.stamp)
  message(FATAL_ERROR "--stamp was not written")
endif()

execute_process(COMMAND ${TTLPLAN} compile ${input} --bind BM=2,BN=2 -o ${WORK}/none --no-tune
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status EQUAL 1 OR NOT err MATCHES "--no-tune: 3 knobs are unbound \\(@BK, @WM, @WN\\)"
   OR EXISTS ${WORK}/none)
  message(FATAL_ERROR "--no-tune with unbound knobs: exit ${status}, wanted 1 and the knobs named:\n${err}")
endif()
