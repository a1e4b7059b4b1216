#include "ttlplan/ir/Padding.h"

#include "ttlplan/ir/Ops.h"

#include <array>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <optional>

namespace ttlplan::ir {

std::string_view padValueName(PadValue pad) {
  switch (pad) {
  case PadValue::None:
    return "none";
  case PadValue::Zero:
    return "0";
  case PadValue::NegInf:
    return "-inf";
  }
  return "none";
}

namespace {

// ---- What an element may hold ------------------------------------------------------------------

/// A set of element classes. 0 (the empty set) in a region means the region has no elements of
/// its own: there the value holds what its logical elements hold.
using Atoms = uint8_t;
constexpr Atoms kZero = 1, kFinite = 2, kPosInf = 4, kNegInf = 8, kNaN = 16, kAny = 31;

std::string atomsText(Atoms a) {
  static constexpr std::pair<Atoms, const char*> kNames[] = {{kZero, "0"},
                                                             {kFinite, "finite values"},
                                                             {kPosInf, "+inf"},
                                                             {kNegInf, "-inf"},
                                                             {kNaN, "NaN"}};
  std::string out;
  for (auto [bit, name] : kNames)
    if (a & bit) out += (out.empty() ? "" : ", ") + std::string(name);
  return out;
}

template <typename F> Atoms lift1(Atoms a, F f) {
  Atoms out = 0;
  for (Atoms bit = 1; bit <= kNaN; bit <<= 1)
    if (a & bit) out |= f(bit);
  return out;
}

template <typename F> Atoms lift2(Atoms a, Atoms b, F f) {
  Atoms out = 0;
  for (Atoms x = 1; x <= kNaN; x <<= 1)
    for (Atoms y = 1; y <= kNaN; y <<= 1)
      if ((a & x) && (b & y)) out |= f(x, y);
  return out;
}

Atoms addAtom(Atoms x, Atoms y) {
  if (x == kNaN || y == kNaN) return kNaN;
  if (x == kZero) return y;
  if (y == kZero) return x;
  if (x == kFinite) return y;
  if (y == kFinite) return x;
  return x == y ? x : kNaN; // inf + inf, or +inf + -inf
}

Atoms negAtom(Atoms x) {
  return x == kPosInf ? kNegInf : x == kNegInf ? kPosInf : x;
}

Atoms mulAtom(Atoms x, Atoms y) {
  if (x == kNaN || y == kNaN) return kNaN;
  bool xInf = x == kPosInf || x == kNegInf, yInf = y == kPosInf || y == kNegInf;
  if (!xInf && !yInf) return x == kZero || y == kZero ? kZero : kFinite;
  if (x == kZero || y == kZero) return kNaN;                         // 0 * inf
  if (x == kFinite || y == kFinite) return kPosInf | kNegInf | kNaN; // the finite may be 0
  return x == y ? kPosInf : kNegInf;
}

Atoms maxAtom(Atoms x, Atoms y) {
  if (x == kNaN || y == kNaN) return kNaN;
  if (x == kNegInf) return y;
  if (y == kNegInf) return x;
  if (x == kPosInf || y == kPosInf) return kPosInf;
  return x == kZero && y == kZero ? kZero : kFinite;
}

Atoms minAtom(Atoms x, Atoms y) {
  return negAtom(maxAtom(negAtom(x), negAtom(y)));
}

/// What an elementwise unary op makes of each class; kAny for an op this table does not know.
Atoms unaryAtom(std::string_view op, Atoms x) {
  if (x == kNaN) return kNaN;
  const bool zero = x == kZero, pos = x == kPosInf, neg = x == kNegInf;
  if (op == "ttl.exp") return zero ? kFinite : pos ? kPosInf : neg ? kZero : kFinite;
  if (op == "ttl.neg") return negAtom(x);
  if (op == "ttl.abs") return zero ? kZero : (pos || neg) ? kPosInf : kFinite;
  if (op == "ttl.identity") return x;
  if (op == "ttl.relu") return zero || neg ? kZero : x;
  if (op == "ttl.sigmoid") return neg ? kZero : kFinite;
  if (op == "ttl.tanh") return zero ? kZero : kFinite;
  if (op == "ttl.gelu" || op == "ttl.silu")
    return zero ? kZero : pos ? kPosInf : neg ? kNaN : kFinite;
  if (op == "ttl.square") return zero ? kZero : (pos || neg) ? kPosInf : kFinite;
  if (op == "ttl.sqrt") return zero ? kZero : pos ? kPosInf : neg ? kNaN : kFinite | kNaN;
  if (op == "ttl.rsqrt")
    return zero ? kPosInf : pos ? kZero : neg ? kNaN : kFinite | kPosInf | kNaN;
  if (op == "ttl.recip") return zero ? kPosInf : (pos || neg) ? kZero : kFinite | kPosInf | kNegInf;
  if (op == "ttl.log")
    return zero ? kNegInf : pos ? kPosInf : neg ? kNaN : kFinite | kNegInf | kNaN;
  return kAny;
}

/// The combining function of a reduction or an elementwise binary op; nullptr when unknown.
using BinaryFn = Atoms (*)(Atoms, Atoms);
BinaryFn binaryFn(std::string_view op) {
  if (op == "ttl.add" || op == "ttl.reduce_sum") return addAtom;
  if (op == "ttl.sub") return [](Atoms x, Atoms y) { return addAtom(x, negAtom(y)); };
  if (op == "ttl.mul") return mulAtom;
  if (op == "ttl.div")
    return [](Atoms x, Atoms y) { return mulAtom(x, unaryAtom("ttl.recip", y)); };
  if (op == "ttl.max" || op == "ttl.reduce_max") return maxAtom;
  if (op == "ttl.min") return minAtom;
  return nullptr;
}

/// Every value a fold of any number (>= 1) of elements from `a` may give.
Atoms closure(Atoms a, BinaryFn f) {
  for (;;) {
    Atoms next = a | lift2(a, a, f);
    if (next == a) return a;
    a = next;
  }
}

// ---- Block values ------------------------------------------------------------------------------

/// What a block value's elements may hold, by region: [0] its logical elements, [1] those past
/// the last logical row, [2] past the last logical column, [3] past both (bit 0: rows, bit 1:
/// columns). An empty region holds what the logical elements do.
struct Regions {
  std::array<Atoms, 4> at{};
  bool join(const Regions& o) {
    bool changed = false;
    for (size_t m = 0; m < 4; ++m) {
      Atoms n = at[m] | o.at[m];
      changed |= n != at[m];
      at[m] = n;
    }
    return changed;
  }
  /// Region m's atoms, or the logical elements' when it has none of its own.
  Atoms get(size_t m) const { return at[m] ? at[m] : at[0]; }
};

Regions anyRegions() {
  return Regions{{kAny, kAny, kAny, kAny}};
}

/// Bit mask of `dims` (0: rows, 1: columns); 0 for a malformed list.
unsigned dimMask(const std::vector<int64_t>& dims) {
  unsigned mask = 0;
  for (int64_t d : dims) {
    if (d != 0 && d != 1) return 0;
    mask |= 1u << d;
  }
  return mask;
}

/// A check that failed under one assignment of pad values.
struct Failure {
  const Operation* op;
  std::string what;
};

/// One run of the analysis under one assignment of pad values (per argument index).
class Analysis {
public:
  Analysis(Operation& kernel, const Binding& binding, const std::vector<TensorPadding>& tensors,
           const std::vector<Value*>& args)
      : kernel_(kernel), binding_(binding), tensors_(tensors), args_(args) {}

