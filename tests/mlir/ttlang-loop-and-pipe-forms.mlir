// RUN: ttlplan print --no-aliases %s | FileCheck %s
// RUN: ttlplan print --no-aliases %s -o %t.mlir && ttlplan print --no-aliases %t.mlir | FileCheck %s
// RUN: ttlplan print --generic %s -o %t.generic.mlir && ttlplan print --no-aliases %t.generic.mlir | FileCheck %s
// The rest of what tt-lang's pass dumps print (issue 29, item 6), each read and printed back as
// written, read again from the custom and from the generic form: loops that carry values
// (`scf.for ... iter_args`, `scf.if -> (T)`, `scf.while`), casts (`builtin.unrealized_conversion_cast`,
// arith's), `arith.cmpf`, `tensor.extract_slice` with static and dynamic offsets, `tensor.empty`
// with a dynamic size, and tt-lang's scaling, element-write, SFPU start-up, DST section, pipe
// transfer and pipe-net ops.
// (An i64 attribute prints without its `: i64`, the integer default.)
// CHECK: %last = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %x) -> (i32) {
// CHECK-NEXT: %next = arith.addi %acc, %x : i32
// CHECK-NEXT: scf.yield %next : i32
// CHECK-NEXT: }
// CHECK-NEXT: %pos = arith.cmpf ogt, %f, %f : f32
// CHECK-NEXT: %sel = scf.if %pos -> (i32) {
// CHECK-NEXT: scf.yield %x : i32
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %last : i32
// CHECK-NEXT: }
// CHECK-NEXT: %w = scf.while (%arg = %sel) : (i32) -> (i32) {
// CHECK-NEXT: %go = arith.cmpi slt, %arg, %x : i32
// CHECK-NEXT: scf.condition(%go) %arg : i32
// CHECK-NEXT: } do {
// CHECK-NEXT: ^bb0(%b: i32):
// CHECK-NEXT: scf.yield %b : i32
// CHECK-NEXT: }
// CHECK-NEXT: %idx = arith.index_cast %w : i32 to index
// CHECK-NEXT: %real = builtin.unrealized_conversion_cast %x : i32 to f32
// CHECK-NEXT: %none = builtin.unrealized_conversion_cast to !ttkernel.cb<4, !ttcore.tile<32x32, bf16>>
// CHECK-NEXT: %part = tensor.extract_slice %blk[0, %idx] [1, 1] [1, 1] : tensor<1x2x!ttcore.tile<32x32, bf16>> to tensor<1x1x!ttcore.tile<32x32, bf16>>
// CHECK-NEXT: %handles = tensor.empty(%idx) : tensor<?x!ttl.transfer_handle<read>>
// CHECK-NEXT: %half = ttl.mul_unary_const %blk, 0.5 : tensor<1x2x!ttcore.tile<32x32, bf16>> -> tensor<1x2x!ttcore.tile<32x32, bf16>>
// CHECK-NEXT: ttl.raw_element_write %blk[%c0, %c1], %f : tensor<1x2x!ttcore.tile<32x32, bf16>>, f32
// CHECK-NEXT: ttl.init_sfpu(%cb, %cb) : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
// CHECK-NEXT: ttl.dst_section {
// CHECK-NEXT: %t = tensor.extract %blk[%c0, %c0] : tensor<1x2x!ttcore.tile<32x32, bf16>>
// CHECK-NEXT: %m = ttl.tile_mul_unary_const %t, -1.25 into dst[%c0] : !ttcore.tile<32x32, bf16> -> !ttcore.tile<32x32, bf16>
// CHECK-NEXT: }
// CHECK-NEXT: %src = ttl.is_src {pipe_net_id = 0}
// CHECK-NEXT: ttl.pipenet_scope attributes {ttl.pipe_net_ids = [0]} {
// CHECK-NEXT: %xfer = ttl.pipe_transfer.create %p {expectedReceivers = 1} : !ttl.pipe -> !ttl.pipe_transfer
// CHECK-NEXT: %token = ttl.pipe_transfer.post %xfer, %part : (!ttl.pipe_transfer, tensor<1x1x!ttcore.tile<32x32, bf16>>) -> !ttl.pipe_token<net 0>
// CHECK-NEXT: ttl.pipe_transfer.wait %token : !ttl.pipe_token<net 0>
// CHECK-NEXT: }
func.func @f(%x: i32, %f: f32, %blk: tensor<1x2x!ttcore.tile<32x32, bf16>>, %cb: !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>, %p: !ttl.pipe) attributes {ttl.kernel_thread = #ttkernel.thread<compute>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %last = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %x) -> (i32) {
    %next = arith.addi %acc, %x : i32
    scf.yield %next : i32
  }
  %pos = arith.cmpf ogt, %f, %f : f32
  %sel = scf.if %pos -> (i32) {
    scf.yield %x : i32
  } else {
    scf.yield %last : i32
  }
  %w = scf.while (%arg = %sel) : (i32) -> (i32) {
    %go = arith.cmpi slt, %arg, %x : i32
    scf.condition(%go) %arg : i32
  } do {
  ^bb0(%b: i32):
    scf.yield %b : i32
  }
  %idx = arith.index_cast %w : i32 to index
  %real = builtin.unrealized_conversion_cast %x : i32 to f32
  %none = builtin.unrealized_conversion_cast to !ttkernel.cb<4, !ttcore.tile<32x32, bf16>>
  %part = tensor.extract_slice %blk[0, %idx] [1, 1] [1, 1] : tensor<1x2x!ttcore.tile<32x32, bf16>> to tensor<1x1x!ttcore.tile<32x32, bf16>>
  %handles = tensor.empty(%idx) : tensor<?x!ttl.transfer_handle<read>>
  %half = ttl.mul_unary_const %blk, 5.000000e-01 : tensor<1x2x!ttcore.tile<32x32, bf16>> -> tensor<1x2x!ttcore.tile<32x32, bf16>>
  ttl.raw_element_write %blk[%c0, %c1], %f : tensor<1x2x!ttcore.tile<32x32, bf16>>, f32
  ttl.init_sfpu(%cb, %cb) : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>, !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
  ttl.dst_section {
    %t = tensor.extract %blk[%c0, %c0] : tensor<1x2x!ttcore.tile<32x32, bf16>>
    %m = ttl.tile_mul_unary_const %t, -1.250000e+00 into dst[%c0] : !ttcore.tile<32x32, bf16> -> !ttcore.tile<32x32, bf16>
  }
  %src = ttl.is_src {pipe_net_id = 0 : i64}
  ttl.pipenet_scope attributes {ttl.pipe_net_ids = [0 : i64]} {
    %xfer = ttl.pipe_transfer.create %p {expectedReceivers = 1 : i64} : !ttl.pipe -> !ttl.pipe_transfer
    %token = ttl.pipe_transfer.post %xfer, %part : (!ttl.pipe_transfer, tensor<1x1x!ttcore.tile<32x32, bf16>>) -> !ttl.pipe_token<net 0>
    ttl.pipe_transfer.wait %token : !ttl.pipe_token<net 0>
  }
  func.return
}
