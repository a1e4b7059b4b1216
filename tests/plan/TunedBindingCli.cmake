# The planning commands with knobs left unbound (driver/Binding.cpp, docs/tuning.md "Knobs
# --bind leaves out"): they plan the point `ttlplan tune` finds best, or with --db the best record
# of a tuning db. Each case checks the pick against an independent run of `tune` or `db best`.
#   cmake -DTTLPLAN=... -DSOURCE=<repo> -DWORK=<empty dir> -DCASE=<name> -P TunedBindingCli.cmake
set(knobs ${SOURCE}/tests/print/knobs.ttl)
set(mm ${SOURCE}/examples/matmul_template.ttl)
set(mm2d ${SOURCE}/examples/matmul_2d_template.ttl)
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})

include(${CMAKE_CURRENT_LIST_DIR}/../support/CliScript.cmake)

# The `?` block counts of a `plan --json` file's first kernel as a JSON object {"%cb": count}.
function(plan_block_counts json var)
  set(counts "{}")
  string(JSON n LENGTH "${json}" kernels 0 cbs)
  math(EXPR last "${n} - 1")
  foreach(i RANGE ${last})
    string(JSON chosen GET "${json}" kernels 0 cbs ${i} chosen_by_planner)
    if(chosen)
      string(JSON name GET "${json}" kernels 0 cbs ${i} name)
      string(JSON count GET "${json}" kernels 0 cbs ${i} block_count)
      string(JSON counts SET "${counts}" "${name}" ${count})
    endif()
  endforeach()
  set(${var} "${counts}" PARENT_SCOPE)
endfunction()

# `plan FILE ARGN --json` and the binding and block counts it planned with.
function(plan_pick file)
  ttlplan_run(plan 0 plan ${file} ${ARGN} --json ${WORK}/plan.json)
  file(READ ${WORK}/plan.json json)
  string(JSON values GET "${json}" binding values)
  plan_block_counts("${json}" counts)
  set(plan_err "${plan_err}" PARENT_SCOPE)
  set(plan_values "${values}" PARENT_SCOPE)
  set(plan_counts "${counts}" PARENT_SCOPE)
  string(JSON source GET "${json}" binding source)
  set(plan_source "${source}" PARENT_SCOPE)
endfunction()

if(CASE STREQUAL "partial_bind_matches_tune")
  # 512 points: exhaustive, like `tune`'s default strategy.
  set(bind DTYPE=bfp8_b,FP32=1,BN=4)
  ttlplan_run(tune 0 tune ${knobs} --bind ${bind} --quiet --json -)
  string(JSON best_binding GET "${tune_out}" best binding)
  string(JSON best_counts GET "${tune_out}" best block_counts)
  plan_pick(${knobs} --bind ${bind})
  expect_json_equal("plan's binding and tune's best" "${plan_values}" "${best_binding}")
  expect_json_equal("plan's and tune's block counts" "${plan_counts}" "${best_counts}")
  expect_match("plan's stderr" "${plan_err}"
               "^tuned 6 unbound knobs and 1 block count over 512 points \\(exhaustive\\), [0-9]+ fit: picked BK=[0-9]+ .*block_count\\(%cbc\\)=[0-9]+ \\(predicted [0-9.]+ us\\)\n$")
  expect_match("plan's binding source" "${plan_source}"
               "^--bind, then tuned: the fastest predicted of all 512 points$")
  # No --bind at all on a template: every knob is tuned.
  ttlplan_run(tune 0 tune ${mm} --quiet --json -)
  string(JSON best_binding GET "${tune_out}" best binding)
  plan_pick(${mm})
  expect_json_equal("plan's binding and tune's best (no --bind)" "${plan_values}"
                    "${best_binding}")

elseif(CASE STREQUAL "evolve_matches_tune")
  # 23,104 points: over the bound, so 20000 points of the seeded evolve strategy, as
  # `tune --strategy evolve --budget-evals 20000` (seed 1) visits them; `cost` predicts the same.
  set(bind M=256,K=256,N=256,DTYPE=bf16,FIDELITY=HiFi2,FP32_DEST_ACC=0)
  ttlplan_run(tune 0 tune ${mm2d} --bind ${bind} --strategy evolve --budget-evals 20000 --quiet
              --json -)
  # A matmul template: what the planning commands use is tune's pick (docs/tuning.md, "The pick"),
  # which is the rule's config or the best point, as its source says.
  string(JSON best_binding GET "${tune_out}" pick binding)
  string(JSON best_ns GET "${tune_out}" pick predicted_ns)
  string(JSON pick_source GET "${tune_out}" pick source)
  if(pick_source STREQUAL "rule")
    string(JSON source_binding GET "${tune_out}" rule binding)
  else()
    string(JSON source_binding GET "${tune_out}" best binding)
  endif()
  expect_json_equal("tune's pick and its source (${pick_source})" "${best_binding}"
                    "${source_binding}")
  ttlplan_run(cost 0 cost ${mm2d} --bind ${bind} --json -)
  string(JSON cost_ns GET "${cost_out}" predicted_ns)
  expect_match("cost's stderr" "${cost_err}"
               "^tuned 7 unbound knobs and 1 block count over 20000 of 23104 points \\(evolve, seed 1\\)")
  if(NOT cost_ns STREQUAL best_ns)
    message(FATAL_ERROR "cost predicts ${cost_ns} ns, tune's pick ${best_ns} ns")
  endif()
  plan_pick(${mm2d} --bind ${bind})
  expect_json_equal("plan's binding and tune's pick" "${plan_values}" "${best_binding}")

