# Runs `ttlplan compile INPUT -o OUT`, then checks what it wrote:
#   - with SYNTAX=1: every generated file compiles with CXX -fsyntax-only against the emulator's
#     SDK-shaped headers (EMU_INCLUDE), the way TT-Metalium builds it (tenstorrent/tt-metal
#     tt_metal/jit_build/build.cpp and genfiles.cpp at the pinned commit, docs/codegen.md):
#       * readers and writers as C++17 with the JIT's warnings, its defines for BRISC (reader) or
#         NCRISC (writer), and api/dataflow/dataflow_api.h included first (brisck.cc/ncrisck.cc);
#       * compute kernels three times, as the unpack, math and pack TRISCs
#         (UCK_CHLKC_*, TRISC_*, COMPILE_FOR_TRISC), with `using namespace ckernel;` before the
#         kernel (chlkc_list.h);
#       * host programs as C++20 with -Wall -Werror and TTLPLAN_KERNEL_DIR defined.
#     A generated file may name nothing of the emulator's own (ttlplan::emu, ttlplan_emu_*): what
#     passes here must be what the real SDK has.
#   cmake -DTTLPLAN=... -DINPUT=... -DOUT=DIR [-DSYNTAX=1 -DCXX=g++ -DEMU_INCLUDE=...] -P RunCompileCheck.cmake
file(REMOVE_RECURSE ${OUT})
execute_process(COMMAND ${TTLPLAN} compile ${INPUT} -o ${OUT}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ttlplan compile ${INPUT} failed (${rc}):\n${err}")
endif()

if(NOT SYNTAX)
  return()
endif()

# The JIT's warning flags (build.cpp): -Wall -Werror with a few left as warnings.
set(jit_warnings -Wall -Werror -Wno-error=deprecated-declarations -Wno-error=multistatement-macros
                 -Wno-error=parentheses -Wno-error=unused-but-set-variable -Wno-unused-variable
                 -Wno-unused-function)
set(jit_common -std=c++17 -fsyntax-only ${jit_warnings} -DTENSIX_FIRMWARE -DLOCAL_MEM_EN=0
               -DKERNEL_BUILD -DARCH_WORMHOLE -DNUM_DRAM_BANKS=12 -DNUM_L1_BANKS=64
               -I ${EMU_INCLUDE})

# check(NAME ARGS...): runs CXX ARGS..., fails naming NAME and the compiler's output.
function(check name)
  execute_process(COMMAND ${CXX} ${ARGN} RESULT_VARIABLE cxx_rc ERROR_VARIABLE cxx_err)
  if(NOT cxx_rc EQUAL 0)
    list(JOIN ARGN " " line)
    message(FATAL_ERROR "${name} does not build as TT-Metalium builds it:\n${CXX} ${line}\n${cxx_err}")
  endif()
endfunction()

file(GLOB_RECURSE sources ${OUT}/*.cpp)
if(NOT sources)
  message(FATAL_ERROR "ttlplan compile wrote no .cpp file:\n${out}")
endif()
foreach(source IN LISTS sources)
  file(READ ${source} text)
  if(text MATCHES "ttlplan::emu|ttlplan_emu")
    message(FATAL_ERROR "${source} names the emulator (ttlplan::emu or ttlplan_emu*), which the "
                        "real TT-Metalium does not have")
  endif()
  get_filename_component(name ${source} NAME)
  get_filename_component(dir ${source} DIRECTORY)
  if(name STREQUAL "host.cpp")
    check(${source} -std=c++20 -fsyntax-only -Wall -Werror "-DTTLPLAN_KERNEL_DIR=\"${OUT}\""
          -I ${EMU_INCLUDE} -I ${OUT} ${source})
  elseif(name STREQUAL "reader.cpp" OR name STREQUAL "writer.cpp")
    if(name STREQUAL "reader.cpp")
      set(processor -DCOMPILE_FOR_BRISC -DPROCESSOR_INDEX=0 -DNOC_INDEX=0)
    else()
      set(processor -DCOMPILE_FOR_NCRISC -DPROCESSOR_INDEX=1 -DNOC_INDEX=1)
    endif()
    check(${source} ${jit_common} ${processor} -DNOC_MODE=0 -I ${dir}
          -include api/dataflow/dataflow_api.h ${source})
  elseif(name STREQUAL "compute.cpp")
    set(unit ${dir}/compute.jit.cpp)
    file(WRITE ${unit} "// As TT-Metalium's chlkc_list.h puts a compute kernel in its translation unit.\n"
                       "#include \"ttlplan_emu_compute.h\"\nusing namespace ckernel;\n"
                       "#include \"${source}\"\n")
    set(index 0)
    foreach(stage UNPACK MATH PACK)
      check(${source} ${jit_common} -DUCK_CHLKC_${stage} -DTRISC_${stage}
            -DCOMPILE_FOR_TRISC=${index} -DPROCESSOR_INDEX=${index} -I ${dir} ${unit})
      math(EXPR index "${index} + 1")
    endforeach()
    file(REMOVE ${unit})
  endif()
endforeach()
