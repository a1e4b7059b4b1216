// RUN: ttlplan print %s | FileCheck %s
// tt-lang's ops as its printer writes them (tenstorrent/tt-lang include/ttlang/Dialect/TTL/IR/
// TTLOps.td): a kernel module with one func.func per thread, CBs bound per thread by cb_index,
// stripped CB and pipe types after ops whose operand type is fixed, tensor-typed elementwise ops
// (`: T, T -> T`), reduce with its scaler, block.broadcast, fill, an accumulating store, a pipe
// with its net and the real layout attribute. ttlplan reads each into the same ops as its own
// spelling (a stripped `<[1, 1], !tile, 2>` is the `!ttl.cb` type; a pipe type's parameters
// repeat create_pipe's and are dropped) and prints them back in its own form.
// CHECK: #lay = #ttl.layout<shape = [64, 64], element_type = !ttcore.tile<32x32, bf16>, buffer = dram, grid = [1, 1], memory = interleaved>
// CHECK: module attributes {ttl.launch_grid = [1, 2]} {
// CHECK: func.func @reader(%a: tensor<2x2x!ttcore.tile<32x32, bf16>, #lay>) attributes {ttl.kernel_thread = #ttkernel.thread<noc>, ttl.noc_index = 0 : i32} {
// CHECK-NEXT: %cb = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
// CHECK: %v = ttl.cb_reserve %cb : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2> -> tensor<1x1x!ttcore.tile<32x32, bf16>>
// CHECK-NEXT: %s = ttl.tensor_slice %a[%c0, %c0] : tensor<2x2x!ttcore.tile<32x32, bf16>, #lay> -> tensor<1x1x!ttcore.tile<32x32, bf16>, #lay>
// CHECK-NEXT: %x = ttl.copy %s, %cb : (tensor<1x1x!ttcore.tile<32x32, bf16>, #lay>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> !ttl.transfer_handle<read>
// CHECK-NEXT: ttl.wait %x : !ttl.transfer_handle<read>
// CHECK-NEXT: ttl.cb_push %cb : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
// CHECK: %p = ttl.create_pipe src(0, 0) dst(1, 0) to(1, 0) {net = 0} : !ttl.pipe
// CHECK-NEXT: ttl.if_src %p {
// CHECK: func.func @compute() attributes {ttl.kernel_thread = #ttkernel.thread<compute>} {
// CHECK: %w = ttl.cb_wait %cb : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2> -> tensor<1x1x!ttcore.tile<32x32, bf16>>
// CHECK-NEXT: %t = ttl.attach_cb %w, %cb : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
// CHECK-NEXT: %e = ttl.exp %t : tensor<1x1x!ttcore.tile<32x32, bf16>>
// CHECK-NEXT: %sum = ttl.add %t, %e : tensor<1x1x!ttcore.tile<32x32, bf16>>
// CHECK-NEXT: %one = ttl.fill 1.0 : tensor<1x1x!ttcore.tile<32x32, bf16>>
// CHECK-NEXT: %r = ttl.reduce %sum, %one 0 : i32 [0, 1] : (tensor<1x1x!ttcore.tile<32x32, bf16>>, tensor<1x1x!ttcore.tile<32x32, bf16>>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
// CHECK-NEXT: %b = ttl.block.broadcast %r dims = [1], shape = [1, 1] : tensor<1x1x!ttcore.tile<32x32, bf16>> -> tensor<1x1x!ttcore.tile<32x32, bf16>>
// CHECK-NEXT: %m = ttl.matmul %b, %t : tensor<1x1x!ttcore.tile<32x32, bf16>>, tensor<1x1x!ttcore.tile<32x32, bf16>> -> tensor<1x1x!ttcore.tile<32x32, bf16>>
// CHECK: ttl.store %m, %o {accumulate} : tensor<1x1x!ttcore.tile<32x32, bf16>>
// CHECK: ttl.cb_pop %cb : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
#lay = #ttl.layout<shape = [64, 64], element_type = !ttcore.tile<32x32, bf16>, buffer = dram, grid = [1, 1], memory = interleaved>
module attributes {ttl.launch_grid = [1, 2]} {
  func.func @reader(%a: tensor<2x2x!ttcore.tile<32x32, bf16>, #lay>) attributes {ttl.kernel_thread = #ttkernel.thread<noc>, ttl.noc_index = 0 : i32} {
    %cb = ttl.bind_cb{cb_index = 0, block_count = 2} : <[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %c0 = arith.constant 0 : index
    %v = ttl.cb_reserve %cb : <[1, 1], !ttcore.tile<32x32, bf16>, 2> -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %s = ttl.tensor_slice %a[%c0, %c0] : tensor<2x2x!ttcore.tile<32x32, bf16>, #lay> -> tensor<1x1x!ttcore.tile<32x32, bf16>, #lay>
    %x = ttl.copy %s, %cb : (tensor<1x1x!ttcore.tile<32x32, bf16>, #lay>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> !ttl.transfer_handle<read>
    ttl.wait %x : !ttl.transfer_handle<read>
    ttl.cb_push %cb : <[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %p = ttl.create_pipe src(0, 0) dst(1, 0) to(1, 0) net 0 : <src(0, 0) dst(1, 0) to(1, 0) net 0>
    ttl.if_src %p : <src(0, 0) dst(1, 0) to(1, 0) net 0> {
    }
    return
  }
  func.func @compute() attributes {ttl.kernel_thread = #ttkernel.thread<compute>} {
    %cb = ttl.bind_cb {cb_index = 0, block_count = 2} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %cbo = ttl.bind_cb {cb_index = 16, block_count = 2} {dfb_id = 1 : index} : <[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %w = ttl.cb_wait %cb : <[1, 1], !ttcore.tile<32x32, bf16>, 2> -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %t = ttl.attach_cb %w, %cb : (tensor<1x1x!ttcore.tile<32x32, bf16>>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %e = ttl.exp %t : tensor<1x1x!ttcore.tile<32x32, bf16>> -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %sum = ttl.add %t, %e : tensor<1x1x!ttcore.tile<32x32, bf16>>, tensor<1x1x!ttcore.tile<32x32, bf16>> -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %one = ttl.fill 1.000000e+00 : tensor<1x1x!ttcore.tile<32x32, bf16>>
    %r = ttl.reduce %sum, %one 0 : i32 [0, 1] : (tensor<1x1x!ttcore.tile<32x32, bf16>>, tensor<1x1x!ttcore.tile<32x32, bf16>>) -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %b = ttl.block.broadcast %r dims = [1], shape = [1, 1] : tensor<1x1x!ttcore.tile<32x32, bf16>> -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %m = ttl.matmul %b, %t : tensor<1x1x!ttcore.tile<32x32, bf16>>, tensor<1x1x!ttcore.tile<32x32, bf16>> -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    %o = ttl.cb_reserve %cbo : <[1, 1], !ttcore.tile<32x32, bf16>, 2> -> tensor<1x1x!ttcore.tile<32x32, bf16>>
    ttl.store %m, %o {accumulate} : tensor<1x1x!ttcore.tile<32x32, bf16>>, tensor<1x1x!ttcore.tile<32x32, bf16>>
    ttl.cb_push %cbo : <[1, 1], !ttcore.tile<32x32, bf16>, 2>
    ttl.cb_pop %cb : <[1, 1], !ttcore.tile<32x32, bf16>, 2>
    func.return
  }
}
