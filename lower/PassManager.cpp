#include "ttlplan/lower/PassManager.h"

#include "ttlplan/ir/Printer.h"

#include <chrono>
#include <fmt/format.h>

namespace ttlplan::lower {

const PassInfo* lookupPass(std::string_view name) {
  for (const PassInfo& info : registeredPasses())
    if (info.name == name) return &info;
  return nullptr;
}

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\n' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

std::string knownPasses() {
  std::string out;
  for (const PassInfo& info : registeredPasses())
    out += fmt::format("{}{}", out.empty() ? "" : ", ", info.name);
  return out;
}

/// Splits "a,b{x=1,y=2},c" at the commas outside braces.
Expected<std::vector<std::string_view>> splitPipeline(std::string_view text) {
  std::vector<std::string_view> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    char c = i < text.size() ? text[i] : ',';
    if (c == '{') ++depth;
    if (c == '}' && --depth < 0) return Error{"pipeline: '}' without '{'"};
    if (c == ',' && depth == 0) {
      parts.push_back(trim(text.substr(start, i - start)));
      start = i + 1;
    }
  }
  if (depth != 0) return Error{"pipeline: '{' without '}'"};
  return parts;
}

Status applyOptions(Pass& pass, const PassInfo& info, std::string_view options) {
  size_t start = 0;
  while (start <= options.size()) {
    size_t comma = options.find(',', start);
    std::string_view item = trim(options.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    start = comma == std::string_view::npos ? options.size() + 1 : comma + 1;
    if (item.empty()) continue;
    size_t eq = item.find('=');
    if (eq == std::string_view::npos)
      return Error{fmt::format("pipeline: option '{}' of pass '{}' needs a value (name=value)",
                               item, info.name)};
    std::string_view name = trim(item.substr(0, eq));
    std::string_view value = trim(item.substr(eq + 1));
    bool known = false;
    for (const OptionRecord& o : info.options)
      known = known || o.name == name;
    if (!known) {
      std::string names;
      for (const OptionRecord& o : info.options)
        names += fmt::format("{}{}", names.empty() ? "" : ", ", o.name);
      return Error{fmt::format("pipeline: pass '{}' has no option '{}' (options: {})", info.name,
                               name, names.empty() ? "none" : names)};
    }
    Status status = pass.setOption(name, value);
    if (!status)
      return Error{
          fmt::format("pipeline: {}{{{}={}}}: {}", info.name, name, value, status.error().message)};
  }
  return Status::success();
}

} // namespace

Expected<PassManager> PassManager::parse(std::string_view pipeline) {
  Expected<std::vector<std::string_view>> parts = splitPipeline(pipeline);
  if (!parts) return parts.error();
  PassManager manager;
  for (std::string_view part : *parts) {
    if (part.empty()) return Error{"pipeline: empty pass name (two commas in a row?)"};
    size_t brace = part.find('{');
    std::string_view name = trim(part.substr(0, brace));
    const PassInfo* info = lookupPass(name);
    if (!info)
      return Error{
          fmt::format("pipeline: unknown pass '{}' (known passes: {})", name, knownPasses())};
    std::unique_ptr<Pass> pass = info->create();
    if (brace != std::string_view::npos) {
      if (part.back() != '}')
        return Error{fmt::format("pipeline: text after the options of '{}'", name)};
      Status status = applyOptions(*pass, *info, part.substr(brace + 1, part.size() - brace - 2));
      if (!status) return status.error();
    }
    manager.names_.emplace_back(name);
    manager.passes_.push_back(std::move(pass));
  }
  return manager;
}

bool PassManager::run(PassContext& context, const PipelineOptions& options) {
  struct Timing {
    std::string name;
    double milliseconds;
    const Pass* pass;
  };
  std::vector<Timing> timings;
  auto dump = [&](const std::string& text) {
    if (options.dump) options.dump(text);
  };
  bool ok = true;
  for (size_t i = 0; i < passes_.size() && ok; ++i) {
    auto start = std::chrono::steady_clock::now();
    ok = passes_[i]->run(context);
    if (ok && context.diagnostics.hasErrors()) ok = false;
    if (passes_[i]->changedModule()) context.verified = false;
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    timings.push_back({names_[i], ms, passes_[i].get()});
    bool wanted = options.printIrAfterAll;
    for (const std::string& n : options.printIrAfter)
      wanted = wanted || n == names_[i];
    if (ok && wanted) {
      ir::PrintOptions print;
      print.generic = options.generic;
      dump(fmt::format("// -----// IR Dump After {} //----- //\n{}", names_[i],
                       ir::print(context.module, print)));
    }
  }
  if (options.timePasses) {
    double total = 0;
    for (const Timing& t : timings)
      total += t.milliseconds;
    std::string table = "===-------------------------------------------------------------===\n"
                        "  pass timing report (wall time)\n"
                        "===-------------------------------------------------------------===\n";
    for (const Timing& t : timings) {
      table += fmt::format("  {:>10.3f} ms {:>5.1f}%  {}\n", t.milliseconds,
                           total > 0 ? 100.0 * t.milliseconds / total : 0.0, t.name);
      for (const PassStatistic& s : t.pass->statistics())
        table += fmt::format("                          {:>8} {} ({})\n", s.value, s.name, s.doc);
    }
    table += fmt::format("  {:>10.3f} ms 100.0%  total\n", total);
    dump(table);
  }
  return ok;
}

} // namespace ttlplan::lower
