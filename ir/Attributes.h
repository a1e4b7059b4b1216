#pragma once
// TTL attributes: immutable values with structural equality. Unknown dialect attributes are kept
// as their source text so that they survive a parse/print round trip.
#include "ttlplan/ir/Types.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ttlplan::ir {

struct AttributeStorage;
struct NamedAttribute;

enum class AttrKind {
  Unit,       ///< a name without value in a dictionary: `{foo}`
  Bool,       ///< `true` / `false`
  Integer,    ///< `3`, `3 : index`, `-1 : i32`
  Float,      ///< `1.5`, `2.0 : f32`
  String,     ///< `"eq"`
  Array,      ///< `[1, @BM, "x"]`
  DenseArray, ///< `array<i64: 1, 2>`
  Dictionary, ///< `{a = 1, b}`
  SymbolRef,  ///< `@BM`
  TypeAttr,   ///< a type used as an attribute
  Layout,     ///< `#ttl.layout<dram, interleaved>`
  Opaque,     ///< any other attribute, kept as its source text
  KnobExpr,   ///< `ceildiv(@M, 32)`: a knob expression (generic form `#ttl.expr<...>`)
};

enum class MemorySpace : uint8_t { Dram, L1 };

/// `#ttl.layout<MEM, interleaved>` or `#ttl.layout<MEM, sharded, grid = [GY, GX], shard = [SM,
/// SN]>`.
struct Layout {
  MemorySpace memory = MemorySpace::Dram; ///< where the tensor lives
  bool sharded = false;                   ///< interleaved when false
  std::vector<int64_t> grid;              ///< shard grid [GY, GX]; empty when interleaved
  std::vector<int64_t> shard; ///< shard shape in elements [SM, SN]; empty when interleaved
  bool operator==(const Layout&) const = default;
};

class Attribute {
public:
  Attribute() = default; ///< the null attribute (absent)

  static Attribute unit();
  static Attribute boolean(bool value);
  /// An integer; a null `type` means the default i64.
  static Attribute integer(int64_t value, Type type = Type());
  /// A float; a null `type` means the default f64.
  static Attribute floating(double value, Type type = Type());
  static Attribute string(std::string value);
  static Attribute array(std::vector<Attribute> elements);
  static Attribute denseArray(Type elementType, std::vector<int64_t> values);
  static Attribute dictionary(std::vector<NamedAttribute> entries);
  static Attribute symbolRef(std::string name);
  static Attribute type(Type type);
  static Attribute layout(Layout layout);
  static Attribute opaque(std::string text);
  /// A knob expression; a lone knob becomes a SymbolRef and a lone literal an Integer.
  static Attribute knobExpr(KnobExpr expr);

  explicit operator bool() const { return impl_ != nullptr; }
  /// The kind; a null (absent) attribute reads as Unit, and every value accessor below as empty
  /// (0, "", []), never a crash.
  AttrKind kind() const;
  bool is(AttrKind k) const { return impl_ && kind() == k; }
  bool operator==(const Attribute& other) const;
  bool operator!=(const Attribute& other) const { return !(*this == other); }

  bool boolValue() const;
  int64_t intValue() const;
  double floatValue() const;
  /// Type of an Integer or Float attribute (defaults made explicit); element type of a DenseArray;
  /// the type of a TypeAttr.
  Type valueType() const;
  /// String contents, symbol name (without '@') or opaque text.
  const std::string& stringValue() const;
  const std::vector<Attribute>& elements() const;
  const std::vector<int64_t>& denseValues() const;
  const std::vector<NamedAttribute>& entries() const;
  const Layout& layoutValue() const;
  /// The expression of a KnobExpr attribute.
  const KnobExpr& exprValue() const;

  /// For an array of integers: the values; false if any element is not an Integer.
  bool getIntegers(std::vector<int64_t>& out) const;
  /// The attribute in custom syntax, without aliases.
  std::string str() const;

private:
  explicit Attribute(std::shared_ptr<const AttributeStorage> impl) : impl_(std::move(impl)) {}
  const AttributeStorage& storage() const;
  std::shared_ptr<const AttributeStorage> impl_;
};

struct NamedAttribute {
  std::string name; ///< the key, e.g. "grid" or "ttl.device"
  Attribute value;  ///< the value; Unit for a bare key
  bool operator==(const NamedAttribute&) const = default;
};

} // namespace ttlplan::ir
