// RUN: ttlplan print %s | FileCheck %s
// Attributes and types ttlplan does not model, from tt-lang and tt-mlir, kept as written.
// CHECK: module attributes {ttl.target_arch = #ttcore.arch<blackhole>} {
// CHECK-NEXT:   "t.a"() {t1 = !ttl.transfer_handle, t2 = !ttl.dst, t3 = !ttl.pipe_token<net 0>} : () -> ()
// CHECK-NEXT:   "t.b"() {t = !ttl.cb<[1, 1], f32, 2>} : () -> ()
// CHECK-NEXT:   "t.c"() {t = !ttcore.tile<16x32, bf16>} : () -> ()
// CHECK-NEXT:   "t.d"() {t = !ttcore.tile<32x32, bfp_f8>} : () -> ()
// CHECK-NEXT:   "t.e"() {t = tensor<?x4xf32>, m = memref<4xf32>, v = vector<4xf32>, n = none} : () -> ()
// CHECK-NEXT:   "t.f"() {r = #ttl.reduce_type<sum>, s = #ttl.slice<start = 0, stop = 4, step = 1>} : () -> ()
// CHECK-NEXT:   "t.g"() {x = affine_map<(d0, d1) -> (d0)>, y = [#ttl.pipe_record<srcX = 0>]} : () -> ()
// CHECK-NEXT:   "t.j"() {u = 1 : ui8, f = 0x7F800000 : f32, s = "a\"b"} : () -> ()
// CHECK-NEXT: }
module attributes {ttl.target_arch = #ttcore.arch<blackhole>} {
  "t.a"() {t1 = !ttl.transfer_handle, t2 = !ttl.dst, t3 = !ttl.pipe_token<net 0>} : () -> ()
  "t.b"() {t = !ttl.cb<[1, 1], f32, 2>} : () -> ()
  "t.c"() {t = !ttcore.tile<16x32, bf16>} : () -> ()
  "t.d"() {t = !ttcore.tile<32x32, bfp_f8>} : () -> ()
  "t.e"() {t = tensor<?x4xf32>, m = memref<4xf32>, v = vector<4xf32>, n = none} : () -> ()
  "t.f"() {r = #ttl.reduce_type<sum>, s = #ttl.slice<start = 0, stop = 4, step = 1>} : () -> ()
  "t.g"() {x = affine_map<(d0, d1) -> (d0)>, y = [#ttl.pipe_record<srcX = 0>]} : () -> ()
  "t.j"() {u = 1 : ui8, f = 0x7F800000 : f32, s = "a\"b"} : () -> ()
}
