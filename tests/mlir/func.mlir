// RUN: ttlplan print %s | FileCheck %s
// func.func as MLIR writes it: results (one bare, several in parentheses), argument and result
// attributes, visibility, declarations without a body, `return` (the func dialect's short
// spelling) and `func.return` with operands; dense and other builtin attributes kept as written.
// CHECK-LABEL: func.func @two_results(%a: tensor<64x64xf32> {ttl.cb_index = 0 : i32}, %n: i32) -> (tensor<64x64xf32> {ttl.result}, i32) attributes {ttl.kernel_thread = #ttkernel.thread<compute>} {
// CHECK-NEXT: %k = "arith.constant"() {value = dense<1.000000e+00> : tensor<4xf32>} : () -> tensor<4xf32>
// CHECK-NEXT: func.return %a, %n : tensor<64x64xf32>, i32
// CHECK-NEXT: }
// CHECK-NEXT: func.func private @declared(i32, f32) -> i32
// CHECK-NEXT: func.func @one_result() -> index {
// CHECK-NEXT: %c = arith.constant 3 : index
// CHECK-NEXT: func.return %c : index
// CHECK-NEXT: }
// CHECK-NEXT: func.func @none() {
// CHECK-NEXT: func.return
// CHECK-NEXT: }
module {
  func.func @two_results(%a: tensor<64x64xf32> {ttl.cb_index = 0 : i32}, %n: i32)
      -> (tensor<64x64xf32> {ttl.result}, i32) attributes {ttl.kernel_thread = #ttkernel.thread<compute>} {
    %k = arith.constant dense<1.000000e+00> : tensor<4xf32>
    func.return %a, %n : tensor<64x64xf32>, i32
  }
  func.func private @declared(i32, f32) -> i32
  func.func @one_result() -> index {
    %c = arith.constant 3 : index
    return %c : index
  }
  func.func @none() {
    return
  }
}
