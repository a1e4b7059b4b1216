#pragma once
// The pass registry and pipelines (docs/lowering.md). A pipeline is a string of pass names
// separated by commas, each optionally followed by `{opt=value,...}`.
#include "ttlplan/lower/Pass.h"
#include "ttlplan/support/Expected.h"
#include "ttlplan/support/Options.h"

#include <functional>
#include <iosfwd>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ttlplan::lower {

/// One registry entry.
struct PassInfo {
  std::string_view name;    ///< "expand-threads"
  std::string_view summary; ///< one line for `ttlplan lower --help` and docs
  /// Its options (support/Options.h), for the pipeline parser, `--help` and docs/options.md; the
  /// plan pass takes the planner's table (planner/Options.h).
  std::vector<OptionRecord> options;
  std::function<std::unique_ptr<Pass>()> create;
};

/// The option tables of the passes that have options of their own ("pass NAME"), for `ttlplan
/// options` and docs/options.md; the plan pass's are the planner's table.
std::vector<OptionTable> passOptionTables();

/// Every registered pass, in pipeline order.
std::span<const PassInfo> registeredPasses();
const PassInfo* lookupPass(std::string_view name);

/// The pipeline `ttlplan lower`, `compile` and `run` use when no --pipeline is given.
inline constexpr std::string_view kDefaultPipeline =
    "import-ttlang,verify,infer-pipe-semaphores,insert-sync,add-reduce-scaler,plan,apply-plan,"
    "infer-dst,"
    "expand-threads,"
    "lower-compute,lower-data-movement,lower-sync";

struct PipelineOptions {
  bool printIrAfterAll = false;          ///< --print-ir-after-all
  std::vector<std::string> printIrAfter; ///< --print-ir-after=NAME
  bool timePasses = false;               ///< --time-passes
  bool generic = false;                  ///< dumps in generic form (--generic)
  /// Where IR dumps and the timing table go (stderr in the CLI).
  std::function<void(const std::string&)> dump;
};

/// Parsed pipeline, ready to run.
class PassManager {
public:
  /// Parses `pipeline`; an error names the unknown pass or option (and the passes known).
  static Expected<PassManager> parse(std::string_view pipeline);
  /// Runs every pass in order; stops at the first that fails (its diagnostics are in context).
  bool run(PassContext& context, const PipelineOptions& options = {});
  const std::vector<std::string>& passNames() const { return names_; }

private:
  std::vector<std::string> names_;
  std::vector<std::unique_ptr<Pass>> passes_;
};

} // namespace ttlplan::lower
