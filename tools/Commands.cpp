#include "tools/Commands.h"

#include "tools/Terminal.h"
#include "ttlplan/ir/Device.h"
#include "ttlplan/ir/ExpectedDiagnostics.h"
#include "ttlplan/lower/PlanReport.h"
#include "ttlplan/support/JsonText.h"
#include "ttlplan/support/ReadFile.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

namespace ttlplan::tools {

int writeOutput(const std::string& path, const std::string& text) {
  if (path.empty()) {
    std::cout << text;
    return kSuccess;
  }
  errno = 0;
  std::ofstream out(path, std::ios::binary);
  if (out << text && out.flush()) return kSuccess;
  // The stream keeps no reason; the failed open or write left it in errno.
  std::cerr << fmt::format("ttlplan: error: cannot write '{}'{}\n", path,
                           errno ? std::string(": ") + std::strerror(errno) : "");
  return kInvalidInput;
}

int report(const driver::Error& error) {
  std::cerr << paintDiagnostics(error.text(), terminal().colourStderr);
  return error.exitCode();
}

int reportWithJson(const driver::Error& error, const std::string& jsonOutput) {
  if (error.infeasible && !jsonOutput.empty())
    writeOutput(jsonOutput == "-" ? "" : jsonOutput,
                jsonText(lower::toJson(*error.infeasible), 2) + "\n");
  return report(error);
}

void logToStderr(const std::string& line) {
  // -q keeps warnings (and the errors, which report() prints) and drops the notes.
  if (terminal().verbosity == Verbosity::Quiet && line.find("warning:") == std::string::npos)
    return;
  std::cerr << paintDiagnostics(line, terminal().colourStderr);
}

std::optional<ir::Device> resolveDevice(const DeviceFlags& flags, int& exitCode) {
  if (flags.target == driver::kPtoTarget) {
    exitCode = report(driver::Error::usage(
        "--target pto: this command works on Tenstorrent devices only so far; `ttlplan plan "
        "--target pto` plans for Ascend AI cores (docs/pto.md)"));
    return std::nullopt;
  }
  driver::Result<ir::Device> device = driver::loadDevice(flags);
  if (device) return std::move(device).value();
  exitCode = report(device.error());
  return std::nullopt;
}

int forEachChunk(const std::string& path, bool split, const std::vector<std::string>& outputs,
                 const std::function<int(std::optional<size_t>)>& each) {
  if (!split) return each(std::nullopt);
  for (const std::string& output : outputs)
    if (!output.empty() && output != "-") {
      std::cerr << fmt::format("ttlplan: error: --split-input-file prints each chunk's output to "
                               "stdout; '{}' would keep only the last: drop the output file\n",
                               output);
      return kUsageError;
    }
  Expected<std::string> text = readTextFile(path);
  if (!text) {
    std::cerr << driver::errorLine(text.error().message);
    return kUsageError;
  }
  size_t count = ir::splitInputFile(*text).size();
  int worst = kSuccess;
  for (size_t i = 0; i < count; ++i) {
    if (i) std::cout << "// -----\n" << std::flush;
    worst = std::max(worst, each(i));
    std::cout << std::flush;
  }
  return worst;
}

} // namespace ttlplan::tools
