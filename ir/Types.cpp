#include "ttlplan/ir/Types.h"

#include "ttlplan/ir/AsmPrinting.h"
#include "ttlplan/ir/Attributes.h"

#include <cassert>

namespace ttlplan::ir {

/// One fat storage struct for every kind keeps the code short; unused fields stay empty.
struct TypeStorage {
  TypeKind kind;
  unsigned width = 0;                           ///< Integer
  Signedness signedness = Signedness::Signless; ///< Integer
  FloatKind floatKind = FloatKind::F32;         ///< Float
  int64_t rows = 0, columns = 0;                ///< Tile
  DataType dataType = DataType::BF16;           ///< Tile
  std::vector<Dim> shape;                       ///< Tensor, CircularBuffer
  Type element;                                 ///< Tensor, CircularBuffer
  Attribute encoding;                           ///< Tensor
  Dim depth;                                    ///< CircularBuffer
  TransferKind transfer = TransferKind::Read;   ///< TransferHandle
  std::vector<Type> inputs, results;            ///< Function
  std::string text;                             ///< Opaque; the knob of a Knob or a Tile

  bool operator==(const TypeStorage& o) const {
    return kind == o.kind && width == o.width && signedness == o.signedness &&
           floatKind == o.floatKind && rows == o.rows && columns == o.columns &&
           dataType == o.dataType && shape == o.shape && element == o.element &&
           encoding == o.encoding && depth == o.depth && transfer == o.transfer &&
           inputs == o.inputs && results == o.results && text == o.text;
  }
};

std::string Dim::str() const {
  switch (kind) {
  case Kind::Static:
    return std::to_string(value);
  case Kind::Param:
    return std::string("@") + param;
  case Kind::Dynamic:
    return "?";
  case Kind::Expr:
    return "(" + expr.str() + ")";
  }
  return "?";
}

Dim Dim::ofExpr(KnobExpr e) {
  if (e.isInteger()) return fixed(e.value());
  if (e.isKnob()) return ofParam(e.name());
  return {Kind::Expr, 0, {}, std::move(e)};
}

void Dim::collectKnobs(std::set<std::string>& out) const {
  if (kind == Kind::Param) out.insert(param);
  if (kind == Kind::Expr) expr.collectKnobs(out);
}

static std::shared_ptr<TypeStorage> make(TypeKind kind) {
  auto s = std::make_shared<TypeStorage>();
  s->kind = kind;
  return s;
}

Type Type::index() {
  return Type(make(TypeKind::Index));
}
Type Type::integer(unsigned width, Signedness signedness) {
  auto s = make(TypeKind::Integer);
  s->width = width;
  s->signedness = signedness;
  return Type(s);
}
Type Type::floating(FloatKind kind) {
  auto s = make(TypeKind::Float);
  s->floatKind = kind;
  return Type(s);
}
Type Type::tile(int64_t rows, int64_t columns, DataType dataType) {
  auto s = make(TypeKind::Tile);
  s->rows = rows;
  s->columns = columns;
  s->dataType = dataType;
  return Type(s);
}
Type Type::tile(int64_t rows, int64_t columns, std::string dataTypeKnob) {
  auto s = make(TypeKind::Tile);
  s->rows = rows;
  s->columns = columns;
  s->text = std::move(dataTypeKnob);
  return Type(s);
}
Type Type::knob(std::string name) {
  auto s = make(TypeKind::Knob);
  s->text = std::move(name);
  return Type(s);
}
Type Type::tensor(std::vector<Dim> shape, Type element, Attribute encoding) {
  auto s = make(TypeKind::Tensor);
  s->shape = std::move(shape);
  s->element = std::move(element);
  s->encoding = std::move(encoding);
  return Type(s);
}
Type Type::tensor(std::vector<Dim> shape, Type element) {
  return tensor(std::move(shape), std::move(element), Attribute());
}
Type Type::circularBuffer(std::vector<Dim> blockShape, Type tile, Dim depth) {
  auto s = make(TypeKind::CircularBuffer);
  s->shape = std::move(blockShape);
  s->element = std::move(tile);
  s->depth = std::move(depth);
  return Type(s);
}
Type Type::transferHandle(TransferKind kind) {
  auto s = make(TypeKind::TransferHandle);
  s->transfer = kind;
  return Type(s);
}
Type Type::pipe() {
  return Type(make(TypeKind::Pipe));
}
Type Type::semaphore() {
  return Type(make(TypeKind::Semaphore));
}
Type Type::function(std::vector<Type> inputs, std::vector<Type> results) {
  auto s = make(TypeKind::Function);
  s->inputs = std::move(inputs);
  s->results = std::move(results);
  return Type(s);
}
Type Type::opaque(std::string text) {
  auto s = make(TypeKind::Opaque);
  s->text = std::move(text);
  return Type(s);
}

TypeKind Type::kind() const {
  assert(impl_);
  return impl_->kind;
}
bool Type::operator==(const Type& other) const {
  if (impl_ == other.impl_) return true;
  if (!impl_ || !other.impl_) return false;
  return *impl_ == *other.impl_;
}
unsigned Type::integerWidth() const {
  return impl_->width;
}
Signedness Type::signedness() const {
  return impl_->signedness;
}
FloatKind Type::floatKind() const {
  return impl_->floatKind;
}
int64_t Type::tileRows() const {
  return impl_->rows;
}
int64_t Type::tileColumns() const {
  return impl_->columns;
}
DataType Type::tileDataType() const {
  return impl_->dataType;
}
const std::string& Type::tileDataTypeKnob() const {
  return impl_->text;
}
const std::string& Type::knobName() const {
  return impl_->text;
}
const std::vector<Dim>& Type::shape() const {
  return impl_->shape;
}
Type Type::elementType() const {
  return impl_->element;
}
Attribute Type::encoding() const {
  return impl_->encoding;
}
const Dim& Type::depth() const {
  return impl_->depth;
}
TransferKind Type::transferKind() const {
  return impl_->transfer;
}
const std::vector<Type>& Type::inputs() const {
  return impl_->inputs;
}
const std::vector<Type>& Type::results() const {
  return impl_->results;
}
const std::string& Type::opaqueText() const {
  return impl_->text;
}

bool Type::isTileBlock() const {
  return is(TypeKind::Tensor) && elementType().is(TypeKind::Tile);
}

bool Type::hasParams() const {
  if (!impl_) return false;
  for (const Dim& d : impl_->shape)
    if (d.hasKnobs()) return true;
  if (impl_->depth.hasKnobs()) return true;
  if (impl_->kind == TypeKind::Knob) return true;
  if (impl_->kind == TypeKind::Tile && !impl_->text.empty()) return true;
  if (impl_->element.hasParams()) return true;
  for (const Type& t : impl_->inputs)
    if (t.hasParams()) return true;
  for (const Type& t : impl_->results)
    if (t.hasParams()) return true;
  return false;
}

std::string Type::str() const {
  std::string out;
  printType(out, *this, PrintContext{});
  return out;
}

} // namespace ttlplan::ir
