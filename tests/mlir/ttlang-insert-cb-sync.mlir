// RUN: ttlplan lower --split-input-file --pipeline import-ttlang %s | FileCheck %s
// import-ttlang adds the cb_push after a cb_reserve and the cb_pop after a cb_wait that tt-lang's
// front end leaves to its ttl-insert-cb-sync pass (tenstorrent/tt-lang Passes.td): after the last
// op of the acquire's block that uses the acquired block or a value computed from it (a copy, its
// transfer handle, the wait on it; a loop that uses it counts as one op), and never where one is
// written.

// A reader: the push goes after the wait on the copy's transfer handle, not after the copy.
// CHECK-LABEL: ttl.kernel @reader
// CHECK: %xf = ttl.copy
// CHECK-NEXT: %c0_0 = arith.constant 0 : index
// CHECK-NEXT: ttl.wait %xf
// CHECK-NEXT: ttl.cb_push %cb
// CHECK-NOT: ttl.cb_push
module @reader attributes {ttl.launch_grid = [1, 1]} {
  func.func @read(%a: tensor<1x1x!ttcore.tile<32x32, bf16>, #ttl.layout<shape = [32, 32], element_type = !ttcore.tile<32x32, bf16>, buffer = dram, grid = [1, 1], memory = interleaved>>) attributes {ttl.kernel_thread = #ttkernel.thread<noc>} {
    %c0 = arith.constant 0 : index
    %cb = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %v = ttl.cb_reserve %cb : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2> -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %s = ttl.tensor_slice %a[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>, #ttl.layout<shape = [32, 32], element_type = !ttcore.tile<32x32, bf16>, buffer = dram, grid = [1, 1], memory = interleaved>> -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %xf = ttl.copy %s, %cb : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> !ttl.transfer_handle<read>
    %c0_0 = arith.constant 0 : index
    ttl.wait %xf : !ttl.transfer_handle<read>
    func.return
  }
  func.func @compute() attributes {ttl.kernel_thread = #ttkernel.thread<compute>} {
    %cb = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %w = ttl.cb_wait %cb : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2> -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    ttl.cb_pop %cb : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    func.return
  }
}

// -----
// Two waits, then their pops written by hand: the k-th pop releases the k-th wait, nothing is
// added. A wait whose block a loop reads is popped after the loop.
// CHECK-LABEL: ttl.kernel @consumer
// CHECK: %w0 = ttl.cb_wait %cb
// CHECK-NEXT: ttl.cb_pop %cb
// CHECK-NEXT: %w1 = ttl.cb_wait %cb
// CHECK-NEXT: ttl.cb_pop %cb
// CHECK-NEXT: %w2 = ttl.cb_wait %cb
// CHECK-NEXT: scf.for
// CHECK-NEXT: %e = ttl.exp %w2
// CHECK-NEXT: }
// CHECK-NEXT: ttl.cb_pop %cb
// CHECK-NOT: ttl.cb_pop
module @consumer attributes {ttl.launch_grid = [1, 1]} {
  func.func @compute() attributes {ttl.kernel_thread = #ttkernel.thread<compute>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %w0 = ttl.cb_wait %cb : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2> -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    ttl.cb_pop %cb : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %w1 = ttl.cb_wait %cb : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2> -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    ttl.cb_pop %cb : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %w2 = ttl.cb_wait %cb : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2> -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    scf.for %i = %c0 to %c1 step %c1 {
      %e = ttl.exp %w2 : tensor<1x1x!ttcore.tile<32x32, bf16>> -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    }
    %c2 = arith.constant 2 : index
    func.return
  }
}
