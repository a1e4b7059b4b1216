// RUN: ttlplan lower %s | FileCheck %s
// A generic module whose region has no block (a fuzzer's find, issue 14): MLIR's module always
// has its one block, so the parser gives it one; plan, lower and compile used to crash on it.
// CHECK: module {
// CHECK-NEXT: }
"builtin.module"() ({
}) : () -> ()
