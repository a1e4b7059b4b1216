#include "ttlplan/ir/Params.h"

#include "ttlplan/ir/Attributes.h"

#include <algorithm>
#include <fmt/format.h>
#include <unordered_map>
#include <unordered_set>

namespace ttlplan::ir {

namespace {

// Deep enough for any real expression; stops runaway recursion on malformed (cyclic) input.
constexpr int kMaxDepth = 256;

std::optional<int64_t> constantValue(const Operation& op) {
  Attribute value = op.attribute("value");
  if (value.is(AttrKind::Integer)) return value.intValue();
  if (value.is(AttrKind::Bool)) return value.boolValue() ? 1 : 0;
  return std::nullopt;
}

std::optional<int64_t> compare(int64_t predicate, int64_t a, int64_t b) {
  auto ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  switch (predicate) {
  case 0:
    return a == b;
  case 1:
    return a != b;
  case 2:
    return a < b;
  case 3:
    return a <= b;
  case 4:
    return a > b;
  case 5:
    return a >= b;
  case 6:
    return ua < ub;
  case 7:
    return ua <= ub;
  case 8:
    return ua > ub;
  case 9:
    return ua >= ub;
  default:
    return std::nullopt;
  }
}

std::optional<int64_t> binary(const Operation& op, int64_t a, int64_t b) {
  const std::string& n = op.name();
  auto ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  // Wrap-around arithmetic as in MLIR (done in unsigned to avoid signed overflow UB).
  if (n == "arith.addi") return static_cast<int64_t>(ua + ub);
  if (n == "arith.subi") return static_cast<int64_t>(ua - ub);
  if (n == "arith.muli") return static_cast<int64_t>(ua * ub);
  if (n == "arith.andi") return a & b;
  if (n == "arith.ori") return a | b;
  if (n == "arith.xori") return a ^ b;
  if (n == "arith.minui") return static_cast<int64_t>(std::min(ua, ub));
  if (n == "arith.maxui") return static_cast<int64_t>(std::max(ua, ub));
  if (n == "arith.cmpi") {
    Attribute predicate = op.attribute("predicate");
    if (!predicate.is(AttrKind::Integer)) return std::nullopt;
    return compare(predicate.intValue(), a, b);
  }
  if (b == 0) return std::nullopt; // division by zero does not fold
  if (n == "arith.divui") return static_cast<int64_t>(ua / ub);
  if (n == "arith.remui") return static_cast<int64_t>(ua % ub);
  if (a == INT64_MIN && b == -1) return std::nullopt;
  if (n == "arith.divsi") return a / b;
  if (n == "arith.remsi") return a % b;
  return std::nullopt;
}

/// One evaluation under one binding. The use-def graph is a DAG that can share subexpressions
/// exponentially often (`%c1 = addi %c0, %c0`, `%c2 = addi %c1, %c1`, ...), so the memo makes
/// every value be evaluated once.
struct Evaluation {
  const Binding& binding;
  const LeafEvaluator& leaves;
  const std::map<const Value*, int64_t>* known; // values no op defines
  std::unordered_map<const Value*, std::optional<int64_t>> memo;
};

std::optional<int64_t> evaluateUncached(const Value* value, int depth, Evaluation& e);

std::optional<int64_t> evaluateAt(const Value* value, int depth, Evaluation& e) {
  if (!value || depth > kMaxDepth) return std::nullopt;
  if (auto it = e.memo.find(value); it != e.memo.end()) return it->second;
  std::optional<int64_t> result = evaluateUncached(value, depth, e);
  e.memo[value] = result;
  return result;
}

std::optional<int64_t> evaluateUncached(const Value* value, int depth, Evaluation& e) {
  const Operation* op = value->definingOp();
  if (!op) {
    if (!e.known) return std::nullopt;
    auto it = e.known->find(value);
    return it == e.known->end() ? std::nullopt : std::optional<int64_t>(it->second);
  }
  if (op->isa("arith.constant")) return constantValue(*op);
  if (op->isa("ttl.param_value")) {
    Attribute param = op->attribute("param");
    if (!param.is(AttrKind::SymbolRef)) return std::nullopt;
    auto it = e.binding.find(param.stringValue());
    if (it == e.binding.end() || !it->second.isInteger()) return std::nullopt;
    return it->second.integer();
  }
  if (op->dialect() != "arith") return e.leaves ? e.leaves(*op) : std::nullopt;
  if (op->numOperands() != 2) return std::nullopt;
  std::optional<int64_t> a = evaluateAt(op->operand(0), depth + 1, e);
  if (!a) return std::nullopt;
  std::optional<int64_t> b = evaluateAt(op->operand(1), depth + 1, e);
  if (!b) return std::nullopt;
  return binary(*op, *a, *b);
}

void collectKnobsAt(const Value* value, std::set<std::string>& knobs, int depth,
                    std::unordered_set<const Value*>& visited) {
  if (!value || depth > kMaxDepth || !visited.insert(value).second) return;
  const Operation* op = value->definingOp();
  if (!op) return;
  if (op->isa("ttl.param_value")) {
    Attribute param = op->attribute("param");
    if (param.is(AttrKind::SymbolRef)) knobs.insert(param.stringValue());
    return;
  }
  if (op->dialect() != "arith") return;
  for (const Value* operand : op->operands())
    collectKnobsAt(operand, knobs, depth + 1, visited);
}

bool forEachFrom(const std::vector<const Param*>& knobs, size_t i, Binding& binding,
                 const std::function<bool(const Binding&)>& visit) {
  if (i == knobs.size()) return visit(binding);
  Expected<std::vector<KnobValue>> values = knobs[i]->domain.values(binding);
  if (values)
    for (const KnobValue& v : *values) {
      binding[knobs[i]->name] = v;
      if (!forEachFrom(knobs, i + 1, binding, visit)) return false;
    }
  binding.erase(knobs[i]->name);
  return true;
}

} // namespace

std::vector<Param> collectParams(const Module& module) {
  std::vector<Param> out;
  if (!module.op || module.op->numRegions() == 0 || module.op->region(0).empty()) return out;
  for (const auto& op : module.op->region(0).front().operations()) {
    if (!op->isa("ttl.param")) continue;
    Param p;
    p.op = op.get();
    Attribute name = op->attribute("sym_name");
    if (name.is(AttrKind::String) || name.is(AttrKind::SymbolRef)) p.name = name.stringValue();
    // A malformed domain reads as an empty list, which the verifier reports.
    Expected<KnobDomain> domain = KnobDomain::fromAttributes(
        op->attribute("values"), op->attribute("range"), op->attribute("divisors"));
    if (domain) p.domain = std::move(*domain);
    Attribute problem = op->attribute("problem");
    p.problem = problem.is(AttrKind::Unit) || (problem.is(AttrKind::Bool) && problem.boolValue());
    out.push_back(std::move(p));
  }
  return out;
}

Status checkProblemKnobsBound(const std::vector<Param>& params, const Binding& binding) {
  std::vector<const Param*> unbound;
  for (const Param& p : params)
    if (p.problem && !binding.count(p.name) && findParam(params, p.name) == &p)
      unbound.push_back(&p);
  if (unbound.empty()) return Status::success();
  std::string names, example, detail;
  for (const Param* p : unbound) {
    names += (names.empty() ? "@" : ", @") + p->name;
    example += (example.empty() ? "" : ",") + p->name + "=VALUE";
    detail += fmt::format("\n  @{} = {} ({})", p->name, p->domain.str(), p->op->location().str());
  }
  return Error{fmt::format("{} {} problem knob{} (the problem's sizes and types, which the search "
                           "never chooses): bind {} with --bind {}{}",
                           names, unbound.size() == 1 ? "is a" : "are",
                           unbound.size() == 1 ? "" : "s", unbound.size() == 1 ? "it" : "them",
                           example, detail)};
}

const Param* findParam(const std::vector<Param>& params, const std::string& name) {
  for (const Param& p : params)
    if (p.name == name) return &p;
  return nullptr;
}

std::optional<int64_t> evaluate(const Value* value, const Binding& binding,
                                const LeafEvaluator& leaves,
                                const std::map<const Value*, int64_t>* known) {
  Evaluation e{binding, leaves, known, {}};
  return evaluateAt(value, 0, e);
}

std::vector<std::optional<int64_t>> evaluateAll(const std::vector<const Value*>& values,
                                                const Binding& binding,
                                                const LeafEvaluator& leaves) {
  Evaluation e{binding, leaves, nullptr, {}};
  std::vector<std::optional<int64_t>> out;
  out.reserve(values.size());
  for (const Value* v : values)
    out.push_back(evaluateAt(v, 0, e));
  return out;
}

std::optional<int64_t> evaluate(const Value* value, const Binding& binding) {
  return evaluate(value, binding, nullptr);
}

namespace {

using Code = CompiledValues::Code;

Code codeOf(const Operation& op) {
  static const std::unordered_map<std::string, Code> codes = {
      {"arith.addi", Code::Add},   {"arith.subi", Code::Sub},   {"arith.muli", Code::Mul},
      {"arith.andi", Code::And},   {"arith.ori", Code::Or},     {"arith.xori", Code::Xor},
      {"arith.minui", Code::MinU}, {"arith.maxui", Code::MaxU}, {"arith.cmpi", Code::Cmp},
      {"arith.divui", Code::DivU}, {"arith.remui", Code::RemU}, {"arith.divsi", Code::DivS},
      {"arith.remsi", Code::RemS}};
  auto it = codes.find(op.name());
  return it == codes.end() ? Code::Unknown : it->second;
}

/// binary() by opcode (the same cases in the same order).
std::optional<int64_t> apply(const CompiledValues::Instruction& in, int64_t a, int64_t b) {
  auto ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  switch (in.code) {
  case Code::Add:
    return static_cast<int64_t>(ua + ub);
  case Code::Sub:
    return static_cast<int64_t>(ua - ub);
  case Code::Mul:
    return static_cast<int64_t>(ua * ub);
  case Code::And:
    return a & b;
  case Code::Or:
    return a | b;
  case Code::Xor:
    return a ^ b;
  case Code::MinU:
    return static_cast<int64_t>(std::min(ua, ub));
  case Code::MaxU:
    return static_cast<int64_t>(std::max(ua, ub));
  case Code::Cmp:
    return compare(in.value, a, b);
  default:
    break;
  }
  if (b == 0) return std::nullopt;
  if (in.code == Code::DivU) return static_cast<int64_t>(ua / ub);
  if (in.code == Code::RemU) return static_cast<int64_t>(ua % ub);
  if (a == INT64_MIN && b == -1) return std::nullopt;
  if (in.code == Code::DivS) return a / b;
  if (in.code == Code::RemS) return a % b;
  return std::nullopt;
}

} // namespace

CompiledValues::CompiledValues(const std::vector<const Value*>& roots, const LeafSlot& leafSlot,
                               const ArgumentSlot& argumentSlot) {
  std::unordered_map<const Value*, int> seen;
  for (const Value* v : roots)
    roots_.push_back(compile(v, 0, leafSlot, argumentSlot, seen));
}

int CompiledValues::compile(const Value* value, int depth, const LeafSlot& leafSlot,
                            const ArgumentSlot& argumentSlot,
                            std::unordered_map<const Value*, int>& seen) {
  if (auto it = seen.find(value); value && it != seen.end()) return it->second;
  Instruction in;
  const Operation* op = value && depth <= kMaxDepth ? value->definingOp() : nullptr;
  if (!op) {
    std::optional<int> slot =
        value && depth <= kMaxDepth && argumentSlot ? argumentSlot(*value) : std::nullopt;
    in.code = slot ? Code::Leaf : Code::Unknown;
    in.value = slot.value_or(0);
  } else if (op->isa("arith.constant")) {
    std::optional<int64_t> c = constantValue(*op);
    in.code = c ? Code::Constant : Code::Unknown;
    in.value = c.value_or(0);
  } else if (op->isa("ttl.param_value")) {
    Attribute param = op->attribute("param");
    if (param.is(AttrKind::SymbolRef)) {
      auto known = std::find(knobs_.begin(), knobs_.end(), param.stringValue());
      in.code = Code::Knob;
      in.value = known - knobs_.begin();
      if (known == knobs_.end()) knobs_.push_back(param.stringValue());
    }
  } else if (op->dialect() != "arith") {
    std::optional<int> slot = leafSlot ? leafSlot(*op) : std::nullopt;
    in.code = slot ? Code::Leaf : Code::Unknown;
    in.value = slot.value_or(0);
  } else if (op->numOperands() == 2 && codeOf(*op) != Code::Unknown) {
    in.code = codeOf(*op);
    if (in.code == Code::Cmp) {
      Attribute predicate = op->attribute("predicate");
      if (predicate.is(AttrKind::Integer))
        in.value = predicate.intValue();
      else
        in.code = Code::Unknown;
    }
    if (in.code != Code::Unknown) {
      in.a = compile(op->operand(0), depth + 1, leafSlot, argumentSlot, seen);
      in.b = compile(op->operand(1), depth + 1, leafSlot, argumentSlot, seen);
    }
  }
  program_.push_back(in);
  int index = int(program_.size()) - 1;
  if (value) seen[value] = index;
  return index;
}

std::vector<std::optional<int64_t>> CompiledValues::knobValues(const Binding& binding) const {
  std::vector<std::optional<int64_t>> out;
  out.reserve(knobs_.size());
  for (const std::string& k : knobs_) {
    auto it = binding.find(k);
    out.push_back(it != binding.end() && it->second.isInteger()
                      ? std::optional<int64_t>(it->second.integer())
                      : std::nullopt);
  }
  return out;
}

void CompiledValues::run(const std::vector<std::optional<int64_t>>& knobValues,
                         const std::vector<std::optional<int64_t>>& leaves,
                         std::vector<std::optional<int64_t>>& out) const {
  std::vector<std::optional<int64_t>> v;
  runAll(knobValues, leaves, v);
  out.resize(roots_.size());
  for (size_t r = 0; r < roots_.size(); ++r)
    out[r] = v[size_t(roots_[r])];
}

inline void CompiledValues::runOne(size_t i, const std::vector<std::optional<int64_t>>& knobValues,
                                   const std::vector<std::optional<int64_t>>& leaves,
                                   std::vector<std::optional<int64_t>>& v) const {
  const Instruction& in = program_[i];
  switch (in.code) {
  case Code::Unknown:
    v[i] = std::nullopt;
    break;
  case Code::Constant:
    v[i] = in.value;
    break;
  case Code::Knob:
    v[i] = size_t(in.value) < knobValues.size() ? knobValues[size_t(in.value)] : std::nullopt;
    break;
  case Code::Leaf:
    v[i] = size_t(in.value) < leaves.size() ? leaves[size_t(in.value)] : std::nullopt;
    break;
  default:
    v[i] = v[size_t(in.a)] && v[size_t(in.b)] ? apply(in, *v[size_t(in.a)], *v[size_t(in.b)])
                                              : std::nullopt;
  }
}

void CompiledValues::runAll(const std::vector<std::optional<int64_t>>& knobValues,
                            const std::vector<std::optional<int64_t>>& leaves,
                            std::vector<std::optional<int64_t>>& v) const {
  v.resize(program_.size());
  for (size_t i = 0; i < program_.size(); ++i)
    runOne(i, knobValues, leaves, v);
}

void CompiledValues::runSome(const std::vector<int>& instructions,
                             const std::vector<std::optional<int64_t>>& knobValues,
                             const std::vector<std::optional<int64_t>>& leaves,
                             std::vector<std::optional<int64_t>>& values) const {
  values.resize(program_.size());
  for (int i : instructions)
    runOne(size_t(i), knobValues, leaves, values);
}

std::vector<uint64_t> CompiledValues::leafMasks() const {
  std::vector<uint64_t> masks(program_.size(), 0);
  for (size_t i = 0; i < program_.size(); ++i) {
    const Instruction& in = program_[i];
    if (in.code == Code::Leaf) masks[i] = uint64_t(1) << std::min<int64_t>(in.value, 63);
    if (in.a >= 0) masks[i] |= masks[size_t(in.a)];
    if (in.b >= 0) masks[i] |= masks[size_t(in.b)];
  }
  return masks;
}

void collectKnobs(const Value* value, std::set<std::string>& knobs) {
  std::unordered_set<const Value*> visited;
  collectKnobsAt(value, knobs, 0, visited);
}

std::optional<bool> foldRequire(const Operation& require, const Binding& binding) {
  if (require.numOperands() != 1) return std::nullopt;
  std::optional<int64_t> v = evaluate(require.operand(0), binding);
  if (!v) return std::nullopt;
  return (*v & 1) != 0; // an i1: only the low bit counts
}

std::optional<int64_t> resolveDim(const Dim& dim, const Binding& binding) {
  if (dim.kind == Dim::Kind::Static) return dim.value;
  if (dim.kind == Dim::Kind::Param) {
    auto it = binding.find(dim.param);
    if (it != binding.end() && it->second.isInteger()) return it->second.integer();
  }
  if (dim.kind == Dim::Kind::Expr) return dim.expr.tryEvaluate(binding);
  return std::nullopt;
}

std::optional<DataType> resolveDataType(const Type& tile, const Binding& binding) {
  if (!tile.is(TypeKind::Tile)) return std::nullopt;
  if (tile.tileDataTypeKnob().empty()) return tile.tileDataType();
  auto it = binding.find(tile.tileDataTypeKnob());
  if (it == binding.end() || !it->second.isSymbol()) return std::nullopt;
  return parseDataType(it->second.symbol());
}

Expected<bool> Param::allows(const KnobValue& value, const Binding& binding) const {
  Expected<bool> in = domain.contains(value, binding);
  if (!in) return Error{fmt::format("the domain of @{}, {}", name, in.error().message)};
  return in;
}

Expected<std::vector<KnobValue>> Param::values(const Binding& binding) const {
  Expected<std::vector<KnobValue>> v = domain.values(binding);
  if (!v) return Error{fmt::format("the domain of @{}, {}", name, v.error().message)};
  return v;
}

std::optional<uint64_t> countListBindings(const std::vector<const Param*>& knobs, uint64_t cap) {
  uint64_t count = 1;
  for (const Param* p : knobs) {
    if (p->domain.kind() != KnobDomain::Kind::List) return std::nullopt;
    count *= p->domain.listValues().size();
    if (count == 0) return 0;
    if (count > cap) count = cap + 1;
  }
  return count;
}

bool forEachBinding(const std::vector<const Param*>& knobs, const Binding& base,
                    const std::function<bool(const Binding&)>& visit) {
  Binding binding = base;
  return forEachFrom(knobs, 0, binding, visit);
}

} // namespace ttlplan::ir
