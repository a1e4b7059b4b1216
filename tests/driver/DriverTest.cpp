// The driver library (driver/Driver.h): each workflow as a function, errors as data.
#include "ttlplan/driver/Driver.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <set>

namespace ttlplan::driver {
namespace {

namespace fs = std::filesystem;

const std::string kSource = TTLPLAN_SOURCE_DIR;

std::string example(const std::string& name) {
  return kSource + "/examples/" + name;
}

ir::Device wormhole() {
  Result<ir::Device> d = loadDevice({});
  EXPECT_TRUE(d.ok());
  return *d;
}

/// A fresh scratch folder under the test binary's temporary directory.
fs::path scratch(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("ttlplan-driver-test-" + name);
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

TEST(Driver, DeviceErrorsAreUsageErrors) {
  Result<ir::Device> unknown = loadDevice({"no_such_chip", "", ""});
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().kind, ErrorKind::Usage);
  EXPECT_EQ(unknown.error().exitCode(), 2);
  Result<ir::Device> badGrid = loadDevice({"wormhole_b0", "", "8by8"});
  ASSERT_FALSE(badGrid.ok());
  EXPECT_EQ(badGrid.error().text(),
            "ttlplan: error: --grid '8by8' is not ROWSxCOLUMNS (e.g. 8x8)\n");
  Result<ir::Device> small = loadDevice({"wormhole_b0", "", "2x3"});
  ASSERT_TRUE(small.ok());
  EXPECT_EQ(small->grid.compute.rows, 2);
  EXPECT_EQ(small->grid.compute.columns, 3);
}

TEST(Driver, ParseErrorsKeepTheirLocations) {
  fs::path dir = scratch("parse");
  std::ofstream(dir / "bad.ttl") << "module {\n  ttl.frobnicate\n}\n";
  Result<Source> source = parseVerified((dir / "bad.ttl").string());
  ASSERT_FALSE(source.ok());
  const Error& e = source.error();
  EXPECT_EQ(e.kind, ErrorKind::Input);
  ASSERT_FALSE(e.diagnostics.empty());
  EXPECT_EQ(e.diagnostics[0].location.line, 2u);
  EXPECT_NE(e.text().find("bad.ttl:2:"), std::string::npos) << e.text();
  EXPECT_NE(e.text().find("ttl.frobnicate"), std::string::npos) << e.text(); // the source line
}

TEST(Driver, InfeasiblePlanCarriesTheRejection) {
  // tests/plan/huge_cbs.ttl: 1,572,864 B of CBs against 1,395,424 B free (its comment).
  PlanRequest request;
  request.input = kSource + "/tests/plan/huge_cbs.ttl";
  Result<Planned> planned = planFile(request, wormhole(), nullptr);
  ASSERT_FALSE(planned.ok());
  const Error& e = planned.error();
  EXPECT_EQ(e.kind, ErrorKind::Infeasible);
  ASSERT_TRUE(e.infeasible.has_value());
  EXPECT_EQ(e.infeasible->kernel, "@huge");
  const planner::kernel::Rejection& r = e.infeasible->rejection;
  EXPECT_EQ(r.resource, planner::kernel::Resource::L1);
  EXPECT_EQ(r.needed, 1572864);
  EXPECT_EQ(r.available, 1395424);
  EXPECT_EQ(e.infeasible->cbNames, (std::vector<std::string>{"%cba", "%cbb", "%cbc"}));
  EXPECT_TRUE(e.infeasible->partial.kernels.empty());
  EXPECT_EQ(e.infeasible->partial.device, "wormhole_b0");
  // Located at the kernel, printed with that one prefix.
  EXPECT_TRUE(
      e.message.starts_with(TTLPLAN_SOURCE_DIR "/tests/plan/huge_cbs.ttl:10:3: error: L1: "))
      << e.message;
  EXPECT_EQ(e.text(), e.message + "\n");
  EXPECT_NE(e.message.find("short by 177,440 B"), std::string::npos) << e.message;
}

TEST(Driver, NoTuneNamesTheUnboundKnobs) {
  PlanRequest request;
  request.input = example("matmul_template.ttl");
  request.knobs.bind = "BM=2,BN=2";
  request.knobs.noTune = true;
  Result<Planned> planned = planFile(request, wormhole(), nullptr);
  ASSERT_FALSE(planned.ok());
  EXPECT_EQ(planned.error().kind, ErrorKind::Input);
  EXPECT_NE(planned.error().message.find("3 knobs are unbound (@BK, @WM, @WN)"), std::string::npos)
      << planned.error().message;
}

TEST(Driver, TunedBindingIsLogged) {
  PlanRequest request;
  request.input = example("matmul_template.ttl");
  request.knobs.bind = "BM=2,BN=2,BK=2";
  std::vector<std::string> lines;
  Result<Planned> planned =
      planFile(request, wormhole(), [&](const std::string& line) { lines.push_back(line); });
  ASSERT_TRUE(planned.ok()) << planned.error().text();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("picked"), std::string::npos) << lines[0];
  // The tuned knobs are bound in the plan: the template requires WM * BM = WN * BN = 8.
  EXPECT_EQ(planned->plan.binding.binding.at("WM").integer(), 4);
  EXPECT_EQ(planned->plan.binding.binding.at("WN").integer(), 4);
}

TEST(Driver, ListOutputsNamesWhatCompileWrites) {
  fs::path dir = scratch("compile");
  CompileRequest request;
  request.lower.input = example("eltwise_add.ttl");
  request.output = (dir / "out").string();
  request.emulator = true;
  request.stamp = (dir / "out.stamp").string();
  Result<std::vector<std::string>> listed =
      listOutputs(request.lower.input, request.output, true, wormhole());
  ASSERT_TRUE(listed.ok());
  EXPECT_FALSE(fs::exists(dir / "out"));
  Result<Compiled> compiled = compileFile(request, wormhole(), nullptr);
  ASSERT_TRUE(compiled.ok()) << compiled.error().text();
  std::set<std::string> written;
  for (const auto& entry : fs::recursive_directory_iterator(dir / "out"))
    if (entry.is_regular_file()) written.insert(entry.path().string());
  EXPECT_EQ(written, std::set<std::string>(listed->begin(), listed->end()));
  EXPECT_EQ(compiled->files.size(), listed->size());
  EXPECT_TRUE(fs::exists(dir / "out.stamp"));
  // Again: nothing changed, nothing is rewritten.
  Result<Compiled> again = compileFile(request, wormhole(), nullptr);
  ASSERT_TRUE(again.ok());
  for (bool w : again->written)
    EXPECT_FALSE(w);
}

TEST(Driver, RunOnEmulatorComparesEveryArgument) {
  RunRequest request;
  request.lower.input = example("eltwise_add.ttl");
  Result<RunOutcome> run = runOnEmulator(request, wormhole(), nullptr);
  ASSERT_TRUE(run.ok()) << run.error().text();
  EXPECT_TRUE(run->passed) << run->emulatorOutput;
  EXPECT_EQ(run->emulatorExit, 0);
  ASSERT_EQ(run->arguments.size(), 3u);
  for (const ArgumentCheck& c : run->arguments) {
    EXPECT_TRUE(c.withinTolerance) << c.name << ": " << c.summary;
    EXPECT_TRUE(c.missing.empty()) << c.name;
  }
  EXPECT_TRUE(run->workDirRemoved);
  EXPECT_FALSE(fs::exists(run->workDir));
}

TEST(Driver, CorruptedPlanIsCaughtAsAFailedRun) {
  // A CB forced onto another's address: the plan validators refuse it (Input error) ...
  RunRequest request;
  request.lower.input = example("eltwise_add.ttl");
  request.lower.forcedCbAddresses = {{"%cbb", 103712}};
  Result<RunOutcome> run = runOnEmulator(request, wormhole(), nullptr);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.error().kind, ErrorKind::Input);
  // ... and without them codegen does: TT-Metalium places a program's CBs one after another in
  // creation order, so no host program can realise two CBs at one address (an Input error
  // naming the CB, never generated code that would fail on a card).
  request.lower.validatePlan = false;
  request.workDir = scratch("corrupt").string();
  Result<RunOutcome> unchecked = runOnEmulator(request, wormhole(), nullptr);
  ASSERT_FALSE(unchecked.ok());
  EXPECT_EQ(unchecked.error().kind, ErrorKind::Input);
  EXPECT_NE(unchecked.error().text().find("the plan puts CB %cbb at L1 address 103712"),
            std::string::npos)
      << unchecked.error().text();
}

