// RUN: ttlplan print --no-aliases %s | FileCheck %s
// tt-lang's structured compute, as its passes write it after the Python front end: a
// `ttl.compute` over input and output blocks whose body works on one tile at a time, with tile
// ops into DST registers, the body's indices and a tile store. Read and printed back as written
// (the body's block arguments keep their `^bb0` label); a body without `ttl.yield` gets one. Two
// results named `%tok, %tile` print as MLIR's `%tok:2` with uses `%tok#1`.
// CHECK: %r = ttl.compute ins(%a, %b : tensor<2x2x!ttcore.tile<32x32, bf16>>, tensor<2x2x!ttcore.tile<32x32, bf16>>) outs(%o : tensor<2x2x!ttcore.tile<32x32, bf16>>) {iterator_types = ["parallel", "parallel"]} {
// CHECK-NEXT: ^bb0(%x: !ttcore.tile<32x32, bf16>, %y: !ttcore.tile<32x32, bf16>, %z: !ttcore.tile<32x32, bf16>):
// CHECK-NEXT: %s = ttl.tile_add %x, %y into dst[%c0] : !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16> -> !ttcore.tile<32x32, bf16>
// CHECK-NEXT: %e = ttl.tile_exp %s into dst[%c0] : !ttcore.tile<32x32, bf16> -> !ttcore.tile<32x32, bf16>
// CHECK-NEXT: %i = ttl.iter_index 0 : index
// CHECK-NEXT: %j = ttl.iter_index 1 : index
// CHECK-NEXT: ttl.tile_store %e, %o[%i, %j] from dst[%c0] : !ttcore.tile<32x32, bf16>, tensor<2x2x!ttcore.tile<32x32, bf16>>
// CHECK-NEXT: ttl.yield
// CHECK-NEXT: } -> tensor<2x2x!ttcore.tile<32x32, bf16>>
// CHECK: %r2 = ttl.compute ins() outs(%o : tensor<2x2x!ttcore.tile<32x32, bf16>>) {
// CHECK-NEXT: ^bb0(%z: !ttcore.tile<32x32, bf16>):
// CHECK-NEXT: ttl.yield
// CHECK-NEXT: } -> tensor<2x2x!ttcore.tile<32x32, bf16>>
// The other tile ops, each in its own syntax (TTLOps.td).
// CHECK: %f = ttl.tile_fill 1.5 into dst[%c0] : !ttcore.tile<32x32, bf16>
// CHECK-NEXT: %tok:2 = ttl.copy_tile %cb[%c0] into dst[%c0] : !ttl.cb<[2, 2], !ttcore.tile<32x32, bf16>, 2> -> !ttl.dst, !ttcore.tile<32x32, bf16>
// CHECK-NEXT: %bc = ttl.tile_bcast %tok#1, %f 1 : i32 into dst[%c0] : (!ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>) -> !ttcore.tile<32x32, bf16>
// CHECK-NEXT: %rd = ttl.tile_reduce %tok#1, %f, %bc 0 : i32 <reduce_dim_col> into dst[%c0] : (!ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>) -> !ttcore.tile<32x32, bf16>
// CHECK-NEXT: %tr = ttl.tile_transpose %rd, %f into dst[%c0] : (!ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>) -> !ttcore.tile<32x32, bf16>
// CHECK-NEXT: %mm = ttl.tile_matmul_block %tr, %f, %bc into dst[%c0] : !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16>, !ttcore.tile<32x32, bf16> -> !ttcore.tile<32x32, bf16>
// CHECK-NEXT: %tc = ttl.tile_typecast %mm into dst[%c0] : !ttcore.tile<32x32, bf16> -> !ttcore.tile<32x32, f32>
!t = !ttcore.tile<32x32, bf16>
!blk = tensor<2x2x!ttcore.tile<32x32, bf16>>
module {
  func.func @compute(%a: !blk, %b: !blk, %o: !blk) attributes {ttl.kernel_thread = #ttkernel.thread<compute>} {
    %c0 = arith.constant 0 : index
    %r = ttl.compute ins(%a, %b : !blk, !blk) outs(%o : !blk) {iterator_types = ["parallel", "parallel"]} {
    ^bb0(%x: !t, %y: !t, %z: !t):
      %s = ttl.tile_add %x, %y into dst[%c0] : !t, !t -> !t
      %e = ttl.tile_exp %s into dst[%c0] : !t -> !t
      %i = ttl.iter_index 0 : index
      %j = ttl.iter_index 1 : index
      ttl.tile_store %e, %o[%i, %j] from dst[%c0] : !t, !blk
      ttl.yield
    } -> !blk
    %r2 = ttl.compute ins() outs(%o : !blk) {
    ^bb0(%z: !t):
    } -> !blk
    %cb = ttl.bind_cb {cb_index = 0, block_count = 2} : <[2, 2], !t, 2>
    %f = ttl.tile_fill 1.500000e+00 into dst[%c0] : !t
    %tok, %tile = ttl.copy_tile %cb[%c0] into dst[%c0] : <[2, 2], !t, 2> -> !ttl.dst, !t
    %bc = ttl.tile_bcast %tile, %f 1 : i32 into dst[%c0] : (!t, !t) -> !t
    %rd = ttl.tile_reduce %tile, %f, %bc 0 : i32 <reduce_dim_col> into dst[%c0] : (!t, !t, !t) -> !t
    %tr = ttl.tile_transpose %rd, %f into dst[%c0] : (!t, !t) -> !t
    %mm = ttl.tile_matmul_block %tr, %f, %bc into dst[%c0] : !t, !t, !t -> !t
    %tc = ttl.tile_typecast %mm into dst[%c0] : !t -> !ttcore.tile<32x32, f32>
    return
  }
}
