// RUN: not ttlplan verify %s 2>&1 | FileCheck %s
// A kernel dumped with debug locations: the verifier's error points at the Python line the op
// came from (its loc alias, defined after the module), and the note at the other op's line.
// CHECK: kernel.py:44:1: error: redefinition of symbol @k_again: ttl.kernel already defines it
// CHECK-NEXT: kernel.py:40:1: note: @k_again is defined here
// CHECK-NEXT: kernel.py:31:9: error: ttl.cb_push %cb without a ttl.cb_reserve before it in this thread
!cb = !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
module {
  ttl.kernel @k() attributes {grid = [1, 1], work = [1]} {
    %cb = ttl.create_cb : !cb loc(#loc3)
    ttl.compute_thread {
      ttl.work_loop (%i) {
        ttl.cb_push %cb : !cb loc(#loc4)
      }
    }
  } loc(#loc2)
  ttl.kernel @k_again() attributes {grid = [1, 1]} {
  } loc(#loc5)
  ttl.kernel @k_again() attributes {grid = [1, 1]} {
  } loc(#loc6)
}
#loc2 = loc("kernel.py":20:1)
#loc3 = loc("kernel.py":22:10)
#loc4 = loc("kernel.py":31:9)
#loc5 = loc("kernel.py":40:1)
#loc6 = loc("kernel.py":44:1)
