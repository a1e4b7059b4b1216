// Parser and printer: structure of parsed types and ops, locations, errors. Expected values are
// written from docs/language.md, not copied from the program's output.
#include "ttlplan/ir/Parser.h"

#include "ttlplan/ir/Printer.h"

#include <gtest/gtest.h>
#include <limits>

using namespace ttlplan::ir;

namespace {

std::unique_ptr<Module> parse(const std::string& text, DiagnosticEngine& diags) {
  return parseSource(text, "t.ttl", diags);
}

std::unique_ptr<Module> parseOk(const std::string& text) {
  DiagnosticEngine diags;
  auto module = parse(text, diags);
  EXPECT_TRUE(module) << format(diags.diagnostics());
  return module;
}

/// The single error message of a failing parse, as "line:col: message".
std::string parseError(const std::string& text) {
  DiagnosticEngine diags;
  auto module = parse(text, diags);
  EXPECT_FALSE(module);
  if (diags.diagnostics().size() != 1) return "expected exactly one diagnostic";
  const Diagnostic& d = diags.diagnostics()[0];
  return std::to_string(d.location.line) + ":" + std::to_string(d.location.column) + ": " +
         d.message;
}

Operation* firstOp(Module& module, const std::string& name) {
  Operation* found = nullptr;
  module.op->walk([&](Operation* op) {
    if (!found && op->name() == name) found = op;
  });
  return found;
}

const char* kCbKernel = R"(!tile = !ttcore.tile<32x32, bf16>
ttl.param @BM = [1, 2, 4]
ttl.kernel @k(%a: tensor<256x64xbf16, #ttl.layout<l1, sharded, grid = [2, 1], shard = [128, 64]>>) attributes {grid = [2, 1], work = [@BM, 8]} {
  %cb = ttl.create_cb : !ttl.cb<[@BM, 2], !tile, ?>
  %v = ttl.create_cb : !ttl.cb<[1, 1], !ttcore.tile<32x32, bfp8_b>, 4>
}
)";

} // namespace

TEST(Parser, CircularBufferTypeHoldsShapeTileAndDepth) {
  auto module = parseOk(kCbKernel);
  ASSERT_TRUE(module);
  Operation* create = firstOp(*module, "ttl.create_cb");
  ASSERT_TRUE(create);
  Type cb = create->result(0)->type();
  ASSERT_TRUE(cb.is(TypeKind::CircularBuffer));
  ASSERT_EQ(cb.shape().size(), 2u);
  EXPECT_EQ(cb.shape()[0], Dim::ofParam("BM"));
  EXPECT_EQ(cb.shape()[1], Dim::fixed(2));
  EXPECT_EQ(cb.depth(), Dim::dynamic());
  EXPECT_EQ(cb.elementType(), Type::tile(32, 32, DataType::BF16));
  EXPECT_TRUE(cb.hasParams());
}

TEST(Parser, KernelArgumentsLayoutAndAttributes) {
  auto module = parseOk(kCbKernel);
  ASSERT_TRUE(module);
  Operation* kernel = firstOp(*module, "ttl.kernel");
  ASSERT_TRUE(kernel);
  EXPECT_EQ(kernel->attribute("sym_name"), Attribute::string("k"));
  Block& body = kernel->body();
  ASSERT_EQ(body.numArguments(), 1u);
  Type arg = body.argument(0)->type();
  ASSERT_TRUE(arg.is(TypeKind::Tensor));
  EXPECT_EQ(arg.shape(), (std::vector<Dim>{Dim::fixed(256), Dim::fixed(64)}));
  EXPECT_EQ(arg.elementType(), Type::floating(FloatKind::BF16));
  Layout expected{MemorySpace::L1, true, {2, 1}, {128, 64}};
  EXPECT_EQ(arg.encoding(), Attribute::layout(expected));
  Attribute work = kernel->attribute("work");
  ASSERT_TRUE(work.is(AttrKind::Array));
  EXPECT_EQ(work.elements()[0], Attribute::symbolRef("BM"));
  EXPECT_EQ(work.elements()[1], Attribute::integer(8));
}

