// Types and shapes: CB views against their CB, copy endpoints and handle directions, compute op
// shapes (elementwise, matmul, reduce, bcast, store), slices of kernel arguments, CB and tile
// types, and the kernel's grid / work attributes against its work loops.
#include "ttlplan/ir/Attributes.h"
#include "ttlplan/ir/OpRegistry.h"
#include "ttlplan/ir/Verifier.h"
#include "ttlplan/ir/VerifierDetail.h"
#include "ttlplan/support/Checked.h"

#include <algorithm>
#include <fmt/format.h>
#include <optional>
#include <set>
#include <vector>

namespace ttlplan::ir::detail {

namespace {

std::string str(const Type& type) {
  return type ? type.str() : "<no type>";
}

bool isBlock2d(const Type& type) {
  return type.isTileBlock() && type.shape().size() == 2;
}

// ---- CB views, push/pop -------------------------------------------------------------------

void checkCbOperand(const Operation& op, DiagnosticEngine& diags) {
  Type cb = op.operand(0)->type();
  if (isKind(cb, TypeKind::CircularBuffer)) return;
  diags.error(op.location(), fmt::format("'{}' needs a circular buffer operand (!ttl.cb<...>), "
                                         "got {}",
                                         op.name(), str(cb)));
}

void checkView(const Operation& op, DiagnosticEngine& diags) {
  Type cb = op.operand(0)->type();
  if (!isKind(cb, TypeKind::CircularBuffer)) return checkCbOperand(op, diags);
  Type expected = Type::tensor(cb.shape(), cb.elementType());
  Type actual = op.result(0)->type();
  if (actual == expected) return;
  auto d = diags.error(op.location(),
                       fmt::format("view type {} does not match the CB's block: expected {} "
                                   "(the CB's block shape and tile type)",
                                   str(actual), str(expected)));
  if (const Operation* def = op.operand(0)->definingOp())
    d.note(def->location(), fmt::format("the CB is created here as {}", str(cb)));
}

// ---- CB and tile types anywhere -------------------------------------------------------------

void checkTile(const Type& tile, const Operation& op, DiagnosticEngine& diags) {
  if (tile.tileRows() == kTileSize && tile.tileColumns() == kTileSize) return;
  diags.error(op.location(),
              fmt::format("tile type {} is not supported: TTL tiles are 32x32", str(tile)));
}

void checkCbType(const Type& cb, const Operation& op, DiagnosticEngine& diags) {
  const Dim& depth = cb.depth();
  if (depth.isStatic() && depth.value <= 0)
    diags.error(op.location(), fmt::format("CB depth must be positive (a number of blocks, or ? "
                                           "for the planner to choose), got {}",
                                           depth.value));
  if (!isKind(cb.elementType(), TypeKind::Tile))
    diags.error(op.location(), fmt::format("a CB holds tiles: its element type must be "
                                           "!ttcore.tile<32x32, DT>, got {}",
                                           str(cb.elementType())));
  if (cb.shape().size() != 2)
    diags.error(op.location(), fmt::format("a CB block shape has two dimensions [B, C], got {}",
                                           cb.shape().size()));
  for (const Dim& d : cb.shape())
    if (d.isStatic() && d.value <= 0)
      diags.error(op.location(),
                  fmt::format("CB block dimensions must be positive, got {}", d.value));
}

// Reports each distinct bad tile or CB type once per op that defines a value of it.
void checkDefinedType(const Type& type, const Operation& op, std::set<std::string>& seen,
                      DiagnosticEngine& diags) {
  if (!type || !seen.insert(type.str()).second) return;
  if (type.is(TypeKind::Tile)) return checkTile(type, op, diags);
  if (type.is(TypeKind::CircularBuffer)) {
    checkCbType(type, op, diags);
    if (type.elementType().is(TypeKind::Tile)) checkTile(type.elementType(), op, diags);
  }
  if (type.is(TypeKind::Tensor)) {
    if (type.elementType().is(TypeKind::Tile)) checkTile(type.elementType(), op, diags);
    std::vector<int64_t> dims;
    for (const Dim& d : type.shape()) {
      if (d.isStatic() && d.value <= 0)
        return (void)diags.error(
            op.location(), fmt::format("tensor dimensions must be positive, got {}", str(type)));
      if (d.isStatic()) dims.push_back(d.value);
    }
    if (type.elementType().is(TypeKind::Tile)) dims.push_back(kTileSize * kTileSize);
    if (!checkedProduct(dims, kMaxTensorElements))
      diags.error(op.location(),
                  fmt::format("{} has more than 2^48 elements, more than any device holds "
                              "(dimensions too large?)",
                              str(type)));
  }
}

void checkDefinedTypes(Operation& op, DiagnosticEngine& diags) {
  std::set<std::string> seen;
  for (const Value* r : op.results())
    checkDefinedType(r->type(), op, seen, diags);
  for (size_t i = 0; i < op.numRegions(); ++i)
    for (auto& block : op.region(i).blocks())
      for (const Value* a : block->arguments())
        checkDefinedType(a->type(), op, seen, diags);
}

// ---- copies ---------------------------------------------------------------------------------

enum class End { Slice, View, Pipe, Unknown };

End classify(const Value* v) {
  if (isKind(v->type(), TypeKind::Pipe)) return End::Pipe;
  if (definedBy(v, "ttl.tensor_slice")) return End::Slice;
  if (definedBy(v, "ttl.cb_reserve") || definedBy(v, "ttl.cb_wait")) return End::View;
  return End::Unknown;
}

// The handle kind the copy must produce, when the endpoints tell.
std::optional<TransferKind> copyDirection(End src, End dst) {
  if (dst == End::Pipe || dst == End::Slice) return TransferKind::Write;
  if (src == End::Pipe || src == End::Slice) return TransferKind::Read;
  return std::nullopt;
}

void checkCopyEnds(const Operation& op, End src, End dst, DiagnosticEngine& diags) {
  if (src == End::Slice && dst == End::Slice)
    diags.error(op.location(), "ttl.copy between two tensor slices is not supported; copy "
                               "through a CB view");
  if (src == End::View && dst == End::View)
    diags.error(op.location(), "ttl.copy between two CB views is not supported; one end must be "
                               "a tensor slice or a pipe");
  Type a = op.operand(0)->type(), b = op.operand(1)->type();
  if (src == End::Pipe || dst == End::Pipe || a == b) return;
  if (!a.isTileBlock() || !b.isTileBlock()) return;
  diags.error(
      op.location(),
      fmt::format("ttl.copy endpoints must have the same block type: {} and {}", str(a), str(b)));
}

void checkCopy(const Operation& op, DiagnosticEngine& diags) {
  End src = classify(op.operand(0)), dst = classify(op.operand(1));
  checkCopyEnds(op, src, dst, diags);
  std::optional<TransferKind> kind = copyDirection(src, dst);
  Type handle = op.result(0)->type();
  if (!kind) return;
  if (isKind(handle, TypeKind::TransferHandle) && handle.transferKind() == *kind) return;
  bool read = *kind == TransferKind::Read;
  diags.error(op.location(),
              fmt::format("this copy is a {} ({}), so it returns !ttl.transfer_handle<{}>, not {}",
                          read ? "read" : "write",
                          read ? (src == End::Pipe ? "pipe -> view" : "slice -> view")
                               : (dst == End::Pipe ? "view -> pipe" : "view -> slice"),
                          read ? "read" : "write", str(handle)));
}

void checkWait(const Operation& op, DiagnosticEngine& diags) {
  Type t = op.operand(0)->type();
  if (isKind(t, TypeKind::TransferHandle)) return;
  diags.error(op.location(),
              fmt::format("ttl.wait needs a !ttl.transfer_handle from ttl.copy, got {}", str(t)));
}

// ---- compute ------------------------------------------------------------------------------

bool isElementwise(const Operation& op) {
  return op.def() && isElementwise(op.def()->compute.kind);
}

void checkElementwise(const Operation& op, DiagnosticEngine& diags) {
  Type result = op.result(0)->type();
  if (!result.isTileBlock())
    return (void)diags.error(op.location(),
                             fmt::format("'{}' works on blocks of tiles (tensor<BxCx!tile>), got "
                                         "{}",
                                         op.name(), str(result)));
  for (const Value* v : op.operands())
    if (v->type() != result)
      return (void)diags.error(op.location(),
                               fmt::format("'{}' operands and result must have the same type: "
                                           "{} vs {}",
                                           op.name(), str(v->type()), str(result)));
}

void checkMatmul(const Operation& op, DiagnosticEngine& diags) {
  Type a = op.operand(0)->type(), b = op.operand(1)->type(), c = op.result(0)->type();
  if (!isBlock2d(a) || !isBlock2d(b) || !isBlock2d(c))
    return (void)diags.error(op.location(), "ttl.matmul takes and returns 2-D blocks of tiles");
  if (a.elementType() != b.elementType() || a.elementType() != c.elementType())
    return (void)diags.error(op.location(),
                             fmt::format("ttl.matmul operands and result must have the same tile "
                                         "type: {}, {} -> {}",
                                         str(a.elementType()), str(b.elementType()),
                                         str(c.elementType())));
  const auto &sa = a.shape(), &sb = b.shape(), &sc = c.shape();
  if (sa[1] != sb[0])
    return (void)diags.error(op.location(),
                             fmt::format("ttl.matmul inner dimensions differ: {} is {}x{} and {} "
                                         "is {}x{}; the first operand's columns must equal the "
                                         "second's rows",
                                         describe(op.operand(0)), sa[0].str(), sa[1].str(),
                                         describe(op.operand(1)), sb[0].str(), sb[1].str()));
  if (sc[0] != sa[0] || sc[1] != sb[1])
    diags.error(op.location(), fmt::format("ttl.matmul of {}x{} and {}x{} gives {}x{}, not {}x{}",
                                           sa[0].str(), sa[1].str(), sb[0].str(), sb[1].str(),
                                           sa[0].str(), sb[1].str(), sc[0].str(), sc[1].str()));
}

// The `dims` attribute as a set of {0, 1}; nullopt when it is not [0], [1] or [0, 1].
std::optional<std::set<int64_t>> reduceDims(const Operation& op) {
  std::vector<int64_t> dims;
  if (!op.attribute("dims").getIntegers(dims) || dims.empty()) return std::nullopt;
  std::set<int64_t> out(dims.begin(), dims.end());
  if (out.size() != dims.size()) return std::nullopt;
  for (int64_t d : out)
    if (d != 0 && d != 1) return std::nullopt;
  return out;
}

bool checkBlockOp(const Operation& op, Type in, Type out, DiagnosticEngine& diags) {
  if (!isBlock2d(in) || !isBlock2d(out)) {
    diags.error(op.location(), fmt::format("'{}' takes and returns 2-D blocks of tiles, got {} "
                                           "-> {}",
                                           op.name(), str(in), str(out)));
    return false;
  }
  if (in.elementType() != out.elementType()) {
    diags.error(op.location(), fmt::format("'{}' must keep the tile type: {} -> {}", op.name(),
                                           str(in.elementType()), str(out.elementType())));
    return false;
  }
  return true;
}

std::optional<std::set<int64_t>> checkedDims(const Operation& op, DiagnosticEngine& diags) {
  std::optional<std::set<int64_t>> dims = reduceDims(op);
  if (!dims)
    diags.error(op.location(), fmt::format("'{}' needs dims = [0], [1] or [0, 1]", op.name()));
  return dims;
}

void checkReduce(const Operation& op, DiagnosticEngine& diags) {
  Type in = op.operand(0)->type(), out = op.result(0)->type();
  auto dims = checkedDims(op, diags);
  if (!dims || !checkBlockOp(op, in, out, diags)) return;
  std::vector<Dim> expected = in.shape();
  for (int64_t d : *dims)
    expected[d] = Dim::fixed(1);
  if (out.shape() == expected) return;
  diags.error(op.location(),
              fmt::format("'{}' over dims {} of a {}x{} block gives a {}x{} block, not {}x{}",
                          op.name(), op.attribute("dims").str(), in.shape()[0].str(),
                          in.shape()[1].str(), expected[0].str(), expected[1].str(),
                          out.shape()[0].str(), out.shape()[1].str()));
}

void checkBcast(const Operation& op, DiagnosticEngine& diags) {
  Type in = op.operand(0)->type(), out = op.result(0)->type();
  auto dims = checkedDims(op, diags);
  if (!dims || !checkBlockOp(op, in, out, diags)) return;
  for (int64_t d = 0; d < 2; ++d) {
    bool repeated = dims->count(d) != 0;
    const Dim& i = in.shape()[d];
    const Dim& o = out.shape()[d];
    if (repeated && i != Dim::fixed(1))
      return (void)diags.error(
          op.location(), fmt::format("ttl.bcast over dim {} repeats {} {}: the input must have 1 "
                                     "there, got {}",
                                     d, d == 0 ? "row" : "column", 0, i.str()));
    if (!repeated && i != o)
      return (void)diags.error(op.location(),
                               fmt::format("ttl.bcast keeps dim {} (not in dims): input has {}, "
                                           "result has {}",
                                           d, i.str(), o.str()));
  }
}

void checkTranspose(const Operation& op, DiagnosticEngine& diags) {
  Type in = op.operand(0)->type(), out = op.result(0)->type();
  if (!checkBlockOp(op, in, out, diags)) return;
  if (in.shape()[0] == out.shape()[1] && in.shape()[1] == out.shape()[0]) return;
  diags.error(op.location(),
              fmt::format("ttl.transpose of a {}x{} block gives a {}x{} block, not {}x{}",
                          in.shape()[0].str(), in.shape()[1].str(), in.shape()[1].str(),
                          in.shape()[0].str(), out.shape()[0].str(), out.shape()[1].str()));
}

void checkFill(const Operation& op, DiagnosticEngine& diags) {
  if (!isBlock2d(op.result(0)->type()))
    diags.error(op.location(), fmt::format("ttl.fill makes a 2-D block of tiles "
                                           "(tensor<BxCx!ttcore.tile<32x32, T>>), got {}",
                                           str(op.result(0)->type())));
}

void checkStore(const Operation& op, DiagnosticEngine& diags) {
  Type value = op.operand(0)->type(), view = op.operand(1)->type();
  if (value == view) return;
  diags.error(op.location(),
              fmt::format("ttl.store value type {} differs from the view type {}; compute a "
                          "block of the view's shape",
                          str(value), str(view)));
}

// ---- slices ---------------------------------------------------------------------------------

bool isKernelArgument(const Value* v) {
  if (!v->isBlockArgument()) return false;
  const Operation* owner = v->ownerBlock()->parentOp();
  return owner && owner->isa("ttl.kernel");
}

// Tile data type a tensor element type corresponds to, when it has one.
std::optional<DataType> tileTypeOf(const Type& element) {
  if (element.is(TypeKind::Float)) {
    switch (element.floatKind()) {
    case FloatKind::BF16:
      return DataType::BF16;
    case FloatKind::F16:
      return DataType::F16;
    case FloatKind::F32:
      return DataType::F32;
    default:
      return std::nullopt;
    }
  }
  if (element.is(TypeKind::Integer) && element.integerWidth() == 32)
    return element.signedness() == Signedness::Unsigned ? DataType::U32 : DataType::I32;
  return std::nullopt;
}

bool checkSliceSource(const Operation& op, DiagnosticEngine& diags) {
  const Value* src = op.operand(0);
  Type t = src->type();
  const Operation* def = src->definingOp();
  if (def && !def->def()) return false; // a value from an unknown op is opaque
  if (!isKernelArgument(src)) {
    diags.error(op.location(), fmt::format("ttl.tensor_slice source {} must be a kernel argument "
                                           "tensor",
                                           describe(src)));
    return false;
  }
  if (!t.is(TypeKind::Tensor) || t.isTileBlock()) {
    diags.error(op.location(), fmt::format("ttl.tensor_slice source must be a tensor of elements "
                                           "(like tensor<256x256xbf16, #dram>), got {}",
                                           str(t)));
    return false;
  }
  // Any size: a tensor that is not whole tiles is padded to them (ir/Padding.h), in 2-D only.
  for (const Dim& d : t.shape())
    if (!d.hasKnobs() && !d.isStatic()) {
      diags.error(op.location(), fmt::format("ttl.tensor_slice source {} has a dimension that is "
                                             "neither a number nor a knob",
                                             str(t)));
      return false;
    }
  if (t.shape().size() != 2)
    for (const Dim& d : t.shape())
      if (d.isStatic() && d.value % kTileSize != 0) {
        diags.error(op.location(), fmt::format("ttl.tensor_slice source {} is not whole 32x32 "
                                               "tiles; only 2-D tensors may be padded to them",
                                               str(t)));
        return false;
      }
  return true;
}

/// A clipped slice (`{clip = true}`) may reach past the tensor's end, never before its start.
void checkSliceBounds(const Operation& op, const Type& tensor, const Type& block, bool clip,
                      DiagnosticEngine& diags) {
  for (size_t d = 0; d < block.shape().size(); ++d) {
    if (!tensor.shape()[d].isStatic()) continue; // a knob: bounds depend on the binding
    int64_t tiles = tilesOf(tensor.shape()[d].value);
    const Dim& extent = block.shape()[d];
    if (extent.isStatic() && extent.value > tiles && !clip)
      return (void)diags.error(op.location(),
                               fmt::format("slice block of {} tiles in dim {} is larger than the "
                                           "tensor's {} tiles",
                                           extent.value, d, tiles));
    const Operation* index = op.operand(d + 1)->definingOp();
    if (!extent.isStatic() || !index || !index->isa("arith.constant")) continue;
    Attribute v = index->attribute("value");
    if (!v.is(AttrKind::Integer)) continue;
    // extent <= tiles here, so the bound cannot overflow; the end printed is exact (int128).
    if (v.intValue() >= 0 && (clip || v.intValue() <= tiles - extent.value)) continue;
    const __int128 end = static_cast<__int128>(v.intValue()) + extent.value;
    return (void)diags.error(op.location(),
                             fmt::format("slice out of bounds in dim {}: tiles [{}, {}) of a "
                                         "tensor {} tiles wide (indices are in tiles)",
                                         d, v.intValue(), end, tiles));
  }
}

void checkSlice(const Operation& op, DiagnosticEngine& diags) {
  if (op.numOperands() < 1 || !checkSliceSource(op, diags)) return;
  Type tensor = op.operand(0)->type();
  Type block = op.result(0)->type();
  size_t rank = tensor.shape().size();
  if (op.numOperands() != rank + 1)
    return (void)diags.error(op.location(),
                             fmt::format("ttl.tensor_slice of a rank-{} tensor takes {} indices, "
                                         "got {}",
                                         rank, rank, op.numOperands() - 1));
  if (!block.isTileBlock() || block.shape().size() != rank)
    return (void)diags.error(
        op.location(),
        fmt::format("ttl.tensor_slice gives a rank-{} block of tiles, got {}", rank, str(block)));
  std::optional<DataType> dt = tileTypeOf(tensor.elementType());
  if (dt && isKind(block.elementType(), TypeKind::Tile) &&
      block.elementType().tileDataTypeKnob().empty() && block.elementType().tileDataType() != *dt)
    return (void)diags.error(op.location(),
                             fmt::format("slice of a {} tensor must have {} tiles, got {}",
                                         str(tensor.elementType()), toString(*dt),
                                         str(block.elementType())));
  // A knob element type: the tiles must name the same knob (`@DTYPE` tensor, `@DTYPE` tiles).
  Type tile = block.elementType();
  if (tensor.elementType().is(TypeKind::Knob) && isKind(tile, TypeKind::Tile) &&
      tile.tileDataTypeKnob() != tensor.elementType().knobName())
    return (void)diags.error(op.location(),
                             fmt::format("slice of a @{} tensor must have @{} tiles, got {}",
                                         tensor.elementType().knobName(),
                                         tensor.elementType().knobName(), str(tile)));
  Attribute clip = op.attribute("clip");
  if (clip && !clip.is(AttrKind::Bool))
    return (void)diags.error(op.location(), fmt::format("ttl.tensor_slice's clip must be true or "
                                                        "false, got {}",
                                                        clip.str()));
  checkSliceBounds(op, tensor, block, clip && clip.boolValue(), diags);
}

// ---- resources: CBs, semaphores, pipes, knob values ----------------------------------------

void checkResultKind(const Operation& op, TypeKind kind, const char* spelling,
                     DiagnosticEngine& diags) {
  Type t = op.result(0)->type();
  if (isKind(t, kind)) return;
  diags.error(op.location(), fmt::format("'{}' gives {}, not {}", op.name(), spelling, str(t)));
}

void checkSemaphoreOp(const Operation& op, DiagnosticEngine& diags) {
  Type t = op.operand(0)->type();
  if (!isKind(t, TypeKind::Semaphore))
    return (void)diags.error(op.location(), fmt::format("'{}' needs a !ttl.semaphore operand, "
                                                        "got {}",
                                                        op.name(), str(t)));
  Attribute value = op.attribute("value");
  if (!value.is(AttrKind::Integer) || value.intValue() < 0)
    return (void)diags.error(op.location(), fmt::format("'{}' needs a non-negative integer "
                                                        "value = N",
                                                        op.name()));
  Attribute cmp = op.attribute("cmp");
  if (op.isa("ttl.semaphore_wait") &&
      !(cmp.is(AttrKind::String) && (cmp.stringValue() == "eq" || cmp.stringValue() == "ge")))
    diags.error(op.location(), "ttl.semaphore_wait needs cmp = \"eq\" or cmp = \"ge\"");
}

// The grid [GY, GX] of the enclosing kernel, when it is given as numbers.
std::optional<std::pair<int64_t, int64_t>> staticGrid(const Operation& op) {
  const Operation* kernel = op.ancestor("ttl.kernel");
  std::vector<int64_t> grid;
  if (!kernel || !kernel->attribute("grid").getIntegers(grid) || grid.size() != 2)
    return std::nullopt;
  return std::make_pair(grid[0], grid[1]);
}

void checkPipeCoordinates(const Operation& op, const std::vector<int64_t>& coords,
                          DiagnosticEngine& diags) {
  auto grid = staticGrid(op);
  for (size_t i = 0; i < coords.size(); ++i) {
    int64_t c = coords[i];
    if (c == kDynamicCoordinate) continue; // an SSA coordinate
    int64_t limit = grid ? (i % 2 == 0 ? grid->second : grid->first) : INT64_MAX;
    if (c >= 0 && c < limit) continue;
    return (void)diags.error(
        op.location(),
        fmt::format("pipe coordinate {} = {} is outside the {}", i % 2 ? "y" : "x", c,
                    grid ? fmt::format("{}x{} grid (x < {}, y < {})", grid->first, grid->second,
                                       grid->second, grid->first)
                         : std::string("grid (coordinates are >= 0)")));
  }
}

// With every coordinate a number: the rectangle is not empty, and it reaches a core other than
// the sender (a sender inside its rectangle is skipped, as by the NoC's multicast).
void checkPipeSender(const Operation& op, const std::vector<int64_t>& c, DiagnosticEngine& diags) {
  for (int64_t v : c)
    if (v == kDynamicCoordinate) return;
  int64_t x0 = c[2], y0 = c[3], x1 = c.size() == 6 ? c[4] : c[2], y1 = c.size() == 6 ? c[5] : c[3];
  if (x1 < x0 || y1 < y0)
    return (void)diags.error(op.location(), "pipe rectangle is empty: to(x, y) must not be left "
                                            "of or above dst(x, y)");
  if (x0 == x1 && y0 == y1 && c[0] == x0 && c[1] == y0)
    diags.error(op.location(), fmt::format("pipe source ({}, {}) is its only destination; a pipe "
                                           "sends to other cores (a source inside a larger "
                                           "rectangle is skipped)",
                                           c[0], c[1]));
}

void checkCreatePipe(const Operation& op, DiagnosticEngine& diags) {
  checkResultKind(op, TypeKind::Pipe, "!ttl.pipe", diags);
  std::vector<int64_t> coords;
  Attribute attr = op.attribute("static_coords");
  if (!attr.getIntegers(coords) || (coords.size() != 4 && coords.size() != 6))
    return (void)diags.error(op.location(), "ttl.create_pipe needs static_coords with 4 or 6 "
                                            "entries: src(x, y) dst(x, y) [to(x, y)]");
  size_t dynamic = std::count(coords.begin(), coords.end(), kDynamicCoordinate);
  if (dynamic != op.numOperands())
    return (void)diags.error(op.location(),
                             fmt::format("ttl.create_pipe has {} SSA coordinate(s) in "
                                         "static_coords but {} operand(s)",
                                         dynamic, op.numOperands()));
  for (const Value* v : op.operands())
    if (!v->type().is(TypeKind::Index))
      return (void)diags.error(op.location(), "pipe coordinates are index values");
  checkPipeCoordinates(op, coords, diags);
  checkPipeSender(op, coords, diags);
}

// ---- kernels --------------------------------------------------------------------------------

void checkGrid(const Operation& kernel, DiagnosticEngine& diags) {
  Attribute grid = kernel.attribute("grid");
  if (!grid) return; // no grid: the planner chooses, as with "auto"
  if (grid.is(AttrKind::String) && grid.stringValue() == "auto") return;
  // Each size is a positive integer or a @knob (the binding gives it; the planner checks it fits).
  auto size = [](const Attribute& a) {
    return a.is(AttrKind::SymbolRef) || a.is(AttrKind::KnobExpr) ||
           (a.is(AttrKind::Integer) && a.intValue() > 0);
  };
  if (grid.is(AttrKind::Array) && grid.elements().size() == 2 && size(grid.elements()[0]) &&
      size(grid.elements()[1]))
    return;
  diags.error(kernel.location(),
              fmt::format("grid must be [GY, GX] with positive sizes (integers or @knobs) or "
                          "\"auto\", got {}",
                          grid.str()));
}

// The rank of `work`, or -1 when the kernel has none; reports malformed entries.
int checkWork(const Operation& kernel, DiagnosticEngine& diags) {
  Attribute work = kernel.attribute("work");
  if (!work) return -1;
  if (!work.is(AttrKind::Array) || work.elements().empty()) {
    diags.error(kernel.location(), fmt::format("work must be a non-empty list of item counts "
                                               "(integers or @knobs), got {}",
                                               work.str()));
    return -1;
  }
  for (const Attribute& e : work.elements()) {
    if (e.is(AttrKind::SymbolRef) || e.is(AttrKind::KnobExpr) ||
        (e.is(AttrKind::Integer) && e.intValue() > 0))
      continue;
    diags.error(kernel.location(), fmt::format("work dimensions must be positive integers or "
                                               "@knobs, got {}",
                                               e.str()));
  }
  return static_cast<int>(work.elements().size());
}

void checkWorkLoop(Operation& loop, Operation& kernel, int rank, DiagnosticEngine& diags) {
  Block* body = regionBlock(loop, 0);
  size_t args = body ? body->numArguments() : 0;
  if (rank < 0)
    return (void)diags
        .error(loop.location(), "ttl.work_loop needs the kernel's work attribute (work = [...]); "
                                "add it or use scf.for")
        .note(kernel.location(), "the kernel is here");
  if (args != static_cast<size_t>(rank))
    return (void)diags
        .error(loop.location(),
               fmt::format("ttl.work_loop has {} induction variable(s) but the kernel's work has "
                           "{} dimension(s)",
                           args, rank))
        .note(kernel.location(), "the kernel's work attribute is here");
  for (const Value* a : body->arguments())
    if (!a->type().is(TypeKind::Index))
      return (void)diags.error(loop.location(), "ttl.work_loop induction variables are index");
}

void checkKernel(Operation& kernel, DiagnosticEngine& diags) {
  checkGrid(kernel, diags);
  int rank = checkWork(kernel, diags);
  kernel.walk([&](Operation* op) {
    if (op->isa("ttl.work_loop") && hasValidCounts(*op)) checkWorkLoop(*op, kernel, rank, diags);
  });
}

void checkOp(Operation& op, DiagnosticEngine& diags) {
  const std::string& n = op.name();
  if (n == "ttl.cb_reserve" || n == "ttl.cb_wait") return checkView(op, diags);
  if (n == "ttl.cb_push" || n == "ttl.cb_pop") return checkCbOperand(op, diags);
  if (n == "ttl.copy") return checkCopy(op, diags);
  if (n == "ttl.wait") return checkWait(op, diags);
  if (isElementwise(op)) return checkElementwise(op, diags);
  if (n == "ttl.matmul") return checkMatmul(op, diags);
  if (n == "ttl.reduce_sum" || n == "ttl.reduce_max") return checkReduce(op, diags);
  if (n == "ttl.bcast") return checkBcast(op, diags);
  if (n == "ttl.transpose") return checkTranspose(op, diags);
  if (n == "ttl.fill") return checkFill(op, diags);
  if (n == "ttl.store") return checkStore(op, diags);
  if (n == "ttl.tensor_slice") return checkSlice(op, diags);
  if (n == "ttl.kernel") return checkKernel(op, diags);
  if (n == "ttl.create_cb")
    return checkResultKind(op, TypeKind::CircularBuffer, "a !ttl.cb<...>", diags);
  if (n == "ttl.create_semaphore")
    return checkResultKind(op, TypeKind::Semaphore, "!ttl.semaphore", diags);
  if (n == "ttl.param_value") return checkResultKind(op, TypeKind::Index, "index", diags);
  if (n == "ttl.semaphore_wait" || n == "ttl.semaphore_set" || n == "ttl.semaphore_inc")
    return checkSemaphoreOp(op, diags);
  if (n == "ttl.create_pipe") return checkCreatePipe(op, diags);
}

} // namespace

void verifyTypes(Module& module, DiagnosticEngine& diags) {
  module.op->walk([&](Operation* op) {
    if (!hasValidCounts(*op)) return;
    checkDefinedTypes(*op, diags);
    checkOp(*op, diags);
  });
}

} // namespace ttlplan::ir::detail
