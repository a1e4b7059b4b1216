#include "ttlplan/lower/Instantiate.h"

#include "ttlplan/ir/Rewrite.h"

#include <fmt/format.h>
#include <optional>

namespace ttlplan::lower {

namespace {

using ir::Attribute;
using ir::AttrKind;
using ir::Dim;
using ir::Type;
using ir::TypeKind;

struct Substituter {
  const ir::Binding& binding;
  std::string problem; ///< the first thing that could not be substituted, as a message

  void fail(std::string message) {
    if (problem.empty()) problem = std::move(message);
  }
  void unbound(const std::string& knob) {
    fail(
        fmt::format("knob @{} has no value in the binding (give it with --bind {}=V)", knob, knob));
  }

  /// The symbol bound to `knob`, or nullopt (with a problem) when it is unbound or an integer.
  std::optional<std::string> symbol(const std::string& knob) {
    auto it = binding.find(knob);
    if (it == binding.end()) return unbound(knob), std::nullopt;
    if (it->second.isSymbol()) return it->second.symbol();
    fail(fmt::format("knob @{} is the integer {} where a symbol is needed", knob,
                     it->second.integer()));
    return std::nullopt;
  }

  Dim dim(const Dim& d) {
    if (d.kind == Dim::Kind::Param) {
      auto it = binding.find(d.param);
      if (it == binding.end()) return unbound(d.param), d;
      if (!it->second.isInteger())
        return fail(fmt::format("knob @{} is the symbol {} where an integer is needed", d.param,
                                it->second.symbol())),
               d;
      return Dim::fixed(it->second.integer());
    }
    if (d.kind != Dim::Kind::Expr) return d;
    Expected<int64_t> v = d.expr.evaluate(binding);
    if (!v) return fail(v.error().message), d;
    return Dim::fixed(*v);
  }

  Type tile(const Type& t) {
    std::optional<std::string> name = symbol(t.tileDataTypeKnob());
    if (!name) return t;
    std::optional<ir::DataType> dt = ir::parseDataType(*name);
    if (!dt)
      return fail(fmt::format("knob @{} = {} is not a tile data type (bf16, f32, f16, bfp8_b, "
                              "bfp4_b, i32, u32)",
                              t.tileDataTypeKnob(), *name)),
             t;
    return Type::tile(t.tileRows(), t.tileColumns(), *dt);
  }

  /// A tensor element type given by a knob: bf16/f16/f32 are builtin floats, the block floats
  /// stay as written (`tensor<64x64xbfp8_b>`).
  Type element(const Type& t) {
    std::optional<std::string> name = symbol(t.knobName());
    if (!name) return t;
    if (*name == "bf16") return Type::floating(ir::FloatKind::BF16);
    if (*name == "f16") return Type::floating(ir::FloatKind::F16);
    if (*name == "f32") return Type::floating(ir::FloatKind::F32);
    if (*name == "bfp8_b" || *name == "bfp4_b") return Type::opaque(*name);
    fail(fmt::format("knob @{} = {} is not a tensor element type (bf16, f16, f32, bfp8_b, bfp4_b)",
                     t.knobName(), *name));
    return t;
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
    case TypeKind::Tile:
      return tile(t);
    case TypeKind::Knob:
      return element(t);
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
      if (it == binding.end()) return a;
      return it->second.isInteger() ? Attribute::integer(it->second.integer())
                                    : Attribute::string(it->second.symbol());
    }
    case AttrKind::KnobExpr: {
      Expected<int64_t> v = a.exprValue().evaluate(binding);
      if (!v) return fail(v.error().message), a;
      return Attribute::integer(*v);
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
    if (!s.problem.empty() && where.empty()) where = op->location().str();
  });
  for (ir::Operation* op : paramValues) {
    std::optional<int64_t> v = ir::evaluate(op->result(0), binding);
    if (!v) {
      if (s.problem.empty()) {
        s.fail(fmt::format("ttl.param_value {} has no integer value in the binding",
                           op->attribute("param").str()));
        where = op->location().str();
      }
      break;
    }
    ir::OpBuilder b = ir::OpBuilder::before(op);
    ir::Value* c = b.constant(*v, op->result(0)->type(), op->result(0)->nameHint());
    ir::replaceAllUsesWith(kernel, op->result(0), c);
    ir::eraseOp(op);
  }
  if (!s.problem.empty()) return Error{fmt::format("{}: error: {}", where, s.problem)};
  for (ir::Operation* op : requires_)
    ir::eraseOp(op);
  return Status::success();
}

} // namespace ttlplan::lower
