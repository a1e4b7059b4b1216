// RUN: ttlplan plan --split-input-file %s | FileCheck %s
// Each `// -----` chunk is planned on its own: both define @copy and the alias !cb (differently),
// which in one file would be two errors. Diagnostics keep the file's line numbers.
// A bf16 tile is 2,048 B, an f32 tile 4,096 B: 2 blocks of 1x1 bf16, then 3 blocks of 1x1 f32.
// CHECK: kernel @copy ({{.*}}split-input-file.mlir:13:3)
// CHECK: %cb {{.*}}4,096{{ +}}2{{ +}}1x1{{ +}}bf16
// CHECK: // -----
// CHECK: kernel @copy ({{.*}}split-input-file.mlir:35:3)
// CHECK: %cb {{.*}}12,288{{ +}}3{{ +}}1x1{{ +}}f32
#dram = #ttl.layout<dram, interleaved>
!cb = !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
module {
  ttl.kernel @copy(%a: tensor<64x64xbf16, #dram>, %c: tensor<64x64xbf16, #dram>) attributes {grid = [1, 1], work = [2, 2]} {
    %cb = ttl.create_cb : !cb
    ttl.datamovement_thread {
      ttl.work_loop (%i, %j) {
        %v = ttl.cb_reserve %cb : !cb -> tensor<1x1x!ttcore.tile<32x32, bf16>>
        %s = ttl.tensor_slice %a[%i, %j] : tensor<64x64xbf16, #dram> -> tensor<1x1x!ttcore.tile<32x32, bf16>>
        %x = ttl.copy %s, %v : (tensor<1x1x!ttcore.tile<32x32, bf16>>, tensor<1x1x!ttcore.tile<32x32, bf16>>) -> !ttl.transfer_handle<read>
        ttl.wait %x : !ttl.transfer_handle<read>
        ttl.cb_push %cb : !cb
        %w = ttl.cb_wait %cb : !cb -> tensor<1x1x!ttcore.tile<32x32, bf16>>
        %d = ttl.tensor_slice %c[%i, %j] : tensor<64x64xbf16, #dram> -> tensor<1x1x!ttcore.tile<32x32, bf16>>
        %y = ttl.copy %w, %d : (tensor<1x1x!ttcore.tile<32x32, bf16>>, tensor<1x1x!ttcore.tile<32x32, bf16>>) -> !ttl.transfer_handle<write>
        ttl.wait %y : !ttl.transfer_handle<write>
        ttl.cb_pop %cb : !cb
      }
    }
  }
}
// -----
#dram = #ttl.layout<dram, interleaved>
!cb = !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 3>
module {
  ttl.kernel @copy(%a: tensor<64x64xf32, #dram>, %c: tensor<64x64xf32, #dram>) attributes {grid = [1, 1], work = [2, 2]} {
    %cb = ttl.create_cb : !cb
    ttl.datamovement_thread {
      ttl.work_loop (%i, %j) {
        %v = ttl.cb_reserve %cb : !cb -> tensor<1x1x!ttcore.tile<32x32, f32>>
        %s = ttl.tensor_slice %a[%i, %j] : tensor<64x64xf32, #dram> -> tensor<1x1x!ttcore.tile<32x32, f32>>
        %x = ttl.copy %s, %v : (tensor<1x1x!ttcore.tile<32x32, f32>>, tensor<1x1x!ttcore.tile<32x32, f32>>) -> !ttl.transfer_handle<read>
        ttl.wait %x : !ttl.transfer_handle<read>
        ttl.cb_push %cb : !cb
        %w = ttl.cb_wait %cb : !cb -> tensor<1x1x!ttcore.tile<32x32, f32>>
        %d = ttl.tensor_slice %c[%i, %j] : tensor<64x64xf32, #dram> -> tensor<1x1x!ttcore.tile<32x32, f32>>
        %y = ttl.copy %w, %d : (tensor<1x1x!ttcore.tile<32x32, f32>>, tensor<1x1x!ttcore.tile<32x32, f32>>) -> !ttl.transfer_handle<write>
        ttl.wait %y : !ttl.transfer_handle<write>
        ttl.cb_pop %cb : !cb
      }
    }
  }
}
// `ttlplan compile --split-input-file -o DIR` writes chunk N under DIR/N (tests/mlir/MlirTests.cmake):
// COMPILE: {{wrote|unchanged}} {{.*}}/0/copy/reader.cpp
// COMPILE: {{wrote|unchanged}} {{.*}}/0/plan.json
// COMPILE: // -----
// COMPILE: {{wrote|unchanged}} {{.*}}/1/copy/reader.cpp
// COMPILE: {{wrote|unchanged}} {{.*}}/1/plan.json

// compile --split-input-file writes each chunk's files under DIR/N (the COMPILE lines above).
// RUN: ttlplan compile --split-input-file %s -o %t | FileCheck %s --check-prefix=COMPILE
