// CB extraction: block shape, tile type and depth of every ttl.create_cb under a binding.
#include "ttlplan/ir/Ops.h"
#include "ttlplan/lower/Extract.h"
#include "ttlplan/planner/l1/Solve.h"
#include "ttlplan/support/Checked.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace ttlplan::lower {

namespace {

/// An error when a block, or all blocks of a fixed count, exceed kMaxCbBytes.
std::optional<std::string> checkSize(const CbInfo& cb) {
  std::vector<int64_t> factors = cb.blockShape;
  factors.push_back(cb.tileBytes);
  factors.push_back(cb.blockCount.value_or(1));
  if (checkedProduct(factors, kMaxCbBytes)) return std::nullopt;
  return fmt::format("{}: error: CB {} needs {} tiles of {} B x {} block{}, more than {} B (1 "
                     "TiB, far above any L1); use a smaller block shape or block count",
                     cb.location, cb.name, fmt::join(cb.blockShape, " x "), cb.tileBytes,
                     cb.blockCount ? planner::l1::withThousands(*cb.blockCount) : "1",
                     cb.blockCount.value_or(1) == 1 ? "" : "s",
                     planner::l1::withThousands(kMaxCbBytes));
}

} // namespace

Expected<std::vector<CbInfo>> extractCbs(ir::Operation* kernel, const ir::Binding& binding,
                                         const ir::Device& device) {
  return extractCbs(kernel, binding, [&](ir::DataType type, const ir::Type&) -> Expected<int64_t> {
    return device.tileBytes(type);
  });
}

Expected<std::vector<CbInfo>> extractCbs(ir::Operation* kernel, const ir::Binding& binding,
                                         const TileBytes& tileBytes) {
  std::vector<CbInfo> out;
  std::string error;
  kernel->walk([&](ir::Operation* op) {
    auto create = ir::CreateCBOp::dyn(op);
    if (!create || !error.empty()) return;
    CbInfo cb;
    cb.op = op;
    cb.name = valueName(create->cb());
    cb.location = op->location().str();
    ir::Type type = create->cbType();
    if (!type.is(ir::TypeKind::CircularBuffer)) {
      error = fmt::format("{}: error: {} is not a !ttl.cb", cb.location, cb.name);
      return;
    }
    for (const ir::Dim& d : type.shape()) {
      std::optional<int64_t> v = ir::resolveDim(d, binding);
      if (!v || *v < 1) {
        error = fmt::format("{}: error: block dimension {} of {} has no value under the binding",
                            cb.location, d.str(), cb.name);
        return;
      }
      cb.blockShape.push_back(*v);
    }
    ir::Type tile = type.elementType();
    if (!tile.is(ir::TypeKind::Tile)) {
      error = fmt::format("{}: error: {} does not hold tiles", cb.location, cb.name);
      return;
    }
    std::optional<ir::DataType> dt = ir::resolveDataType(tile, binding);
    if (!dt) {
      error = fmt::format("{}: error: the tile data type @{} of {} has no value under the binding",
                          cb.location, tile.tileDataTypeKnob(), cb.name);
      return;
    }
    cb.dataType = std::string(ir::toString(*dt));
    Expected<int64_t> bytes = tileBytes(*dt, tile);
    if (!bytes) {
      error = fmt::format("{}: error: CB {}: {}", cb.location, cb.name, bytes.error().message);
      return;
    }
    cb.tileBytes = *bytes;
    const ir::Dim& depth = type.depth();
    if (depth.kind != ir::Dim::Kind::Dynamic) {
      std::optional<int64_t> v = ir::resolveDim(depth, binding);
      if (!v || *v < 1) {
        error = fmt::format("{}: error: block count {} of {} has no value under the binding",
                            cb.location, depth.str(), cb.name);
        return;
      }
      cb.blockCount = *v;
    }
    if (auto tooLarge = checkSize(cb)) {
      error = *tooLarge;
      return;
    }
    cb.blockTiles = *checkedProduct(cb.blockShape); // a factor of the bytes checked above
    out.push_back(std::move(cb));
  });
  if (!error.empty()) return Error{error};
  return out;
}

} // namespace ttlplan::lower
