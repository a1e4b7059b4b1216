#pragma once
// Generic operations (MLIR-style): a name, operands, results, attributes, regions of blocks with
// arguments, and a location. Typed views for the TTL ops live in ir/Ops.h. Ops this IR does not
// know (upstream `scf`/`arith`/`func` or later annotations) are kept as they are.
#include "ttlplan/ir/AsmPrinting.h"
#include "ttlplan/ir/Attributes.h"
#include "ttlplan/ir/Location.h"
#include "ttlplan/ir/Types.h"

#include <functional>
#include <list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ttlplan::ir {

class Block;
class Operation;
class Region;
struct OpDef;
void moveRegionBody(Region& from, Region& into);

/// An SSA value: an op result or a block argument. Owned by its op or block.
class Value {
public:
  Type type() const { return type_; }
  void setType(Type type) { type_ = std::move(type); }
  /// The name the user gave it (without '%'); the printer keeps it when it can.
  const std::string& nameHint() const { return name_; }
  void setNameHint(std::string name) { name_ = std::move(name); }
  /// The defining op, or null for a block argument.
  Operation* definingOp() const { return op_; }
  /// The block whose argument this is, or null for an op result.
  Block* ownerBlock() const { return block_; }
  bool isBlockArgument() const { return block_ != nullptr; }
  /// Result number or argument number.
  unsigned index() const { return index_; }
  /// Where the value is defined (the op's location for results).
  Location location() const;
  void setLocation(Location location) { location_ = std::move(location); }

private:
  friend class Operation;
  friend class Block;
  Type type_;
  std::string name_;
  Operation* op_ = nullptr;
  Block* block_ = nullptr;
  unsigned index_ = 0;
  Location location_; ///< for block arguments
};

class Block {
public:
  using OpList = std::list<std::unique_ptr<Operation>>;

  Value* addArgument(Type type, std::string nameHint = {}, Location location = {});
  size_t numArguments() const { return arguments_.size(); }
  Value* argument(size_t i) const { return arguments_[i].get(); }
  std::vector<Value*> arguments() const;

  OpList& operations() { return ops_; }
  const OpList& operations() const { return ops_; }
  bool empty() const { return ops_.empty(); }
  Operation* back() const { return ops_.empty() ? nullptr : ops_.back().get(); }
  Operation* push_back(std::unique_ptr<Operation> op);
  Operation* insert(OpList::iterator before, std::unique_ptr<Operation> op);
  /// Removes the op and returns it (its parent is cleared).
  std::unique_ptr<Operation> remove(Operation* op);

  Region* parentRegion() const { return parent_; }
  Operation* parentOp() const;

private:
  friend class Region;
  friend void moveRegionBody(Region& from, Region& into);
  std::vector<std::unique_ptr<Value>> arguments_;
  OpList ops_;
  Region* parent_ = nullptr;
};

class Region {
public:
  Block& addBlock();
  size_t numBlocks() const { return blocks_.size(); }
  bool empty() const { return blocks_.empty(); }
  Block& front() { return *blocks_.front(); }
  const Block& front() const { return *blocks_.front(); }
  std::vector<std::unique_ptr<Block>>& blocks() { return blocks_; }
  const std::vector<std::unique_ptr<Block>>& blocks() const { return blocks_; }
  Operation* parentOp() const { return parent_; }

private:
  friend class Operation;
  friend void moveRegionBody(Region& from, Region& into);
  std::vector<std::unique_ptr<Block>> blocks_;
  Operation* parent_ = nullptr;
};

class Operation {
public:
  static std::unique_ptr<Operation> create(std::string name, Location location,
                                           std::vector<Value*> operands = {},
                                           std::vector<Type> resultTypes = {},
                                           std::vector<NamedAttribute> attributes = {},
                                           unsigned numRegions = 0);
  ~Operation();
  Operation(const Operation&) = delete;
  Operation& operator=(const Operation&) = delete;

  const std::string& name() const { return name_; }
  /// "ttl" for "ttl.cb_wait"; empty when the name has no dot.
  std::string_view dialect() const;
  /// The registry entry, or null for an op this IR does not know.
  const OpDef* def() const { return def_; }
  bool isa(std::string_view name) const { return name_ == name; }

  const Location& location() const { return location_; }
  void setLocation(Location location) { location_ = std::move(location); }

  size_t numOperands() const { return operands_.size(); }
  Value* operand(size_t i) const { return operands_[i]; }
  const std::vector<Value*>& operands() const { return operands_; }
  void setOperand(size_t i, Value* value) { operands_[i] = value; }
  void setOperands(std::vector<Value*> operands) { operands_ = std::move(operands); }

  size_t numResults() const { return results_.size(); }
  Value* result(size_t i = 0) const { return results_[i].get(); }
  std::vector<Value*> results() const;

  /// Discardable attributes: the `{...}` dictionary.
  const std::vector<NamedAttribute>& attributes() const { return attributes_; }
  /// Properties (MLIR >= 17 generic form `<{...}>`): inherent attributes stored apart, so that they
  /// print back as they were written. Lookups by name (attribute()) see both.
  const std::vector<NamedAttribute>& properties() const { return properties_; }
  void setProperties(std::vector<NamedAttribute> properties) {
    properties_ = std::move(properties);
  }
  /// The attribute or property, or a null Attribute when absent.
  Attribute attribute(std::string_view name) const;
  bool hasAttribute(std::string_view name) const { return static_cast<bool>(attribute(name)); }
  /// Sets or replaces (keeping its position; a property stays a property).
  void setAttribute(std::string_view name, Attribute value);
  bool removeAttribute(std::string_view name);

  size_t numRegions() const { return regions_.size(); }
  Region& region(size_t i = 0) { return *regions_[i]; }
  const Region& region(size_t i = 0) const { return *regions_[i]; }
  /// The single block of region `i`, created if missing.
  Block& body(size_t i = 0);

  Block* parentBlock() const { return parent_; }
  Operation* parentOp() const;
  /// The closest enclosing op (not this one) with the given name, or null.
  Operation* ancestor(std::string_view name) const;
  bool isAncestorOf(const Operation* other) const;

  /// Pre-order walk over this op and every op nested in its regions.
  void walk(const std::function<void(Operation*)>& visit);

private:
  Operation() = default;
  friend class Block;
  std::string name_;
  const OpDef* def_ = nullptr;
  Location location_;
  std::vector<Value*> operands_;
  std::vector<std::unique_ptr<Value>> results_;
  std::vector<NamedAttribute> attributes_;
  std::vector<NamedAttribute> properties_;
  std::vector<std::unique_ptr<Region>> regions_;
  Block* parent_ = nullptr;
};

/// A parsed file: the top-level `builtin.module` op and the file's aliases.
struct Module {
  std::unique_ptr<Operation> op; ///< the `builtin.module`
  AliasTable aliases;            ///< `!name = ...` / `#name = ...` definitions, reprinted on output
  std::string fileName;          ///< where it was read from

  Block& body() { return op->body(); }
  /// Top-level ops with the given name, in order.
  std::vector<Operation*> topLevel(std::string_view name) const;
};

} // namespace ttlplan::ir

namespace ttlplan::ir {
/// Moves the blocks of `from` into `into` (which must be empty), fixing parent links.
void moveRegionBody(Region& from, Region& into);
} // namespace ttlplan::ir
