# The installed package as a user gets it (issue: library and build-system use):
#   cmake -DBUILD=<ttlplan build dir> -DSOURCE=<repo> -DWORK=<scratch dir> -P Consumer.cmake
# installs the build into WORK/prefix, then from there only:
#  1. the layout: executable, libraries, namespaced headers that include each other as
#     <ttlplan/...>, emulator headers, devices, CMake package, ttlplan.pc;
#  2. examples/cmake-consumer: configures, builds (a bound kernel and a tuned one into emulator
#     host programs, one into a static library, one into a custom target, one with METALIUM
#     against a stand-in TT-Metalium package), does nothing on a no-op rebuild, regenerates
#     without recompiling when a kernel is touched, and its host programs give the same outputs
#     as `ttlplan run` of the same kernel and binding (which compares with the reference);
#  3. examples/api (the driver library) through the CMake package and through pkg-config: the
#     L1 map it prints has the addresses and indices of `ttlplan plan --json -`, and an
#     infeasible kernel gives ttlplan's error text and the planner's rejection as numbers;
#  4. with WITH_PYTHON, the Python package: a .py kernel planned by the installed ttlplan,
#     `import ttlplan` and `python3 -m ttlplan` from the prefix.
cmake_minimum_required(VERSION 3.25)

# run(COMMAND...): runs it, fails the test on a non-zero exit; stdout and stderr are in `output`,
# stdout alone in `stdout`.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT status EQUAL 0)
    list(JOIN ARGN " " line)
    message(FATAL_ERROR "`${line}` exited with ${status}:\n${out}${err}")
  endif()
  set(output "${out}${err}" PARENT_SCOPE)
  set(stdout "${out}" PARENT_SCOPE)
endfunction()

# expect("ARG;ARG..." MESSAGE): fails the test with MESSAGE unless if(ARG ARG...) holds.
function(expect condition message)
  if(${condition})
  else()
    message(FATAL_ERROR "${message}")
  endif()
endfunction()

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(prefix ${WORK}/prefix)
run(${CMAKE_COMMAND} --install ${BUILD} --prefix ${prefix})

# 1. Layout.
foreach(path bin/ttlplan lib/libttlplan_ir.a lib/libttlplan_search.a lib/libttlplan_emu.a
        include/ttlplan/Config.h include/ttlplan/ir/Operation.h include/ttlplan/lower/KernelPlanner.h
        include/ttlplan/emu/api/dataflow/dataflow_api.h include/ttlplan/emu/tt-metalium/host_api.hpp share/ttlplan/devices/wormhole_b0.json
        share/ttlplan/cmake/ttlplanConfig.cmake share/ttlplan/cmake/TtlplanAddKernel.cmake
        lib/pkgconfig/ttlplan.pc)
  expect("EXISTS;${prefix}/${path}" "the install lacks ${path}")