TEST(Driver, TuneFileSearchesTheUnboundKnobs) {
  TuneRequest request;
  request.input = example("matmul_template.ttl");
  request.top = 3;
  uint64_t spaceSize = 0;
  Result<Tuned> tuned = tuneFile(request, wormhole(), nullptr,
                                 [&](const search::Space& space) { spaceSize = space.size(); });
  ASSERT_TRUE(tuned.ok()) << tuned.error().text();
  EXPECT_EQ(spaceSize, 4096u); // 4^5 knob values x 4 block counts of %cbc
  EXPECT_EQ(tuned->result.evaluated, 4096u);
  ASSERT_EQ(tuned->result.top.size(), 3u);
  EXPECT_LE(*tuned->result.top[0].predictedNs, *tuned->result.top[1].predictedNs);
  EXPECT_TRUE(tuned->fixed.empty());
  EXPECT_FALSE(tuned->baseline.has_value()); // not one of ttnn's matmul templates

  request.strategy = "bogus";
  Result<Tuned> bad = tuneFile(request, wormhole(), nullptr);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind, ErrorKind::Usage);
  request.strategy = "random"; // without --budget-evals
  Result<Tuned> noBudget = tuneFile(request, wormhole(), nullptr);
  ASSERT_FALSE(noBudget.ok());
  EXPECT_EQ(noBudget.error().kind, ErrorKind::Usage);
  request.strategy = "exhaustive";
  request.resume = true;
  Result<Tuned> noDb = tuneFile(request, wormhole(), nullptr);
  ASSERT_FALSE(noDb.ok());
  EXPECT_EQ(noDb.error().text(), "ttlplan: error: --resume needs --db FILE\n");
}