  /// The first failed check after the fixed point, or nullopt when every check holds.
  std::optional<Failure> run(const std::vector<PadValue>& pads) {
    pads_ = &pads;
    channels_.clear();
    for (int iteration = 0; iteration < 64; ++iteration) {
      changed_ = false;
      failure_.reset();
      values_.clear();
      kernel_.walk([this](Operation* op) { visit(*op); });
      if (!changed_) break;
    }
    return failure_;
  }

private:
  void fail(const Operation& op, std::string what) {
    if (!failure_) failure_ = Failure{&op, std::move(what)};
  }

  Regions value(Value* v) {
    auto it = values_.find(v);
    return it == values_.end() ? anyRegions() : it->second;
  }

  /// The CB a view (cb_reserve or cb_wait result) belongs to; nullptr otherwise.
  static Value* cbOf(Value* view) {
    Operation* def = view ? view->definingOp() : nullptr;
    if (def && (def->isa("ttl.cb_reserve") || def->isa("ttl.cb_wait")) && def->numOperands())
      return def->operand(0);
    return nullptr;
  }

  void flowInto(Value* channel, const Regions& r) {
    if (channel) changed_ |= channels_[channel].join(r);
  }

  /// What a read of `slice` puts into its block: the tensor's logical elements, its pad value in
  /// padded dimensions, and anything in a dimension where a clipped block may reach past it.
  Regions readOf(Operation& slice) {
    Value* tensor = slice.numOperands() ? slice.operand(0) : nullptr;
    size_t index = 0;
    while (index < args_.size() && args_[index] != tensor)
      ++index;
    if (index == args_.size()) return anyRegions();
    const TensorPadding& t = tensors_[index];
    const Atoms pad = (*pads_)[index] == PadValue::NegInf ? kNegInf : kZero;
    bool padded[2] = {t.rows != t.paddedRows, t.cols != t.paddedCols};
    bool past[2] = {false, false};
    Type block = slice.result(0)->type();
    if (TensorSliceOp(&slice).clipped() && block.shape().size() == 2) {
      int64_t tiles[2] = {t.paddedRows / kPadTile, t.paddedCols / kPadTile};
      for (int d = 0; d < 2; ++d) {
        std::optional<int64_t> extent = resolveDim(block.shape()[d], binding_);
        past[d] = !extent || *extent < 1 || tiles[d] % *extent != 0;
      }
    }
    Regions r;
    r.at[0] = kFinite;
    for (unsigned m = 1; m < 4; ++m) {
      Atoms a = 0;
      bool inside = true;
      for (int d = 0; d < 2; ++d) {
        if (!(m & (1u << d))) continue;
        if (past[d]) a |= kAny;
        if (!padded[d] && !past[d]) inside = false;
      }
      if (!inside) continue;
      bool allPadded = ((m & 1) == 0 || padded[0]) && ((m & 2) == 0 || padded[1]);
      if (allPadded) a |= pad;
      r.at[m] = a;
    }
    return r;
  }

