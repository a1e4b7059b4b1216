# The CMakeLists.txt `ttlplan compile` writes builds a working host program the way a user with
# tt-metal builds it (docs/codegen.md, "Building and running on a card"): configure with
# find_package(TT-Metalium) finding a package (here tests/sdk/tt-metalium-config.cmake, the
# emulator standing in for TT-Metalium), build, run the host on the inputs `ttlplan run` used, and
# get byte for byte the outputs `ttlplan run` got. Also: the generated CMakeLists.txt names nothing
# of ttlplan's (it must build where only tt-metal is installed).
#   cmake -DTTLPLAN=... -DINPUT=K.ttl -DKERNEL=K -DWORK=DIR -DSDK_DIR=tests/sdk
#         -DEMU_INCLUDE=... -DEMU_LIBRARY=... -DEMU_FLAGS=... -P SdkBuild.cmake
cmake_minimum_required(VERSION 3.25)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT status EQUAL 0)
    list(JOIN ARGN " " line)
    message(FATAL_ERROR "`${line}` exited with ${status}:\n${out}${err}")
  endif()
endfunction()

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
run(${TTLPLAN} compile ${INPUT} -o ${WORK}/gen --emulator)
file(READ ${WORK}/gen/CMakeLists.txt cmake_text)
if(cmake_text MATCHES "ttlplan::|ttlplan_emu|emu\\.cpp")
  message(FATAL_ERROR "the generated CMakeLists.txt names ttlplan or its emulator:\n${cmake_text}")
endif()
if(NOT cmake_text MATCHES "find_package\\(TT-Metalium REQUIRED\\)" OR
   NOT cmake_text MATCHES "TT::Metalium")
  message(FATAL_ERROR "the generated CMakeLists.txt does not use find_package(TT-Metalium) and "
                      "TT::Metalium:\n${cmake_text}")
endif()
run(${TTLPLAN} run ${INPUT} --dump ${WORK}/ref)
run(${CMAKE_COMMAND} -S ${WORK}/gen -B ${WORK}/build -G Ninja -DTT-Metalium_DIR=${SDK_DIR}
    -DTTLPLAN_EMU_INCLUDE=${EMU_INCLUDE} -DTTLPLAN_EMU_LIBRARY=${EMU_LIBRARY}
    "-DTTLPLAN_EMU_FLAGS=${EMU_FLAGS}" -DTTLPLAN_EMU_KERNELS=${WORK}/gen)
run(${CMAKE_COMMAND} --build ${WORK}/build)
# From another working directory: the host finds its kernels by TTLPLAN_KERNEL_DIR, not the cwd.
file(MAKE_DIRECTORY ${WORK}/out ${WORK}/elsewhere)
execute_process(COMMAND ${WORK}/build/${KERNEL}/host ${WORK}/ref ${WORK}/out
                WORKING_DIRECTORY ${WORK}/elsewhere RESULT_VARIABLE status OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "the CMake-built host exited with ${status}:\n${out}${err}")
endif()
file(GLOB refs RELATIVE ${WORK}/ref ${WORK}/ref/*.npy)
if(NOT refs)
  message(FATAL_ERROR "ttlplan run --dump wrote nothing into ${WORK}/ref")
endif()
foreach(npy IN LISTS refs)
  file(SHA256 ${WORK}/ref/${npy} want)
  if(NOT EXISTS ${WORK}/out/${npy})
    message(FATAL_ERROR "the CMake-built host wrote no ${npy}")
  endif()
  file(SHA256 ${WORK}/out/${npy} got)
  if(NOT want STREQUAL got)
    message(FATAL_ERROR "${npy} of the CMake-built host differs from `ttlplan run`'s")
  endif()
endforeach()