elseif(CASE STREQUAL "db_best")
  # A db of 100 random points: its best is (for this seed) not the exhaustive best, so a plan that
  # matches it read the db.
  ttlplan_run(tune 0 tune ${mm} --bind BK=2 --strategy random --budget-evals 100 --quiet
              --db ${WORK}/x.jsonl)
  ttlplan_run(best 0 db best --json - ${WORK}/x.jsonl)
  string(JSON db_binding GET "${best_out}" best binding)
  string(JSON db_counts GET "${best_out}" best block_counts)
  ttlplan_run(tune 0 tune ${mm} --bind BK=2 --quiet --json -)
  string(JSON tuned_binding GET "${tune_out}" best binding)
  string(JSON tuned_counts GET "${tune_out}" best block_counts)
  string(JSON same_binding EQUAL "${db_binding}" "${tuned_binding}")
  string(JSON same_counts EQUAL "${db_counts}" "${tuned_counts}")
  if(same_binding AND same_counts)
    message(FATAL_ERROR "the db's best is the exhaustive best; the test proves nothing")
  endif()
  plan_pick(${mm} --bind BK=2 --db ${WORK}/x.jsonl)
  expect_json_equal("plan --db's binding and db best's" "${plan_values}" "${db_binding}")
  expect_json_equal("plan --db's and db best's block counts" "${plan_counts}" "${db_counts}")
  expect_match("plan --db's stderr" "${plan_err}"
               "^best record of --db [^\n]*x.jsonl: picked .* \\(predicted [0-9.]+ us\\)\n$")
  expect_match("plan --db's binding source" "${plan_source}"
               "^--bind, then the best record of tuning db .*x.jsonl$")
  # compile reads it through the pipeline the same way (its plan.json).
  ttlplan_run(compile 0 compile ${mm} --bind BK=2 --db ${WORK}/x.jsonl -o ${WORK}/out)
  file(READ ${WORK}/out/plan.json json)
  string(JSON values GET "${json}" binding values)
  expect_json_equal("compile --db's binding and db best's" "${values}" "${db_binding}")

elseif(CASE STREQUAL "db_other_binding")
  ttlplan_run(tune 0 tune ${mm} --bind BK=2 --quiet --db ${WORK}/x.jsonl)
  ttlplan_run(plan 1 plan ${mm} --bind BK=4 --db ${WORK}/x.jsonl)
  expect_match("plan --db's error" "${plan_err}"
               "^ttlplan: error: --db: the records of '[^']*x.jsonl' are not for this kernel, --bind and device \\(bound 'BK=2' \\(expected 'BK=4'\\)\\); `ttlplan tune [^`]*matmul_template.ttl --bind BK=4 --db NEW_DB` writes them\n$")
  ttlplan_run(other 1 plan ${knobs} --db ${WORK}/x.jsonl)
  expect_match("plan --db's error (another kernel)" "${other_err}" "kernel_hash '[0-9a-f]+' \\(expected '[0-9a-f]+'\\)")

elseif(CASE STREQUAL "db_no_feasible")
  ttlplan_run(tune 0 tune ${mm} --bind BK=2 --quiet --db ${WORK}/x.jsonl)
  file(STRINGS ${WORK}/x.jsonl header LIMIT_COUNT 1)
  file(WRITE ${WORK}/empty.jsonl "${header}\n")
  ttlplan_run(plan 1 run ${mm} --bind BK=2 --db ${WORK}/empty.jsonl)
  expect_match("run --db's error" "${plan_err}"
               "^ttlplan: error: --db: '[^']*empty.jsonl' has no feasible record for this kernel \\(0 records: 0 rejected, 0 stale\\); `ttlplan tune [^`]* --bind BK=2 --db NEW_DB` writes them\n$")

else()
  message(FATAL_ERROR "unknown CASE '${CASE}'")
endif()

file(REMOVE_RECURSE ${WORK})
