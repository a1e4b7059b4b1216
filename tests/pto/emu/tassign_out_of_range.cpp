// The pto emulator refuses a tile that runs past its memory: 4 KiB at 190 KiB of A2/A3's
// 192 KiB UB.
#include <pto/pto-inst.hpp>
#include <vector>

using namespace pto;
using Block = Tile<TileType::Vec, float, 32, 32>;
using Global = GlobalTensor<float, Shape<1, 1, 1, 32, 32>, Stride<1, 1, 1, 32, 1>>;

int main() {
  std::vector<float> a(32 * 32, 1.0f);
  return pto::emu::runBlocks(1,
                             [&] {
                               Block x;
                               TASSIGN(x, 190 * 1024);
                               Global ga(a.data());
                               TTLPLAN_AT("range.ttl:3:3");
                               TLOAD(x, ga);
                             })
             ? 0
             : 1;
}
