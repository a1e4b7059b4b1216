// RUN: ttlplan lower --pipeline import-ttlang %s | FileCheck %s
// What import-ttlang makes of a tt-lang module: one kernel on grid [GY, GX] = [1, 2] from
// launch_grid [GX, GY] = [2, 1], tile tensors as element tensors (2x4 tiles of f32 = 64x128),
// one ttl.create_cb per cb_index before the threads, the copy reading into the reserved view,
// attach_cb dropped, reduce with a fill 1.0 scaler as reduce_sum (the fill is gone), dims -1 as 1,
// and the store's {accumulate} as ttlplan's {accumulate = true}.
// CHECK: ttl.kernel @ttlang_kernel(%a: tensor<64x128xf32, #ttl.layout<dram, interleaved>>) attributes {grid = [1, 2]} {
// CHECK-NEXT: %in = ttl.create_cb {ttl.cb_index = 0} : !cb
// CHECK-NEXT: %out = ttl.create_cb {ttl.cb_index = 1} : !cb
// CHECK-NEXT: ttl.datamovement_thread {
// CHECK: %v = ttl.cb_reserve %in
// CHECK-NEXT: %s = ttl.tensor_slice %a[%c0, %x] : tensor<64x128xf32, #ttl.layout<dram, interleaved>> -> !blk
// CHECK-NEXT: %t = ttl.copy %s, %v : (!blk, !blk) -> !ttl.transfer_handle<read>
// CHECK: ttl.compute_thread {
// CHECK-NEXT: %w = ttl.cb_wait %in
// CHECK-NEXT: %o = ttl.cb_reserve %out
// CHECK-NEXT: %r = ttl.reduce_sum %w {dims = [1]} : !blk -> !blk
// CHECK-NEXT: %b = ttl.bcast %r {dims = [1]} : !blk -> !blk
// CHECK-NEXT: ttl.store %b, %o {accumulate = true} : !blk
// CHECK-NOT: ttl.fill
!blk = tensor<1x1x!ttcore.tile<32x32, f32>>
!cb = !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>
#lay = #ttl.layout<shape = [64, 128], element_type = !ttcore.tile<32x32, f32>, buffer = dram, grid = [1, 1], memory = interleaved>
module attributes {ttl.launch_grid = [2, 1]} {
  func.func @reader(%a: tensor<2x4x!ttcore.tile<32x32, f32>, #lay>) attributes {ttl.kernel_thread = #ttkernel.thread<noc>} {
    %in = ttl.bind_cb {cb_index = 0, block_count = 2} : !cb
    %c0 = arith.constant 0 : index
    %x = ttl.core_x : index
    %v = ttl.cb_reserve %in : !cb -> !blk
    %s = ttl.tensor_slice %a[%c0, %x] : tensor<2x4x!ttcore.tile<32x32, f32>, #lay> -> tensor<1x1x!ttcore.tile<32x32, f32>, #lay>
    %t = ttl.copy %s, %in : (tensor<1x1x!ttcore.tile<32x32, f32>, #lay>, !cb) -> !ttl.transfer_handle<read>
    ttl.wait %t : !ttl.transfer_handle<read>
    ttl.cb_push %in : !cb
    return
  }
  func.func @compute() attributes {ttl.kernel_thread = #ttkernel.thread<compute>} {
    %in = ttl.bind_cb {cb_index = 0, block_count = 2} : !cb
    %out = ttl.bind_cb {cb_index = 1, block_count = 2} : !cb
    %w = ttl.cb_wait %in : !cb -> !blk
    %o = ttl.cb_reserve %out : !cb -> !blk
    %aw = ttl.attach_cb %w, %in : (!blk, !cb) -> !blk
    %one = ttl.fill 1.000000e+00 : !blk
    %r = ttl.reduce %aw, %one 0 : i32 [-1] : (!blk, !blk) -> !blk
    %b = ttl.block.broadcast %r dims = [-1], shape = [1, 1] : !blk -> !blk
    ttl.store %b, %o {accumulate} : !blk, !blk
    ttl.cb_push %out : !cb
    ttl.cb_pop %in : !cb
    return
  }
}