TEST(Parser, LocationsAreLineAndColumnOfTheOpName) {
  auto module = parseOk(kCbKernel);
  ASSERT_TRUE(module);
  Operation* create = firstOp(*module, "ttl.create_cb");
  // Line 4 of kCbKernel is "  %cb = ttl.create_cb ..."; the op starts at column 9.
  EXPECT_EQ(create->location().line, 4u);
  EXPECT_EQ(create->location().column, 9u);
  EXPECT_EQ(*create->location().file, "t.ttl");
}

TEST(Parser, TensorShapeWithKnobsReadsBothSpellings) {
  const char* custom = R"(ttl.param @BM = [1]
ttl.param @BK = [2]
"test.use"() {t = tensor<@BMx@BKx!ttcore.tile<32x32, f32>>, u = !ttl.tensor<@BMx4x!ttcore.tile<32x32, f32>>} : () -> ()
)";
  auto module = parseOk(custom);
  ASSERT_TRUE(module);
  Operation* use = firstOp(*module, "test.use");
  Type t = use->attribute("t").valueType();
  EXPECT_EQ(t.shape(), (std::vector<Dim>{Dim::ofParam("BM"), Dim::ofParam("BK")}));
  EXPECT_EQ(t.elementType(), Type::tile(32, 32, DataType::F32));
  Type u = use->attribute("u").valueType();
  EXPECT_EQ(u.shape(), (std::vector<Dim>{Dim::ofParam("BM"), Dim::fixed(4)}));
  EXPECT_EQ(t.str(), "tensor<@BMx@BKx!ttcore.tile<32x32, f32>>");
}

TEST(Parser, GenericAndCustomFormsBuildTheSameOps) {
  const char* custom = R"(module {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = arith.cmpi ult, %c0, %c1 : index
  scf.if %b {
    %s = arith.addi %c0, %c1 : index
  }
}
)";
  const char* generic = R"("builtin.module"() ({
  %c0 = "arith.constant"() {value = 0 : index} : () -> index
  %c1 = "arith.constant"() {value = 1 : index} : () -> index
  %b = "arith.cmpi"(%c0, %c1) {predicate = 6 : i64} : (index, index) -> i1
  "scf.if"(%b) ({
    %s = "arith.addi"(%c0, %c1) : (index, index) -> index
    "scf.yield"() : () -> ()
  }, {
  }) : (i1) -> ()
}) : () -> ()
)";
  auto a = parseOk(custom);
  auto b = parseOk(generic);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(print(*a), print(*b));
  Operation* cmp = firstOp(*a, "arith.cmpi");
  EXPECT_EQ(cmp->attribute("predicate"), Attribute::integer(6)); // ult is 6 in MLIR's enum
  EXPECT_EQ(cmp->result(0)->type(), Type::integer(1));
  Operation* branch = firstOp(*a, "scf.if");
  EXPECT_EQ(branch->region(0).front().back()->name(), "scf.yield"); // implicit terminator
  EXPECT_TRUE(branch->region(1).empty());                           // no else
}

TEST(Parser, MultipleResultsAndUnknownOpsAreKept) {
  auto module = parseOk(R"(%a:2 = "my.pair"() {tag = #my.hint<fast>, flag} : () -> (index, i32)
"my.use"(%a#1, %a#0) : (i32, index) -> ()
)");
  ASSERT_TRUE(module);
  Operation* use = firstOp(*module, "my.use");
  Operation* pair = firstOp(*module, "my.pair");
  EXPECT_EQ(use->operand(0), pair->result(1));
  EXPECT_EQ(use->operand(1), pair->result(0));
  EXPECT_EQ(pair->attribute("tag"), Attribute::opaque("#my.hint<fast>"));
  EXPECT_EQ(pair->attribute("flag"), Attribute::unit());
  std::string text = print(*module);
  EXPECT_NE(text.find("%a:2 = \"my.pair\"()"), std::string::npos) << text;
  EXPECT_NE(text.find("\"my.use\"(%a#1, %a#0)"), std::string::npos) << text;
}

TEST(Parser, PipeCoordinatesMixLiteralsAndValues) {
  auto module = parseOk(R"(ttl.kernel @k() attributes {grid = [1, 8]} {
  ttl.datamovement_thread {
    %y = ttl.core_y : index
    %p = ttl.create_pipe src(0, %y) dst(1, %y) to(7, %y) : !ttl.pipe
  }
}
)");
  ASSERT_TRUE(module);
  Operation* pipe = firstOp(*module, "ttl.create_pipe");
  std::vector<int64_t> coords;
  ASSERT_TRUE(pipe->attribute("static_coords").getIntegers(coords));
  ASSERT_EQ(coords.size(), 6u);
  EXPECT_EQ(coords[0], 0);
  EXPECT_EQ(coords[2], 1);
  EXPECT_EQ(coords[4], 7);
  EXPECT_EQ(pipe->numOperands(), 3u); // the three %y
  EXPECT_NE(print(*module).find("src(0, %y) dst(1, %y) to(7, %y)"), std::string::npos);
}

