// RUN: ttlplan print %s | FileCheck %s
// Locations as MLIR writes them (mlir-opt --mlir-print-debuginfo, tt-lang with
// TTLANG_DEBUG_LOCATIONS=1): aliases defined after the module that uses them, file, name,
// callsite, fused (with and without metadata) and unknown locations, on ops, on the module and on
// block arguments. Each is printed back as written; the aliases move to the top, where MLIR reads
// them too.
// CHECK: #loc = loc("kernel.py":10:0)
// CHECK-NEXT: #loc1 = loc("kernel.py":12:5)
// CHECK-NEXT: #loc2 = loc("foo"(#loc1))
// CHECK-NEXT: module {
// CHECK-NEXT: "test.a"() : () -> () loc(#loc1)
// CHECK-NEXT: "test.b"() : () -> () loc("kernel.py":13:9)
// CHECK-NEXT: "test.c"() : () -> () loc(callsite("helper"("lib.py":3:4) at "kernel.py":14:2))
// CHECK-NEXT: "test.d"() : () -> () loc(fused[#loc1, "other.py":1:1])
// CHECK-NEXT: "test.e"() : () -> () loc(fused<"meta">["a.py":2:3])
// CHECK-NEXT: "test.f"() : () -> () loc("dm_read")
// CHECK-NEXT: "test.g"() : () -> () loc(unknown)
// CHECK-NEXT: "test.h"() : () -> () loc(#loc2)
// CHECK-NEXT: "test.region"() ({
// CHECK-NEXT: ^bb0(%x: i32 loc("kernel.py":20:1)):
// CHECK-NEXT: "test.use"(%x) : (i32) -> () loc("kernel.py":21:3)
// CHECK-NEXT: }) : () -> ()
// CHECK-NEXT: } loc(#loc)
module {
  "test.a"() : () -> () loc(#loc1)
  "test.b"() : () -> () loc("kernel.py":13:9)
  "test.c"() : () -> () loc(callsite("helper"("lib.py":3:4) at "kernel.py":14:2))
  "test.d"() : () -> () loc(fused[#loc1, "other.py":1:1])
  "test.e"() : () -> () loc(fused<"meta">["a.py":2:3])
  "test.f"() : () -> () loc("dm_read")
  "test.g"() : () -> () loc(unknown)
  "test.h"() : () -> () loc(#loc2)
  "test.region"() ({
  ^bb0(%x: i32 loc("kernel.py":20:1)):
    "test.use"(%x) : (i32) -> () loc("kernel.py":21:3)
  }) : () -> ()
} loc(#loc)
#loc = loc("kernel.py":10:0)
#loc1 = loc("kernel.py":12:5)
#loc2 = loc("foo"(#loc1))
