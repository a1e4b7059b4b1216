// The pto emulator reports a deadlock: V waits for event id 1 of MTE2 -> V, and MTE2 sets id 0
// (a mis-numbered flag), which is then left set.
#include <pto/pto-inst.hpp>
#include <vector>

using namespace pto;
using Block = Tile<TileType::Vec, float, 32, 32>;
using Global = GlobalTensor<float, Shape<1, 1, 1, 32, 32>, Stride<1, 1, 1, 32, 1>>;

void kernel(float* a) {
  Block x, y;
  TASSIGN(x, 0x0);
  TASSIGN(y, 0x1000);
  Global ga(a);
  TLOAD(x, ga);
  TTLPLAN_AT("deadlock.ttl:7:3");
  set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  TTLPLAN_AT("deadlock.ttl:8:3");
  wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID1);
  TEXP(y, x);
}

int main() {
  std::vector<float> a(32 * 32, 1.0f);
  return pto::emu::runBlocks(1, [&] { kernel(a.data()); }) ? 0 : 1;
}