  void visitCopy(Operation& op) {
    CopyOp copy(&op);
    switch (copy.direction()) {
    case CopyOp::Direction::Read:
      flowInto(cbOf(copy.destination()), readOf(*copy.source()->definingOp()));
      return;
    case CopyOp::Direction::Send:
      if (Value* cb = cbOf(copy.source())) flowInto(copy.destination(), channels_[cb]);
      return;
    case CopyOp::Direction::Receive:
      flowInto(cbOf(copy.destination()), channels_[copy.source()]);
      return;
    default:
      return;
    }
  }

  void visitStore(Operation& op) {
    StoreOp store(&op);
    Regions v = value(store.value());
    if (store.accumulate()) // a sum over every store into the view, from 0
      for (Atoms& a : v.at)
        if (a) a = closure(a | kZero, addAtom);
    flowInto(cbOf(store.view()), v);
  }

  Regions reduce(Operation& op, const Regions& x, unsigned dims, BinaryFn f, Atoms identity) {
    for (unsigned m = 1; m < 4; ++m)
      if ((m & ~dims) == 0 && (m & dims) && x.at[m] && (x.at[m] & ~identity))
        fail(op, fmt::format("{} {{dims = {}}} reads the padding past the last logical {}, which "
                             "may hold {} where it needs {}",
                             op.name(),
                             dims == 1   ? "[0]"
                             : dims == 2 ? "[1]"
                                         : "[0, 1]",
                             m == 1   ? "row"
                             : m == 2 ? "column"
                                      : "row and column",
                             atomsText(x.at[m]), atomsText(identity)));
    Regions out;
    for (unsigned m = 0; m < 4; ++m) {
      if (m & dims) { // past the one reduced row/column: unspecified (docs/language.md)
        out.at[m] = kAny;
        continue;
      }
      // The fold along D always takes the element at logical index 0 of D (region m itself).
      Atoms folded = 0;
      for (unsigned t = 0; t < 4; ++t)
        if ((t & ~dims) == 0) folded |= x.at[m | t];
      if (m == 0 || folded)
        out.at[m] = x.get(m) | lift2(x.get(m), closure(folded | x.get(m), f), f);
    }
    return out;
  }

