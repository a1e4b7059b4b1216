// The pto emulator reports a race: TADD (V) reads the tile TLOAD (MTE2) writes, with no
// set_flag/wait_flag between them.
#include <pto/pto-inst.hpp>
#include <vector>

using namespace pto;
using Block = Tile<TileType::Vec, float, 32, 32>;
using Global = GlobalTensor<float, Shape<1, 1, 1, 32, 32>, Stride<1, 1, 1, 32, 1>>;

void kernel(float* a, float* c) {
  Block x, y;
  TASSIGN(x, 0x0);
  TASSIGN(y, 0x1000);
  Global ga(a), gc(c);
  TTLPLAN_AT("race.ttl:10:5");
  TLOAD(x, ga);
  TTLPLAN_AT("race.ttl:11:5");
  TADD(y, x, x); // missing: set_flag(PIPE_MTE2, PIPE_V, 0); wait_flag(PIPE_MTE2, PIPE_V, 0)
  set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
  wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
  TSTORE(gc, y);
}

int main() {
  std::vector<float> a(32 * 32, 1.0f), c(32 * 32);
  return pto::emu::runBlocks(1, [&] { kernel(a.data(), c.data()); }) ? 0 : 1;
}