/// Every line of `log` joined (what --time-passes prints goes there).
struct Collected {
  std::string text;
  Log log() {
    return [this](const std::string& line) { text += line; };
  }
};

TEST(Driver, TunedPickIsLoweredWithoutParsingOrPlanningAgain) {
  // The template is read from a copy that is removed once the search is done: lowering the pick
  // must not read the file again.
  fs::path dir = scratch("tuned-pick");
  fs::copy_file(example("matmul_template.ttl"), dir / "kernel.ttl");
  TuneRequest request;
  request.input = (dir / "kernel.ttl").string();
  request.top = 1;
  request.keepPickPlans = true;
  Result<Tuned> tuned = tuneFile(request, wormhole(), nullptr);
  ASSERT_TRUE(tuned.ok()) << tuned.error().text();
  ASSERT_TRUE(tuned->pick.has_value());
  Result<lower::PlanOptions> options = pickPlanOptions(*tuned, request.maxBlockCount);
  ASSERT_TRUE(options.ok()) << options.error().text();
  ASSERT_EQ(options->kernelPlans.size(), 1u); // the search's plan of the pick, kept
  const ir::Binding binding = *options->binding;
  const std::vector<std::map<size_t, int64_t>> blockCounts = options->kernelBlockCounts;
  fs::remove(dir / "kernel.ttl");

  LowerRequest lower;
  lower.input = request.input;
  lower.timePasses = true;
  Collected passes;
  Result<Lowered> lowered =
      lowerSource(std::move(tuned->source), lower, wormhole(), passes.log(), std::move(*options));
  ASSERT_TRUE(lowered.ok()) << lowered.error().text();
  // The plan pass took the search's plan and planned nothing.
  EXPECT_NE(passes.text.find(" 1 plans-from-search "), std::string::npos) << passes.text;
  EXPECT_EQ(passes.text.find("kernels-planned"), std::string::npos) << passes.text;
  CompileRequest compile;
  compile.lower = lower;
  compile.output = (dir / "pick").string();
  Result<Compiled> fromPick = compileLowered(*lowered, compile, wormhole());
  ASSERT_TRUE(fromPick.ok()) << fromPick.error().text();

  // The same files as planning the pick afresh from the file (--bind and its block counts).
  fs::copy_file(example("matmul_template.ttl"), dir / "kernel.ttl");
  CompileRequest again;
  again.lower.input = request.input;
  again.lower.timePasses = true;
  again.lower.knobs.bind = ir::str(binding);
  again.lower.kernelBlockCounts = blockCounts;
  again.output = (dir / "again").string();
  Collected replanned;
  Result<Compiled> fromFile = compileFile(again, wormhole(), replanned.log());
  ASSERT_TRUE(fromFile.ok()) << fromFile.error().text();
  EXPECT_NE(replanned.text.find(" 1 kernels-planned "), std::string::npos) << replanned.text;
  ASSERT_EQ(fromPick->files.size(), fromFile->files.size());
  for (size_t i = 0; i < fromPick->files.size(); ++i) {
    EXPECT_EQ(fromPick->files[i].path, fromFile->files[i].path);
    EXPECT_EQ(fromPick->files[i].text, fromFile->files[i].text) << fromPick->files[i].path;
  }
}

