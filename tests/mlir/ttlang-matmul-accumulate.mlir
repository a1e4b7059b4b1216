// RUN: ttlplan plan %s | FileCheck %s
// A tt-lang matmul C = A x B (64x64 bf16, 2x2 tiles, one core), written the way its front end
// writes `o += a @ b` in a K loop: the output block is reserved once per (i, j), every K step
// stores its product with {accumulate}, and the block is pushed after the loop. import-ttlang
// makes the store `{accumulate = true}`, ttlplan's spelling; `ttlplan run` checks the product on
// the emulator (tests/CMakeLists.txt).
// CHECK: grid: 1 x 1; no `work` attribute
// CHECK: DST chain %m -> %o {{.*}}: 1 op (matmul), block 1x1 bf16
#lay = #ttl.layout<shape = [64, 64], element_type = !ttcore.tile<32x32, bf16>, buffer = dram, grid = [1, 1], memory = interleaved>
!tile = !ttcore.tile<32x32, bf16>
!blk = tensor<1x1x!ttcore.tile<32x32, bf16>>
!mat = tensor<2x2x!ttcore.tile<32x32, bf16>, #lay>
!slice = tensor<1x1x!ttcore.tile<32x32, bf16>, #lay>
!cb = !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
module attributes {ttl.launch_grid = [1, 1]} {
  func.func @reader(%a: !mat, %b: !mat) attributes {ttl.kernel_thread = #ttkernel.thread<noc>, ttl.noc_index = 0 : i32, ttl.crta_indices = [0, 1]} {
    %cba = ttl.bind_cb {cb_index = 0, block_count = 2} : !cb
    %cbb = ttl.bind_cb {cb_index = 1, block_count = 2} : !cb
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    scf.for %i = %c0 to %c2 step %c1 {
      scf.for %j = %c0 to %c2 step %c1 {
        scf.for %k = %c0 to %c2 step %c1 {
          %va = ttl.cb_reserve %cba : !cb -> !blk
          %sa = ttl.tensor_slice %a[%i, %k] : !mat -> !slice
          %ta = ttl.copy %sa, %cba : (!slice, !cb) -> !ttl.transfer_handle<read>
          ttl.wait %ta : !ttl.transfer_handle<read>
          ttl.cb_push %cba : !cb
          %vb = ttl.cb_reserve %cbb : !cb -> !blk
          %sb = ttl.tensor_slice %b[%k, %j] : !mat -> !slice
          %tb = ttl.copy %sb, %cbb : (!slice, !cb) -> !ttl.transfer_handle<read>
          ttl.wait %tb : !ttl.transfer_handle<read>
          ttl.cb_push %cbb : !cb
        }
      }
    }
    return
  }
  func.func @compute() attributes {ttl.kernel_thread = #ttkernel.thread<compute>} {
    %cba = ttl.bind_cb {cb_index = 0, block_count = 2} : !cb
    %cbb = ttl.bind_cb {cb_index = 1, block_count = 2} : !cb
    %cbc = ttl.bind_cb {cb_index = 2, block_count = 2} : !cb
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    scf.for %i = %c0 to %c2 step %c1 {
      scf.for %j = %c0 to %c2 step %c1 {
        %o = ttl.cb_reserve %cbc : !cb -> !blk
        scf.for %k = %c0 to %c2 step %c1 {
          %wa = ttl.cb_wait %cba : !cb -> !blk
          %ia = ttl.attach_cb %wa, %cba : (!blk, !cb) -> !blk
          %wb = ttl.cb_wait %cbb : !cb -> !blk
          %ib = ttl.attach_cb %wb, %cbb : (!blk, !cb) -> !blk
          %m = ttl.matmul %ia, %ib : !blk, !blk -> !blk
          ttl.store %m, %o {accumulate} : !blk, !blk
          ttl.cb_pop %cba : !cb
          ttl.cb_pop %cbb : !cb
        }
        ttl.cb_push %cbc : !cb
      }
    }
    return
  }
  func.func @writer(%c: !mat) attributes {ttl.kernel_thread = #ttkernel.thread<noc>, ttl.noc_index = 1 : i32, ttl.crta_indices = [2]} {
    %cbc = ttl.bind_cb {cb_index = 2, block_count = 2} : !cb
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    scf.for %i = %c0 to %c2 step %c1 {
      scf.for %j = %c0 to %c2 step %c1 {
        %w = ttl.cb_wait %cbc : !cb -> !blk
        %sc = ttl.tensor_slice %c[%i, %j] : !mat -> !slice
        %tc = ttl.copy %cbc, %sc : (!cb, !slice) -> !ttl.transfer_handle<write>
        ttl.wait %tc : !ttl.transfer_handle<write>
        ttl.cb_pop %cbc : !cb
      }
    }
    return
  }
}
