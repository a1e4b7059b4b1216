#include "codegen/Codegen.h"

#include "codegen/HostEmitter.h"
#include "lower/PlanReport.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>

namespace ttlplan::codegen {

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

std::optional<std::vector<GeneratedFile>> emitModule(ir::Module& module, const ir::Device& device,
                                                     const lower::ModulePlan* plan,
                                                     const EmitOptions& options,
                                                     ir::DiagnosticEngine& diagnostics) {
  std::optional<std::vector<KernelThreads>> kernels = collectKernels(module, diagnostics);
  if (!kernels) return std::nullopt;
  std::vector<GeneratedFile> files;
  bool ok = true;
  for (const KernelThreads& k : *kernels) {
    for (size_t t = 0; t < k.threads.size(); ++t) {
      if (!k.threads[t]) continue;
      std::optional<std::string> text = emitKernel(*k.threads[t], options, diagnostics);
      if (!text) {
        ok = false;
        continue;
      }
      files.push_back({fmt::format("{}/{}.cpp", k.name, fileStem(static_cast<ThreadKind>(t))),
                       std::move(*text)});
    }
    std::optional<std::string> host = emitHost(*k.kernel, k.funcs(), device, options, diagnostics);
    if (!host) {
      ok = false;
      continue;
    }
    files.push_back({k.name + "/host.cpp", std::move(*host)});
  }
  if (!ok) return std::nullopt;
  if (plan) {
    files.push_back({"plan.json", lower::toJson(*plan).dump(2) + "\n"});
    files.push_back({"report.txt", lower::formatReport(*plan)});
  }
  return files;
}

Status writeFiles(const std::string& dir, const std::vector<GeneratedFile>& files) {
  namespace fs = std::filesystem;
  for (const GeneratedFile& f : files) {
    fs::path path = fs::path(dir) / f.path;
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    if (ec)
      return Error{fmt::format("cannot create directory '{}': {}", path.parent_path().string(),
                               ec.message())};
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out)
      return Error{fmt::format("cannot write '{}': {}", path.string(), std::strerror(errno))};
    out << f.text;
    out.close();
    if (!out)
      return Error{fmt::format("cannot write '{}': {}", path.string(), std::strerror(errno))};
  }
  return Status::success();
}

} // namespace ttlplan::codegen
