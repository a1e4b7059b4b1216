# Runs `ttlplan compile INPUT -o OUT`, then checks what it wrote:
#   - with CHECKS and FILES: FileChecks each generated file against the CHECKS file, one check
#     prefix per file (FILES is a list of PREFIX=relative/path, e.g. READER=eltwise_add/reader.cpp);
#   - with SYNTAX=1: compiles every generated .cpp with CXX -std=c++20 -fsyntax-only -Wall -Werror
#     against the emulator's headers (EMU_INCLUDE), as `ttlplan run` would compile them.
#   cmake -DTTLPLAN=... -DINPUT=... -DOUT=DIR [-DCHECKS=F -DFILES=... -DFILECHECK=...]
#         [-DSYNTAX=1 -DCXX=g++ -DEMU_INCLUDE=...] -P RunCompileCheck.cmake
file(REMOVE_RECURSE ${OUT})
execute_process(COMMAND ${TTLPLAN} compile ${INPUT} -o ${OUT}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ttlplan compile ${INPUT} failed (${rc}):\n${err}")
endif()

if(CHECKS)
  if(NOT FILECHECK)
    message(FATAL_ERROR "FileCheck not found: install llvm-16-tools (scripts/setup.sh does)")
  endif()
  foreach(entry IN LISTS FILES)
    string(REPLACE "=" ";" parts "${entry}")
    list(GET parts 0 prefix)
    list(GET parts 1 path)
    if(NOT EXISTS ${OUT}/${path})
      message(FATAL_ERROR "ttlplan compile did not write ${path}; it wrote:\n${out}")
    endif()
    execute_process(COMMAND ${FILECHECK} ${CHECKS} --input-file=${OUT}/${path}
                            --check-prefix=${prefix}
                    RESULT_VARIABLE check_rc ERROR_VARIABLE check_err)
    if(NOT check_rc EQUAL 0)
      message(FATAL_ERROR "FileCheck ${prefix} on ${path} failed:\n${check_err}")
    endif()
  endforeach()
endif()

if(SYNTAX)
  file(GLOB_RECURSE sources ${OUT}/*.cpp)
  if(NOT sources)
    message(FATAL_ERROR "ttlplan compile wrote no .cpp file:\n${out}")
  endif()
  foreach(source IN LISTS sources)
    execute_process(COMMAND ${CXX} -std=c++20 -fsyntax-only -Wall -Werror -I ${EMU_INCLUDE} ${source}
                    RESULT_VARIABLE cxx_rc ERROR_VARIABLE cxx_err)
    if(NOT cxx_rc EQUAL 0)
      message(FATAL_ERROR "${CXX} -fsyntax-only -Wall -Werror ${source} failed:\n${cxx_err}")
    endif()
  endforeach()
endif()
