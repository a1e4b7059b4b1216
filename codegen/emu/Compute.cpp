// The compute kernel API: DST register file (float), the acquire/commit/wait/release protocol,
// init tracking, unpack (CB format -> float), the math and SFPU ops, and pack (float -> CB format).
// copy_tile, matmul_tiles and pack_tile are the emulator's hot path: plain loops over 1024 floats.
#include "Runtime.h"
#include "api/compute/bcast.h"
#include "api/compute/binary_max_min.h"
#include "api/compute/compute_kernel_api.h"
#include "api/compute/copy_dest_values.h"
#include "api/compute/eltwise_binary.h"
#include "api/compute/eltwise_binary_sfpu.h"
#include "api/compute/eltwise_unary/eltwise_unary.h"
#include "api/compute/eltwise_unary/exp.h"
#include "api/compute/eltwise_unary/fill.h"
#include "api/compute/eltwise_unary/gelu.h"
#include "api/compute/eltwise_unary/negative.h"
#include "api/compute/eltwise_unary/recip.h"
#include "api/compute/eltwise_unary/relu.h"
#include "api/compute/eltwise_unary/rsqrt.h"
#include "api/compute/eltwise_unary/sqrt.h"
#include "api/compute/eltwise_unary/trigonometry.h"
#include "api/compute/matmul.h"
#include "api/compute/reduce.h"
#include "api/compute/tile_move_copy.h"
#include "api/compute/transpose_wh.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace ttlplan::emu {

using ckernel::BroadcastType;
using ckernel::PoolType;
using ckernel::ReduceDim;

