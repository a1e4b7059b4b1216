#include "ttlplan/ir/Operation.h"

#include "ttlplan/ir/OpRegistry.h"

#include <algorithm>
#include <cassert>

namespace ttlplan::ir {

Location Value::location() const {
  return op_ ? op_->location() : location_;
}

Value* Block::addArgument(Type type, std::string nameHint, Location location) {
  auto value = std::make_unique<Value>();
  value->type_ = std::move(type);
  value->name_ = std::move(nameHint);
  value->block_ = this;
  value->index_ = static_cast<unsigned>(arguments_.size());
  value->location_ = std::move(location);
  arguments_.push_back(std::move(value));
  return arguments_.back().get();
}

std::vector<Value*> Block::arguments() const {
  std::vector<Value*> out;
  for (const auto& a : arguments_)
    out.push_back(a.get());
  return out;
}

Operation* Block::push_back(std::unique_ptr<Operation> op) {
  return insert(ops_.end(), std::move(op));
}

Operation* Block::insert(OpList::iterator before, std::unique_ptr<Operation> op) {
  op->parent_ = this;
  return ops_.insert(before, std::move(op))->get();
}

std::unique_ptr<Operation> Block::remove(Operation* op) {
  auto it = std::find_if(ops_.begin(), ops_.end(), [&](const auto& p) { return p.get() == op; });
  assert(it != ops_.end());
  std::unique_ptr<Operation> owned = std::move(*it);
  ops_.erase(it);
  owned->parent_ = nullptr;
  return owned;
}

Operation* Block::parentOp() const {
  return parent_ ? parent_->parentOp() : nullptr;
}

Block& Region::addBlock() {
  blocks_.push_back(std::make_unique<Block>());
  blocks_.back()->parent_ = this;
  return *blocks_.back();
}

void moveRegionBody(Region& from, Region& into) {
  assert(into.blocks_.empty());
  into.blocks_ = std::move(from.blocks_);
  from.blocks_.clear();
  for (auto& block : into.blocks_)
    block->parent_ = &into;
}

std::unique_ptr<Operation> Operation::create(std::string name, Location location,
                                             std::vector<Value*> operands,
                                             std::vector<Type> resultTypes,
                                             std::vector<NamedAttribute> attributes,
                                             unsigned numRegions) {
  std::unique_ptr<Operation> op(new Operation());
  op->def_ = lookupOp(name);
  op->name_ = std::move(name);
  op->location_ = std::move(location);
  op->operands_ = std::move(operands);
  op->attributes_ = std::move(attributes);
  for (size_t i = 0; i < resultTypes.size(); ++i) {
    auto value = std::make_unique<Value>();
    value->type_ = std::move(resultTypes[i]);
    value->op_ = op.get();
    value->index_ = static_cast<unsigned>(i);
    op->results_.push_back(std::move(value));
  }
  for (unsigned i = 0; i < numRegions; ++i) {
    op->regions_.push_back(std::make_unique<Region>());
    op->regions_.back()->parent_ = op.get();
  }
  return op;
}

Operation::~Operation() = default;

std::string_view Operation::dialect() const {
  size_t dot = name_.find('.');
  return dot == std::string::npos ? std::string_view() : std::string_view(name_).substr(0, dot);
}

std::vector<Value*> Operation::results() const {
  std::vector<Value*> out;
  for (const auto& r : results_)
    out.push_back(r.get());
  return out;
}

Attribute Operation::attribute(std::string_view name) const {
  for (const auto* list : {&attributes_, &properties_})
    for (const NamedAttribute& a : *list)
      if (a.name == name) return a.value;
  return Attribute();
}

void Operation::setAttribute(std::string_view name, Attribute value) {
  for (auto* list : {&attributes_, &properties_})
    for (NamedAttribute& a : *list)
      if (a.name == name) {
        a.value = std::move(value);
        return;
      }
  attributes_.push_back({std::string(name), std::move(value)});
}

bool Operation::removeAttribute(std::string_view name) {
  for (auto* list : {&attributes_, &properties_}) {
    auto it = std::find_if(list->begin(), list->end(),
                           [&](const NamedAttribute& a) { return a.name == name; });
    if (it == list->end()) continue;
    list->erase(it);
    return true;
  }
  return false;
}

Block& Operation::body(size_t i) {
  Region& r = region(i);
  return r.empty() ? r.addBlock() : r.front();
}

Operation* Operation::parentOp() const {
  return parent_ ? parent_->parentOp() : nullptr;
}

Operation* Operation::ancestor(std::string_view name) const {
  for (Operation* p = parentOp(); p; p = p->parentOp())
    if (p->name() == name) return p;
  return nullptr;
}

bool Operation::isAncestorOf(const Operation* other) const {
  for (const Operation* p = other ? other->parentOp() : nullptr; p; p = p->parentOp())
    if (p == this) return true;
  return false;
}

void Operation::walk(const std::function<void(Operation*)>& visit) {
  visit(this);
  for (auto& region : regions_)
    for (auto& block : region->blocks())
      for (auto& op : block->operations())
        op->walk(visit);
}

std::vector<Operation*> Module::topLevel(std::string_view name) const {
  std::vector<Operation*> out;
  if (!op || op->numRegions() == 0 || op->region(0).empty()) return out;
  for (auto& op : op->region(0).front().operations())
    if (op->name() == name) out.push_back(op.get());
  return out;
}

} // namespace ttlplan::ir
