// The row and column expansions, the row reductions and the scalar forms on one core, each value
// checked against a formula written out here (not the emulator's own code): a 4 x 8 float tile
// x[r][c] = r + c / 8, a column v[r] = r + 1 (one value per row, ColMajor) and a row w[c] = c + 2
// (row 0 of a 4 x 8 tile).
#include <cmath>
#include <cstdio>
#include <pto/pto-inst.hpp>

using namespace pto;
using Full = Tile<TileType::Vec, float, 4, 8>;
using Column = Tile<TileType::Vec, float, 4, 1, BLayout::ColMajor>;

int failures = 0;

void expect(const char* what, int r, int c, float got, float want) {
  if (std::fabs(got - want) <= 1e-6f * std::fmax(1.0f, std::fabs(want))) return;
  std::fprintf(stderr, "%s[%d][%d] = %g, want %g\n", what, r, c, double(got), double(want));
  ++failures;
}

int main() {
  Full x, w, out[8], tmp;
  Column v, sum, max;
  TASSIGN(x, 0x0);
  TASSIGN(w, 0x80);
  TASSIGN(v, 0x100);
  for (int k = 0; k < 8; ++k)
    TASSIGN(out[k], 0x200 + 0x80 * k);
  TASSIGN(tmp, 0x600);
  TASSIGN(sum, 0x680);
  TASSIGN(max, 0x6a0);
  const bool clean = pto::emu::runBlocks(1, [&] {
    for (int r = 0; r < 4; ++r) {
      for (int c = 0; c < 8; ++c) {
        x.data()[r * 8 + c] = float(r) + float(c) / 8;
        w.data()[r * 8 + c] = r == 0 ? float(c + 2) : -100.0f; // only row 0 is read
      }
      v.data()[r] = float(r + 1);
    }
    TROWEXPANDSUB(out[0], x, v);
    TROWEXPANDDIV(out[1], x, v);
    TROWEXPANDMUL(out[2], v, x); // the expanded operand first: v[r] * x[r][c]
    TCOLEXPANDADD(out[3], x, w);
    TCOLEXPAND(out[4], w);
    TMULS(out[5], x, 3.0f);
    TADDS(out[6], x, -0.5f);
    TROWSUM(sum, x, tmp);
    TROWMAX(max, x, tmp);
    pipe_barrier(PIPE_V);
    TROWEXPAND(out[7], max);
  });
  for (int r = 0; r < 4; ++r) {
    float rowSum = 0;
    for (int c = 0; c < 8; ++c) {
      const float xv = float(r) + float(c) / 8;
      rowSum += xv;
      expect("rowexpandsub", r, c, out[0].data()[r * 8 + c], xv - float(r + 1));
      expect("rowexpanddiv", r, c, out[1].data()[r * 8 + c], xv / float(r + 1));
      expect("rowexpandmul", r, c, out[2].data()[r * 8 + c], float(r + 1) * xv);
      expect("colexpandadd", r, c, out[3].data()[r * 8 + c], xv + float(c + 2));
      expect("colexpand", r, c, out[4].data()[r * 8 + c], float(c + 2));
      expect("muls", r, c, out[5].data()[r * 8 + c], 3 * xv);
      expect("adds", r, c, out[6].data()[r * 8 + c], xv - 0.5f);
      expect("rowexpand(rowmax)", r, c, out[7].data()[r * 8 + c], float(r) + 7.0f / 8);
    }
    expect("rowsum", r, 0, sum.data()[r], rowSum);
    expect("rowmax", r, 0, max.data()[r], float(r) + 7.0f / 8);
  }
  return clean && failures == 0 ? 0 : 1;
}
