#include "lower/Instantiate.h"

#include "ir/Rewrite.h"

#include <fmt/format.h>

namespace ttlplan::lower {

namespace {

using ir::Attribute;
using ir::AttrKind;
using ir::Dim;
using ir::Type;
using ir::TypeKind;

struct Substituter {
  const ir::Binding& binding;
  std::string unbound; ///< the first knob without a value

  Dim dim(const Dim& d) {
    if (d.kind != Dim::Kind::Param) return d;
    auto it = binding.find(d.param);
    if (it == binding.end()) {
      if (unbound.empty()) unbound = d.param;
      return d;
    }
    return Dim::fixed(it->second);
  }

  std::vector<Dim> dims(const std::vector<Dim>& in) {
    std::vector<Dim> out;
    for (const Dim& d : in)
      out.push_back(dim(d));
    return out;
  }

  Type type(const Type& t) {
    if (!t || !t.hasParams()) return t;
    switch (t.kind()) {
    case TypeKind::Tensor:
      return t.encoding() ? Type::tensor(dims(t.shape()), type(t.elementType()), t.encoding())
                          : Type::tensor(dims(t.shape()), type(t.elementType()));
    case TypeKind::CircularBuffer:
      return Type::circularBuffer(dims(t.shape()), type(t.elementType()), dim(t.depth()));
    case TypeKind::Function: {
      std::vector<Type> inputs, results;
      for (const Type& i : t.inputs())
        inputs.push_back(type(i));
      for (const Type& r : t.results())
        results.push_back(type(r));
      return Type::function(std::move(inputs), std::move(results));
    }
    default:
      return t;
    }
  }

  Attribute attribute(const Attribute& a) {
    if (!a) return a;
    switch (a.kind()) {
    case AttrKind::SymbolRef: {
      auto it = binding.find(a.stringValue());
      return it == binding.end() ? a : Attribute::integer(it->second);
    }
    case AttrKind::Array: {
      std::vector<Attribute> out;
      for (const Attribute& e : a.elements())
        out.push_back(attribute(e));
      return Attribute::array(std::move(out));
    }
    case AttrKind::Dictionary: {
      std::vector<ir::NamedAttribute> out;
      for (const ir::NamedAttribute& e : a.entries())
        out.push_back({e.name, attribute(e.value)});
      return Attribute::dictionary(std::move(out));
    }
    case AttrKind::TypeAttr:
      return Attribute::type(type(a.valueType()));
    default:
      return a;
    }
  }
};

} // namespace

Status instantiateBinding(ir::Operation* kernel, const ir::Binding& binding) {
  Substituter s{binding, {}};
  std::vector<ir::Operation*> paramValues, requires_;
  std::string where;
  kernel->walk([&](ir::Operation* op) {
    for (ir::Value* r : op->results())
      r->setType(s.type(r->type()));
    for (size_t i = 0; i < op->numRegions(); ++i)
      for (auto& block : op->region(i).blocks())
        for (ir::Value* arg : block->arguments())
          arg->setType(s.type(arg->type()));
    for (const ir::NamedAttribute& a : std::vector<ir::NamedAttribute>(op->attributes()))
      if (!(op->isa("ttl.param_value") && a.value.is(AttrKind::SymbolRef)))
        op->setAttribute(a.name, s.attribute(a.value));
    if (op->isa("ttl.param_value")) paramValues.push_back(op);
    if (op->isa("ttl.require")) requires_.push_back(op);
    if (!s.unbound.empty() && where.empty()) where = op->location().str();
  });
  for (ir::Operation* op : paramValues) {
    std::optional<int64_t> v = ir::evaluate(op->result(0), binding);
    if (!v) {
      s.unbound = s.unbound.empty() ? "?" : s.unbound;
      where = op->location().str();
      break;
    }
    ir::OpBuilder b = ir::OpBuilder::before(op);
    ir::Value* c = b.constant(*v, op->result(0)->type(), op->result(0)->nameHint());
    ir::replaceAllUsesWith(kernel, op->result(0), c);
    ir::eraseOp(op);
  }
  if (!s.unbound.empty())
    return Error{fmt::format("{}: error: knob @{} has no value in the binding (give it with --bind "
                             "{}=V)",
                             where, s.unbound, s.unbound)};
  for (ir::Operation* op : requires_)
    ir::eraseOp(op);
  return Status::success();
}

} // namespace ttlplan::lower
