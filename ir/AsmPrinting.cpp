#include "ttlplan/ir/AsmPrinting.h"

#include <bit>
#include <cctype>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace ttlplan::ir {

const std::string* AliasTable::findType(const Type& type, size_t limit) const {
  for (size_t i = 0; i < types.size() && i < limit; ++i)
    if (types[i].second == type) return &types[i].first;
  return nullptr;
}

const std::string* AliasTable::findAttribute(const Attribute& attr, size_t limit) const {
  for (size_t i = 0; i < attributes.size() && i < limit; ++i)
    if (attributes[i].second == attr) return &attributes[i].first;
  return nullptr;
}

std::string quoteString(std::string_view text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c >= 0x7f) {
      out += fmt::format("\\{:02X}", c);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string keyOrString(std::string_view name) {
  bool bare =
      !name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_');
  for (char c : name)
    bare =
        bare && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.');
  return bare ? std::string(name) : quoteString(name);
}

static void printDims(std::string& out, const std::vector<Dim>& dims) {
  for (size_t i = 0; i < dims.size(); ++i)
    out += (i ? ", " : "") + dims[i].str();
}

static void printTypeList(std::string& out, const std::vector<Type>& types,
                          const PrintContext& context) {
  for (size_t i = 0; i < types.size(); ++i) {
    if (i) out += ", ";
    printType(out, types[i], context);
  }
}

static void printTensor(std::string& out, const Type& type, const PrintContext& context) {
  // Builtin tensor shapes cannot hold `@param` dims, knob expressions, a knob element type or a
  // block-float element, so the generic form spells such a tensor as the opaque
  // `!ttl.tensor<...>` that mlir-opt accepts; the parser reads both back as a tensor.
  bool builtin = !type.hasParams() && !type.elementType().is(TypeKind::Opaque);
  out += context.generic && !builtin ? "!ttl.tensor<" : "tensor<";
  for (const Dim& d : type.shape())
    out += d.str() + "x";
  printType(out, type.elementType(), context);
  if (type.encoding()) {
    out += ", ";
    printAttribute(out, type.encoding(), context);
  }
  out += ">";
}

void printType(std::string& out, const Type& type, const PrintContext& context) {
  if (!type) {
    out += "<<null type>>";
    return;
  }
  if (context.aliases)
    if (const std::string* name = context.aliases->findType(type, context.typeAliasLimit)) {
      out += std::string("!") + *name;
      return;
    }
  switch (type.kind()) {
  case TypeKind::Index:
    out += "index";
    return;
  case TypeKind::Integer: {
    const char* prefix = type.signedness() == Signedness::Signless ? "i"
                         : type.signedness() == Signedness::Signed ? "si"
                                                                   : "ui";
    out += fmt::format("{}{}", prefix, type.integerWidth());
    return;
  }
  case TypeKind::Float: {
    static const char* names[] = {"bf16", "f16", "f32", "f64"};
    out += names[static_cast<int>(type.floatKind())];
    return;
  }
  case TypeKind::Tile:
    out += fmt::format("!ttcore.tile<{}x{}, {}>", type.tileRows(), type.tileColumns(),
                       type.tileDataTypeKnob().empty() ? std::string(toString(type.tileDataType()))
                                                       : "@" + type.tileDataTypeKnob());
    return;
  case TypeKind::Knob:
    out += "@" + type.knobName();
    return;
  case TypeKind::Tensor:
    printTensor(out, type, context);
    return;
  case TypeKind::CircularBuffer:
    out += "!ttl.cb<[";
    printDims(out, type.shape());
    out += "], ";
    printType(out, type.elementType(), context);
    out += std::string(", ") + type.depth().str() + ">";
    return;
  case TypeKind::TransferHandle:
    out += type.transferKind() == TransferKind::Read ? "!ttl.transfer_handle<read>"
                                                     : "!ttl.transfer_handle<write>";
    return;
  case TypeKind::Pipe:
    out += "!ttl.pipe";
    return;
  case TypeKind::Semaphore:
    out += "!ttl.semaphore";
    return;
  case TypeKind::Function: {
    out += "(";
    printTypeList(out, type.inputs(), context);
    out += ") -> ";
    const auto& results = type.results();
    bool bare = results.size() == 1 && !results[0].is(TypeKind::Function);
    if (!bare) out += "(";
    printTypeList(out, results, context);
    if (!bare) out += ")";
    return;
  }
  case TypeKind::Opaque:
    out += type.opaqueText();
    return;
  }
}

/// The bit pattern of a non-finite value in its type's width, as MLIR spells infinities and NaNs.
static std::string floatBits(double value, FloatKind kind) {
  switch (kind) {
  case FloatKind::F64:
    return fmt::format("0x{:016X}", std::bit_cast<uint64_t>(value));
  case FloatKind::F32:
    return fmt::format("0x{:08X}", std::bit_cast<uint32_t>(float(value)));
  case FloatKind::BF16:
    return fmt::format("0x{:04X}", std::bit_cast<uint32_t>(float(value)) >> 16);
  case FloatKind::F16:
    if (std::isnan(value)) return "0x7E00";
    return value > 0 ? "0x7C00" : "0xFC00";
  }
  return "0x0";
}

/// Shortest text that reads back as the same double and that MLIR lexes as a float.
static std::string formatFloat(double value, FloatKind kind) {
  if (!std::isfinite(value)) return floatBits(value, kind);
  std::string text = fmt::format("{}", value);
  if (text.find_first_of(".e") == std::string::npos) return text + ".0";
  size_t e = text.find('e');
  if (e != std::string::npos && text.find('.') == std::string::npos) text.insert(e, ".0");
  return text;
}

static void printDictBody(std::string& out, const std::vector<NamedAttribute>& entries,
                          const PrintContext& context) {
  out += "{";
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i) out += ", ";
    out += keyOrString(entries[i].name);
    if (entries[i].value.is(AttrKind::Unit)) continue;
    out += " = ";
    printAttribute(out, entries[i].value, context);
  }
  out += "}";
}

