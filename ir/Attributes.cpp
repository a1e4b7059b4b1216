#include "ttlplan/ir/Attributes.h"

#include "ttlplan/ir/AsmPrinting.h"

#include <cassert>

namespace ttlplan::ir {

struct AttributeStorage {
  AttrKind kind;
  int64_t integer = 0;                 ///< Integer, Bool
  double number = 0;                   ///< Float
  Type type;                           ///< Integer, Float, DenseArray element, TypeAttr
  std::string text;                    ///< String, SymbolRef, Opaque
  std::vector<Attribute> elements;     ///< Array
  std::vector<int64_t> dense;          ///< DenseArray
  std::vector<NamedAttribute> entries; ///< Dictionary
  Layout layout;                       ///< Layout
  KnobExpr expr;                       ///< KnobExpr

  bool operator==(const AttributeStorage& o) const {
    // Floats compare by bit pattern through ==, which is what a round trip must preserve.
    return kind == o.kind && integer == o.integer && number == o.number && type == o.type &&
           text == o.text && elements == o.elements && dense == o.dense && entries == o.entries &&
           layout == o.layout && expr == o.expr;
  }
};

static std::shared_ptr<AttributeStorage> make(AttrKind kind) {
  auto s = std::make_shared<AttributeStorage>();
  s->kind = kind;
  return s;
}

Attribute Attribute::unit() {
  return Attribute(make(AttrKind::Unit));
}
Attribute Attribute::boolean(bool value) {
  auto s = make(AttrKind::Bool);
  s->integer = value;
  s->type = Type::integer(1);
  return Attribute(s);
}
Attribute Attribute::integer(int64_t value, Type type) {
  auto s = make(AttrKind::Integer);
  s->integer = value;
  s->type = type ? type : Type::integer(64);
  return Attribute(s);
}
Attribute Attribute::floating(double value, Type type) {
  auto s = make(AttrKind::Float);
  s->number = value;
  s->type = type ? type : Type::floating(FloatKind::F64);
  return Attribute(s);
}
Attribute Attribute::string(std::string value) {
  auto s = make(AttrKind::String);
  s->text = std::move(value);
  return Attribute(s);
}
Attribute Attribute::array(std::vector<Attribute> elements) {
  auto s = make(AttrKind::Array);
  s->elements = std::move(elements);
  return Attribute(s);
}
Attribute Attribute::denseArray(Type elementType, std::vector<int64_t> values) {
  auto s = make(AttrKind::DenseArray);
  s->type = std::move(elementType);
  s->dense = std::move(values);
  return Attribute(s);
}
Attribute Attribute::dictionary(std::vector<NamedAttribute> entries) {
  auto s = make(AttrKind::Dictionary);
  s->entries = std::move(entries);
  return Attribute(s);
}
Attribute Attribute::symbolRef(std::string name) {
  auto s = make(AttrKind::SymbolRef);
  s->text = std::move(name);
  return Attribute(s);
}
Attribute Attribute::type(Type type) {
  auto s = make(AttrKind::TypeAttr);
  s->type = std::move(type);
  return Attribute(s);
}
Attribute Attribute::layout(Layout layout) {
  auto s = make(AttrKind::Layout);
  s->layout = std::move(layout);
  return Attribute(s);
}
Attribute Attribute::opaque(std::string text) {
  auto s = make(AttrKind::Opaque);
  s->text = std::move(text);
  return Attribute(s);
}

Attribute Attribute::knobExpr(KnobExpr expr) {
  if (expr.isInteger()) return integer(expr.value());
  if (expr.isKnob()) return symbolRef(expr.name());
  auto s = make(AttrKind::KnobExpr);
  s->expr = std::move(expr);
  return Attribute(s);
}

// A null attribute (an absent one) reads as empty everywhere rather than crash: every accessor
// goes through storage(). Callers test `is(kind)` or `operator bool` to tell absent from empty.
namespace {
const AttributeStorage& emptyStorage() {
  static const AttributeStorage empty = [] {
    AttributeStorage s{}; // every member value-initialised (no -Wmissing-field-initializers)
    s.kind = AttrKind::Unit;
    return s;
  }();
  return empty;
}
} // namespace

const AttributeStorage& Attribute::storage() const {
  return impl_ ? *impl_ : emptyStorage();
}

AttrKind Attribute::kind() const {
  return storage().kind;
}
bool Attribute::operator==(const Attribute& other) const {
  if (impl_ == other.impl_) return true;
  if (!impl_ || !other.impl_) return false;
  return *impl_ == *other.impl_;
}
bool Attribute::boolValue() const {
  return storage().integer != 0;
}
int64_t Attribute::intValue() const {
  return storage().integer;
}
double Attribute::floatValue() const {
  return storage().number;
}
Type Attribute::valueType() const {
  return storage().type;
}
const std::string& Attribute::stringValue() const {
  return storage().text;
}
const std::vector<Attribute>& Attribute::elements() const {
  return storage().elements;
}
const std::vector<int64_t>& Attribute::denseValues() const {
  return storage().dense;
}
const std::vector<NamedAttribute>& Attribute::entries() const {
  return storage().entries;
}
const Layout& Attribute::layoutValue() const {
  return storage().layout;
}
const KnobExpr& Attribute::exprValue() const {
  return storage().expr;
}

bool Attribute::getIntegers(std::vector<int64_t>& out) const {
  if (is(AttrKind::DenseArray)) {
    out = denseValues();
    return true;
  }
  if (!is(AttrKind::Array)) return false;
  out.clear();
  for (const Attribute& e : elements()) {
    if (!e.is(AttrKind::Integer)) return false;
    out.push_back(e.intValue());
  }
  return true;
}

std::string Attribute::str() const {
  std::string out;
  printAttribute(out, *this, PrintContext{});
  return out;
}

} // namespace ttlplan::ir
