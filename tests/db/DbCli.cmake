# `ttlplan db` end to end: builds small real tuning dbs with `ttlplan tune --db` and checks what
# `db best|show|merge|rerank` make of them.
#   cmake -DTTLPLAN=... -DSOURCE=<repo> -DWORK=<empty dir> -DCASE=<name> -P DbCli.cmake
set(template ${SOURCE}/examples/matmul_2d_template.ttl)
set(bind "M=256,K=256,N=256,DTYPE=bf16,FIDELITY=HiFi2,FP32_DEST_ACC=0,out_subblock_h=1,out_subblock_w=1")
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})

# Runs ttlplan ARGN; fails unless it exits with EXPECT. Sets <prefix>_out and <prefix>_err.
function(ttlplan_run prefix expect)
  execute_process(COMMAND ${TTLPLAN} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  if(NOT rc EQUAL expect)
    message(FATAL_ERROR "ttlplan ${ARGN}: exit ${rc}, expected ${expect}\nstdout:\n${out}\n"
                        "stderr:\n${err}")
  endif()
  set(${prefix}_out "${out}" PARENT_SCOPE)
  set(${prefix}_err "${err}" PARENT_SCOPE)
endfunction()

# Fails unless TEXT matches REGEX.
function(expect_match what text regex)
  if(NOT text MATCHES "${regex}")
    message(FATAL_ERROR "${what} does not match '${regex}':\n${text}")
  endif()
endfunction()

# Fails unless the JSON values A and B are equal (parsed, so formatting does not matter).
function(expect_json_equal what a b)
  string(JSON equal EQUAL "${a}" "${b}")
  if(NOT equal)
    message(FATAL_ERROR "${what} differ:\n${a}\n--- vs ---\n${b}")
  endif()
endfunction()

# `tune` of the template into DB with the usual --bind (BIND overrides it), extra flags in ARGN.
function(tune db)
  cmake_parse_arguments(arg "" "BIND" "" ${ARGN})
  if(NOT arg_BIND)
    set(arg_BIND ${bind})
  endif()
  ttlplan_run(tune 0 tune ${template} --bind ${arg_BIND} --quiet --db ${db}
              ${arg_UNPARSED_ARGUMENTS})
  set(tune_out "${tune_out}" PARENT_SCOPE)
endfunction()

# The `best` object of `db best --json -` on DB.
function(db_best db var)
  ttlplan_run(best 0 db best --json - ${db})
  string(JSON best GET "${best_out}" best)
  set(${var} "${best}" PARENT_SCOPE)
endfunction()

if(CASE STREQUAL "best_matches_tune")
  tune(${WORK}/x.jsonl --json -)
  string(JSON tune_best GET "${tune_out}" best)
  db_best(${WORK}/x.jsonl db_best)
  expect_json_equal("tune's best and db best's" "${tune_best}" "${db_best}")
  string(JSON bound GET "${db_best}" binding M)
  expect_match("db best's binding.M" "${bound}" "^256$")
  ttlplan_run(table 0 db best ${WORK}/x.jsonl)
  expect_match("db best's table" "${table_out}" "\nbest +[0-9.]+ us .*in0_block_w=")

elseif(CASE STREQUAL "merge_shards")
  tune(${WORK}/x.jsonl)
  tune(${WORK}/s0.jsonl --shard 0/2)
  tune(${WORK}/s1.jsonl --shard 1/2)
  ttlplan_run(merge 0 db merge ${WORK}/s0.jsonl ${WORK}/s1.jsonl -o ${WORK}/m.jsonl)
  ttlplan_run(show 0 db show --json - ${WORK}/x.jsonl)
  string(JSON records GET "${show_out}" counts records)
  expect_match("db merge's output" "${merge_out}" "merged 2 files into .*: ${records} records")
  db_best(${WORK}/x.jsonl unsharded)
  db_best(${WORK}/m.jsonl merged)
  expect_json_equal("the unsharded and the merged best" "${unsharded}" "${merged}")
  ttlplan_run(again 1 db merge ${WORK}/s0.jsonl ${WORK}/s1.jsonl -o ${WORK}/m.jsonl)
  expect_match("merge into an existing file" "${again_err}" "m.jsonl' exists")

elseif(CASE STREQUAL "merge_other_kernel")
  tune(${WORK}/x.jsonl)
  string(REPLACE "M=256" "M=512" other_bind "${bind}")
  tune(${WORK}/o.jsonl BIND ${other_bind})
  ttlplan_run(merge 1 db merge ${WORK}/x.jsonl ${WORK}/o.jsonl -o ${WORK}/m.jsonl)
  expect_match("merge's error" "${merge_err}" "^ttlplan: error: .*o.jsonl' .*another.*: bound ")
  if(EXISTS ${WORK}/m.jsonl)
    message(FATAL_ERROR "a refused merge wrote its output")
  endif()

elseif(CASE STREQUAL "show_garbage_line")
  tune(${WORK}/x.jsonl)
  file(READ ${WORK}/x.jsonl text)
  string(FIND "${text}" "\n" first)
  math(EXPR cut "${first} + 1")
  string(SUBSTRING "${text}" 0 ${cut} head)
  string(SUBSTRING "${text}" ${cut} -1 tail)
  file(WRITE ${WORK}/g.jsonl "${head}{\"point\": garbage\n${tail}")
  ttlplan_run(show 0 db show ${WORK}/g.jsonl)
  expect_match("db show's stderr" "${show_err}" "^ttlplan: warning: [^\n]*g.jsonl:2: not JSON")
  expect_match("db show's table" "${show_out}" "records: [0-9]+ \\([0-9]+ ok.*\n +1 +[0-9.]+ us")
  ttlplan_run(clean 0 db show ${WORK}/x.jsonl)
  expect_match("db show's stderr on the clean file" "${clean_err}" "^$")

elseif(CASE STREQUAL "rerank_old_cost_model")
  tune(${WORK}/x.jsonl)
  # An "old cost model": another version in the header, and every prediction 1 ns.
  file(READ ${WORK}/x.jsonl text)
  string(REGEX REPLACE "\"cost_model\":\"[^\"]*\"" "\"cost_model\":\"cost-old\"" text "${text}")
  string(REGEX REPLACE "\"predicted_ns\":[0-9.e+-]+" "\"predicted_ns\":1" text "${text}")
  file(WRITE ${WORK}/old.jsonl "${text}")
  db_best(${WORK}/x.jsonl current)
  db_best(${WORK}/old.jsonl old)
  string(JSON old_equal EQUAL "${current}" "${old}")
  if(old_equal)
    message(FATAL_ERROR "the edited db already has the current best; the test proves nothing")
  endif()
  ttlplan_run(rerank 0 db rerank ${WORK}/old.jsonl --kernel ${template})
  expect_match("db rerank's output" "${rerank_out}" "re-costed [1-9][0-9]* points.*best changed")
  db_best(${WORK}/old.jsonl reranked)
  expect_json_equal("the reranked and the current best" "${current}" "${reranked}")
  ttlplan_run(show 0 db show --json - ${WORK}/old.jsonl)
  string(JSON model GET "${show_out}" header cost_model)
  expect_match("the reranked header's cost_model" "${model}" "^cost-[0-9]+$")

elseif(CASE STREQUAL "rerank_other_kernel")
  tune(${WORK}/x.jsonl)
  ttlplan_run(rerank 1 db rerank ${WORK}/x.jsonl --kernel ${SOURCE}/examples/eltwise_add.ttl
              -o ${WORK}/r.jsonl)
  expect_match("db rerank's error" "${rerank_err}" "eltwise_add.ttl' is not the kernel")

elseif(CASE STREQUAL "best_no_usable")
  tune(${WORK}/x.jsonl)
  file(STRINGS ${WORK}/x.jsonl header LIMIT_COUNT 1)
  file(WRITE ${WORK}/empty.jsonl "${header}\n")
  ttlplan_run(best 1 db best ${WORK}/empty.jsonl)
  expect_match("db best's error" "${best_err}" "has no usable record")
  ttlplan_run(show 0 db show ${WORK}/empty.jsonl)
  expect_match("db show's table" "${show_out}" "records: 0 .*no usable record")

else()
  message(FATAL_ERROR "unknown CASE '${CASE}'")
endif()

# Passed: the dbs (tens of MB) are not kept; a failure above leaves them for a look.
file(REMOVE_RECURSE ${WORK})