static bool isDefaultType(const Attribute& attr) {
  const Type& t = attr.valueType();
  if (attr.is(AttrKind::Integer)) return t == Type::integer(64);
  return t == Type::floating(FloatKind::F64);
}

void printAttribute(std::string& out, const Attribute& attr, const PrintContext& context) {
  if (!attr) {
    out += "<<null attribute>>";
    return;
  }
  // Only layouts and dialect attributes are named by their alias: a user who aliases `[2, 2]`
  // for `grid` would not expect every other `[2, 2]` to print as that alias.
  bool aliasable = attr.kind() == AttrKind::Layout || attr.kind() == AttrKind::Opaque;
  if (context.aliases && aliasable)
    if (const std::string* name = context.aliases->findAttribute(attr, context.attrAliasLimit)) {
      out += std::string("#") + *name;
      return;
    }
  switch (attr.kind()) {
  case AttrKind::Unit:
    out += "unit";
    return;
  case AttrKind::Bool:
    out += attr.boolValue() ? "true" : "false";
    return;
  case AttrKind::Integer:
  case AttrKind::Float: {
    out += attr.is(AttrKind::Integer)
               ? std::to_string(attr.intValue())
               : formatFloat(attr.floatValue(), attr.valueType().floatKind());
    // A bit pattern reads back as an integer unless its float type is written.
    bool bits = attr.is(AttrKind::Float) && !std::isfinite(attr.floatValue());
    if (bits || !isDefaultType(attr)) {
      out += " : ";
      printType(out, attr.valueType(), context);
    }
    return;
  }
  case AttrKind::String:
    out += quoteString(attr.stringValue());
    return;
  case AttrKind::Array:
    out += "[";
    for (size_t i = 0; i < attr.elements().size(); ++i) {
      if (i) out += ", ";
      printAttribute(out, attr.elements()[i], context);
    }
    out += "]";
    return;
  case AttrKind::DenseArray:
    out += "array<";
    printType(out, attr.valueType(), context);
    for (size_t i = 0; i < attr.denseValues().size(); ++i)
      out += (i ? ", " : ": ") + std::to_string(attr.denseValues()[i]);
    out += ">";
    return;
  case AttrKind::Dictionary:
    printDictBody(out, attr.entries(), context);
    return;
  case AttrKind::SymbolRef:
    out += std::string("@") + keyOrString(attr.stringValue());
    return;
  case AttrKind::TypeAttr:
    printType(out, attr.valueType(), context);
    return;
  case AttrKind::Layout: {
    const Layout& l = attr.layoutValue();
    out += l.memory == MemorySpace::Dram ? "#ttl.layout<dram, " : "#ttl.layout<l1, ";
    if (!l.sharded) {
      out += "interleaved>";
      return;
    }
    out += fmt::format("sharded, grid = [{}], shard = [{}]>", fmt::join(l.grid, ", "),
                       fmt::join(l.shard, ", "));
    return;
  }
  case AttrKind::Opaque:
    out += attr.stringValue();
    return;
  case AttrKind::KnobExpr:
    out += context.generic ? "#ttl.expr<" + attr.exprValue().str() + ">" : attr.exprValue().str();
    return;
  }
}

void printAttributeDict(std::string& out, const std::vector<NamedAttribute>& attrs,
                        const PrintContext& context) {
  if (!attrs.empty()) printDictBody(out, attrs, context);
}

} // namespace ttlplan::ir
