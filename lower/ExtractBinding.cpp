// Knob bindings for `ttlplan plan`: --bind, or the first binding every ttl.require accepts.
#include "ir/Ops.h"
#include "lower/Extract.h"

#include <algorithm>
#include <charconv>
#include <fmt/format.h>

namespace ttlplan::lower {

namespace {

std::vector<ir::Operation*> requires_(const ir::Module& module) {
  std::vector<ir::Operation*> out;
  module.op->walk([&](ir::Operation* op) {
    if (op->isa(ir::RequireOp::kName)) out.push_back(op);
  });
  return out;
}

std::string trim(std::string s) {
  size_t b = s.find_first_not_of(" \t");
  size_t e = s.find_last_not_of(" \t");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

} // namespace

std::string valueName(const ir::Value* value) {
  if (!value) return "%?";
  if (!value->nameHint().empty()) return "%" + value->nameHint();
  if (value->definingOp()) return "%<" + value->definingOp()->name() + ">";
  return "%arg" + std::to_string(value->index());
}

Expected<ir::Binding> parseBindingList(const std::string& text) {
  ir::Binding binding;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string item =
        trim(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    start = comma == std::string::npos ? text.size() + 1 : comma + 1;
    if (item.empty()) continue;
    size_t eq = item.find('=');
    if (eq == std::string::npos) return Error{fmt::format("--bind: '{}' is not NAME=VALUE", item)};
    std::string name = trim(item.substr(0, eq));
    if (!name.empty() && name[0] == '@') name.erase(0, 1);
    std::string number = trim(item.substr(eq + 1));
    int64_t value = 0;
    auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (name.empty() || ec != std::errc() || ptr != number.data() + number.size())
      return Error{fmt::format("--bind: '{}' is not NAME=VALUE with an integer VALUE", item)};
    binding[name] = value;
  }
  return binding;
}

Expected<ChosenBinding> chooseBinding(const ir::Module& module,
                                      const std::optional<ir::Binding>& requested) {
  std::vector<ir::Param> params = ir::collectParams(module);
  std::vector<ir::Operation*> reqs = requires_(module);
  auto failing = [&](const ir::Binding& b) -> ir::Operation* {
    for (ir::Operation* r : reqs) {
      std::optional<bool> v = ir::foldRequire(*r, b);
      if (!v || !*v) return r;
    }
    return nullptr;
  };
  if (requested) {
    for (const auto& [name, value] : *requested) {
      const ir::Param* p = ir::findParam(params, name);
      if (!p) return Error{fmt::format("--bind: the module has no knob @{}", name)};
      if (std::find(p->values.begin(), p->values.end(), value) == p->values.end())
        return Error{fmt::format("--bind: {} is not a value of @{} ({})", value, name,
                                 p->op->location().str())};
    }
    for (const ir::Param& p : params)
      if (!requested->count(p.name))
        return Error{
            fmt::format("--bind: knob @{} ({}) is not bound", p.name, p.op->location().str())};
    if (ir::Operation* bad = failing(*requested))
      return Error{fmt::format("{}: error: ttl.require does not hold under the --bind binding",
                               bad->location().str())};
    return ChosenBinding{*requested, "--bind"};
  }
  if (params.empty()) {
    if (ir::Operation* bad = failing({}))
      return Error{fmt::format("{}: error: ttl.require does not hold", bad->location().str())};
    return ChosenBinding{{}, "none (the module has no knobs)"};
  }
  std::vector<const ir::Param*> knobs;
  for (const ir::Param& p : params)
    if (std::none_of(knobs.begin(), knobs.end(),
                     [&](const ir::Param* k) { return k->name == p.name; }))
      knobs.push_back(&p);
  std::optional<ir::Binding> found;
  (void)ir::forEachBinding(knobs, [&](const ir::Binding& b) {
    if (failing(b)) return true;
    found = b;
    return false;
  });
  if (!found)
    return Error{
        fmt::format("no binding of the {} knobs satisfies every ttl.require", knobs.size())};
  return ChosenBinding{*found, "first binding satisfying every ttl.require"};
}

} // namespace ttlplan::lower