namespace {

/// Op kinds for init tracking: an op needs its init since the last op of another kind.
enum OpKind : uint32_t {
  kCopy,
  kMatmul,
  kBcast,
  kAdd,
  kSub,
  kDiv,
  kMul,
  kMax,
  kExp,
  kLog,
  kSqrt,
  kRsqrt,
  kRecip,
  kRelu,
  kGelu,
  kSigmoid,
  kTanh,
  kNegative,
  kAbs,
  kSin,
  kFill,
  kReduce,
  kTranspose,
  kOpKinds
};

/// Each op kind's kernel API call and the init it needs, by OpKind.
struct OpNames {
  const char* call;
  const char* init;
};
constexpr OpNames kOpNames[kOpKinds] = {
    {"copy_tile", "copy_tile_init"},
    {"matmul_tiles", "mm_init_short"},
    {"unary_bcast", "unary_bcast_init"},
    {"add_binary_tile", "add_binary_tile_init"},
    {"sub_binary_tile", "sub_binary_tile_init"},
    {"div_binary_tile", "div_binary_tile_init"},
    {"mul_binary_tile", "mul_binary_tile_init"},
    {"binary_max_tile", "binary_max_tile_init"},
    {"exp_tile", "exp_tile_init"},
    {"log_tile", "log_tile_init"},
    {"sqrt_tile", "sqrt_tile_init"},
    {"rsqrt_tile", "rsqrt_tile_init"},
    {"recip_tile", "recip_tile_init"},
    {"relu_tile", "relu_tile_init"},
    {"gelu_tile", "gelu_tile_init"},
    {"sigmoid_tile", "sigmoid_tile_init"},
    {"tanh_tile", "tanh_tile_init"},
    {"negative_tile", "negative_tile_init"},
    {"abs_tile", "abs_tile_init"},
    {"sin_tile", "sin_tile_init"},
    {"fill_tile", "fill_tile_init"},
    {"reduce_tile", "reduce_init"},
    {"transpose_wh_tile", "transpose_wh_init_short"},
};

const char* opName(OpKind k) {
  return kOpNames[k].call;
}

const char* initName(OpKind k) {
  return kOpNames[k].init;
}

/// The calling thread's compute state; a misuse report and null from a data-movement kernel.
ComputeState* computeOf(ThreadCtx& t, const char* fn, const ttlplan::emu::SourceLoc& loc) {
  if (t.compute) return t.compute.get();
  threadError(t, ErrorKind::Misuse,
              std::string(fn) + " called from data-movement kernel " + t.kernel->path, loc);
  return nullptr;
}

const char* regsText(Regs r) {
  switch (r) {
  case Regs::Free:
    return "the registers are released";
  case Regs::Acquired:
    return "tile_regs_acquire holds them";
  case Regs::Committed:
    return "tile_regs_commit handed them to pack";
  case Regs::Waited:
    return "tile_regs_wait holds them for pack";
  }
  return "";
}

/// Every op, short init and pack needs the hardware configured first (compute_kernel_hw_startup
/// or a full init): on a card the unpacker, math and packer would run unconfigured. Reported once.
void hwStartupCheck(ThreadCtx& t, ComputeState& s, const char* fn,
                    const ttlplan::emu::SourceLoc& loc) {
  s.opCalled = true;
  if (s.hwStarted || s.hwReported) return;
  s.hwReported = true;
  threadError(t, ErrorKind::Misuse,
              std::string(fn) +
                  " before compute_kernel_hw_startup: a compute kernel configures the hardware "
                  "once, first (compute_kernel_hw_startup, or a full init such as mm_init or "
                  "binary_op_init_common), before any other compute call",
              loc);
}

/// A full init (compute_kernel_hw_startup, mm_init, binary_op_init_common, unary_op_init_common)
/// reconfigures the whole hardware: only at the start of a kernel, before any op.
void fullInit(ThreadCtx& t, const char* fn, const char* instead,
              const ttlplan::emu::SourceLoc& loc) {
  ComputeState* s = computeOf(t, fn, loc);
  if (!s) return;
  if (s->opCalled)
    threadError(t, ErrorKind::Misuse,
                std::string(fn) +
                    " after other compute calls: it reconfigures the whole hardware and belongs "
                    "once at the start of the kernel" +
                    (*instead ? std::string("; use ") + instead + " before later ops" : ""),
                loc);
  s->hwStarted = true;
}

/// The init a math op needs, and the acquire state. Reports; the op still runs (its data flows),
/// so one mistake gives one report, not a cascade.
void mathPrologue(ThreadCtx& t, ComputeState& s, OpKind kind, const ttlplan::emu::SourceLoc& loc) {
  hwStartupCheck(t, s, opName(kind), loc);
  if (s.regs != Regs::Acquired)
    threadError(t, ErrorKind::Misuse,
                std::string(opName(kind)) + " without tile_regs_acquire (" + regsText(s.regs) + ")",
                loc);
  if (!(s.inits & (1u << kind)))
    threadError(t, ErrorKind::Misuse,
                std::string(opName(kind)) + " without " + initName(kind) +
                    " since the last op of another kind",
                loc);
  s.inits &= 1u << kind;
}

bool dstOk(ThreadCtx& t, ComputeState& s, uint32_t idx, const char* fn,
           const ttlplan::emu::SourceLoc& loc) {
  if (idx < s.capacity) return true;
  threadError(t, ErrorKind::Misuse,
              std::string(fn) + ": DST index " + std::to_string(idx) + " is beyond the " +
                  std::to_string(s.capacity) + " tiles DST holds (" + s.capacityWhy + ")",
              loc);
  return false;
}

float* dstTile(ComputeState& s, uint32_t idx) {
  return s.dst.data() + idx * kTileElems;
}

void setInit(ThreadCtx& t, OpKind kind, const char* fn, const ttlplan::emu::SourceLoc& loc) {
  ComputeState* s = computeOf(t, fn, loc);
  if (!s) return;
  hwStartupCheck(t, *s, fn, loc);
  s->inits |= 1u << kind;
}

/// Unpacks page `tile` of the front of `cb` (the pages cb_wait_front made sure are filled).
bool readCbTile(ThreadCtx& t, uint32_t cb, uint32_t tile, float* out, const char* fn,
                const ttlplan::emu::SourceLoc& loc) {
  CbState* c = cbOf(t, cb, fn, loc);
  if (!c) return false;
  uint32_t addr = 0;
  tt::DataFormat format;
  {
    std::lock_guard lock(t.run->m);
    if (tile >= c->waited)
      threadError(t, ErrorKind::Misuse,
                  std::string(fn) + " reads page " + std::to_string(tile) + " of cb " +
                      std::to_string(cb) + ", but only " + cbPagesText(c->waited) +
                      " were waited for (cb_wait_front)",
                  loc);
    const uint64_t page = uint64_t{c->rdPage()} + tile;
    if (page >= c->numPages)
      threadError(t, ErrorKind::Misuse,
                  std::string(fn) + " reads page " + std::to_string(tile) + " of cb " +
                      std::to_string(cb) + " past the CB's end (the front is page " +
                      std::to_string(c->rdPage()) + " of " + std::to_string(c->numPages) +
                      "; blocks must not wrap)",
                  loc);
    addr = static_cast<uint32_t>(c->addr + page * c->pageSize);
    format = c->format;
  }
  const uint32_t bytes = formatTileBytes(format);
  if (!checkL1Range(t, addr, bytes, false, fn, loc)) return false;
  checkCbOverlapRead(t, static_cast<int>(cb), addr, addr + bytes, fn, loc);
  float faces[kTileElems];
  unpackTile(format, t.run->dev.l1[t.core] + addr, faces);
  facesToRowMajor(faces, out);
  return true;
}

template <typename F>
void binaryOp(OpKind kind, uint32_t a, uint32_t b, uint32_t out, const ttlplan::emu::SourceLoc& loc,
              F f) {
  ThreadCtx& t = current(loc);
  ComputeState* s = computeOf(t, opName(kind), loc);
  if (!s) return;
  mathPrologue(t, *s, kind, loc);
  if (!dstOk(t, *s, a, opName(kind), loc) || !dstOk(t, *s, b, opName(kind), loc) ||
      !dstOk(t, *s, out, opName(kind), loc))
    return;
  const float* x = dstTile(*s, a);
  const float* y = dstTile(*s, b);
  float* z = dstTile(*s, out);
  for (uint32_t i = 0; i < kTileElems; ++i)
    z[i] = f(x[i], y[i]);
}

template <typename F>
void unaryOp(OpKind kind, uint32_t dst, const ttlplan::emu::SourceLoc& loc, F f) {
  ThreadCtx& t = current(loc);
  ComputeState* s = computeOf(t, opName(kind), loc);
  if (!s) return;
  mathPrologue(t, *s, kind, loc);
  if (!dstOk(t, *s, dst, opName(kind), loc)) return;
  float* z = dstTile(*s, dst);
  for (uint32_t i = 0; i < kTileElems; ++i)
    z[i] = f(z[i]);
}

/// c[32x32] += a[32x32] * b[32x32], row-major; the inner loop vectorises.
void matmulTile(const float* __restrict a, const float* __restrict b, float* __restrict c) {
  for (uint32_t i = 0; i < 32; ++i) {
    float* __restrict row = c + 32 * i;
    for (uint32_t k = 0; k < 32; ++k) {
      const float aik = a[32 * i + k];
      const float* __restrict brow = b + 32 * k;
      for (uint32_t j = 0; j < 32; ++j)
        row[j] += aik * brow[j];
    }
  }
}

} // namespace