TEST(Driver, CompileTakesTheTunedPlanUnlessThePlannerOptionsDiffer) {
  fs::path dir = scratch("compile-tuned");
  CompileRequest request;
  request.lower.input = example("matmul_template.ttl");
  request.lower.knobs.bind = "BM=2,BN=2";
  request.lower.timePasses = true;
  request.output = (dir / "out").string();
  Collected tuned;
  ASSERT_TRUE(compileFile(request, wormhole(), tuned.log()).ok());
  EXPECT_NE(tuned.text.find(" 1 plans-from-search "), std::string::npos) << tuned.text;
  EXPECT_EQ(tuned.text.find("kernels-planned"), std::string::npos) << tuned.text;
  // Another L1 solver than the search's: the pick is planned with it.
  request.lower.solver = "best-fit-decreasing";
  Collected other;
  ASSERT_TRUE(compileFile(request, wormhole(), other.log()).ok());
  EXPECT_NE(other.text.find(" 1 kernels-planned "), std::string::npos) << other.text;
  EXPECT_EQ(other.text.find("plans-from-search"), std::string::npos) << other.text;
}

TEST(Driver, CompileVerifiesTheModuleOnce) {
  // compile verifies the module before it chooses the binding; the pipeline's verify pass then
  // does not verify it again (nothing changed it: import-ttlang had nothing to convert).
  fs::path dir = scratch("verify-once");
  CompileRequest request;
  request.lower.input = example("eltwise_add.ttl");
  request.lower.timePasses = true;
  request.output = (dir / "out").string();
  Collected compiled;
  ASSERT_TRUE(compileFile(request, wormhole(), compiled.log()).ok());
  EXPECT_NE(compiled.text.find(" 1 already-verified "), std::string::npos) << compiled.text;
  // A pipeline without `plan` is not verified before it runs: its verify pass verifies, and a
  // second verify after a pass that may change the module verifies again.
  LowerRequest lower;
  lower.input = example("eltwise_add.ttl");
  lower.pipeline = "verify,insert-sync,verify";
  lower.timePasses = true;
  Collected lowered;
  ASSERT_TRUE(lowerFile(lower, wormhole(), lowered.log()).ok());
  EXPECT_EQ(lowered.text.find("already-verified"), std::string::npos) << lowered.text;
}