endforeach()
expect("NOT;EXISTS;${prefix}/include/ttlplan/codegen/emu" "emulator sources leaked into codegen")
file(GLOB_RECURSE headers ${prefix}/include/ttlplan/*.h)
foreach(header IN LISTS headers)
  file(STRINGS ${header} bad REGEX "#include \"(support|ir|planner|lower|codegen|search|reference)/")
  expect("NOT;bad" "${header} includes a ttlplan header without the ttlplan/ prefix: ${bad}")
endforeach()

# 2. examples/cmake-consumer, on copies of the kernels (the test touches them).
file(MAKE_DIRECTORY ${WORK}/kernels)
foreach(kernel eltwise_add matmul_template eltwise_bcast_scalar matmul_multicore)
  file(COPY ${SOURCE}/examples/${kernel}.ttl DESTINATION ${WORK}/kernels)
endforeach()
set(consumer ${WORK}/consumer)
# TT-Metalium: the stand-in package of tests/sdk (the emulator's SDK-shaped headers and library),
# so that the METALIUM target builds here exactly as it would against tt-metal.
file(STRINGS ${BUILD}/CMakeCache.txt sanitized REGEX "^TTLPLAN_SANITIZE:BOOL=ON$")
set(emu_flags "")
if(sanitized)
  set(emu_flags "-fsanitize=address,undefined -fno-omit-frame-pointer")
endif()
run(${CMAKE_COMMAND} -S ${SOURCE}/examples/cmake-consumer -B ${consumer} -G Ninja
    -DCMAKE_PREFIX_PATH=${prefix} -DKERNEL_DIR=${WORK}/kernels
    -DTT-Metalium_DIR=${SOURCE}/tests/sdk -DTTLPLAN_EMU_INCLUDE=${prefix}/include/ttlplan/emu
    -DTTLPLAN_EMU_LIBRARY=${prefix}/lib/libttlplan_emu.a "-DTTLPLAN_EMU_FLAGS=${emu_flags}")
run(${CMAKE_COMMAND} --build ${consumer})
foreach(path eltwise_add_host matmul_host matmul.jsonl eltwise_add/reader.cpp
        matmul_template/compute.cpp bcast/eltwise_bcast_scalar/host.cpp bcast/plan.json
        libmatmul_multicore_lib.a matmul_multicore/writer.cpp eltwise_add_card
        card/eltwise_add/compute.cpp card/CMakeLists.txt)
  expect("EXISTS;${consumer}/${path}" "the consumer build did not make ${path}")
endforeach()
# METALIUM: no emulator build files in its directory (TT-Metalium compiles the kernels itself).
expect("NOT;EXISTS;${consumer}/card/ttlplan_emu_registry.cpp"
       "the METALIUM target got the emulator's registry")
file(READ ${consumer}/bcast/plan.json plan)
string(JSON device GET "${plan}" device)
expect("device;STREQUAL;blackhole_p150" "DEVICE was not passed on: plan.json says ${device}")

run(${CMAKE_COMMAND} --build ${consumer})
expect("output;MATCHES;no work to do" "a no-op rebuild did work:\n${output}")
file(TOUCH ${WORK}/kernels/eltwise_add.ttl)
run(${CMAKE_COMMAND} --build ${consumer})
expect("output;MATCHES;ttlplan: compiling [^\n]*eltwise_add.ttl" "touching a kernel did not regenerate it:\n${output}")
expect("NOT;output;MATCHES;Building CXX|Linking" "unchanged generated files were recompiled:\n${output}")
run(${CMAKE_COMMAND} --build ${consumer})
expect("output;MATCHES;no work to do" "the rebuild after a regeneration did work:\n${output}")

# The host programs against `ttlplan run` (same kernel, same binding: the db the build wrote).
set(ttlplan ${prefix}/bin/ttlplan)
foreach(case "eltwise_add;eltwise_add;c" "matmul_template;matmul;c")
  list(GET case 0 kernel)
  list(GET case 1 host)
  list(GET case 2 result)
  set(db "")
  if(kernel STREQUAL "matmul_template")
    set(db --db ${consumer}/matmul.jsonl)
  endif()
  run(${ttlplan} run ${WORK}/kernels/${kernel}.ttl ${db} --work-dir ${WORK}/run-${kernel})
  expect("output;MATCHES;PASS" "ttlplan run ${kernel} did not pass:\n${output}")
  file(MAKE_DIRECTORY ${WORK}/host-${kernel})
  run(${consumer}/${host}_host ${WORK}/run-${kernel}/in ${WORK}/host-${kernel})
  file(SHA256 ${WORK}/run-${kernel}/out/${result}.npy expected)
  file(SHA256 ${WORK}/host-${kernel}/${result}.npy actual)
  expect("actual;STREQUAL;expected" "${host}_host's ${result} differs from `ttlplan run`'s")
endforeach()

# 3. examples/api, through the CMake package and through pkg-config.
run(${CMAKE_COMMAND} -S ${SOURCE}/examples/api -B ${WORK}/api -G Ninja -DCMAKE_PREFIX_PATH=${prefix})
run(${CMAKE_COMMAND} --build ${WORK}/api)
run(${WORK}/api/api_example ${WORK}/kernels/eltwise_add.ttl)
set(api_output "${output}")
run(${ttlplan} plan ${WORK}/kernels/eltwise_add.ttl --json -)
set(plan "${stdout}")
string(JSON cb_count LENGTH "${plan}" kernels 0 cbs)
expect("cb_count;EQUAL;3" "eltwise_add should have 3 CBs, plan --json has ${cb_count}")
math(EXPR last "${cb_count} - 1")
foreach(i RANGE ${last})
  string(JSON name GET "${plan}" kernels 0 cbs ${i} name)
  string(JSON address GET "${plan}" kernels 0 cbs ${i} address)
  string(JSON index GET "${plan}" kernels 0 cbs ${i} index)
  expect("api_output;MATCHES;\\[ *${address}, *[0-9]+\\) +${name} +index +${index} "
         "api_example does not show ${name} at ${address} with index ${index}:\n${api_output}")
endforeach()

# An infeasible kernel: the error as ttlplan prints it, and the rejection as data.
execute_process(COMMAND ${WORK}/api/api_example ${SOURCE}/tests/plan/huge_cbs.ttl
                RESULT_VARIABLE status ERROR_VARIABLE err OUTPUT_QUIET)
expect("status;EQUAL;1" "api_example on huge_cbs.ttl exited with ${status}:\n${err}")
expect("err;MATCHES;short by 177,440 B" "api_example did not print ttlplan's error:\n${err}")
expect("err;MATCHES;@huge needs 1572864 and has 1395424 \\(l1\\)"
       "api_example did not print the rejection's data:\n${err}")

find_program(PKG_CONFIG pkg-config REQUIRED)
set(ENV{PKG_CONFIG_PATH} ${prefix}/lib/pkgconfig)
run(${PKG_CONFIG} --cflags --libs ttlplan)
separate_arguments(flags UNIX_COMMAND "${output}")
run(c++ -std=c++20 ${SOURCE}/examples/api/main.cpp ${flags} -o ${WORK}/api_pkg_config)
run(${WORK}/api_pkg_config ${WORK}/kernels/eltwise_add.ttl)
expect("output;STREQUAL;api_output" "the pkg-config build prints another map:\n${output}")

# 4. Python (docs/python.md): the package and the extension under lib/python3/dist-packages; the
# installed ttlplan reads a tt-lang kernel through the installed front end; `import ttlplan` and
# `python3 -m ttlplan` from the prefix. PRELOAD: the sanitizer runtimes a sanitized extension
# needs loaded first (empty otherwise).
if(NOT WITH_PYTHON)
  return()
endif()
set(pydir ${prefix}/lib/python3/dist-packages)
foreach(path ttlplan/__init__.py ttlplan/__main__.py ttlplan/frontend/__main__.py)
  expect("EXISTS;${pydir}/${path}" "the install lacks ${pydir}/${path}")
endforeach()
file(GLOB extension ${pydir}/_ttlplan*.so)
expect("extension" "the install lacks the _ttlplan extension in ${pydir}")
file(COPY ${SOURCE}/examples/python/reduce_rows.py ${SOURCE}/examples/python/reduce_rows.ttlplan.toml
     DESTINATION ${WORK}/py)
run(${prefix}/bin/ttlplan plan ${WORK}/py/reduce_rows.py)
expect("output;MATCHES;kernel @reduce_rows \\(${WORK}/py/reduce_rows.py:12:1\\)"
       "the installed ttlplan did not plan the Python kernel:\n${output}")
set(python_env PYTHONPATH=${pydir} LD_PRELOAD=${PRELOAD} ASAN_OPTIONS=detect_leaks=0)
run(${CMAKE_COMMAND} -E env ${python_env} ${PYTHON} -c
    "import ttlplan, sys\nprint(ttlplan.plan(sys.argv[1])['kernels'][0]['name'])"
    ${WORK}/py/reduce_rows.py)
expect("stdout;MATCHES;^@reduce_rows" "import ttlplan from the prefix printed:\n${output}")
run(${CMAKE_COMMAND} -E env ${python_env} ${PYTHON} -m ttlplan --version)
expect("stdout;MATCHES;ttlplan" "python3 -m ttlplan --version printed:\n${output}")