std::vector<std::pair<std::string, std::string>> computeApiCalls() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const OpNames& n : kOpNames)
    out.emplace_back(n.call, n.init);
  return out;
}

void unaryBcast(BroadcastType type, uint32_t cb, uint32_t tile, uint32_t dst,
                const ttlplan::emu::SourceLoc& loc) {
  ThreadCtx& t = current(loc);
  ComputeState* s = computeOf(t, "unary_bcast", loc);
  if (!s) return;
  mathPrologue(t, *s, kBcast, loc);
  if (!dstOk(t, *s, dst, "unary_bcast", loc)) return;
  float in[kTileElems];
  if (!readCbTile(t, cb, tile, in, "unary_bcast", loc)) return;
  float* z = dstTile(*s, dst);
  for (uint32_t r = 0; r < 32; ++r)
    for (uint32_t c = 0; c < 32; ++c) {
      switch (type) {
      case BroadcastType::COL:
        z[32 * r + c] = in[32 * r];
        break;
      case BroadcastType::ROW:
        z[32 * r + c] = in[c];
        break;
      case BroadcastType::SCALAR:
        z[32 * r + c] = in[0];
        break;
      case BroadcastType::NONE:
        z[32 * r + c] = in[32 * r + c];
        break;
      }
    }
}

static const char* poolName(PoolType p) {
  return p == PoolType::MAX ? "MAX" : "SUM";
}