TEST(Driver, RerankOfAnotherKernelIsRefused) {
  fs::path dir = scratch("rerank");
  TuneRequest tune;
  tune.input = example("matmul_template.ttl");
  tune.db = (dir / "records.jsonl").string();
  ASSERT_TRUE(tuneFile(tune, wormhole(), nullptr).ok());
  RerankRequest request;
  request.file = tune.db;
  request.kernel = example("eltwise_add.ttl");
  Result<Reranked> wrong = rerankDb(request, nullptr);
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.error().kind, ErrorKind::Input);
  EXPECT_NE(wrong.error().message.find("is not the kernel the records"), std::string::npos)
      << wrong.error().message;
  // The right kernel: every record is current, so all are kept and nothing is costed again.
  request.kernel = tune.input;
  request.output = (dir / "reranked.jsonl").string();
  Result<Reranked> same = rerankDb(request, nullptr);
  ASSERT_TRUE(same.ok()) << same.error().text();
  EXPECT_EQ(same->kept, same->before.records.size());
  EXPECT_EQ(same->recosted + same->replanned, 0u);
  EXPECT_TRUE(fs::exists(request.output));
}

TEST(Driver, PrintFileReadsBackToTheSameText) {
  PrintRequest request;
  request.input = example("eltwise_add.ttl");
  Result<std::string> printed = printFile(request);
  ASSERT_TRUE(printed.ok()) << printed.error().text();
  fs::path copy = scratch("print") / "printed.ttl";
  std::ofstream(copy) << *printed;
  PrintRequest reread = request;
  reread.input = copy.string();
  Result<std::string> again = printFile(reread);
  ASSERT_TRUE(again.ok()) << again.error().text();
  EXPECT_EQ(*again, *printed);
  request.generic = true;
  Result<std::string> generic = printFile(request);
  ASSERT_TRUE(generic.ok());
  EXPECT_NE(generic->find("\"ttl.kernel\"()"), std::string::npos) << *generic;
}

TEST(Driver, VerifyFileHoldsEveryChunksDiagnostics) {
  const std::string file = kSource + "/tests/verify/cb_protocol.ttl";
  std::ifstream in(file);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t expected = 0;
  for (size_t at = 0; (at = text.find("expected-error", at)) != std::string::npos; ++at)
    ++expected;
  ASSERT_GT(expected, 1u);

  Result<Verified> matched = verifyFile({file, true, true});
  ASSERT_TRUE(matched.ok());
  EXPECT_TRUE(matched->passed) << matched->mismatches;
  EXPECT_TRUE(matched->diagnostics.empty()); // --verify-diagnostics compares, it does not list

  Result<Verified> listed = verifyFile({file, true, false});
  ASSERT_TRUE(listed.ok());
  EXPECT_FALSE(listed->passed);
  size_t errors = 0;
  for (const ir::Diagnostic& d : listed->diagnostics)
    errors += d.severity == ir::Severity::Error;
  EXPECT_EQ(errors, expected);

  Result<Verified> missing = verifyFile({kSource + "/no/such.ttl"});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind, ErrorKind::Io);
}

TEST(Driver, AllocateFilePlacesACsvAndNamesBadRequests) {
  // Live at step 1: a (60 B), b (50 B) and c (10 B), so no placement peaks below 120 B.
  const std::string csv = kSource + "/tests/planner/alloc/small.csv";
  AllocRequest request;
  request.input = csv;
  Result<Allocated> placed = allocateFile(request);
  ASSERT_TRUE(placed.ok()) << placed.error().text();
  EXPECT_EQ(placed->result.status, planner::SolveStatus::Optimal);
  ASSERT_TRUE(placed->result.solution);
  EXPECT_EQ(placed->result.solution->peak, 120);

  AllocRequest tight = request;
  tight.capacity = 100;
  Result<Allocated> over = allocateFile(tight);
  ASSERT_TRUE(over.ok());
  EXPECT_EQ(over->result.status, planner::SolveStatus::Infeasible);

  AllocRequest unknown = request;
  unknown.solver = "simplex";
  Result<Allocated> bad = allocateFile(unknown);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind, ErrorKind::Usage);
}

} // namespace
} // namespace ttlplan::driver
