// Runs the kernel `ttlplan compile --target pto tests/pto/plan_matmul.ttl` writes (@mm: C[0:64,
// 0:64] = A[0:64, :] x B[:, 0:64] over 8 k-blocks of one tile: L1 operands, L0A/L0B staging,
// fp32 accumulation in L0C, stored as bf16) on the pto emulator, and checks C against the sum
// done here in float in the same order, and that the rest of C is untouched.
#include <pto/pto-inst.hpp>

#include TTLPLAN_PTO_KERNEL

#include <cstdio>
#include <random>
#include <vector>

int main() {
  constexpr int kSide = 256;
  std::vector<bfloat16_t> a(kSide * kSide), b(kSide * kSide), c(kSide * kSide, bfloat16_t(-7.0f));
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (int i = 0; i < kSide * kSide; ++i) {
    a[size_t(i)] = uniform(rng);
    b[size_t(i)] = uniform(rng);
  }
  if (!pto::emu::runBlocks(2, [&] { mm(a.data(), b.data(), c.data()); })) return 1;
  int wrong = 0;
  for (int i = 0; i < kSide; ++i)
    for (int j = 0; j < kSide; ++j) {
      float want = -7.0f;
      if (i < 64 && j < 64) {
        float sum = 0;
        for (int k = 0; k < kSide; ++k)
          sum += float(a[size_t(i * kSide + k)]) * float(b[size_t(k * kSide + j)]);
        want = float(bfloat16_t(sum));
      }
      if (float(c[size_t(i * kSide + j)]) != want && ++wrong <= 5)
        std::fprintf(stderr, "C[%d][%d] = %g, want %g\n", i, j, double(c[size_t(i * kSide + j)]),
                     double(want));
    }
  std::printf("%d of %d elements differ\n", wrong, kSide * kSide);
  return wrong == 0 ? 0 : 1;
}
