// Slices whose indices run past their tensor over the values they take: every core of a static
// grid and every iteration of the enclosing counted loops. The per-op check (VerifyTypes.cpp) sees
// constant indices only, so `for i in range(64): copy(a[i, 0], ...)` of a 2-tile tensor planned
// and read out of bounds at run time. A slice under a condition (scf.if, a pipe role) may be
// guarded by it, so it is not checked here: only slices every iteration reaches.
#include "ttlplan/ir/Params.h"
#include "ttlplan/ir/VerifierDetail.h"

#include <fmt/format.h>
#include <map>
#include <optional>

namespace ttlplan::ir::detail {

namespace {

/// Index evaluations one slice may take; a larger space is not checked (no error, no hang).
constexpr int64_t kMaxAssignments = 1 << 16;

struct Assignment {
  int64_t x = 0, y = 0;                ///< the core
  std::map<const Value*, int64_t> ivs; ///< loop induction variables
};

/// Where a slice leaves its tensor: the assignment, the dimension and the index there.
struct OutOfBounds {
  Assignment at;
  size_t dim = 0;
  int64_t index = 0;
};

class SliceRanges {
public:
  SliceRanges(const Operation& slice, std::vector<Operation*> loops, int64_t gy, int64_t gx)
      : slice_(slice), loops_(std::move(loops)), gy_(gy), gx_(gx) {}

  /// The first assignment under which some index is out of bounds.
  std::optional<OutOfBounds> firstOutOfBounds() {
    Assignment a;
    for (a.y = 0; a.y < gy_; ++a.y)
      for (a.x = 0; a.x < gx_; ++a.x)
        if (auto found = iterate(a, 0)) return found;
    return std::nullopt;
  }

private:
  std::optional<OutOfBounds> iterate(Assignment& a, size_t depth) {
    if (gaveUp_) return std::nullopt;
    if (depth == loops_.size()) return check(a);
    Operation& loop = *loops_[depth];
    auto lb = value(loop.operand(0), a), ub = value(loop.operand(1), a),
         step = value(loop.operand(2), a);
    if (!lb || !ub || !step || *step <= 0) return giveUp();
    Block* body = regionBlock(loop, 0);
    if (!body || body->arguments().empty()) return giveUp();
    const Value* iv = body->argument(0);
    for (int64_t i = *lb; i < *ub; i += *step) {
      a.ivs[iv] = i;
      if (auto found = iterate(a, depth + 1)) return found;
      if (gaveUp_) return std::nullopt;
    }
    a.ivs.erase(iv);
    return std::nullopt;
  }

  std::optional<OutOfBounds> check(const Assignment& a) {
    if (++evaluated_ > kMaxAssignments) return giveUp();
    Type tensor = slice_.operand(0)->type();
    Type block = slice_.result(0)->type();
    for (size_t d = 0; d < block.shape().size(); ++d) {
      std::optional<int64_t> index = value(slice_.operand(d + 1), a);
      if (!index) return giveUp();
      if (*index < 0 || *index > tilesOf(tensor.shape()[d].value) - block.shape()[d].value)
        return OutOfBounds{a, d, *index};
    }
    return std::nullopt;
  }

  std::optional<int64_t> value(const Value* v, const Assignment& a) {
    auto leaves = [&](const Operation& op) -> std::optional<int64_t> {
      if (op.isa("ttl.core_x")) return a.x;
      if (op.isa("ttl.core_y")) return a.y;
      return std::nullopt;
    };
    return evaluate(v, {}, leaves, &a.ivs);
  }

  std::nullopt_t giveUp() {
    gaveUp_ = true;
    return std::nullopt;
  }

  const Operation& slice_;
  std::vector<Operation*> loops_;
  int64_t gy_, gx_;
  int64_t evaluated_ = 0;
  bool gaveUp_ = false;
};

/// The scf.for loops around `slice` up to its thread, outermost first; nullopt when anything else
/// encloses it (a condition, a pipe role, a work loop).
std::optional<std::vector<Operation*>> countedLoops(const Operation& slice) {
  std::vector<Operation*> loops;
  for (Operation* p = slice.parentOp(); p; p = p->parentOp()) {
    if (p->isa("ttl.compute_thread") || p->isa("ttl.datamovement_thread"))
      return std::vector<Operation*>(loops.rbegin(), loops.rend());
    if (!p->isa("scf.for") || p->numOperands() != 3) return std::nullopt;
    loops.push_back(p);
  }
  return std::nullopt;
}

bool staticShapes(const Operation& slice) {
  Type tensor = slice.operand(0)->type(), block = slice.result(0)->type();
  if (tensor.shape().size() != block.shape().size()) return false;
  for (size_t d = 0; d < block.shape().size(); ++d)
    if (!tensor.shape()[d].isStatic() || !block.shape()[d].isStatic()) return false;
  return slice.numOperands() == block.shape().size() + 1;
}

void checkSlice(const Operation& slice, int64_t gy, int64_t gx, DiagnosticEngine& diags) {
  Attribute clip = slice.attribute("clip");
  if ((clip && clip.is(AttrKind::Bool) && clip.boolValue()) || !staticShapes(slice)) return;
  std::optional<std::vector<Operation*>> loops = countedLoops(slice);
  if (!loops) return;
  auto found = SliceRanges(slice, *loops, gy, gx).firstOutOfBounds();
  if (!found) return;
  const auto& [a, d, index] = *found;
  Type tensor = slice.operand(0)->type(), block = slice.result(0)->type();
  std::string where = fmt::format("on core (x {}, y {})", a.x, a.y);
  for (Operation* loop : *loops) {
    const Value* iv = regionBlock(*loop, 0)->argument(0);
    // The Python front end names a loop variable i as %i.N: the user wrote i.
    std::string name = describe(iv);
    if (size_t dot = name.rfind('.');
        dot != std::string::npos && dot + 1 < name.size() &&
        name.find_first_not_of("0123456789", dot + 1) == std::string::npos)
      name.resize(dot);
    where += fmt::format(", {} = {}", name, a.ivs.at(iv));
  }
  diags.error(slice.location(),
              fmt::format("slice out of bounds in dim {} {}: tiles [{}, {}) of a tensor {} tiles "
                          "wide (indices are in tiles); the loop bounds or the grid do not fit "
                          "the tensor's shape",
                          d, where, index, index + block.shape()[d].value,
                          tilesOf(tensor.shape()[d].value)));
}

} // namespace

void verifySliceRanges(Module& module, DiagnosticEngine& diags) {
  for (Operation* kernel : kernelsOf(module)) {
    std::vector<int64_t> grid;
    if (!kernel->attribute("grid").getIntegers(grid) || grid.size() != 2 || grid[0] <= 0 ||
        grid[1] <= 0)
      continue;
    kernel->walk([&](Operation* op) {
      if (op->isa("ttl.tensor_slice") && op->numResults() == 1 && op->numOperands() >= 1)
        checkSlice(*op, grid[0], grid[1], diags);
    });
  }
}

} // namespace ttlplan::ir::detail
