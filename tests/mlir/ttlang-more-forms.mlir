// RUN: ttlplan print --no-aliases %s | FileCheck %s
// RUN: ttlplan print --no-aliases %s -o %t.mlir && ttlplan print --no-aliases %t.mlir | FileCheck %s
// More of what tt-lang prints (issue 29, item 6), each read and printed back as written, and the
// printed text read again: `tensor.empty()` (the outputs a compute writes), `tensor.extract` (a
// tile of a block: the result is the element type), tt-lang's other elementwise ops and their
// tile forms, transpose, typecast, raw element reads, the DST register ops, and another
// dialect's op in its call-like form (ttkernel's), whose literal arguments become `argN`
// attributes of an op ttlplan does not know (printed in generic form).
// CHECK: %e = tensor.empty() : tensor<2x2x!ttcore.tile<32x32, bf16>>
// CHECK-NEXT: %t = tensor.extract %a[%c0, %c1] : tensor<2x2x!ttcore.tile<32x32, bf16>>
// CHECK-NEXT: %f = ttl.floor %a : tensor<2x2x!ttcore.tile<32x32, bf16>>
// CHECK-NEXT: %g = ttl.gt %a, %f : tensor<2x2x!ttcore.tile<32x32, bf16>>
// CHECK-NEXT: %tr = ttl.transpose %a : tensor<2x2x!ttcore.tile<32x32, bf16>> -> tensor<2x2x!ttcore.tile<32x32, bf16>>
// CHECK-NEXT: %tc = ttl.typecast %a : (tensor<2x2x!ttcore.tile<32x32, bf16>>) -> tensor<2x2x!ttcore.tile<32x32, f32>>
// CHECK-NEXT: %v = ttl.raw_element_read %a[%c0, %c1] : tensor<2x2x!ttcore.tile<32x32, bf16>> -> bf16
// CHECK-NEXT: ttl.tile_regs_acquire
// CHECK-NEXT: %s = ttl.tile_sign %t into dst[%c0] : !ttcore.tile<32x32, bf16> -> !ttcore.tile<32x32, bf16>
// CHECK-NEXT: ttl.tile_regs_commit
// CHECK-NEXT: %cb = "ttkernel.get_compile_time_arg_val"() {arg0 = 0 : i32} : () -> !ttkernel.cb<4, !ttcore.tile<32x32, bf16>>
// CHECK-NEXT: "ttkernel.pack_tile"(%c0, %cb, %c0) {arg3 = true} : (index, !ttkernel.cb<4, !ttcore.tile<32x32, bf16>>, index) -> ()
// CHECK-NEXT: "ttkernel.reduce_tile"(%c0, %c1) {arg2 = "<reduce_sum>"} : (index, index) -> ()
// CHECK-NEXT: "ttkernel.tile_regs_release"() : () -> ()
func.func @f(%a: tensor<2x2x!ttcore.tile<32x32, bf16>>) attributes {ttl.kernel_thread = #ttkernel.thread<compute>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = tensor.empty() : tensor<2x2x!ttcore.tile<32x32, bf16>>
  %t = tensor.extract %a[%c0, %c1] : tensor<2x2x!ttcore.tile<32x32, bf16>>
  %f = ttl.floor %a : tensor<2x2x!ttcore.tile<32x32, bf16>> -> tensor<2x2x!ttcore.tile<32x32, bf16>>
  %g = ttl.gt %a, %f : tensor<2x2x!ttcore.tile<32x32, bf16>>, tensor<2x2x!ttcore.tile<32x32, bf16>> -> tensor<2x2x!ttcore.tile<32x32, bf16>>
  %tr = ttl.transpose %a : tensor<2x2x!ttcore.tile<32x32, bf16>> -> tensor<2x2x!ttcore.tile<32x32, bf16>>
  %tc = ttl.typecast %a : (tensor<2x2x!ttcore.tile<32x32, bf16>>) -> tensor<2x2x!ttcore.tile<32x32, f32>>
  %v = ttl.raw_element_read %a[%c0, %c1] : tensor<2x2x!ttcore.tile<32x32, bf16>> -> bf16
  ttl.tile_regs_acquire
  %s = ttl.tile_sign %t into dst[%c0] : !ttcore.tile<32x32, bf16> -> !ttcore.tile<32x32, bf16>
  ttl.tile_regs_commit
  %cb = ttkernel.get_compile_time_arg_val(0 : i32) : () -> !ttkernel.cb<4, !ttcore.tile<32x32, bf16>>
  ttkernel.pack_tile(%c0, %cb, %c0, true) : (index, !ttkernel.cb<4, !ttcore.tile<32x32, bf16>>, index) -> ()
  ttkernel.reduce_tile(%c0, %c1, <reduce_sum>) : (index, index) -> ()
  ttkernel.tile_regs_release() : () -> ()
  func.return
}