  Regions broadcast(const Regions& x, unsigned dims) {
    Regions out;
    for (unsigned m = 0; m < 4; ++m)
      out.at[m] = (m & dims) && (m & ~dims) == 0 ? 0 : x.at[m & ~dims];
    return out;
  }

  Regions matmul(Operation& op, const Regions& a, const Regions& b) {
    // a's bits: 0 = M, 1 = K; b's: 0 = K, 1 = N; the result's: 0 = M, 1 = N.
    if ((a.at[2] || b.at[1]) && (lift2(a.get(2), b.get(1), mulAtom) & ~kZero))
      fail(op, fmt::format("ttl.matmul multiplies the padding past the last logical column of "
                           "its left operand ({}) with that past the last logical row of its "
                           "right operand ({}), which must give 0",
                           atomsText(a.get(2)), atomsText(b.get(1))));
    Regions out;
    for (unsigned m = 0; m < 4; ++m) {
      unsigned am = m & 1, bm = m & 2;
      if (m && !a.at[am] && !b.at[bm]) continue;
      Atoms products = lift2(a.get(am), b.get(bm), mulAtom);
      if (a.at[am | 2] || b.at[1 | bm]) products |= lift2(a.get(am | 2), b.get(1 | bm), mulAtom);
      out.at[m] = closure(products, addAtom);
    }
    return out;
  }

  void visitCompute(Operation& op) {
    const std::string& n = op.name();
    Regions out;
    if (n == "ttl.cb_wait") {
      out = channels_[op.operand(0)];
    } else if (n == "ttl.matmul" && op.numOperands() == 2) {
      out = matmul(op, value(op.operand(0)), value(op.operand(1)));
    } else if ((n == "ttl.reduce_sum" || n == "ttl.reduce_max") && op.numOperands() == 1) {
      unsigned dims = dimMask(ReduceOrBcastOp(&op).dims());
      out = dims ? reduce(op, value(op.operand(0)), dims, binaryFn(n),
                          n == "ttl.reduce_sum" ? kZero : kNegInf)
                 : anyRegions();
    } else if (n == "ttl.bcast" && op.numOperands() == 1) {
      unsigned dims = dimMask(ReduceOrBcastOp(&op).dims());
      out = dims ? broadcast(value(op.operand(0)), dims) : anyRegions();
    } else if (n == "ttl.transpose" && op.numOperands() == 1) {
      // The operand's row padding becomes the result's column padding and back: swap the bits.
      Regions x = value(op.operand(0));
      for (unsigned m = 0; m < 4; ++m)
        out.at[((m & 1u) << 1) | ((m & 2u) >> 1)] = x.at[m];
    } else if (n == "ttl.fill" && op.attribute("value").is(AttrKind::Float)) {
      // The one value everywhere, the padding included (fill_tile writes whole tiles).
      double v = op.attribute("value").floatValue();
      Atoms a = v == 0          ? kZero
                : std::isnan(v) ? kNaN
                : std::isinf(v) ? (v > 0 ? kPosInf : kNegInf)
                                : kFinite;
      out = Regions{{a, a, a, a}};
    } else if (BinaryFn f = binaryFn(n); f && op.numOperands() == 2) {
      Regions x = value(op.operand(0)), y = value(op.operand(1));
      for (unsigned m = 0; m < 4; ++m)
        if (m == 0 || x.at[m] || y.at[m]) out.at[m] = lift2(x.get(m), y.get(m), f);
    } else if (op.numOperands() == 1 && unaryAtom(n, kFinite) != kAny) {
      Regions x = value(op.operand(0));
      for (unsigned m = 0; m < 4; ++m)
        out.at[m] = lift1(x.at[m], [&n](Atoms a) { return unaryAtom(n, a); });
    } else {
      out = anyRegions();
    }
    values_[op.result(0)] = out;
  }

