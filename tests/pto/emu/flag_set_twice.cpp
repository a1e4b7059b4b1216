// The pto emulator reports an event id set a second time before a wait took the first set: two
// slots sharing one id. V first waits for id 1, which MTE2 sets after both sets of id 0, so the
// second set always finds the first one pending (whatever the pipes' timing).
#include <pto/pto-inst.hpp>
#include <vector>

using namespace pto;
using Block = Tile<TileType::Vec, float, 32, 32>;
using Global = GlobalTensor<float, Shape<1, 1, 1, 32, 32>, Stride<1, 1, 1, 32, 1>>;

void kernel(float* a, float* b) {
  Block x[2], y;
  TASSIGN(x[0], 0x0);
  TASSIGN(x[1], 0x1000);
  TASSIGN(y, 0x2000);
  Global ga(a), gb(b);
  TLOAD(x[0], ga);
  TTLPLAN_AT("twice.ttl:5:3");
  set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  TLOAD(x[1], gb);
  TTLPLAN_AT("twice.ttl:7:3");
  set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0); // should be EVENT_ID1
  set_flag(PIPE_MTE2, PIPE_V, EVENT_ID1);
  wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID1);
  wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  TADD(y, x[0], x[1]);
}

int main() {
  std::vector<float> a(32 * 32, 1.0f), b(32 * 32, 2.0f);
  return pto::emu::runBlocks(1, [&] { kernel(a.data(), b.data()); }) ? 0 : 1;
}