TEST(Parser, PrinterRenamesShadowingFreeButCollidingNames) {
  // Two values created without names must get distinct printed names.
  auto module = parseOk("module {\n}\n");
  ASSERT_TRUE(module);
  Block& body = module->body();
  auto c = Operation::create("arith.constant", {}, {}, {Type::index()},
                             {{"value", Attribute::integer(1, Type::index())}});
  c->result(0)->setNameHint("x");
  Value* first = body.push_back(std::move(c))->result(0);
  auto d = Operation::create("arith.addi", {}, {first, first}, {Type::index()});
  d->result(0)->setNameHint("x");
  body.push_back(std::move(d));
  std::string text = print(*module);
  EXPECT_NE(text.find("%x = arith.constant 1 : index"), std::string::npos) << text;
  EXPECT_NE(text.find("%x_1 = arith.addi %x, %x : index"), std::string::npos) << text;
}

TEST(ParserErrors, HugeIdentifiersAreCutAndNotComparedAtLength) {
  // Just under the 1 MiB line limit: the did-you-mean search skips names whose length differs by
  // its bound, and the message quotes the first 80 bytes and says how long the name is.
  std::string name(1'000'000, 'x');
  std::string error = parseError("module {\n  " + name + "\n}\n");
  EXPECT_EQ(error, "2:3: unknown op '" + name.substr(0, 80) +
                       "...' (1000000 bytes) (ops without a custom form must be written in "
                       "generic form: \"dialect.op\"(...) : (...) -> (...))");
  // Past it, the line itself is the error.
  name.append(size_t(1) << 20, 'x');
  EXPECT_EQ(parseError("module {\n  " + name + "\n}\n"),
            "2:1: line 2 is 2048578 bytes long; a line may hold at most 1 MiB (is this a text "
            "file?)");
}

TEST(ParserErrors, PointAtTheProblem) {
  EXPECT_EQ(parseError("module {\n  ttl.cb_wiat %x : index\n}\n"),
            "2:3: unknown op 'ttl.cb_wiat'; did you mean 'ttl.cb_wait'?");
  EXPECT_EQ(parseError("module {\n  %a = arith.addi %b, %b : index\n}\n"),
            "2:19: use of undefined value '%b'");
  EXPECT_EQ(parseError("%a = arith.constant 1 : index\n%a = arith.constant 2 : index\n"),
            "2:1: redefinition of SSA value '%a'");
  EXPECT_EQ(parseError("\"x.y\"() {t = !nope} : () -> ()\n"), "1:14: undefined type alias '!nope'");
  EXPECT_EQ(parseError("\"x.y\"() {t = !ttcore.tile<32x32, bf17>} : () -> ()\n"),
            "1:34: unknown tile data type 'bf17'; expected one of bf16, f32, f16, bfp8_b, bfp4_b, "
            "i32, u32");
  EXPECT_EQ(parseError("%c = arith.constant 1 : index\n%d = arith.addi %c, %c : i32\n"),
            "2:17: '%c' has type index but the op says i32");
  EXPECT_EQ(parseError("module {\n"), "2:1: expected '}' to close the region, found end of file");
}

TEST(ParserErrors, NeverCrashOnTruncatedInput) {
  // Every prefix of a valid file either parses or reports an error; none may crash.
  std::string text = kCbKernel;
  for (size_t n = 0; n < text.size(); ++n) {
    DiagnosticEngine diags;
    auto module = parse(text.substr(0, n), diags);
    EXPECT_TRUE(module || diags.hasErrors()) << "prefix " << n;
  }
}

