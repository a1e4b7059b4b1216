#include "ttlplan/codegen/Codegen.h"

#include "ttlplan/codegen/HostEmitter.h"
#include "ttlplan/lower/PlanReport.h"
#include "ttlplan/lower/ThreadRoles.h"
#include "ttlplan/support/ReadFile.h"
#include "ttlplan/support/Version.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>

namespace ttlplan::codegen {

std::string provenance(const ir::Device& device, const lower::ModulePlan* plan) {
  std::string binding = "none";
  if (plan && !plan->binding.binding.empty())
    binding = fmt::format("{} ({})", ir::str(plan->binding.binding), plan->binding.source);
  return fmt::format("{}, device {}, binding {}", kToolVersion, device.name, binding);
}

std::vector<ir::Operation*> KernelThreads::funcs() const {
  std::vector<ir::Operation*> out;
  for (ir::Operation* f : threads)
    if (f) out.push_back(f);
  return out;
}

std::optional<std::vector<KernelThreads>> collectKernels(ir::Module& module,
                                                         ir::DiagnosticEngine& diagnostics) {
  std::vector<KernelThreads> kernels;
  bool ok = true;
  for (ir::Operation* k : module.topLevel("ttl.kernel")) {
    KernelThreads entry;
    entry.name = k->attribute("sym_name").stringValue();
    entry.kernel = k;
    for (auto& op : k->body().operations())
      if (op->isa("ttl.datamovement_thread") || op->isa("ttl.compute_thread")) {
        diagnostics.error(op->location(),
                          fmt::format("codegen: kernel @{} still has a '{}'; run the full "
                                      "pipeline (expand-threads turns threads into functions)",
                                      entry.name, op->name()));
        ok = false;
      }
    kernels.push_back(std::move(entry));
  }
  for (ir::Operation* f : module.topLevel("func.func")) {
    ir::Attribute owner = f->attribute("ttl.kernel");
    if (!owner.is(ir::AttrKind::SymbolRef)) continue; // not a kernel thread
    KernelThreads* k = nullptr;
    for (KernelThreads& candidate : kernels)
      if (candidate.name == owner.stringValue()) k = &candidate;
    if (!k) {
      diagnostics.error(f->location(), fmt::format("codegen: thread function names kernel @{}, "
                                                   "which this module does not have",
                                                   owner.stringValue()));
      ok = false;
      continue;
    }
    std::optional<ThreadKind> kind = threadKindOf(*f);
    if (!kind) {
      diagnostics.error(f->location(), "codegen: thread function without ttl.kernel_thread = "
                                       "\"noc0\" | \"compute\" | \"noc1\"");
      ok = false;
      continue;
    }
    ir::Operation*& slot = k->threads[static_cast<size_t>(*kind)];
    if (slot) {
      diagnostics.error(f->location(),
                        fmt::format("codegen: kernel @{} has two {} thread functions", k->name,
                                    threadAttrValue(*kind)));
      ok = false;
      continue;
    }
    slot = f;
  }
  for (const KernelThreads& k : kernels)
    if (ok && k.funcs().empty()) {
      diagnostics.error(k.kernel->location(),
                        fmt::format("codegen: kernel @{} has no thread functions; run the full "
                                    "pipeline (expand-threads)",
                                    k.name));
      ok = false;
    }
  if (!ok) return std::nullopt;
  return kernels;
}

std::vector<std::string> outputPaths(ir::Module& source, bool planned) {
  std::vector<std::string> out;
  for (ir::Operation* kernel : source.topLevel("ttl.kernel")) {
    std::string name = kernel->attribute("sym_name").stringValue();
    std::vector<lower::ThreadRole> roles = lower::threadRoles(kernel);
    for (ThreadKind kind : {ThreadKind::Reader, ThreadKind::Compute, ThreadKind::Writer})
      for (const lower::ThreadRole& role : roles)
        if (role.suffix == fileStem(kind))
          out.push_back(fmt::format("{}/{}.cpp", name, role.suffix));
    out.push_back(name + "/host.cpp");
  }
  out.push_back(std::string(kNpyHeaderFile));
  if (planned) out.insert(out.end(), {"plan.json", "report.txt"});
  return out;
}

std::optional<std::vector<GeneratedFile>> emitModule(ir::Module& module, const ir::Device& device,
                                                     const lower::ModulePlan* plan,
                                                     const EmitOptions& options,
                                                     ir::DiagnosticEngine& diagnostics) {
  std::optional<std::vector<KernelThreads>> kernels = collectKernels(module, diagnostics);
  if (!kernels) return std::nullopt;
  EmitOptions withProvenance = options;
  if (withProvenance.provenance.empty()) withProvenance.provenance = provenance(device, plan);
  const EmitOptions& emit = withProvenance;
  std::vector<GeneratedFile> files;
  bool ok = true;
  for (const KernelThreads& k : *kernels) {
    for (size_t t = 0; t < k.threads.size(); ++t) {
      if (!k.threads[t]) continue;
      std::optional<std::string> text = emitKernel(*k.threads[t], emit, diagnostics);
      if (!text) {
        ok = false;
        continue;
      }
      files.push_back({fmt::format("{}/{}.cpp", k.name, fileStem(static_cast<ThreadKind>(t))),
                       std::move(*text)});
    }
    std::optional<std::string> host = emitHost(*k.kernel, k.funcs(), device, emit, diagnostics);
    if (!host) {
      ok = false;
      continue;
    }
    files.push_back({k.name + "/host.cpp", std::move(*host)});
  }
  if (!ok) return std::nullopt;
  files.push_back({std::string(kNpyHeaderFile), std::string(npyHeader())});
  if (plan) {
    lower::Timings timings = options.timings ? lower::Timings::Shown : lower::Timings::Omitted;
    nlohmann::json json = lower::toJson(*plan, timings);
    json["generated_by"] = emit.provenance;
    files.push_back({"plan.json", json.dump(2) + "\n"});
    files.push_back({"report.txt", "generated by " + emit.provenance + "\n" +
                                       lower::formatReport(*plan, timings)});
  }
  return files;
}

Expected<std::vector<bool>> writeFiles(const std::string& dir,
                                       const std::vector<GeneratedFile>& files) {
  namespace fs = std::filesystem;
  std::vector<bool> written;
  for (const GeneratedFile& f : files) {
    fs::path path = fs::path(dir) / f.path;
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    if (ec)
      return Error{fmt::format("cannot create directory '{}': {}", path.parent_path().string(),
                               ec.message())};
    // An unchanged file keeps its time stamp, so a build that depends on it does nothing.
    if (Expected<std::string> old = readTextFile(path.string()); old && *old == f.text) {
      written.push_back(false);
      continue;
    }
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out)
      return Error{fmt::format("cannot write '{}': {}", path.string(), std::strerror(errno))};
    out << f.text;
    out.close();
    if (!out)
      return Error{fmt::format("cannot write '{}': {}", path.string(), std::strerror(errno))};
    written.push_back(true);
  }
  return written;
}

} // namespace ttlplan::codegen
