#pragma once
// TTL types (docs/language.md, "Types"): immutable values with structural equality.
#include "ttlplan/ir/DataType.h"
#include "ttlplan/ir/KnobExpr.h"

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace ttlplan::ir {

class Attribute;
struct TypeStorage;

/// One dimension of a tensor shape, a CB block shape or a CB depth: a number, a `@param`
/// reference (a knob of the search space), a knob expression (`(@M / 32)`) or `?` (the planner
/// chooses).
struct Dim {
  enum class Kind : uint8_t { Static, Param, Dynamic, Expr };
  Kind kind = Kind::Static;
  int64_t value = 0; ///< the number when Static
  std::string param; ///< the knob's name without '@' when Param
  KnobExpr expr;     ///< the expression when Expr

  static Dim fixed(int64_t value) { return {Kind::Static, value, {}, {}}; }
  static Dim ofParam(std::string name) { return {Kind::Param, 0, std::move(name), {}}; }
  static Dim dynamic() { return {Kind::Dynamic, 0, {}, {}}; }
  /// An expression dimension; a lone literal or knob becomes a Static or Param dimension.
  static Dim ofExpr(KnobExpr e);
  bool isStatic() const { return kind == Kind::Static; }
  /// True for a Param or Expr dimension (it needs a binding to have a value).
  bool hasKnobs() const { return kind == Kind::Param || kind == Kind::Expr; }
  /// The knobs a Param or Expr dimension names.
  void collectKnobs(std::set<std::string>& out) const;
  bool operator==(const Dim&) const = default;
  /// "4", "@BM", "(@M / 32)" or "?".
  std::string str() const;
};

enum class TypeKind {
  Index,          ///< `index`
  Integer,        ///< `i1`, `i32`, `ui32`, `si8`, ...
  Float,          ///< `bf16`, `f16`, `f32`, `f64`
  Tile,           ///< `!ttcore.tile<32x32, bf16>`
  Tensor,         ///< `tensor<2x1x!tile>`, `tensor<256x256xbf16, #layout>`
  CircularBuffer, ///< `!ttl.cb<[2, 1], !tile, 2>`
  TransferHandle, ///< `!ttl.transfer_handle<read>` / `<write>`
  Pipe,           ///< `!ttl.pipe`
  Semaphore,      ///< `!ttl.semaphore`
  Function,       ///< `(T, U) -> V`, only inside attributes and op signatures
  Knob,           ///< `@DTYPE`: a tensor element type given by a symbol knob
  Opaque,         ///< any other type, kept as its source text
};

enum class Signedness : uint8_t { Signless, Signed, Unsigned };
enum class FloatKind : uint8_t { BF16, F16, F32, F64 };
enum class TransferKind : uint8_t { Read, Write };

class Type {
public:
  Type() = default; ///< the null type

  static Type index();
  static Type integer(unsigned width, Signedness signedness = Signedness::Signless);
  static Type floating(FloatKind kind);
  static Type tile(int64_t rows, int64_t columns, DataType dataType);
  /// `!ttcore.tile<32x32, @DTYPE>`: a tile whose data type is a symbol knob.
  static Type tile(int64_t rows, int64_t columns, std::string dataTypeKnob);
  /// `@DTYPE` as a tensor element type.
  static Type knob(std::string name);
  static Type tensor(std::vector<Dim> shape, Type element, Attribute encoding);
  static Type tensor(std::vector<Dim> shape, Type element);
  static Type circularBuffer(std::vector<Dim> blockShape, Type tile, Dim depth);
  static Type transferHandle(TransferKind kind);
  static Type pipe();
  static Type semaphore();
  static Type function(std::vector<Type> inputs, std::vector<Type> results);
  /// A type this IR does not model; `text` is printed back verbatim.
  static Type opaque(std::string text);

  explicit operator bool() const { return impl_ != nullptr; }
  TypeKind kind() const;
  bool is(TypeKind k) const { return impl_ && kind() == k; }
  bool operator==(const Type& other) const;
  bool operator!=(const Type& other) const { return !(*this == other); }

  // Integer / Float.
  unsigned integerWidth() const;
  Signedness signedness() const;
  FloatKind floatKind() const;
  // Tile.
  int64_t tileRows() const;
  int64_t tileColumns() const;
  /// The tile's data type; BF16 when it is a knob (check tileDataTypeKnob() first).
  DataType tileDataType() const;
  /// The knob naming the tile's data type (without '@'); empty when the type is fixed.
  const std::string& tileDataTypeKnob() const;
  /// The knob's name of a Knob type (without '@').
  const std::string& knobName() const;
  /// Tensor shape or CB block shape.
  const std::vector<Dim>& shape() const;
  /// Tensor element type or CB tile type.
  Type elementType() const;
  /// Tensor encoding (layout); a null Attribute when absent.
  Attribute encoding() const;
  /// CB depth in blocks.
  const Dim& depth() const;
  TransferKind transferKind() const;
  const std::vector<Type>& inputs() const;
  const std::vector<Type>& results() const;
  const std::string& opaqueText() const;

  /// True for a tensor whose element type is a tile (a block of tiles: a CB view or a slice).
  bool isTileBlock() const;
  /// True if any dimension or data type anywhere in the type refers to a `@param`.
  bool hasParams() const;

  /// The type in custom syntax, without aliases.
  std::string str() const;

private:
  explicit Type(std::shared_ptr<const TypeStorage> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const TypeStorage> impl_;
};

} // namespace ttlplan::ir
