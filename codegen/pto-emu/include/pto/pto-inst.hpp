#pragma once
// ttlplan's emulator of the pto-isa subset the pto target emits (docs/pto.md): the names and
// signatures of hw-native-sys/pto-isa's include/pto/pto-inst.hpp (Tile, GlobalTensor, Shape,
// Stride, TASSIGN, TLOAD, TSTORE, the elementwise ops, TMOV, TEXTRACT, TMATMUL, TMATMUL_ACC,
// TROWSUM, TROWMAX, TROWEXPAND and TCOLEXPAND with their binary forms, the scalar forms (TADDS,
// TSUBS, TMULS, TDIVS, TMAXS), TCVT, set_flag, wait_flag, pipe_barrier, get_block_idx,
// get_block_num), read from that repository (docs/pto-facts.md cites the lines) and written
// here anew, so that the generated kernels compile against both. Each instruction is queued on
// its pipe and run by that pipe's thread (ttlplan_emu_runtime.hpp): a missing or mis-numbered
// flag shows up as a reported race or deadlock. Elements are computed in float and rounded to the
// tile's type; a tile's elements are stored row-major whatever its fractal layout (the emulator
// gives the ISA's values, not its bit layouts).
#include "pto/ttlplan_emu_runtime.hpp"

#include <cmath>
#include <cstring>
#include <type_traits>

#define AICORE
#define __global__
#define __gm__
#define PTO_INST inline

typedef int pipe_t;
using event_t = int;
const pipe_t PIPE_S = 0;
const pipe_t PIPE_V = 1;
const pipe_t PIPE_MTE1 = 2;
const pipe_t PIPE_MTE2 = 3;
const pipe_t PIPE_MTE3 = 4;
const pipe_t PIPE_M = 5;
const pipe_t PIPE_ALL = 6;
const pipe_t PIPE_FIX = 7;
#define EVENT_ID0 0
#define EVENT_ID1 1
#define EVENT_ID2 2
#define EVENT_ID3 3
#define EVENT_ID4 4
#define EVENT_ID5 5
#define EVENT_ID6 6
#define EVENT_ID7 7

/// Where the next instructions come from (the generated code's TTL locations).
#define TTLPLAN_AT(where) (::pto::emu::Runtime::get().currentWhere = (where))

/// bfloat16: the top half of a float, rounded to nearest even.
struct bfloat16_t {
  uint16_t bits = 0;
  bfloat16_t() = default;
  bfloat16_t(float f) { // NOLINT: implicit, like the compiler's type
    uint32_t u;
    std::memcpy(&u, &f, 4);
    if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x7fffffu)) {
      bits = uint16_t((u >> 16) | 0x40);
      return;
    }
    u += 0x7fffu + ((u >> 16) & 1u);
    bits = uint16_t(u >> 16);
  }
  operator float() const { // NOLINT
    uint32_t u = uint32_t(bits) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
};
using half = _Float16;

inline int64_t get_block_idx() {
  return pto::emu::Runtime::get().blockIdx;
}
inline int64_t get_block_num() {
  return pto::emu::Runtime::get().blockNum;
}

