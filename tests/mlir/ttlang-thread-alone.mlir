// RUN: ttlplan plan %s 2>&1 | FileCheck %s
// RUN: ttlplan lower --pipeline import-ttlang %s | FileCheck %s --check-prefix=IMPORT
// RUN: not ttlplan cost %s 2>&1 | FileCheck %s --check-prefix=COST
// RUN: not ttlplan compile %s -o %t.dir 2>&1 | FileCheck %s --check-prefix=COMPILE
// RUN: not ttlplan tune %s 2>&1 | FileCheck %s --check-prefix=TUNE
// A tt-lang compute thread on its own, as tt-lang's pass tests write them (no ttl.launch_grid, no
// reader or writer): planned as one core running it. Its input CB's producer and its output CB's
// consumer are threads the file does not hold; the plan places both CBs (two blocks of 3x3 bf16
// tiles: 9 * 2048 * 2 = 36,864 bytes each, back to back from the unreserved base), gives them
// indices, splits the 9-tile block's DST chain (8 tiles of bf16 DST: a sub-block must divide the
// 3x3 block, so 1x3 or 3x1, three rounds of 3 tiles; the planner walks rows) and says what it
// assumed.
// The cb_pop and cb_push tt-lang's front end leaves to its ttl-insert-cb-sync pass are inserted
// after the last use of each block. Nothing is costed, compiled or tuned.
// CHECK: warning: no predicted time: cost needs every thread of the kernel, but the producer of %cb_in
// CHECK: kernel @ttlang_kernel
// CHECK-NEXT: assumed: no ttl.launch_grid: the threads run on one core (grid [1, 1])
// CHECK-NEXT: assumed: %cb_in (cb_index 0): its producer is a thread not in this file; the plan places and indexes it, nothing is costed or run
// CHECK-NEXT: assumed: %cb_out (cb_index 1): its consumer is a thread not in this file; the plan places and indexes it, nothing is costed or run
// CHECK-NEXT: grid: 1 x 1; no `work` attribute
// CHECK: 0 %cb_in [103,712, 140,576) 36,864 2 3x3 bf16
// CHECK-NEXT: 1 %cb_out [140,576, 177,440) 36,864 2 3x3 bf16
// CHECK: DST chain %r -> %res {{.*}} 1 op, block 3x3 bf16, capacity 8 tiles
// CHECK-NEXT: sub-block 1x3, 3 rounds, peak 3 DST tiles
// IMPORT: %cb_in = ttl.create_cb {ttl.cb_index = 0, outside = "producer"}
// IMPORT-NEXT: %cb_out = ttl.create_cb {ttl.cb_index = 1, outside = "consumer"}
// IMPORT: ttl.store %r, %res
// IMPORT-NEXT: ttl.cb_push %cb_out
// IMPORT-NEXT: ttl.cb_pop %cb_in
// COST: error: cost needs every thread of the kernel, but the producer of %cb_in ({{.*}}ttlang-thread-alone.mlir:35:14) is not in this file
// COMPILE: error: codegen: compile or run needs every thread of the kernel
// TUNE: error: tune needs every thread of the kernel
module {
  func.func @relu_3x3() attributes {ttl.kernel_thread = #ttkernel.thread<compute>} {
    %cb_in = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[3, 3], !ttcore.tile<32x32, bf16>, 2>
    %cb_out = ttl.bind_cb {cb_index = 1, block_count = 2} : !ttl.cb<[3, 3], !ttcore.tile<32x32, bf16>, 2>
    %in = ttl.cb_wait %cb_in : !ttl.cb<[3, 3], !ttcore.tile<32x32, bf16>, 2> -> tensor<3x3x!ttcore.tile<32x32, bf16>>
    %res = ttl.cb_reserve %cb_out : !ttl.cb<[3, 3], !ttcore.tile<32x32, bf16>, 2> -> tensor<3x3x!ttcore.tile<32x32, bf16>>
    %r = ttl.relu %in : tensor<3x3x!ttcore.tile<32x32, bf16>> -> tensor<3x3x!ttcore.tile<32x32, bf16>>
    ttl.store %r, %res : tensor<3x3x!ttcore.tile<32x32, bf16>>, tensor<3x3x!ttcore.tile<32x32, bf16>>
    func.return
  }
}
