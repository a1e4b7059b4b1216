// RUN: ttlplan print %s | FileCheck %s
// The generic form of MLIR >= 17 keeps inherent attributes apart as properties, `<{...}>`; they
// stay apart from the discardable `{...}` attributes and print back the same way. (mlir-opt-16,
// from LLVM 16, predates properties, so this file is not in its acceptance tests.)
// CHECK: %0 = "ttl.bind_cb"() <{block_count = 2, cb_index = 0}> {ttl.note = "kept"} : () -> !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
// CHECK-NEXT: "test.sink"(%0) <{weight = 5 : i32}> : (!ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> ()
// CHECK-NEXT: "test.empty"() : () -> ()
module {
  %0 = "ttl.bind_cb"() <{block_count = 2 : i64, cb_index = 0 : i64}> {ttl.note = "kept"} : () -> !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
  "test.sink"(%0) <{weight = 5 : i32}> : (!ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> ()
  "test.empty"() : () -> ()
}
