// A correct hand-written double-buffered pipeline (MTE2 -> V -> MTE3 over 16 blocks, 2 slots on
// each side, free flags set once before and waited once after): the emulator reports nothing and
// the values are right.
#include <cstdio>
#include <pto/pto-inst.hpp>
#include <vector>

using namespace pto;
using Block = Tile<TileType::Vec, float, 32, 32>;
using Global = GlobalTensor<float, Shape<1, 1, 1, 32, 32>, Stride<1, 1, 1, 32, 1>>;

void kernel(float* a, float* c, int blocks) {
  Block in[2], out[2];
  for (int s = 0; s < 2; ++s) {
    TASSIGN(in[s], 0x1000 * s);
    TASSIGN(out[s], 0x2000 + 0x1000 * s);
    set_flag(PIPE_V, PIPE_MTE2, s);
    set_flag(PIPE_MTE3, PIPE_V, s);
  }
  for (int i = 0; i < blocks; ++i) {
    const int s = i % 2;
    Global ga(a + i * 1024), gc(c + i * 1024);
    wait_flag(PIPE_V, PIPE_MTE2, s);
    TLOAD(in[s], ga);
    set_flag(PIPE_MTE2, PIPE_V, s);
    wait_flag(PIPE_MTE2, PIPE_V, s);
    wait_flag(PIPE_MTE3, PIPE_V, s);
    TADD(out[s], in[s], in[s]);
    set_flag(PIPE_V, PIPE_MTE2, s);
    set_flag(PIPE_V, PIPE_MTE3, s);
    wait_flag(PIPE_V, PIPE_MTE3, s);
    TSTORE(gc, out[s]);
    set_flag(PIPE_MTE3, PIPE_V, s);
  }
  for (int s = 0; s < 2; ++s) {
    wait_flag(PIPE_V, PIPE_MTE2, s);
    wait_flag(PIPE_MTE3, PIPE_V, s);
  }
}

int main() {
  const int blocks = 16;
  std::vector<float> a(blocks * 1024), c(blocks * 1024);
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = float(i % 97);
  if (!pto::emu::runBlocks(1, [&] { kernel(a.data(), c.data(), blocks); })) return 1;
  for (size_t i = 0; i < a.size(); ++i)
    if (c[i] != 2 * a[i]) {
      std::fprintf(stderr, "c[%zu] = %g, want %g\n", i, double(c[i]), double(2 * a[i]));
      return 1;
    }
  return 0;
}
