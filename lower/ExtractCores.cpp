// Core-assignment extraction: the kernel's `work` dims and `grid` under a binding.
#include "ttlplan/ir/Ops.h"
#include "ttlplan/lower/Extract.h"
#include "ttlplan/support/Checked.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace ttlplan::lower {

namespace {

std::optional<int64_t> integerOf(const ir::Attribute& a, const ir::Binding& binding) {
  if (a.is(ir::AttrKind::Integer)) return a.intValue();
  if (a.is(ir::AttrKind::SymbolRef)) {
    auto it = binding.find(a.stringValue());
    if (it != binding.end() && it->second.isInteger()) return it->second.integer();
  }
  if (a.is(ir::AttrKind::KnobExpr)) return a.exprValue().tryEvaluate(binding);
  return std::nullopt;
}

} // namespace

Expected<std::vector<int64_t>> extractWorkDims(ir::Operation* kernelOp,
                                               const ir::Binding& binding) {
  ir::Attribute work = ir::KernelOp(kernelOp).work();
  std::vector<int64_t> dims;
  if (!work) return dims;
  const std::string where = kernelOp->location().str();
  if (!work.is(ir::AttrKind::Array) || work.elements().empty())
    return Error{fmt::format("{}: error: work must be a non-empty list of dims", where)};
  for (const ir::Attribute& d : work.elements()) {
    std::optional<int64_t> v = integerOf(d, binding);
    if (!v || *v < 1)
      return Error{fmt::format("{}: error: work dim {} has no positive value under the binding",
                               where, d.str())};
    dims.push_back(*v);
  }
  if (!checkedProduct(dims))
    return Error{fmt::format("{}: error: work [{}] has more items than fit in 64 bits ({} "
                             "overflows); split the work into fewer, larger items",
                             where, fmt::join(dims, ", "), fmt::join(dims, " x "))};
  return dims;
}

Expected<CoresInfo> extractCores(ir::Operation* kernelOp, const ir::Binding& binding,
                                 const ir::Device& device) {
  ir::KernelOp kernel(kernelOp);
  std::string where = kernelOp->location().str();
  CoresInfo info;
  planner::cores::Grid deviceGrid{device.grid.compute.rows, device.grid.compute.columns};
  ir::Attribute grid = kernel.grid();
  if (!grid || kernel.gridIsAuto()) {
    info.grid = deviceGrid;
    info.autoGrid = true;
  } else {
    if (!grid.is(ir::AttrKind::Array) || grid.elements().size() != 2)
      return Error{fmt::format("{}: error: grid must be [GY, GX] or \"auto\"", where)};
    std::optional<int64_t> gy = integerOf(grid.elements()[0], binding);
    std::optional<int64_t> gx = integerOf(grid.elements()[1], binding);
    if (!gy || !gx || *gy < 1 || *gx < 1)
      return Error{
          fmt::format("{}: error: grid {} has no value under the binding", where, grid.str())};
    // Whether it fits the device is the planner's check (a Cores rejection the tuner counts).
    if (*gy > kMaxGridSide || *gx > kMaxGridSide)
      return Error{fmt::format("{}: error: grid [{}, {}] has a side above {}", where, *gy, *gx,
                               kMaxGridSide)};
    info.grid = {static_cast<int>(*gy), static_cast<int>(*gx)};
  }
  Expected<std::vector<int64_t>> work = extractWorkDims(kernelOp, binding);
  if (!work) return work.error();
  if (work->empty()) return info;
  info.workDims = std::move(*work);
  const int64_t items = *checkedProduct(info.workDims); // checked by extractWorkDims
  planner::cores::Problem problem;
  problem.items = items;
  problem.grid = info.grid;
  problem.autoGrid = info.autoGrid;
  info.problem = problem;
  return info;
}

} // namespace ttlplan::lower
