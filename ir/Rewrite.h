#pragma once
// Helpers for passes that rewrite the IR: an insertion-point builder, use replacement, cloning and
// erasing. The IR keeps no use lists, so replacement walks a scope.
#include "ttlplan/ir/Operation.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ttlplan::ir {

/// Creates ops at an insertion point (before an op, or at the end of a block). Every op it makes
/// takes `location` unless given one, so lowered code keeps the user's line.
class OpBuilder {
public:
  /// Inserts before `op`.
  static OpBuilder before(Operation* op);
  /// Inserts after `op`.
  static OpBuilder after(Operation* op);
  /// Appends to `block`.
  static OpBuilder atEnd(Block& block);
  /// Inserts at the start of `block`.
  static OpBuilder atStart(Block& block);

  void setLocation(Location location) { location_ = std::move(location); }
  /// The same insertion point with another location for the ops it creates.
  OpBuilder withLocation(Location location) &&;
  const Location& location() const { return location_; }

  /// Inserts `op` and returns it; the builder then inserts after it.
  Operation* insert(std::unique_ptr<Operation> op);
  /// Creates and inserts an op at the builder's location.
  Operation* create(std::string name, std::vector<Value*> operands = {},
                    std::vector<Type> resultTypes = {}, std::vector<NamedAttribute> attributes = {},
                    unsigned numRegions = 0);
  /// `arith.constant V : index` (or `type`), result named `c<V>` unless `nameHint` is given.
  Value* constant(int64_t value, Type type = Type::index(), std::string nameHint = {});
  /// `arith.<name> lhs, rhs : index`.
  Value* arith(std::string_view name, Value* lhs, Value* rhs, std::string nameHint = {});
  /// `"ttkernel.<fn>"(operands)` with one result of `resultType`, or none when it is null.
  Value* call(std::string_view fn, std::vector<Value*> operands, Type resultType = Type(),
              std::vector<NamedAttribute> attributes = {}, std::string nameHint = {});
  /// `scf.for %iv = lb to ub step step { }` with an empty body ending in scf.yield; returns the op.
  /// `bodyBuilder()` on it inserts before the yield.
  Operation* forLoop(Value* lb, Value* ub, Value* step, std::string ivName = {});
  /// `scf.if %cond { } [else { }]` with yield-terminated regions.
  Operation* ifOp(Value* condition, bool withElse);
  /// Inserts before the terminator of region `i` of `op` (scf.for / scf.if bodies).
  static OpBuilder bodyBuilder(Operation* op, unsigned region = 0);

private:
  OpBuilder(Block* block, Block::OpList::iterator it, Location location)
      : block_(block), it_(it), location_(std::move(location)) {}
  Block* block_;
  Block::OpList::iterator it_;
  Location location_;
};

/// Replaces every use of `from` by `to` in operands of ops nested in `scope` (inclusive).
void replaceAllUsesWith(Operation* scope, Value* from, Value* to);
/// True when some op nested in `scope` (inclusive) uses `value`.
bool hasUses(Operation* scope, const Value* value);
/// Removes `op` from its block and destroys it (its results must be unused).
void eraseOp(Operation* op);
/// Deep copy of `op` with operands remapped through `mapping` (unmapped operands stay); the
/// clone's results and block arguments are added to `mapping`.
std::unique_ptr<Operation> cloneOp(const Operation* op, std::map<const Value*, Value*>& mapping);
/// Deep copy of `module`: its op cloned (SSA values are defined before their uses in walk order,
/// so every operand is remapped to the copy's), its aliases and file name copied.
Module cloneModule(const Module& module);
/// The iterator of `op` in its parent block.
Block::OpList::iterator iteratorOf(Operation* op);

} // namespace ttlplan::ir