TEST(ParserErrors, HostileInputsGiveOneErrorAndNoCrash) {
  // Each input once crashed, hung or silently changed meaning (see the review notes in git log).
  std::string deepArray = "%c = \"t.x\"() {a = " + std::string(100000, '[') +
                          std::string(100000, ']') + "} : () -> i32\n";
  std::string deepFunction = "\"t.x\"() : () -> " + std::string(100000, '(') + "\n";
  std::string deepModules;
  for (int i = 0; i < 20000; ++i)
    deepModules += "module {\n";
  const std::pair<std::string, std::string> cases[] = {
      {"%a:2 = \"t.x\"() : () -> (i32, i32)\n\"t.y\"(%a#99999999999999999999) : (i32) -> ()\n",
       "result number #99999999999999999999 is out of range"},
      {"%a:2 = \"t.x\"() : () -> (i32, i32)\n\"t.y\"(%a#4294967296) : (i32) -> ()\n",
       "result number #4294967296 is out of range"},
      {"%a:99999999999999999999 = \"t.x\"() : () -> i32\n", "does not fit in 64 bits"},
      {"%a:4294967295, %b:2 = \"t.x\"() : () -> i32\n", "between 1 and 65535"},
      {deepArray, "nesting deeper than 256 levels"},
      {deepFunction, "nesting deeper than 256 levels"},
      {deepModules, "nesting deeper than 256 levels"},
      {"%c = arith.constant 99999999999999999999 : index\n", "does not fit in 64 bits"},
      {"\"t.x\"() {t = !ttcore.tile<99999999999999999999x32, bf16>} : () -> ()\n",
       "tile size does not fit in 64 bits"},
      {"\"t.x\"() {a = array<i64: -9223372036854775809>} : () -> ()\n", "does not fit in 64 bits"},
      {"%c = arith.constant 1.0e400 : f32\n", "does not fit in f32"},
      {"%c = arith.constant 70000.0 : f16\n", "does not fit in f16"},
  };
  for (const auto& [text, message] : cases) {
    DiagnosticEngine diags;
    auto module = parse(text, diags);
    EXPECT_FALSE(module) << text.substr(0, 80);
    ASSERT_EQ(diags.diagnostics().size(), 1u) << text.substr(0, 80);
    EXPECT_NE(diags.diagnostics()[0].message.find(message), std::string::npos)
        << diags.diagnostics()[0].message;
  }
}

TEST(Parser, IntegerLiteralsAreDecimalOrHexNeverOctal) {
  auto module = parseOk("%a = arith.constant 010 : index\n%b = arith.constant 0x10 : index\n"
                        "%c = arith.constant -9223372036854775808 : i64\n");
  ASSERT_TRUE(module);
  std::vector<int64_t> values;
  module->op->walk([&](Operation* op) {
    if (op->name() == "arith.constant") values.push_back(op->attribute("value").intValue());
  });
  EXPECT_EQ(values, (std::vector<int64_t>{10, 16, INT64_MIN}));
}

TEST(Parser, NonFiniteFloatsRoundTripAsBitPatterns) {
  // 0x7F800000 is +inf in f32 and 0xFF800000 is -inf (IEEE 754 single precision);
  // 0x7FF0000000000000 is +inf in f64.
  auto module = parseOk("\"t.x\"() {a = 0x7F800000 : f32, b = 0xFF800000 : f32, "
                        "c = 0x7FF0000000000000 : f64} : () -> ()\n");
  ASSERT_TRUE(module);
  Operation* op = firstOp(*module, "t.x");
  EXPECT_EQ(op->attribute("a").floatValue(), std::numeric_limits<double>::infinity());
  EXPECT_EQ(op->attribute("b").floatValue(), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(op->attribute("c").floatValue(), std::numeric_limits<double>::infinity());
  std::string text = print(*module);
  EXPECT_NE(text.find("a = 0x7F800000 : f32"), std::string::npos) << text;
  EXPECT_NE(text.find("b = 0xFF800000 : f32"), std::string::npos) << text;
  EXPECT_NE(text.find("c = 0x7FF0000000000000 : f64"), std::string::npos) << text;
}