namespace pto {

enum class TileType { Vec, Mat, Left, Right, Acc, Bias, Scaling, ScaleLeft, ScaleRight, Ctrl };
enum class BLayout { RowMajor, ColMajor };
enum class SLayout { NoneBox, RowMajor, ColMajor };
enum class PadValue { Null, Zero, Max, Min };
enum class CompactMode { Null, Normal };
enum class Layout { ND, DN, NZ };
enum class RoundMode {
  CAST_NONE,
  CAST_RINT,
  CAST_ROUND,
  CAST_FLOOR,
  CAST_CEIL,
  CAST_TRUNC,
  CAST_ODD
};
struct TileConfig {
  static constexpr int fractalABSize = 512;
  static constexpr int fractalCSize = 1024;
};
constexpr int DYNAMIC = -1;
/// What every instruction returns (pto-isa's event layer; the emulator orders by flags).
struct RecordEvent {};

namespace emu {
inline Space spaceOf(TileType t) {
  switch (t) {
  case TileType::Vec:
    return Space::Ub;
  case TileType::Mat:
    return Space::L1;
  case TileType::Left:
    return Space::L0a;
  case TileType::Right:
    return Space::L0b;
  case TileType::Acc:
    return Space::L0c;
  default:
    return Space::Ub;
  }
}
} // namespace emu

template <TileType Loc_, typename Element_, const int Rows_, const int Cols_,
          const BLayout BFractal_ = BLayout::RowMajor, const int RowValid_ = Rows_,
          const int ColValid_ = Cols_, const SLayout SFractal_ = SLayout::NoneBox,
          const int SFractalSize_ = TileConfig::fractalABSize, auto PadVal_ = PadValue::Null,
          const CompactMode Compact_ = CompactMode::Null>
struct Tile {
  using DType = Element_;
  static constexpr TileType Loc = Loc_;
  static constexpr int Rows = Rows_;
  static constexpr int Cols = Cols_;
  static constexpr bool isRowMajor = BFractal_ == BLayout::RowMajor;
  static constexpr int64_t kBytes = int64_t(Rows_) * Cols_ * int64_t(sizeof(Element_));
  int64_t address = -1; ///< byte offset in the tile's memory; -1 before TASSIGN

