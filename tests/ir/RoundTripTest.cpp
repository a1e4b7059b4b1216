// Round trip: print(parse(print(parse(x)))) == print(parse(x)) in both forms, and
// custom -> generic -> custom and the form without aliases are stable, for every .ttl and .mlir
// file in examples/ and tests/.
#include "ttlplan/ir/ExpectedDiagnostics.h"
#include "ttlplan/ir/Parser.h"
#include "ttlplan/ir/Printer.h"
#include "ttlplan/support/ReadFile.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <sstream>

namespace fs = std::filesystem;
using namespace ttlplan::ir;

namespace {

std::string readFile(const fs::path& path) {
  return ttlplan::readTextFile(path.string()).value();
}

std::vector<fs::path> corpus() {
  std::vector<fs::path> files;
  for (const char* dir : {"examples", "tests"})
    for (const auto& entry : fs::recursive_directory_iterator(fs::path(TTLPLAN_SOURCE_DIR) / dir))
      if (entry.path().extension() == ".ttl" || entry.path().extension() == ".mlir")
        files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

std::string reprint(const std::string& text, bool generic, const std::string& name,
                    bool aliases = true) {
  DiagnosticEngine diags;
  auto module = parseSource(text, name, diags);
  if (!module) return "PARSE ERROR: " + format(diags.diagnostics());
  PrintOptions options;
  options.generic = generic;
  options.useAliases = aliases;
  return print(*module, options);
}

} // namespace

TEST(RoundTrip, CorpusIsNotEmpty) {
  EXPECT_GE(corpus().size(), 7u);
}

TEST(RoundTrip, EveryCorpusFileIsStableInBothForms) {
  for (const fs::path& path : corpus()) {
    bool mustParse = path.string().find("/tests/verify/") == std::string::npos;
    std::vector<std::string> chunks = splitInputFile(readFile(path));
    for (size_t i = 0; i < chunks.size(); ++i) {
      std::string name = path.filename().string() + "#" + std::to_string(i);
      DiagnosticEngine diags;
      if (!parseSource(chunks[i], name, diags)) {
        EXPECT_FALSE(mustParse) << name << ": " << format(diags.diagnostics());
        continue;
      }
      std::string custom = reprint(chunks[i], false, name);
      std::string generic = reprint(chunks[i], true, name);
      EXPECT_EQ(reprint(custom, false, name), custom) << name;
      EXPECT_EQ(reprint(generic, true, name), generic) << name;
      EXPECT_EQ(reprint(generic, false, name), custom) << name << " (generic -> custom)";
      EXPECT_EQ(reprint(custom, true, name), generic) << name << " (custom -> generic)";
      // Without aliases (--no-aliases); location aliases stay, since ops' locations name them.
      std::string plain = reprint(chunks[i], false, name, false);
      EXPECT_EQ(reprint(plain, false, name, false), plain) << name << " (no aliases)";
    }
  }
}