static const char* dimName(ReduceDim d) {
  return d == ReduceDim::REDUCE_ROW   ? "REDUCE_ROW"
         : d == ReduceDim::REDUCE_COL ? "REDUCE_COL"
                                      : "REDUCE_SCALAR";
}

static int reduceConfig(PoolType p, ReduceDim d) {
  return static_cast<int>(p) * 4 + static_cast<int>(d);
}

void reduceInit(PoolType pool, ReduceDim dim, uint32_t icb, uint32_t icb_scaler,
                const ttlplan::emu::SourceLoc& loc) {
  (void)icb;
  ThreadCtx& t = current(loc);
  ComputeState* s = computeOf(t, "reduce_init", loc);
  if (!s) return;
  hwStartupCheck(t, *s, "reduce_init", loc);
  s->inits |= 1u << kReduce;
  s->reduceConfig = reduceConfig(pool, dim);
  s->reduceScalerCb = icb_scaler;
}

void reduceTile(PoolType pool, ReduceDim dim, uint32_t icb, uint32_t icb_scaler, uint32_t itile,
                uint32_t itile_scaler, uint32_t idst, const ttlplan::emu::SourceLoc& loc) {
  ThreadCtx& t = current(loc);
  ComputeState* s = computeOf(t, "reduce_tile", loc);
  if (!s) return;
  const bool initialised = (s->inits & (1u << kReduce)) != 0;
  mathPrologue(t, *s, kReduce, loc);
  if (initialised && s->reduceConfig != reduceConfig(pool, dim))
    threadError(t, ErrorKind::Misuse,
                std::string("reduce_tile<") + poolName(pool) + ", " + dimName(dim) +
                    "> after a reduce_init of another PoolType or ReduceDim",
                loc);
  if (initialised && s->reduceScalerCb != icb_scaler)
    threadError(t, ErrorKind::Misuse,
                "reduce_tile reads its scaler from cb " + std::to_string(icb_scaler) +
                    ", but reduce_init named cb " + std::to_string(s->reduceScalerCb),
                loc);
  if (!dstOk(t, *s, idst, "reduce_tile", loc)) return;
  float in[kTileElems];
  if (!readCbTile(t, icb, itile, in, "reduce_tile", loc)) return;
  float sc[kTileElems];
  if (!readCbTile(t, icb_scaler, itile_scaler, sc, "reduce_tile", loc)) return;
  const float scaler = sc[0];
  // The reduced tile: the result in column 0 / row 0 / element (0, 0), zero elsewhere.
  float r[kTileElems] = {};
  const bool max = pool == PoolType::MAX;
  auto combine = [max](float acc, float v) { return max ? std::fmax(acc, v) : acc + v; };
  const float start = max ? -INFINITY : 0.0f;
  if (dim == ReduceDim::REDUCE_ROW) {
    for (uint32_t row = 0; row < 32; ++row) {
      float acc = start;
      for (uint32_t col = 0; col < 32; ++col)
        acc = combine(acc, in[32 * row + col] * scaler);
      r[32 * row] = acc;
    }
  } else if (dim == ReduceDim::REDUCE_COL) {
    for (uint32_t col = 0; col < 32; ++col) {
      float acc = start;
      for (uint32_t row = 0; row < 32; ++row)
        acc = combine(acc, in[32 * row + col] * scaler);
      r[col] = acc;
    }
  } else {
    float acc = start;
    for (uint32_t i = 0; i < kTileElems; ++i)
      acc = combine(acc, in[i] * scaler);
    r[0] = acc;
  }
  float* z = dstTile(*s, idst);
  for (uint32_t i = 0; i < kTileElems; ++i)
    z[i] = combine(z[i], r[i]);
}

void unaryBcastInit(BroadcastType type, const ttlplan::emu::SourceLoc& loc) {
  (void)type;
  setInit(current(loc), kBcast, "unary_bcast_init", loc);
}

