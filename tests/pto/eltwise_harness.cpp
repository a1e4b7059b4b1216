// Runs the kernel `ttlplan compile --target pto tests/pto/plan_eltwise.ttl` writes (@chain:
// C = exp(relu(exp(A + B))) over 256 x 256 bf16, work [4, 8] of 2x1-tile blocks) on the pto
// emulator with 4 cores, and checks every element against the same math done here in float,
// rounded to bf16 after each op as the tiles are. The kernel file comes in as TTLPLAN_PTO_KERNEL.
#include <pto/pto-inst.hpp>

#include TTLPLAN_PTO_KERNEL

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

int main() {
  constexpr int kSide = 256;
  std::vector<bfloat16_t> a(kSide * kSide), b(kSide * kSide), c(kSide * kSide, bfloat16_t(-7.0f));
  std::mt19937 rng(12);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (int i = 0; i < kSide * kSide; ++i) {
    a[size_t(i)] = uniform(rng);
    b[size_t(i)] = uniform(rng);
  }
  if (!pto::emu::runBlocks(4, [&] { chain(a.data(), b.data(), c.data()); })) return 1;
  auto bf = [](float x) { return float(bfloat16_t(x)); };
  int wrong = 0;
  for (int i = 0; i < kSide * kSide; ++i) {
    const float s = float(a[size_t(i)]) + float(b[size_t(i)]);
    const float t = std::exp(s);
    const float u = t > 0 ? t : 0.0f;
    const float want = bf(std::exp(u));
    if (float(c[size_t(i)]) != want && ++wrong <= 5)
      std::fprintf(stderr, "C[%d][%d] = %g, want %g\n", i / kSide, i % kSide, double(c[size_t(i)]),
                   double(want));
  }
  std::printf("%d of %d elements differ\n", wrong, kSide * kSide);
  return wrong == 0 ? 0 : 1;
}
