// RUN: ttlplan plan %s | FileCheck %s
// A tt-lang kernel as its Python front end writes it (my own, in the real syntax): C = A + B on
// a 2x1 grid (launch_grid is [GX, GY]), one 1x1-tile block per step; each core adds the two
// tiles of its column x: rows 0 and 1 of 64x64 bf16 matrices. import-ttlang makes it one kernel
// on a 1 x 2 grid (rows x columns) with the three CBs merged by cb_index, each 2 blocks of one
// bf16 tile (2 x 2,048 B); `ttlplan run` checks it on the emulator (tests/CMakeLists.txt).
// CHECK: kernel @ttlang_kernel (eltwise_add.py:12:0)
// CHECK-NEXT: grid: 1 x 2; no `work` attribute
// CHECK: %cba {{.*}}4,096{{ +}}2{{ +}}1x1{{ +}}bf16
// CHECK-NEXT: %cbb {{.*}}4,096{{ +}}2{{ +}}1x1{{ +}}bf16
// CHECK-NEXT: %cbc {{.*}}4,096{{ +}}2{{ +}}1x1{{ +}}bf16
// CHECK: DST chain %s -> %o
#lay = #ttl.layout<shape = [64, 64], element_type = !ttcore.tile<32x32, bf16>, buffer = dram, grid = [1, 1], memory = interleaved>
!tile = !ttcore.tile<32x32, bf16>
!blk = tensor<1x1x!ttcore.tile<32x32, bf16>>
!mat = tensor<2x2x!ttcore.tile<32x32, bf16>, #lay>
!slice = tensor<1x1x!ttcore.tile<32x32, bf16>, #lay>
module attributes {ttl.launch_grid = [2, 1]} {
  func.func @reader(%a: !mat, %b: !mat) attributes {ttl.kernel_thread = #ttkernel.thread<noc>, ttl.noc_index = 0 : i32, ttl.crta_indices = [0, 1]} {
    %cba = ttl.bind_cb{cb_index = 0, block_count = 2} : <[1, 1], !tile, 2>
    %cbb = ttl.bind_cb{cb_index = 1, block_count = 2} : <[1, 1], !tile, 2>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %x = ttl.core_x : index
    scf.for %r = %c0 to %c2 step %c1 {
      %va = ttl.cb_reserve %cba : <[1, 1], !tile, 2> -> !blk
      %sa = ttl.tensor_slice %a[%r, %x] : !mat -> !slice
      %ta = ttl.copy %sa, %cba : (!slice, !ttl.cb<[1, 1], !tile, 2>) -> !ttl.transfer_handle<read>
      ttl.wait %ta : !ttl.transfer_handle<read>
      ttl.cb_push %cba : <[1, 1], !tile, 2>
      %vb = ttl.cb_reserve %cbb : <[1, 1], !tile, 2> -> !blk
      %sb = ttl.tensor_slice %b[%r, %x] : !mat -> !slice
      %tb = ttl.copy %sb, %cbb : (!slice, !ttl.cb<[1, 1], !tile, 2>) -> !ttl.transfer_handle<read>
      ttl.wait %tb : !ttl.transfer_handle<read>
      ttl.cb_push %cbb : <[1, 1], !tile, 2>
    }
    return
  } loc("eltwise_add.py":12:0)
  func.func @compute() attributes {ttl.kernel_thread = #ttkernel.thread<compute>} {
    %cba = ttl.bind_cb{cb_index = 0, block_count = 2} : <[1, 1], !tile, 2>
    %cbb = ttl.bind_cb{cb_index = 1, block_count = 2} : <[1, 1], !tile, 2>
    %cbc = ttl.bind_cb{cb_index = 2, block_count = 2} : <[1, 1], !tile, 2>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    scf.for %r = %c0 to %c2 step %c1 {
      %wa = ttl.cb_wait %cba : <[1, 1], !tile, 2> -> !blk
      %ia = ttl.attach_cb %wa, %cba : (!blk, !ttl.cb<[1, 1], !tile, 2>) -> !blk
      %wb = ttl.cb_wait %cbb : <[1, 1], !tile, 2> -> !blk
      %ib = ttl.attach_cb %wb, %cbb : (!blk, !ttl.cb<[1, 1], !tile, 2>) -> !blk
      %o = ttl.cb_reserve %cbc : <[1, 1], !tile, 2> -> !blk
      %s = ttl.add %ia, %ib : !blk, !blk -> !blk loc("eltwise_add.py":25:12)
      ttl.store %s, %o : !blk, !blk
      ttl.cb_push %cbc : <[1, 1], !tile, 2>
      ttl.cb_pop %cba : <[1, 1], !tile, 2>
      ttl.cb_pop %cbb : <[1, 1], !tile, 2>
    }
    return
  } loc("eltwise_add.py":20:0)
  func.func @writer(%c: !mat) attributes {ttl.kernel_thread = #ttkernel.thread<noc>, ttl.noc_index = 1 : i32, ttl.crta_indices = [2]} {
    %cbc = ttl.bind_cb{cb_index = 2, block_count = 2} : <[1, 1], !tile, 2>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %x = ttl.core_x : index
    scf.for %r = %c0 to %c2 step %c1 {
      %w = ttl.cb_wait %cbc : <[1, 1], !tile, 2> -> !blk
      %sc = ttl.tensor_slice %c[%r, %x] : !mat -> !slice
      %tc = ttl.copy %cbc, %sc : (!ttl.cb<[1, 1], !tile, 2>, !slice) -> !ttl.transfer_handle<write>
      ttl.wait %tc : !ttl.transfer_handle<write>
      ttl.cb_pop %cbc : <[1, 1], !tile, 2>
    }
    return
  } loc("eltwise_add.py":30:0)
}
