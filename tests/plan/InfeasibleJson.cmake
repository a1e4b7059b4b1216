# `plan --json -` of a kernel that does not fit still writes its JSON, with the reasons as data:
#   cmake -DTTLPLAN=... -DSOURCE=<repo> -P InfeasibleJson.cmake
# The numbers are tests/plan/huge_cbs.ttl's (its comment derives them by hand).
cmake_minimum_required(VERSION 3.25)
execute_process(COMMAND ${TTLPLAN} plan ${SOURCE}/tests/plan/huge_cbs.ttl --json -
                RESULT_VARIABLE status OUTPUT_VARIABLE json ERROR_VARIABLE err)
if(NOT status EQUAL 1)
  message(FATAL_ERROR "exit ${status}, wanted 1:\n${err}")
endif()
if(NOT err MATCHES "^[^\n]*tests/plan/huge_cbs.ttl:10:3: error: L1: kernel @huge needs 1,572,864 B" OR
   err MATCHES "ttlplan: error:")
  message(FATAL_ERROR "the error text is missing from stderr:\n${err}")
endif()
foreach(check "status=infeasible" "rejection;kernel=@huge" "rejection;resource=l1"
        "rejection;needed=1572864" "rejection;available=1395424" "rejection;shortfall=177440"
        "rejection;cbs;0=%cba" "rejection;cbs;2=%cbc" "device=wormhole_b0")
  string(REPLACE "=" ";" parts "${check}")
  list(POP_BACK parts expected)
  string(JSON actual ERROR_VARIABLE jsonError GET "${json}" ${parts})
  if(jsonError OR NOT actual STREQUAL expected)
    message(FATAL_ERROR "${parts}: '${actual}' (wanted '${expected}') ${jsonError}\n${json}")
  endif()
endforeach()
string(JSON kernels LENGTH "${json}" kernels)
if(NOT kernels EQUAL 0)
  message(FATAL_ERROR "no kernel was planned, but kernels has ${kernels}")
endif()