void copyDestValues(DataFormat format, uint32_t in, uint32_t out,
                    const ttlplan::emu::SourceLoc& loc) {
  ThreadCtx& t = current(loc);
  ComputeState* s = computeOf(t, "copy_dest_values", loc);
  if (!s) return;
  hwStartupCheck(t, *s, "copy_dest_values", loc);
  if (format != DataFormat::Float16_b && format != DataFormat::Float32)
    threadError(t, ErrorKind::Misuse,
                "copy_dest_values<DataFormat " + std::to_string(static_cast<int>(format)) +
                    ">: DST holds Float16_b or Float32",
                loc);
  if (s->regs != Regs::Acquired)
    threadError(
        t, ErrorKind::Misuse,
        std::string("copy_dest_values without tile_regs_acquire (") + regsText(s->regs) + ")", loc);
  if (!dstOk(t, *s, out, "copy_dest_values", loc) || !dstOk(t, *s, in, "copy_dest_values", loc))
    return;
  std::memmove(dstTile(*s, out), dstTile(*s, in), kTileElems * sizeof(float));
}

void packTile(uint32_t dst, uint32_t cb, uint32_t out_tile, bool out_of_order,
              const ttlplan::emu::SourceLoc& loc) {
  ThreadCtx& t = current(loc);
  ComputeState* s = computeOf(t, "pack_tile", loc);
  if (!s) return;
  hwStartupCheck(t, *s, "pack_tile", loc);
  if (s->regs != Regs::Waited)
    threadError(t, ErrorKind::Misuse,
                std::string("pack_tile without tile_regs_wait (") + regsText(s->regs) + ")", loc);
  if (!dstOk(t, *s, dst, "pack_tile", loc)) return;
  CbState* c = cbOf(t, cb, "pack_tile", loc);
  if (!c) return;
  uint32_t addr = 0;
  tt::DataFormat format;
  {
    std::lock_guard lock(t.run->m);
    // In order (pack_tile<false>), the packer writes the next page of the back and ignores
    // out_tile, as TT-Metalium's packer does; out of order (pack_tile<true>), page out_tile.
    const uint32_t page = out_of_order ? out_tile : c->packNext++;
    const std::string which = out_of_order ? "pack_tile<true> into page " + std::to_string(page)
                                           : "pack_tile (in order: page " + std::to_string(page) +
                                                 " after " + std::to_string(page) +
                                                 " packs since the last cb_push_back)";
    if (page >= c->reserved)
      threadError(t, ErrorKind::Misuse,
                  which + " of cb " + std::to_string(cb) + ", but only " +
                      cbPagesText(c->reserved) + " were reserved (cb_reserve_back)",
                  loc);
    const uint64_t ring = uint64_t{c->wrPage()} + page;
    if (ring >= c->numPages)
      threadError(t, ErrorKind::Misuse,
                  which + " of cb " + std::to_string(cb) + " past the CB's end (the back is page " +
                      std::to_string(c->wrPage()) + " of " + std::to_string(c->numPages) +
                      "; blocks must not wrap)",
                  loc);
    addr = static_cast<uint32_t>(c->addr + (ring % c->numPages) * c->pageSize);
    format = c->format;
  }
  const uint32_t bytes = formatTileBytes(format);
  if (!checkL1Range(t, addr, bytes, true, "pack_tile", loc)) return;
  uint8_t* l1 = t.run->dev.l1[t.core] + addr;
  // DST holds the tile row-major; L1 holds it as four 16 x 16 faces.
  float values[kTileElems];
  rowMajorToFaces(dstTile(*s, dst), values);
  if (s->l1Acc) {
    float sum[kTileElems];
    unpackTile(format, l1, sum);
    for (uint32_t i = 0; i < kTileElems; ++i)
      sum[i] += values[i];
    packTile(format, sum, l1);
  } else {
    packTile(format, values, l1);
  }
  ++t.packed;
}

void requireHwStartup(const char* fn, const ttlplan::emu::SourceLoc& loc) {
  ThreadCtx& t = current(loc);
  if (ComputeState* s = computeOf(t, fn, loc)) hwStartupCheck(t, *s, fn, loc);
}

} // namespace ttlplan::emu

using namespace ttlplan::emu;

