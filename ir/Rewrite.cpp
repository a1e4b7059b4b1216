#include "ttlplan/ir/Rewrite.h"

#include <algorithm>
#include <cassert>

namespace ttlplan::ir {

Block::OpList::iterator iteratorOf(Operation* op) {
  Block* block = op->parentBlock();
  assert(block);
  return std::find_if(block->operations().begin(), block->operations().end(),
                      [&](const auto& p) { return p.get() == op; });
}

OpBuilder OpBuilder::before(Operation* op) {
  return OpBuilder(op->parentBlock(), iteratorOf(op), op->location());
}

OpBuilder OpBuilder::after(Operation* op) {
  return OpBuilder(op->parentBlock(), std::next(iteratorOf(op)), op->location());
}

OpBuilder OpBuilder::atEnd(Block& block) {
  Operation* parent = block.parentOp();
  return OpBuilder(&block, block.operations().end(), parent ? parent->location() : Location());
}

OpBuilder OpBuilder::atStart(Block& block) {
  Operation* parent = block.parentOp();
  return OpBuilder(&block, block.operations().begin(), parent ? parent->location() : Location());
}

OpBuilder OpBuilder::bodyBuilder(Operation* op, unsigned region) {
  Block& block = op->body(region);
  Operation* last = block.back();
  if (last && last->name() == "scf.yield") return before(last).withLocation(op->location());
  return atEnd(block).withLocation(op->location());
}

OpBuilder OpBuilder::withLocation(Location location) && {
  location_ = std::move(location);
  return std::move(*this);
}

Operation* OpBuilder::insert(std::unique_ptr<Operation> op) {
  return block_->insert(it_, std::move(op));
}

Operation* OpBuilder::create(std::string name, std::vector<Value*> operands,
                             std::vector<Type> resultTypes, std::vector<NamedAttribute> attributes,
                             unsigned numRegions) {
  return insert(Operation::create(std::move(name), location_, std::move(operands),
                                  std::move(resultTypes), std::move(attributes), numRegions));
}

Value* OpBuilder::constant(int64_t value, Type type, std::string nameHint) {
  Operation* op =
      create("arith.constant", {}, {type}, {{"value", Attribute::integer(value, type)}});
  Value* result = op->result(0);
  result->setNameHint(
      nameHint.empty() ? (value < 0 ? "cm" + std::to_string(-value) : "c" + std::to_string(value))
                       : std::move(nameHint));
  return result;
}

Value* OpBuilder::arith(std::string_view name, Value* lhs, Value* rhs, std::string nameHint) {
  Operation* op = create("arith." + std::string(name), {lhs, rhs}, {lhs->type()});
  op->result(0)->setNameHint(std::move(nameHint));
  return op->result(0);
}

Value* OpBuilder::call(std::string_view fn, std::vector<Value*> operands, Type resultType,
                       std::vector<NamedAttribute> attributes, std::string nameHint) {
  std::vector<Type> results;
  if (resultType) results.push_back(resultType);
  Operation* op = create("ttkernel." + std::string(fn), std::move(operands), std::move(results),
                         std::move(attributes));
  if (!resultType) return nullptr;
  op->result(0)->setNameHint(std::move(nameHint));
  return op->result(0);
}

Operation* OpBuilder::forLoop(Value* lb, Value* ub, Value* step, std::string ivName) {
  Operation* op = create("scf.for", {lb, ub, step}, {}, {}, 1);
  Block& body = op->region(0).addBlock();
  body.addArgument(Type::index(), std::move(ivName), location_);
  body.push_back(Operation::create("scf.yield", location_));
  return op;
}

Operation* OpBuilder::ifOp(Value* condition, bool withElse) {
  Operation* op = create("scf.if", {condition}, {}, {}, 2);
  op->region(0).addBlock().push_back(Operation::create("scf.yield", location_));
  if (withElse) op->region(1).addBlock().push_back(Operation::create("scf.yield", location_));
  return op;
}

void replaceAllUsesWith(Operation* scope, Value* from, Value* to) {
  scope->walk([&](Operation* op) {
    for (size_t i = 0; i < op->numOperands(); ++i)
      if (op->operand(i) == from) op->setOperand(i, to);
  });
}

bool hasUses(Operation* scope, const Value* value) {
  bool used = false;
  scope->walk([&](Operation* op) {
    for (Value* operand : op->operands())
      used = used || operand == value;
  });
  return used;
}

void eraseOp(Operation* op) {
  Block* block = op->parentBlock();
  assert(block);
  block->remove(op); // destroyed here
}

std::unique_ptr<Operation> cloneOp(const Operation* op, std::map<const Value*, Value*>& mapping) {
  std::vector<Value*> operands;
  for (Value* v : op->operands()) {
    auto it = mapping.find(v);
    operands.push_back(it == mapping.end() ? v : it->second);
  }
  std::vector<Type> types;
  for (Value* r : op->results())
    types.push_back(r->type());
  auto clone = Operation::create(op->name(), op->location(), std::move(operands), std::move(types),
                                 op->attributes(), static_cast<unsigned>(op->numRegions()));
  clone->setProperties(op->properties());
  for (size_t i = 0; i < op->numResults(); ++i) {
    clone->result(i)->setNameHint(op->result(i)->nameHint());
    mapping[op->result(i)] = clone->result(i);
  }
  for (size_t r = 0; r < op->numRegions(); ++r) {
    for (const auto& block : op->region(r).blocks()) {
      Block& newBlock = clone->region(r).addBlock();
      for (Value* arg : block->arguments())
        mapping[arg] = newBlock.addArgument(arg->type(), arg->nameHint(), arg->location());
      for (const auto& inner : block->operations())
        newBlock.push_back(cloneOp(inner.get(), mapping));
    }
  }
  return clone;
}

Module cloneModule(const Module& module) {
  std::map<const Value*, Value*> mapping;
  Module out;
  out.op = cloneOp(module.op.get(), mapping);
  out.aliases = module.aliases;
  out.fileName = module.fileName;
  return out;
}

} // namespace ttlplan::ir
