# --bind on the command line: its errors, and a partial binding run on the emulator. Included from
# tests/CMakeLists.txt.
# --- knob bindings on the command line (tests/print/knobs.ttl: symbol knobs, expressions) ---
# (tests/lower/bind-partial.check: a partial --bind, the rest tuned; a lit test)
set(knobs_ttl ${CMAKE_CURRENT_SOURCE_DIR}/print/knobs.ttl)
# Bad --bind: an unknown knob, a value outside the domain, a symbol for an integer knob (the
# binding does not fit the file: exit 1), a malformed entry (usage: exit 2).
ttlplan_cli_test(bind_unknown_knob 1 1 "no knob @Q; its knobs are @M, @K, @N, @DTYPE"
                 plan --bind Q=1 ${knobs_ttl})
ttlplan_cli_test(bind_not_in_domain 1 1 "DTYPE=f64 is not a value of @DTYPE; its domain is \\[bf16, bfp8_b, bfp4_b\\]"
                 lower --bind DTYPE=f64 ${knobs_ttl})
ttlplan_cli_test(bind_symbol_for_integer 1 1 "BM=bf16 is not a value of @BM \\(a symbol for an integer knob\\)"
                 compile --bind BM=bf16 ${knobs_ttl} -o ${CMAKE_CURRENT_BINARY_DIR}/bind_symbol_out)
ttlplan_cli_test(bind_malformed 2 1 "'BM' is not NAME=VALUE" plan --bind BM ${knobs_ttl})
# The template runs on the emulator with a partial binding (bf16; the rest tuned) and matches the
# reference.
add_test(NAME run.knobs_partial_bind
         COMMAND ttlplan run --bind DTYPE=bf16,FIDELITY=HiFi4 ${knobs_ttl})
