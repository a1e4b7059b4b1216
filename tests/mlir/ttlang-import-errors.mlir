// RUN: not ttlplan verify --split-input-file %s 2>&1 | FileCheck %s
// What import-ttlang refuses, and checks across the thread functions, each with one located
// error; an op with a Python location is reported there.

// The CB protocol is checked across the imported threads: a push with no reserve before it.
// CHECK: k.py:9:5: error: ttl.cb_push %cb without a ttl.cb_reserve before it in this thread
module attributes {ttl.launch_grid = [1, 1]} {
  func.func @reader() attributes {ttl.kernel_thread = #ttkernel.thread<noc>} {
    %cb = ttl.bind_cb {cb_index = 0, block_count = 2} : <[1, 1], !ttcore.tile<32x32, bf16>, 2>
    ttl.cb_push %cb : <[1, 1], !ttcore.tile<32x32, bf16>, 2> loc("k.py":9:5)
    return
  }
}

// -----
// CHECK: k.py:20:9: error: import-ttlang: a reduce whose scaler is not `ttl.fill 1.0` has no ttlplan meaning yet
module attributes {ttl.launch_grid = [1, 1]} {
  func.func @compute() attributes {ttl.kernel_thread = #ttkernel.thread<compute>} {
    %cb = ttl.bind_cb {cb_index = 0, block_count = 2} : <[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %w = ttl.cb_wait %cb : <[1, 1], !ttcore.tile<32x32, bf16>, 2> -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %half = ttl.fill 5.000000e-01 : tensor<1x1x!ttcore.tile<32x32, bf16>>
    %r = ttl.reduce %w, %half 0 : i32 [1] : (tensor<1x1x!ttcore.tile<32x32, bf16>>, tensor<1x1x!ttcore.tile<32x32, bf16>>) -> tensor<1x1x!ttcore.tile<32x32, bf16>> loc("k.py":20:9)
    ttl.cb_pop %cb : <[1, 1], !ttcore.tile<32x32, bf16>, 2>
    return
  }
}

// -----
// A send of a CB the thread holds no block of.
// CHECK: k.py:33:12: error: import-ttlang: this copy sends a CB that is not reserved or waited for before it
module attributes {ttl.launch_grid = [2, 1]} {
  func.func @sender() attributes {ttl.kernel_thread = #ttkernel.thread<noc>} {
    %cb = ttl.bind_cb {cb_index = 0, block_count = 2} : <[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %p = ttl.create_pipe src(0, 0) dst(1, 0) to(1, 0) net 0 : <src(0, 0) dst(1, 0) to(1, 0) net 0>
    ttl.if_src %p : <src(0, 0) dst(1, 0) to(1, 0) net 0> {
      %t = ttl.copy %cb, %p : (!ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>, !ttl.pipe<src(0, 0) dst(1, 0) to(1, 0) net 0>) -> !ttl.transfer_handle<write> loc("k.py":33:12)
      ttl.wait %t : !ttl.transfer_handle<write>
    }
    return
  }
}

// -----
// CHECK: error: import-ttlang: a thread function returns nothing
module attributes {ttl.launch_grid = [1, 1]} {
  func.func @t() -> index attributes {ttl.kernel_thread = #ttkernel.thread<noc>} {
    %c = arith.constant 0 : index
    return %c : index
  }
}

// -----
// A launch grid that is not two positive integers (a module without one is a thread on its own,
// tests/mlir/ttlang-thread-alone.mlir).
// CHECK: error: a tt-lang module needs `ttl.launch_grid = [GX, GY]` (two positive integers)
module attributes {ttl.launch_grid = [0, 1]} {
  func.func @t() attributes {ttl.kernel_thread = #ttkernel.thread<noc>} {
    return
  }
}

// -----
// CHECK: import-ttlang: CB 0 is bound as !ttl.cb<[2, 1], !ttcore.tile<32x32, bf16>, 2> here and as !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2> in another thread
module attributes {ttl.launch_grid = [1, 1]} {
  func.func @a() attributes {ttl.kernel_thread = #ttkernel.thread<noc>} {
    %cb = ttl.bind_cb {cb_index = 0, block_count = 2} : <[1, 1], !ttcore.tile<32x32, bf16>, 2>
    return
  }
  func.func @b() attributes {ttl.kernel_thread = #ttkernel.thread<compute>} {
    %cb = ttl.bind_cb {cb_index = 0, block_count = 2} : <[2, 1], !ttcore.tile<32x32, bf16>, 2>
    return
  }
}
