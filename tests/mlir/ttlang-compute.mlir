// RUN: ttlplan print --no-aliases %s | FileCheck %s
// tt-lang's structured compute, as its passes write it after the Python front end: a
// `ttl.compute` over input and output blocks whose body works on one tile at a time, with tile
// ops into DST registers, the body's indices and a tile store. Read and printed back as written
// (the body's block arguments keep their `^bb0` label); a body without `ttl.yield` gets one.
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
    return
  }
}
