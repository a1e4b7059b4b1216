// RUN: ttlplan plan %s | FileCheck %s
// A pipe multicast written the way tt-lang writes it (my own kernel): on a 1 x 4 grid
// (launch_grid [GX, GY] = [4, 1]) core (0, 0) reads tile (0, 0) of A into its CB and sends it
// over pipe net 0 to cores x = 1..3, which receive it into the block they reserved; every core
// then writes its block to tile (0, x) of C, so C is A four times side by side. import-ttlang
// points the read and the send at the reserved view; the planner derives the pipe's semaphores.
// `ttlplan run` checks it on the emulator (tests/mlir/MlirTests.cmake).
// CHECK: kernel @ttlang_kernel
// CHECK-NEXT: grid: 1 x 4; no `work` attribute
// CHECK: multicast: 1 net, 1 rectangle, 2 semaphore ids
// CHECK-NEXT: %p from (0,0) NOC0 to 3 cores
#lay = #ttl.layout<shape = [32, 32], element_type = !ttcore.tile<32x32, bf16>, buffer = dram, grid = [1, 1], memory = interleaved>
#lay_c = #ttl.layout<shape = [32, 128], element_type = !ttcore.tile<32x32, bf16>, buffer = dram, grid = [1, 1], memory = interleaved>
!blk = tensor<1x1x!ttcore.tile<32x32, bf16>>
!slice = tensor<1x1x!ttcore.tile<32x32, bf16>, #lay>
!slice_c = tensor<1x1x!ttcore.tile<32x32, bf16>, #lay_c>
module attributes {ttl.launch_grid = [4, 1]} {
  func.func @reader(%a: tensor<1x1x!ttcore.tile<32x32, bf16>, #lay>) attributes {ttl.kernel_thread = #ttkernel.thread<noc>, ttl.noc_index = 0 : i32, ttl.crta_indices = [0]} {
    %cb = ttl.bind_cb{cb_index = 0, block_count = 2} : <[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %c0 = arith.constant 0 : index
    %p = ttl.create_pipe src(0, 0) dst(1, 0) to(3, 0) net 0 : <src(0, 0) dst(1, 0) to(3, 0) net 0>
    %v = ttl.cb_reserve %cb : <[1, 1], !ttcore.tile<32x32, bf16>, 2> -> !blk
    ttl.if_src %p : <src(0, 0) dst(1, 0) to(3, 0) net 0> {
      %s = ttl.tensor_slice %a[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, bf16>, #lay> -> !slice
      %t = ttl.copy %s, %cb : (!slice, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> !ttl.transfer_handle<read>
      ttl.wait %t : !ttl.transfer_handle<read>
      %u = ttl.copy %cb, %p : (!ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>, !ttl.pipe<src(0, 0) dst(1, 0) to(3, 0) net 0>) -> !ttl.transfer_handle<write>
      ttl.wait %u : !ttl.transfer_handle<write>
    }
    ttl.if_dst %p : <src(0, 0) dst(1, 0) to(3, 0) net 0> {
      %q = ttl.copy %p, %v : (!ttl.pipe<src(0, 0) dst(1, 0) to(3, 0) net 0>, !blk) -> !ttl.transfer_handle<read>
      ttl.wait %q : !ttl.transfer_handle<read>
    }
    ttl.cb_push %cb : <[1, 1], !ttcore.tile<32x32, bf16>, 2>
    return
  }
  func.func @writer(%c: tensor<1x4x!ttcore.tile<32x32, bf16>, #lay_c>) attributes {ttl.kernel_thread = #ttkernel.thread<noc>, ttl.noc_index = 1 : i32, ttl.crta_indices = [1]} {
    %cb = ttl.bind_cb{cb_index = 0, block_count = 2} : <[1, 1], !ttcore.tile<32x32, bf16>, 2>
    %c0 = arith.constant 0 : index
    %x = ttl.core_x : index
    %w = ttl.cb_wait %cb : <[1, 1], !ttcore.tile<32x32, bf16>, 2> -> !blk
    %sc = ttl.tensor_slice %c[%c0, %x] : tensor<1x4x!ttcore.tile<32x32, bf16>, #lay_c> -> !slice_c
    %tc = ttl.copy %cb, %sc : (!ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>, !slice_c) -> !ttl.transfer_handle<write>
    ttl.wait %tc : !ttl.transfer_handle<write>
    ttl.cb_pop %cb : <[1, 1], !ttcore.tile<32x32, bf16>, 2>
    return
  }
}