  Element_* data() const {
    return reinterpret_cast<Element_*>(emu::Runtime::get().base(emu::spaceOf(Loc_)) + address);
  }
  emu::Access access(bool write) const {
    return {emu::spaceOf(Loc_), uintptr_t(address), uintptr_t(address + kBytes), write};
  }
};

template <typename Element_, const int Rows_, const int Cols_, const int RowValid_ = Rows_,
          const int ColValid_ = Cols_>
using TileLeft = Tile<TileType::Left, Element_, Rows_, Cols_, BLayout::ColMajor, RowValid_,
                      ColValid_, SLayout::RowMajor, TileConfig::fractalABSize>;
template <typename Element_, const int Rows_, const int Cols_, const int RowValid_ = Rows_,
          const int ColValid_ = Cols_>
using TileRight = Tile<TileType::Right, Element_, Rows_, Cols_, BLayout::RowMajor, RowValid_,
                       ColValid_, SLayout::ColMajor, TileConfig::fractalABSize>;
template <typename Element_, const int Rows_, const int Cols_, const int RowValid_ = Rows_,
          const int ColValid_ = Cols_>
using TileAcc = Tile<TileType::Acc, Element_, Rows_, Cols_, BLayout::ColMajor, RowValid_, ColValid_,
                     SLayout::RowMajor, TileConfig::fractalCSize>;

template <int64_t N1 = DYNAMIC, int64_t N2 = DYNAMIC, int64_t N3 = DYNAMIC, int64_t N4 = DYNAMIC,
          int64_t N5 = DYNAMIC>
struct Shape {
  static constexpr int64_t dims[5] = {N1, N2, N3, N4, N5};
};
template <int64_t S1 = DYNAMIC, int64_t S2 = DYNAMIC, int64_t S3 = DYNAMIC, int64_t S4 = DYNAMIC,
          int64_t S5 = DYNAMIC>
struct Stride {
  static constexpr int64_t strides[5] = {S1, S2, S3, S4, S5};
};

/// A 2-d window of global memory: rows x cols elements (Shape dims 4 and 5), rows `Stride` dim
/// 4 elements apart (the forms the pto target emits: Shape<1, 1, 1, R, C>, Stride<1, 1, 1, W, 1>).
template <typename Element_, typename Shape_, typename Stride_, Layout Layout_ = Layout::ND>
struct GlobalTensor {
  using DType = Element_;
  static constexpr int64_t Rows = Shape_::dims[3];
  static constexpr int64_t Cols = Shape_::dims[4];
  static constexpr int64_t RowStride = Stride_::strides[3];
  static_assert(Rows > 0 && Cols > 0 && RowStride > 0 && Stride_::strides[4] == 1,
                "the emulator takes static 2-d row-major windows");
  explicit GlobalTensor(Element_* data = nullptr, const Shape_& = {}, const Stride_& = {})
      : ptr(data) {}
  Element_* data() const { return ptr; }
  std::vector<emu::Access> accesses(bool write) const {
    std::vector<emu::Access> out;
    for (int64_t r = 0; r < Rows; ++r) {
      const uintptr_t begin = uintptr_t(ptr + r * RowStride);
      out.push_back({emu::Space::Global, begin, begin + uintptr_t(Cols * sizeof(Element_)), write});
    }
    return out;
  }
  Element_* ptr;
};

namespace emu {

/// Where TASSIGN put a tile is in its memory and 32-byte aligned; a report otherwise.
template <typename TileData> bool placed(const TileData& t, const char* what) {
  Runtime& rt = Runtime::get();
  const Space s = spaceOf(TileData::Loc);
  if (t.address < 0) {
    rt.issueError(std::string(what) + ": a tile used before TASSIGN");
    return false;
  }
  if (t.address % 32 != 0 || t.address + TileData::kBytes > rt.size(s)) {
    rt.issueError(std::string(what) + ": a tile of " + std::to_string(TileData::kBytes) + " B at " +
                  spaceName(s) + " offset " + std::to_string(t.address) +
                  (t.address % 32
                       ? " is not 32-byte aligned"
                       : " runs past the memory's " + std::to_string(rt.size(s)) + " B"));
    return false;
  }
  return true;
}

template <typename T> float load(const T& v) {
  return float(v);
}
template <typename T> T storeAs(float v) {
  return T(v);
}

/// Queues an instruction that reads `srcs` and writes `dsts` (tiles) on `pipe`.
inline void queue(int pipe, const char* what, std::vector<Access> accesses,
                  std::function<void()> run) {
  Instr instr;
  instr.what = what;
  instr.accesses = std::move(accesses);
  instr.run = std::move(run);
  Runtime::get().issue(pipe, std::move(instr));
}

template <typename TileData> int pipeOfStore() {
  return TileData::Loc == TileType::Acc ? PIPE_FIX : PIPE_MTE3;
}

template <typename Dst, typename Src0, typename Src1, typename F>
RecordEvent binary(const char* what, Dst& dst, Src0& a, Src1& b, F f) {
  static_assert(Dst::Rows == Src0::Rows && Dst::Cols == Src0::Cols && Dst::Rows == Src1::Rows &&
                    Dst::Cols == Src1::Cols,
                "elementwise operands of one shape");
  static_assert(Dst::isRowMajor && Src0::isRowMajor && Src1::isRowMajor,
                "pto-isa's elementwise ops take row-major tiles (docs/isa/TADD.md)");
  if (!placed(dst, what) || !placed(a, what) || !placed(b, what)) return {};
  queue(PIPE_V, what, {a.access(false), b.access(false), dst.access(true)}, [=] {
    auto* d = dst.data();
    const auto* x = a.data();
    const auto* y = b.data();
    for (int64_t i = 0; i < int64_t(Dst::Rows) * Dst::Cols; ++i)
      d[i] = storeAs<typename Dst::DType>(f(load(x[i]), load(y[i])));
  });
  return {};
}

template <typename Dst, typename Src, typename F>
RecordEvent unary(const char* what, Dst& dst, Src& a, F f) {
  static_assert(Dst::Rows == Src::Rows && Dst::Cols == Src::Cols, "operands of one shape");
  static_assert(Dst::Loc != TileType::Vec || (Dst::isRowMajor && Src::isRowMajor),
                "pto-isa's elementwise ops on UB take row-major tiles (docs/isa/TEXP.md)");
  if (!placed(dst, what) || !placed(a, what)) return {};
  queue(PIPE_V, what, {a.access(false), dst.access(true)}, [=] {
    auto* d = dst.data();
    const auto* x = a.data();
    for (int64_t i = 0; i < int64_t(Dst::Rows) * Dst::Cols; ++i)
      d[i] = storeAs<typename Dst::DType>(f(load(x[i])));
  });
  return {};
}

} // namespace emu

template <typename T, typename AddrType> PTO_INST void TASSIGN(T& obj, AddrType addr) {
  obj.address = int64_t(addr);
}

template <typename TileData, typename GlobalData, typename... WaitEvents>
PTO_INST RecordEvent TLOAD(TileData& dst, GlobalData& src, WaitEvents&...) {
  static_assert(TileData::Rows == GlobalData::Rows && TileData::Cols == GlobalData::Cols,
                "TLOAD of a window the tile's shape");
  if (!emu::placed(dst, "TLOAD")) return {};
  std::vector<emu::Access> accesses = src.accesses(false);
  accesses.push_back(dst.access(true));
  emu::queue(PIPE_MTE2, "TLOAD", std::move(accesses), [=] {
    auto* d = dst.data();
    for (int64_t r = 0; r < TileData::Rows; ++r)
      for (int64_t c = 0; c < TileData::Cols; ++c)
        d[r * TileData::Cols + c] = emu::storeAs<typename TileData::DType>(
            emu::load(src.data()[r * GlobalData::RowStride + c]));
  });
  return {};
}

template <typename TileData, typename GlobalData, typename... WaitEvents>
PTO_INST RecordEvent TSTORE(GlobalData& dst, TileData& src, WaitEvents&...) {
  static_assert(TileData::Rows == GlobalData::Rows && TileData::Cols == GlobalData::Cols,
                "TSTORE of a tile into a window its shape");
  if (!emu::placed(src, "TSTORE")) return {};
  std::vector<emu::Access> accesses = dst.accesses(true);
  accesses.push_back(src.access(false));
  emu::queue(emu::pipeOfStore<TileData>(), "TSTORE", std::move(accesses), [=] {
    const auto* s = src.data();
    for (int64_t r = 0; r < TileData::Rows; ++r)
      for (int64_t c = 0; c < TileData::Cols; ++c)
        dst.data()[r * GlobalData::RowStride + c] =
            emu::storeAs<typename GlobalData::DType>(emu::load(s[r * TileData::Cols + c]));
  });
  return {};
}

#define TTLPLAN_PTO_BINARY(NAME, EXPR)                                                             \
  template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1,                    \
            typename... WaitEvents>                                                                \
  PTO_INST RecordEvent NAME(TileDataDst& dst, TileDataSrc0& src0, TileDataSrc1& src1,              \
                            WaitEvents&...) {                                                      \
    return emu::binary(#NAME, dst, src0, src1, [](float a, float b) { return EXPR; });             \
  }
TTLPLAN_PTO_BINARY(TADD, a + b)
TTLPLAN_PTO_BINARY(TSUB, a - b)
TTLPLAN_PTO_BINARY(TMUL, a* b)
TTLPLAN_PTO_BINARY(TMAX, std::max(a, b))
TTLPLAN_PTO_BINARY(TMIN, std::min(a, b))
#undef TTLPLAN_PTO_BINARY

template <auto PrecisionType = 0, typename TileDataDst, typename TileDataSrc0,
          typename TileDataSrc1, typename... WaitEvents>
PTO_INST RecordEvent TDIV(TileDataDst& dst, TileDataSrc0& src0, TileDataSrc1& src1,
                          WaitEvents&...) {
  return emu::binary("TDIV", dst, src0, src1, [](float a, float b) { return a / b; });
}

#define TTLPLAN_PTO_UNARY(NAME, EXPR)                                                              \
  template <typename TileDataDst, typename TileDataSrc, typename... WaitEvents>                    \
  PTO_INST RecordEvent NAME(TileDataDst& dst, TileDataSrc& src, WaitEvents&...) {                  \
    return emu::unary(#NAME, dst, src, [](float a) { return EXPR; });                              \
  }
TTLPLAN_PTO_UNARY(TLOG, std::log(a))
TTLPLAN_PTO_UNARY(TSQRT, std::sqrt(a))
TTLPLAN_PTO_UNARY(TRSQRT, 1.0f / std::sqrt(a))
TTLPLAN_PTO_UNARY(TRECIP, 1.0f / a)
TTLPLAN_PTO_UNARY(TRELU, a > 0 ? a : 0.0f)
TTLPLAN_PTO_UNARY(TNEG, -a)
TTLPLAN_PTO_UNARY(TABS, std::fabs(a))
#undef TTLPLAN_PTO_UNARY

template <auto PrecisionType = 0, typename TileDataDst, typename TileDataSrc,
          typename... WaitEvents>
PTO_INST RecordEvent TEXP(TileDataDst& dst, TileDataSrc& src, WaitEvents&...) {
  return emu::unary("TEXP", dst, src, [](float a) { return std::exp(a); });
}

/// Tile to tile on V (Vec -> Vec) or MTE1 (Mat -> Left/Right), with conversion.
template <typename DstTileData, typename SrcTileData, typename... WaitEvents>
PTO_INST RecordEvent TMOV(DstTileData& dst, SrcTileData& src, WaitEvents&...) {
  const int pipe = SrcTileData::Loc == TileType::Mat ? PIPE_MTE1 : PIPE_V;
  static_assert(DstTileData::Rows == SrcTileData::Rows && DstTileData::Cols == SrcTileData::Cols,
                "TMOV between tiles of one shape");
  if (!emu::placed(dst, "TMOV") || !emu::placed(src, "TMOV")) return {};
  emu::queue(pipe, "TMOV", {src.access(false), dst.access(true)}, [=] {
    for (int64_t i = 0; i < int64_t(DstTileData::Rows) * DstTileData::Cols; ++i)
      dst.data()[i] = emu::storeAs<typename DstTileData::DType>(emu::load(src.data()[i]));
  });
  return {};
}

/// dst = the dst-shaped block of src at (indexRow, indexCol), on MTE1 (L1 -> L0A/L0B).
template <typename DstTileData, typename SrcTileData, typename... WaitEvents>
PTO_INST RecordEvent TEXTRACT(DstTileData& dst, SrcTileData& src, uint16_t indexRow = 0,
                              uint16_t indexCol = 0, WaitEvents&...) {
  if (!emu::placed(dst, "TEXTRACT") || !emu::placed(src, "TEXTRACT")) return {};
  if (indexRow + DstTileData::Rows > SrcTileData::Rows ||
      indexCol + DstTileData::Cols > SrcTileData::Cols) {
    emu::Runtime::get().issueError("TEXTRACT: the block runs past its source tile");
    return {};
  }
  emu::queue(PIPE_MTE1, "TEXTRACT", {src.access(false), dst.access(true)}, [=] {
    for (int64_t r = 0; r < DstTileData::Rows; ++r)
      for (int64_t c = 0; c < DstTileData::Cols; ++c)
        dst.data()[r * DstTileData::Cols + c] = emu::storeAs<typename DstTileData::DType>(
            emu::load(src.data()[(r + indexRow) * SrcTileData::Cols + c + indexCol]));
  });
  return {};
}

namespace emu {
/// c = (accumulate ? in : 0) + a x b.
template <typename Res, typename L, typename R>
RecordEvent matmul(const char* what, Res& c, const Res& in, L& a, R& b, bool accumulate) {
  static_assert(Res::Rows == L::Rows && L::Cols == R::Rows && R::Cols == Res::Cols,
                "TMATMUL shapes: Left.Rows = Acc.Rows, Left.Cols = Right.Rows, Right.Cols = "
                "Acc.Cols");
  if (!placed(c, what) || !placed(a, what) || !placed(b, what) || !placed(in, what)) return {};
  std::vector<Access> accesses = {a.access(false), b.access(false), c.access(true)};
  if (accumulate) accesses.push_back(in.access(false));
  queue(PIPE_M, what, std::move(accesses), [=] {
    for (int64_t i = 0; i < Res::Rows; ++i)
      for (int64_t j = 0; j < Res::Cols; ++j) {
        float sum = accumulate ? load(in.data()[i * Res::Cols + j]) : 0.0f;
        for (int64_t k = 0; k < L::Cols; ++k)
          sum += load(a.data()[i * L::Cols + k]) * load(b.data()[k * R::Cols + j]);
        c.data()[i * Res::Cols + j] = storeAs<typename Res::DType>(sum);
      }
  });
  return {};
}
} // namespace emu

template <typename TileRes, typename TileLeft, typename TileRight, typename... WaitEvents>
PTO_INST RecordEvent TMATMUL(TileRes& cMatrix, TileLeft& aMatrix, TileRight& bMatrix,
                             WaitEvents&...) {
  return emu::matmul("TMATMUL", cMatrix, cMatrix, aMatrix, bMatrix, false);
}
/// cOutMatrix = cInMatrix + a x b (pto-isa's four-operand form, the one its CPU simulation has).
template <typename TileRes, typename TileLeft, typename TileRight, typename... WaitEvents>
PTO_INST RecordEvent TMATMUL_ACC(TileRes& cOutMatrix, TileRes& cInMatrix, TileLeft& aMatrix,
                                 TileRight& bMatrix, WaitEvents&...) {
  return emu::matmul("TMATMUL_ACC", cOutMatrix, cInMatrix, aMatrix, bMatrix, true);
}
/// c += a x b (the three-operand form pto-isa declares too).
template <typename TileRes, typename TileLeft, typename TileRight, typename... WaitEvents>
PTO_INST RecordEvent TMATMUL_ACC(TileRes& cMatrix, TileLeft& aMatrix, TileRight& bMatrix,
                                 WaitEvents&...) {
  return emu::matmul("TMATMUL_ACC", cMatrix, cMatrix, aMatrix, bMatrix, true);
}

namespace emu {
template <typename Out, typename In, typename Tmp, typename F>
RecordEvent rowReduce(const char* what, Out& dst, In& src, Tmp& tmp, float init, F f) {
  static_assert(Out::Rows == In::Rows, "a row reduction keeps the rows");
  if (!placed(dst, what) || !placed(src, what) || !placed(tmp, what)) return {};
  queue(PIPE_V, what, {src.access(false), tmp.access(true), dst.access(true)}, [=] {
    for (int64_t r = 0; r < In::Rows; ++r) {
      float acc = init;
      for (int64_t c = 0; c < In::Cols; ++c)
        acc = f(acc, load(src.data()[r * In::Cols + c]));
      for (int64_t c = 0; c < Out::Cols; ++c)
        dst.data()[r * Out::Cols + c] = storeAs<typename Out::DType>(acc);
    }
  });
  return {};
}
} // namespace emu

template <typename TileDataOut, typename TileDataIn, typename TileDataTmp, typename... WaitEvents>
PTO_INST RecordEvent TROWSUM(TileDataOut& dst, TileDataIn& src, TileDataTmp& tmp, WaitEvents&...) {
  return emu::rowReduce("TROWSUM", dst, src, tmp, 0.0f, [](float a, float b) { return a + b; });
}
template <typename TileDataOut, typename TileDataIn, typename TileDataTmp, typename... WaitEvents>
PTO_INST RecordEvent TROWMAX(TileDataOut& dst, TileDataIn& src, TileDataTmp& tmp, WaitEvents&...) {
  return emu::rowReduce("TROWMAX", dst, src, tmp, -INFINITY,
                        [](float a, float b) { return std::max(a, b); });
}

/// Each row of dst filled with the first element of the row of src.
template <typename TileDataDst, typename TileDataSrc, typename... WaitEvents>
PTO_INST RecordEvent TROWEXPAND(TileDataDst& dst, TileDataSrc& src, WaitEvents&...) {
  static_assert(TileDataDst::Rows == TileDataSrc::Rows, "TROWEXPAND keeps the rows");
  if (!emu::placed(dst, "TROWEXPAND") || !emu::placed(src, "TROWEXPAND")) return {};
  emu::queue(PIPE_V, "TROWEXPAND", {src.access(false), dst.access(true)}, [=] {
    for (int64_t r = 0; r < TileDataDst::Rows; ++r)
      for (int64_t c = 0; c < TileDataDst::Cols; ++c)
        dst.data()[r * TileDataDst::Cols + c] =
            emu::storeAs<typename TileDataDst::DType>(emu::load(src.data()[r * TileDataSrc::Cols]));
  });
  return {};
}

namespace emu {
/// dst = src0 op src1 with one operand expanded. Row (pto-isa's TROWEXPAND<op>): the operand
/// whose shape is not dst's is a Rows x 1 column, one value per row, and the operands keep their
/// order (docs/isa/TROWEXPANDMUL.md). Col (TCOLEXPAND<op>): src1 gives one value per column, from
/// its row 0 (docs/isa/TCOLEXPANDADD.md).
enum class Expand { Row, Col };
template <Expand Along, typename Dst, typename Src0, typename Src1, typename F>
RecordEvent expandBinary(const char* what, Dst& dst, Src0& a, Src1& b, F f) {
  constexpr bool firstFull = Src0::Rows == Dst::Rows && Src0::Cols == Dst::Cols;
  constexpr bool secondFull = Src1::Rows == Dst::Rows && Src1::Cols == Dst::Cols;
  constexpr bool firstExpanded = Along == Expand::Row && !firstFull;
  static_assert(Along == Expand::Row ? firstFull != secondFull : firstFull,
                "one operand has dst's shape (src0 for a column expansion)");
  using Expanded = std::conditional_t<firstExpanded, Src0, Src1>;
  static_assert(Along == Expand::Row ? Expanded::Rows == Dst::Rows && Expanded::Cols == 1
                                     : Expanded::Cols == Dst::Cols,
                "a row-expanded operand is one column of dst's rows; a column-expanded one has "
                "dst's columns (row 0 is used)");
  if (!placed(dst, what) || !placed(a, what) || !placed(b, what)) return {};
  queue(PIPE_V, what, {a.access(false), b.access(false), dst.access(true)}, [=] {
    auto expanded = [](const Expanded& t, int64_t r, int64_t c) {
      return load(t.data()[Along == Expand::Row ? r : c]);
    };
    for (int64_t r = 0; r < Dst::Rows; ++r)
      for (int64_t c = 0; c < Dst::Cols; ++c) {
        float x, y;
        if constexpr (firstExpanded) {
          x = expanded(a, r, c);
          y = load(b.data()[r * Dst::Cols + c]);
        } else {
          x = load(a.data()[r * Dst::Cols + c]);
          y = expanded(b, r, c);
        }
        dst.data()[r * Dst::Cols + c] = storeAs<typename Dst::DType>(f(x, y));
      }
  });
  return {};
}

/// dst = f(src, scalar), elementwise.
template <typename Dst, typename Src, typename F>
RecordEvent withScalar(const char* what, Dst& dst, Src& a, float scalar, F f) {
  return unary(what, dst, a, [=](float x) { return f(x, scalar); });
}
} // namespace emu

#define TTLPLAN_PTO_EXPAND(NAME, ALONG, EXPR)                                                      \
  template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1,                    \
            typename... WaitEvents>                                                                \
  PTO_INST RecordEvent NAME(TileDataDst& dst, TileDataSrc0& src0, TileDataSrc1& src1,              \
                            WaitEvents&...) {                                                      \
    return emu::expandBinary<emu::Expand::ALONG>(#NAME, dst, src0, src1,                           \
                                                 [](float a, float b) { return EXPR; });           \
  }
TTLPLAN_PTO_EXPAND(TROWEXPANDADD, Row, a + b)
TTLPLAN_PTO_EXPAND(TROWEXPANDSUB, Row, a - b)
TTLPLAN_PTO_EXPAND(TROWEXPANDMUL, Row, a* b)
TTLPLAN_PTO_EXPAND(TROWEXPANDMAX, Row, std::max(a, b))
TTLPLAN_PTO_EXPAND(TROWEXPANDMIN, Row, std::min(a, b))
TTLPLAN_PTO_EXPAND(TCOLEXPANDADD, Col, a + b)
TTLPLAN_PTO_EXPAND(TCOLEXPANDSUB, Col, a - b)
TTLPLAN_PTO_EXPAND(TCOLEXPANDMUL, Col, a* b)
TTLPLAN_PTO_EXPAND(TCOLEXPANDMAX, Col, std::max(a, b))
TTLPLAN_PTO_EXPAND(TCOLEXPANDMIN, Col, std::min(a, b))
#undef TTLPLAN_PTO_EXPAND
template <auto PrecisionType = 0, typename TileDataDst, typename TileDataSrc0,
          typename TileDataSrc1, typename... WaitEvents>
PTO_INST RecordEvent TROWEXPANDDIV(TileDataDst& dst, TileDataSrc0& src0, TileDataSrc1& src1,
                                   WaitEvents&...) {
  return emu::expandBinary<emu::Expand::Row>("TROWEXPANDDIV", dst, src0, src1,
                                             [](float a, float b) { return a / b; });
}

/// Each column of dst filled with row 0's element of that column of src.
template <typename TileDataDst, typename TileDataSrc, typename... WaitEvents>
PTO_INST RecordEvent TCOLEXPAND(TileDataDst& dst, TileDataSrc& src, WaitEvents&...) {
  static_assert(TileDataDst::Cols == TileDataSrc::Cols, "TCOLEXPAND keeps the columns");
  if (!emu::placed(dst, "TCOLEXPAND") || !emu::placed(src, "TCOLEXPAND")) return {};
  emu::queue(PIPE_V, "TCOLEXPAND", {src.access(false), dst.access(true)}, [=] {
    for (int64_t r = 0; r < TileDataDst::Rows; ++r)
      for (int64_t c = 0; c < TileDataDst::Cols; ++c)
        dst.data()[r * TileDataDst::Cols + c] =
            emu::storeAs<typename TileDataDst::DType>(emu::load(src.data()[c]));
  });
  return {};
}

// The scalar forms: (dst, src, scalar), the scalar in the source tile's element type.
#define TTLPLAN_PTO_SCALAR(NAME, EXPR)                                                             \
  template <typename TileDataDst, typename TileDataSrc, typename... WaitEvents>                    \
  PTO_INST RecordEvent NAME(TileDataDst& dst, TileDataSrc& src,                                    \
                            typename TileDataSrc::DType scalar, WaitEvents&...) {                  \
    return emu::withScalar(#NAME, dst, src, emu::load(scalar),                                     \
                           [](float a, float s) { return EXPR; });                                 \
  }
TTLPLAN_PTO_SCALAR(TADDS, a + s)
TTLPLAN_PTO_SCALAR(TSUBS, a - s)
TTLPLAN_PTO_SCALAR(TMULS, a* s)
TTLPLAN_PTO_SCALAR(TDIVS, a / s)
TTLPLAN_PTO_SCALAR(TMAXS, std::max(a, s))
#undef TTLPLAN_PTO_SCALAR

template <bool NeedSetCtrl = true, typename TileDataD, typename TileDataS, typename... WaitEvents>
PTO_INST RecordEvent TCVT(TileDataD& dst, TileDataS& src, RoundMode mode, WaitEvents&...) {
  (void)mode; // round to nearest even, the conversions' own rounding
  return emu::unary("TCVT", dst, src, [](float a) { return a; });
}

} // namespace pto

inline void set_flag(pipe_t src, pipe_t dst, event_t id) {
  pto::emu::Instr instr;
  instr.what = std::string("set_flag(") + pto::emu::pipeName(src) + ", " + pto::emu::pipeName(dst) +
               ", " + std::to_string(id) + ")";
  if (id < 0 || id >= pto::emu::kEventIds || src == dst) {
    pto::emu::Runtime::get().issueError(instr.what + ": event ids are 0..7, between two pipes");
    return;
  }
  instr.setDst = dst;
  instr.setId = id;
  pto::emu::Runtime::get().issue(src, std::move(instr));
}

inline void wait_flag(pipe_t src, pipe_t dst, event_t id) {
  pto::emu::Instr instr;
  instr.what = std::string("wait_flag(") + pto::emu::pipeName(src) + ", " +
               pto::emu::pipeName(dst) + ", " + std::to_string(id) + ")";
  if (id < 0 || id >= pto::emu::kEventIds || src == dst) {
    pto::emu::Runtime::get().issueError(instr.what + ": event ids are 0..7, between two pipes");
    return;
  }
  instr.waitSrc = src;
  instr.waitId = id;
  pto::emu::Runtime::get().issue(dst, std::move(instr));
}

/// A pipe runs its instructions in order in the emulator; the barrier is queued for the record.
inline void pipe_barrier(pipe_t pipe) {
  pto::emu::Instr instr;
  instr.what = "pipe_barrier";
  pto::emu::Runtime::get().issue(pipe == PIPE_ALL ? PIPE_V : pipe, std::move(instr));
}