  void visit(Operation& op) {
    if (op.isa(CopyOp::kName)) return visitCopy(op);
    if (op.isa(StoreOp::kName)) return visitStore(op);
    if (op.numResults() != 1 || !op.result(0)->type().isTileBlock()) return;
    if (op.isa("ttl.cb_reserve") || op.isa(TensorSliceOp::kName)) return;
    visitCompute(op);
  }

  Operation& kernel_;
  const Binding& binding_;
  const std::vector<TensorPadding>& tensors_;
  const std::vector<Value*>& args_;
  const std::vector<PadValue>* pads_ = nullptr;
  std::map<const Value*, Regions> channels_; ///< per CB (create_cb result) and pipe
  std::map<const Value*, Regions> values_;   ///< per block value of the current sweep
  bool changed_ = false;
  std::optional<Failure> failure_;
};

/// Whether the tiles argument `index` is read into hold a block-float format, which has no -inf
/// (and whose shared exponents a -inf would take from the logical elements beside it).
bool readAsBlockFloat(Operation& kernel, Value* arg, const Binding& binding) {
  bool blockFloat = false;
  kernel.walk([&](Operation* op) {
    if (!op->isa(TensorSliceOp::kName) || op->operand(0) != arg) return;
    Type block = op->result(0)->type();
    if (!block.isTileBlock()) return;
    std::optional<DataType> dt = resolveDataType(block.elementType(), binding);
    if (dt && (*dt == DataType::BFP8_B || *dt == DataType::BFP4_B)) blockFloat = true;
  });
  return blockFloat;
}

/// Arguments that some copy reads (the pad of the others never reaches the kernel).
std::vector<bool> readArguments(Operation& kernel, const std::vector<Value*>& args) {
  std::vector<bool> read(args.size(), false);
  kernel.walk([&](Operation* op) {
    if (!op->isa(CopyOp::kName) || CopyOp(op).direction() != CopyOp::Direction::Read) return;
    for (size_t i = 0; i < args.size(); ++i)
      if (CopyOp(op).source()->definingOp()->operand(0) == args[i]) read[i] = true;
  });
  return read;
}

/// derivePadding's work; on failure nullopt with `problem` set (no location).
std::optional<std::vector<TensorPadding>> derive(Operation& kernel, const Binding& binding,
                                                 std::string& problem) {
  std::vector<Value*> args = KernelOp(&kernel).arguments();
  std::vector<TensorPadding> tensors(args.size());
  std::vector<size_t> choices; // padded arguments that are read: each gets 0 or -inf
  std::vector<bool> read = readArguments(kernel, args);
  for (size_t i = 0; i < args.size(); ++i) {
    TensorPadding& t = tensors[i];
    t.name = args[i]->nameHint();
    Type type = args[i]->type();
    if (!type.is(TypeKind::Tensor) || type.isTileBlock()) continue;
    std::vector<int64_t> dims;
    for (const Dim& d : type.shape()) {
      std::optional<int64_t> n = resolveDim(d, binding);
      if (!n || *n < 1) {
        problem = fmt::format("argument %{} has dimension {} with no value under the binding",
                              t.name, d.str());
        return std::nullopt;
      }
      dims.push_back(*n);
    }
    bool whole = true;
    for (int64_t n : dims)
      whole &= n % kPadTile == 0;
    if (dims.size() != 2) {
      if (whole) continue;
      problem = fmt::format("argument %{} ({}) is not whole 32x32 tiles; only 2-D tensors may "
                            "be padded",
                            t.name, type.str());
      return std::nullopt;
    }
    t.rows = dims[0];
    t.cols = dims[1];
    t.paddedRows = (dims[0] + kPadTile - 1) / kPadTile * kPadTile;
    t.paddedCols = (dims[1] + kPadTile - 1) / kPadTile * kPadTile;
    if (t.padded()) {
      t.pad = PadValue::Zero;
      if (read[i]) choices.push_back(i);
    }
  }
  // Assignments in order of preference: fewest -inf first, then by argument order. Beyond 12
  // read padded tensors only those with at most two -inf are tried.
  const size_t n = choices.size();
  std::vector<uint64_t> masks;
  for (unsigned ones = 0; ones <= n && (n <= 12 || ones <= 2); ++ones)
    for (uint64_t mask = 0; mask < (uint64_t{1} << std::min<size_t>(n, 20)); ++mask)
      if (static_cast<unsigned>(__builtin_popcountll(mask)) == ones) masks.push_back(mask);
  uint64_t blockFloat = 0; // choices whose tiles cannot hold -inf
  for (size_t c = 0; c < n && c < 64; ++c)
    if (readAsBlockFloat(kernel, args[choices[c]], binding)) blockFloat |= uint64_t{1} << c;
  Analysis analysis(kernel, binding, tensors, args);
  std::vector<std::string> tried;
  for (uint64_t mask : masks) {
    if (mask & blockFloat) continue;
    std::vector<PadValue> pads(args.size(), PadValue::Zero);
    for (size_t c = 0; c < n; ++c)
      if (mask >> c & 1) pads[choices[c]] = PadValue::NegInf;
    std::optional<Failure> failure = analysis.run(pads);
    if (!failure) {
      for (size_t c : choices)
        tensors[c].pad = pads[c];
      return tensors;
    }
    if (tried.size() < 4) {
      std::string assignment;
      for (size_t c = 0; c < n; ++c)
        assignment += fmt::format("{}%{} = {}", c ? ", " : "", tensors[choices[c]].name,
                                  padValueName(pads[choices[c]]));
      tried.push_back(fmt::format("  padded with {}: {}: {}", assignment,
                                  failure->op->location().str(), failure->what));
    }
  }
  if (masks.empty() || n == 0) return tensors;
  std::string names;
  for (size_t c : choices)
    names +=
        fmt::format("{}%{} ({}x{} in {}x{})", names.empty() ? "" : ", ", tensors[c].name,
                    tensors[c].rows, tensors[c].cols, tensors[c].paddedRows, tensors[c].paddedCols);
  std::string message = fmt::format(
      "no pad value keeps every reduction exact for the tensors that are not whole 32x32 tiles: "
      "{} (0 and -inf tried; block-float tensors cannot hold -inf):",
      names);
  for (const std::string& t : tried)
    message += "\n" + t;
  message += "\nmake their sizes multiples of 32, or read the padded elements in a separate "
             "kernel whose reductions need one value";
  problem = std::move(message);
  return std::nullopt;
}

} // namespace

Expected<std::vector<TensorPadding>> derivePadding(Operation& kernel, const Binding& binding) {
  std::string problem;
  if (std::optional<std::vector<TensorPadding>> tensors = derive(kernel, binding, problem))
    return std::move(*tensors);
  return Error{fmt::format("{}: error: {}", kernel.location().str(), problem)};
}

std::string paddingProblem(Operation& kernel) {
  for (Value* arg : KernelOp(&kernel).arguments())
    for (const Dim& d : arg->type().shape())
      if (!d.isStatic()) return "";
  std::string problem;
  return derive(kernel, {}, problem) ? "" : problem;
}

} // namespace ttlplan::ir