namespace ckernel {

void reduce_uninit(uint32_t icb, ttlplan::emu::SourceLoc loc) {
  (void)icb;
  ThreadCtx& t = current(loc);
  if (ComputeState* s = computeOf(t, "reduce_uninit", loc)) {
    s->inits &= ~(1u << kReduce);
    s->reduceConfig = -1;
  }
}

void tile_regs_acquire(ttlplan::emu::SourceLoc loc) {
  ThreadCtx& t = current(loc);
  ComputeState* s = computeOf(t, "tile_regs_acquire", loc);
  if (!s) return;
  if (s->regs != Regs::Free)
    threadError(
        t, ErrorKind::Misuse,
        std::string("tile_regs_acquire before tile_regs_release (") + regsText(s->regs) + ")", loc);
  s->regs = Regs::Acquired;
  std::fill(s->dst.begin(), s->dst.begin() + s->capacity * kTileElems, 0.0f);
}

void tile_regs_commit(ttlplan::emu::SourceLoc loc) {
  ThreadCtx& t = current(loc);
  ComputeState* s = computeOf(t, "tile_regs_commit", loc);
  if (!s) return;
  if (s->regs != Regs::Acquired)
    threadError(
        t, ErrorKind::Misuse,
        std::string("tile_regs_commit without tile_regs_acquire (") + regsText(s->regs) + ")", loc);
  s->regs = Regs::Committed;
}

void tile_regs_wait(ttlplan::emu::SourceLoc loc) {
  ThreadCtx& t = current(loc);
  ComputeState* s = computeOf(t, "tile_regs_wait", loc);
  if (!s) return;
  if (s->regs != Regs::Committed)
    threadError(t, ErrorKind::Misuse,
                std::string("tile_regs_wait without tile_regs_commit (") + regsText(s->regs) + ")",
                loc);
  s->regs = Regs::Waited;
}

void tile_regs_release(ttlplan::emu::SourceLoc loc) {
  ThreadCtx& t = current(loc);
  ComputeState* s = computeOf(t, "tile_regs_release", loc);
  if (!s) return;
  if (s->regs != Regs::Waited)
    threadError(t, ErrorKind::Misuse,
                std::string("tile_regs_release without tile_regs_wait (") + regsText(s->regs) + ")",
                loc);
  s->regs = Regs::Free;
}

void copy_tile_init(uint32_t cb, ttlplan::emu::SourceLoc loc) {
  (void)cb;
  setInit(current(loc), kCopy, "copy_tile_init", loc);
}

void copy_tile_to_dst_init_short(uint32_t cb, uint32_t transpose, ttlplan::emu::SourceLoc loc) {
  (void)cb, (void)transpose;
  setInit(current(loc), kCopy, "copy_tile_to_dst_init_short", loc);
}

void copy_tile(uint32_t cb, uint32_t tile, uint32_t dst, ttlplan::emu::SourceLoc loc) {
  ThreadCtx& t = current(loc);
  ComputeState* s = computeOf(t, "copy_tile", loc);
  if (!s) return;
  mathPrologue(t, *s, kCopy, loc);
  if (!dstOk(t, *s, dst, "copy_tile", loc)) return;
  readCbTile(t, cb, tile, dstTile(*s, dst), "copy_tile", loc);
}

void transpose_wh_init(uint32_t icb, uint32_t ocb, ttlplan::emu::SourceLoc loc) {
  (void)icb, (void)ocb;
  ThreadCtx& t = current(loc);
  fullInit(t, "transpose_wh_init", "transpose_wh_init_short", loc);
  if (ComputeState* s = computeOf(t, "transpose_wh_init", loc)) s->inits |= 1u << kTranspose;
}

void transpose_wh_init_short(uint32_t icb, ttlplan::emu::SourceLoc loc) {
  (void)icb;
  setInit(current(loc), kTranspose, "transpose_wh_init_short", loc);
}

void transpose_wh_tile(uint32_t icb, uint32_t itile, uint32_t idst, ttlplan::emu::SourceLoc loc) {
  ThreadCtx& t = current(loc);
  ComputeState* s = computeOf(t, "transpose_wh_tile", loc);
  if (!s) return;
  mathPrologue(t, *s, kTranspose, loc);
  if (!dstOk(t, *s, idst, "transpose_wh_tile", loc)) return;
  float in[kTileElems];
  if (!readCbTile(t, icb, itile, in, "transpose_wh_tile", loc)) return;
  float* z = dstTile(*s, idst);
  for (uint32_t r = 0; r < 32; ++r)
    for (uint32_t c = 0; c < 32; ++c)
      z[32 * c + r] = in[32 * r + c];
}

void mm_init(uint32_t cb_a, uint32_t cb_b, uint32_t cb_out, const uint32_t transpose,
             ttlplan::emu::SourceLoc loc) {
  (void)cb_a, (void)cb_b, (void)cb_out;
  ThreadCtx& t = current(loc);
  fullInit(t, "mm_init", "mm_init_short", loc);
  if (ComputeState* s = computeOf(t, "mm_init", loc)) {
    s->inits |= 1u << kMatmul;
    s->transposeB = transpose != 0;
  }
}

void mm_init_short(uint32_t cb_a, uint32_t cb_b, const uint32_t transpose,
                   ttlplan::emu::SourceLoc loc) {
  (void)cb_a, (void)cb_b;
  ThreadCtx& t = current(loc);
  setInit(t, kMatmul, "mm_init_short", loc);
  if (ComputeState* s = computeOf(t, "mm_init_short", loc)) s->transposeB = transpose != 0;
}

void matmul_tiles(uint32_t cb_a, uint32_t cb_b, uint32_t tile_a, uint32_t tile_b, uint32_t dst,
                  ttlplan::emu::SourceLoc loc) {
  ThreadCtx& t = current(loc);
  ComputeState* s = computeOf(t, "matmul_tiles", loc);
  if (!s) return;
  mathPrologue(t, *s, kMatmul, loc);
  if (!dstOk(t, *s, dst, "matmul_tiles", loc)) return;
  alignas(64) float a[kTileElems];
  alignas(64) float b[kTileElems];
  if (!readCbTile(t, cb_a, tile_a, a, "matmul_tiles", loc) ||
      !readCbTile(t, cb_b, tile_b, b, "matmul_tiles", loc))
    return;
  if (s->transposeB)
    for (uint32_t r = 0; r < 32; ++r)
      for (uint32_t c = r + 1; c < 32; ++c)
        std::swap(b[32 * r + c], b[32 * c + r]);
  matmulTile(a, b, dstTile(*s, dst));
  ++t.matmuls;
}

void binary_op_init_common(uint32_t icb0, uint32_t icb1, uint32_t ocb,
                           ttlplan::emu::SourceLoc loc) {
  (void)icb0, (void)icb1, (void)ocb;
  fullInit(current(loc), "binary_op_init_common", "", loc);
}

void unary_op_init_common(uint32_t icb, uint32_t ocb, ttlplan::emu::SourceLoc loc) {
  (void)icb, (void)ocb;
  fullInit(current(loc), "unary_op_init_common", "", loc);
}

void init_sfpu(uint32_t icb, uint32_t ocb, ttlplan::emu::SourceLoc loc) {
  (void)icb, (void)ocb;
  fullInit(current(loc), "init_sfpu", "", loc);
}

void add_binary_tile_init(ttlplan::emu::SourceLoc loc) {
  setInit(current(loc), kAdd, "add_binary_tile_init", loc);
}
void add_binary_tile(uint32_t a, uint32_t b, uint32_t out, ttlplan::emu::SourceLoc loc) {
  binaryOp(kAdd, a, b, out, loc, [](float x, float y) { return x + y; });
}
void div_binary_tile_init(ttlplan::emu::SourceLoc loc) {
  setInit(current(loc), kDiv, "div_binary_tile_init", loc);
}
void div_binary_tile(uint32_t a, uint32_t b, uint32_t out, ttlplan::emu::SourceLoc loc) {
  binaryOp(kDiv, a, b, out, loc, [](float x, float y) { return x / y; });
}
void sub_binary_tile_init(ttlplan::emu::SourceLoc loc) {
  setInit(current(loc), kSub, "sub_binary_tile_init", loc);
}
void sub_binary_tile(uint32_t a, uint32_t b, uint32_t out, ttlplan::emu::SourceLoc loc) {
  binaryOp(kSub, a, b, out, loc, [](float x, float y) { return x - y; });
}
void mul_binary_tile_init(ttlplan::emu::SourceLoc loc) {
  setInit(current(loc), kMul, "mul_binary_tile_init", loc);
}
void mul_binary_tile(uint32_t a, uint32_t b, uint32_t out, ttlplan::emu::SourceLoc loc) {
  binaryOp(kMul, a, b, out, loc, [](float x, float y) { return x * y; });
}
void binary_max_tile_init(ttlplan::emu::SourceLoc loc) {
  setInit(current(loc), kMax, "binary_max_tile_init", loc);
}
void binary_max_tile(uint32_t a, uint32_t b, uint32_t out, ttlplan::emu::SourceLoc loc) {
  binaryOp(kMax, a, b, out, loc, [](float x, float y) { return std::fmax(x, y); });
}

void copy_dest_values_init(ttlplan::emu::SourceLoc loc) {
  requireHwStartup("copy_dest_values_init", loc);
}

#define TTLPLAN_EMU_UNARY_IMPL(name, kind, expr)                                                   \
  void name##_init(ttlplan::emu::SourceLoc loc) {                                                  \
    setInit(current(loc), kind, #name "_init", loc);                                               \
  }                                                                                                \
  void name(uint32_t dst, ttlplan::emu::SourceLoc loc) {                                           \
    unaryOp(kind, dst, loc, [](float x) { return expr; });                                         \
  }
TTLPLAN_EMU_UNARY_IMPL(exp_tile, kExp, std::exp(x))
TTLPLAN_EMU_UNARY_IMPL(log_tile, kLog, std::log(x))
TTLPLAN_EMU_UNARY_IMPL(sqrt_tile, kSqrt, std::sqrt(x))
TTLPLAN_EMU_UNARY_IMPL(rsqrt_tile, kRsqrt, 1.0f / std::sqrt(x))
TTLPLAN_EMU_UNARY_IMPL(recip_tile, kRecip, 1.0f / x)
TTLPLAN_EMU_UNARY_IMPL(relu_tile, kRelu, x > 0.0f ? x : 0.0f)
TTLPLAN_EMU_UNARY_IMPL(gelu_tile, kGelu, 0.5f * x * (1.0f + std::erf(x * 0.70710678118654752f)))
TTLPLAN_EMU_UNARY_IMPL(sigmoid_tile, kSigmoid, 1.0f / (1.0f + std::exp(-x)))
TTLPLAN_EMU_UNARY_IMPL(tanh_tile, kTanh, std::tanh(x))
TTLPLAN_EMU_UNARY_IMPL(negative_tile, kNegative, -x)
TTLPLAN_EMU_UNARY_IMPL(abs_tile, kAbs, std::fabs(x))
TTLPLAN_EMU_UNARY_IMPL(sin_tile, kSin, std::sin(x))
#undef TTLPLAN_EMU_UNARY_IMPL

void fill_tile_init(ttlplan::emu::SourceLoc loc) {
  setInit(current(loc), kFill, "fill_tile_init", loc);
}

void fill_tile(uint32_t dst, float value, ttlplan::emu::SourceLoc loc) {
  ThreadCtx& t = current(loc);
  ComputeState* s = computeOf(t, "fill_tile", loc);
  if (!s) return;
  mathPrologue(t, *s, kFill, loc);
  if (!dstOk(t, *s, dst, "fill_tile", loc)) return;
  std::fill(dstTile(*s, dst), dstTile(*s, dst) + kTileElems, value);
}

void pack_reconfig_l1_acc(uint32_t l1_acc_en, ttlplan::emu::SourceLoc loc) {
  ThreadCtx& t = current(loc);
  ComputeState* s = computeOf(t, "pack_reconfig_l1_acc", loc);
  if (!s) return;
  hwStartupCheck(t, *s, "pack_reconfig_l1_acc", loc);
  s->l1Acc = l1_acc_en != 0;
}

void compute_kernel_hw_startup(uint32_t icb0, uint32_t icb1, uint32_t ocb,
                               ttlplan::emu::SourceLoc loc) {
  (void)icb0, (void)icb1, (void)ocb;
  fullInit(current(loc), "compute_kernel_hw_startup", "", loc);
}

void compute_kernel_hw_startup(uint32_t icb0, uint32_t ocb, ttlplan::emu::SourceLoc loc) {
  compute_kernel_hw_startup(icb0, icb0, ocb, loc);
}

} // namespace ckernel
