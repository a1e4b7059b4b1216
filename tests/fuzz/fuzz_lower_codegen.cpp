// fuzz_lower_codegen: bytes -> parse + import + verify (in memory); when the module is valid, run
// the default lowering pipeline (lower::kDefaultPipeline: import-ttlang ... plan, apply-plan ...
// lower-sync, the steps of driver::lowerFile, with the plan pass validating its plan) for
// wormhole_b0 under small planner limits, then generate the C++ files (codegen::emitModule, the
// text driver::compileFile writes) in memory. Unbound knobs take lower's first legal binding (not
// lowerFile's search). Diagnostics from any pass or from codegen are fine. A bug is any crash /
// sanitizer report / abort / escaping exception / hang, or a pipeline that succeeds and leaves a
// module codegen cannot emit without reporting why.
#include "FuzzCommon.h"
#include "ttlplan/codegen/Codegen.h"
#include "ttlplan/ir/Device.h"
#include "ttlplan/lower/Pass.h"
#include "ttlplan/lower/PassManager.h"

using namespace ttlplan;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > fuzz::kMaxInputBytes) return -1;
  static const ir::Device device = *ir::builtinDevice("wormhole_b0");
  std::string_view text = fuzz::asText(data, size);
  ir::DiagnosticEngine diags;
  std::unique_ptr<ir::Module> module = fuzz::parseVerify(text, diags);
  if (!module) return 0;
  Expected<lower::PassManager> manager = lower::PassManager::parse(lower::kDefaultPipeline);
  if (!manager) fuzz::fail("the default pipeline does not parse: " + manager.error().message);
  lower::PlanOptions options;
  options.limits.timeLimitSeconds = 0.05;
  options.limits.nodeLimit = 20000;
  options.maxBlockCount = 2;
  lower::PassContext context{*module, device, diags, options, std::nullopt, {}, true};
  if (!manager->run(context)) return 0;
  ir::SourceManager sources;
  sources.add("fuzz.ttl", std::string(text));
  codegen::EmitOptions emit;
  emit.sources = &sources;
  emit.inputFile = "fuzz.ttl";
  ir::DiagnosticEngine emitDiags;
  auto files = codegen::emitModule(*module, device, context.plan ? &*context.plan : nullptr, emit,
                                   emitDiags);
  if (!files && !emitDiags.hasErrors())
    fuzz::fail("emitModule failed without an error", std::string(text));
  return 0;
}
