# Runs CMD (a ;-list), saves its stdout, and checks it with FileCheck against the CHECK lines of
# CHECKS (the input file itself, in the lit style). Fails when the command fails (unless
# EXPECT_FAIL is set, then its stderr is checked) or FileCheck does.
#   cmake -DCMD=... -DCHECKS=FILE -DFILECHECK=... [-DPREFIX=CHECK] [-DEXPECT_FAIL=1] -P RunFileCheck.cmake
if(NOT FILECHECK)
  message(FATAL_ERROR "FileCheck not found: install llvm-16-tools (scripts/setup.sh does)")
endif()
if(NOT PREFIX)
  set(PREFIX CHECK)
endif()
execute_process(COMMAND ${CMD} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(EXPECT_FAIL)
  if(rc EQUAL 0)
    message(FATAL_ERROR "expected the command to fail, it succeeded:\n${out}")
  endif()
  set(out "${err}")
elseif(NOT rc EQUAL 0)
  message(FATAL_ERROR "command failed (${rc}):\n${err}")
endif()
string(RANDOM LENGTH 8 tag)
set(saved ${CMAKE_CURRENT_BINARY_DIR}/filecheck-${tag}.out)
file(WRITE ${saved} "${out}")
execute_process(COMMAND ${FILECHECK} ${CHECKS} --input-file=${saved} --check-prefix=${PREFIX}
                RESULT_VARIABLE check_rc ERROR_VARIABLE check_err)
file(REMOVE ${saved})
if(NOT check_rc EQUAL 0)
  message(FATAL_ERROR "FileCheck failed:\n${check_err}")
endif()
