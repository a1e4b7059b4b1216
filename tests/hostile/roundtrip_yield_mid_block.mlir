// Printing must read back (issue 14): a generic scf.yield that is not the last op of its block
// (invalid, but printable) stays generic, or its operand list would take in the next op's `%0 =`.
// tests/ir/RoundTripTest.cpp reprints every file under tests/; this one is its regression input.
"builtin.module"() ({
  "test.region"() ({
    "scf.yield"() : () -> ()
    %0 = "test.a"() : () -> i32
    "scf.yield"() {tag = 1 : i64} : () -> ()
  }) : () -> ()
}) : () -> ()
