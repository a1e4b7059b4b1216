// Knob expressions and knob values: parsing, printing with the fewest parentheses, evaluation
// (ceildiv/min/max/%, exact '/', division by zero, symbols where integers are needed), and the
// parser/printer for symbol knobs and expression dims/attributes in both forms.
#include "ttlplan/ir/KnobExpr.h"

#include "ttlplan/ir/Attributes.h"
#include "ttlplan/ir/Params.h"
#include "ttlplan/ir/Parser.h"
#include "ttlplan/ir/Printer.h"

#include <gtest/gtest.h>

namespace ttlplan::ir {
namespace {

KnobExpr parse(const std::string& text) {
  size_t pos = 0;
  std::string error;
  KnobExpr e = parseKnobExpr(text, pos, error);
  EXPECT_TRUE(e) << text << ": " << error;
  EXPECT_EQ(pos, text.size()) << text;
  return e;
}

int64_t eval(const std::string& text, const Binding& b) {
  Expected<int64_t> v = parse(text).evaluate(b);
  EXPECT_TRUE(v) << text << ": " << (v ? "" : v.error().message);
  return v ? *v : -999;
}

std::string evalError(const std::string& text, const Binding& b) {
  Expected<int64_t> v = parse(text).evaluate(b);
  EXPECT_FALSE(v) << text;
  return v ? "" : v.error().message;
}

TEST(KnobExpr, EvaluatesEveryOperator) {
  Binding b{{"M", 100}, {"P", 3}, {"Z", 0}};
  EXPECT_EQ(eval("@M + @P * 2", b), 106); // * binds tighter
  EXPECT_EQ(eval("(@M + @P) * 2", b), 206);
  EXPECT_EQ(eval("@M - @P - 1", b), 96); // left associative
  EXPECT_EQ(eval("@M - (@P - 1)", b), 98);
  EXPECT_EQ(eval("@M % 7", b), 2);
  EXPECT_EQ(eval("ceildiv(@M, 32)", b), 4); // 100 / 32 = 3.125
  EXPECT_EQ(eval("ceildiv(96, 32)", b), 3);
  EXPECT_EQ(eval("min(@M, @P)", b), 3);
  EXPECT_EQ(eval("max(@M, 4 * 32)", b), 128);
  EXPECT_EQ(eval("@M / 4", b), 25);
  EXPECT_EQ(eval("ceildiv(@M, 32 * @P)", b), 2); // 100 / 96
  EXPECT_EQ(eval("max(1, min(@M % 3, 2))", b), 1);
}

TEST(KnobExpr, ReportsDivisionByZeroInexactDivisionAndBadKnobs) {
  Binding b{{"M", 100}, {"Z", 0}, {"D", KnobValue::symbol("bf16")}};
  EXPECT_NE(evalError("@M / @Z", b).find("division by zero"), std::string::npos);
  EXPECT_NE(evalError("ceildiv(@M, @Z)", b).find("division by zero"), std::string::npos);
  EXPECT_NE(evalError("@M % @Z", b).find("division by zero"), std::string::npos);
  EXPECT_EQ(evalError("@M / 32", b), "@M / 32 is not an integer (100 / 32); '/' must divide "
                                     "exactly, use ceildiv to round up");
  EXPECT_EQ(evalError("@D + 1", b), "knob @D is the symbol bf16 where an integer is needed");
  EXPECT_EQ(evalError("@Q + 1", b), "knob @Q has no value");
  EXPECT_NE(evalError("9223372036854775807 + 1", b).find("overflows"), std::string::npos);
}

TEST(KnobExpr, PrintsWithTheFewestParenthesesAndReadsBack) {
  for (const char* text : {"@M + @P * 2", "(@M + @P) * 2", "@M - (@P - 1)", "@M - @P - 1",
                           "ceildiv(@M, 32 * @per_core_M)", "min(@a, @b) % 2", "@a / (@b * @c)",
                           "max(1, min(@M % 3, 2))"}) {
    KnobExpr e = parse(text);
    EXPECT_EQ(e.str(), text);
    EXPECT_EQ(parse(e.str()), e);
  }
  EXPECT_EQ(parse("((@M))  +(2)").str(), "@M + 2");
}

TEST(KnobExpr, StopsWhereTheExpressionEnds) {
  for (auto [text, end] : std::vector<std::pair<std::string, size_t>>{{"@M / 32)x4", 7},
                                                                      {"@BM, 1]", 3},
                                                                      {"2 : index", 1},
                                                                      {"4\n  %r = arith", 1},
                                                                      {"@M // comment", 2}}) {
    size_t pos = 0;
    std::string error;
    EXPECT_TRUE(parseKnobExpr(text, pos, error)) << text << ": " << error;
    EXPECT_EQ(pos, end) << text;
  }
  for (const char* bad : {"ceildiv(@M 2)", "@", "(@M + 1", "foo(1, 2)", "@M +"}) {
    size_t pos = 0;
    std::string error;
    EXPECT_FALSE(parseKnobExpr(bad, pos, error)) << bad;
    EXPECT_FALSE(error.empty()) << bad;
  }
}

TEST(KnobValue, IntegersAndSymbols) {
  Binding b{{"BM", 2}};
  b["DTYPE"] = KnobValue::symbol("bfp8_b");
  EXPECT_TRUE(b.at("BM").isInteger());
  EXPECT_EQ(b.at("BM"), 2);
  EXPECT_EQ(b.at("DTYPE").str(), "bfp8_b");
  EXPECT_NE(b.at("DTYPE"), KnobValue::symbol("bf16"));
  EXPECT_EQ(str(b), "BM=2, DTYPE=bfp8_b");
}

std::string reprint(const std::string& text, bool generic) {
  DiagnosticEngine diags;
  auto module = parseSource(text, "t.ttl", diags);
  if (!module) return "PARSE ERROR: " + format(diags.diagnostics());
  PrintOptions options;
  options.generic = generic;
  options.useAliases = false;
  return print(*module, options);
}

TEST(KnobSyntax, SymbolKnobsAndExpressionsInBothForms) {
  const char* source = R"(module {
  ttl.param @DTYPE = [bf16, bfp8_b]
  ttl.param @M = [64]
  ttl.kernel @k(%a: tensor<@Mx64x@DTYPE>, %b: tensor<(@M / 32)x2x!ttcore.tile<32x32, @DTYPE>>) attributes {work = [ceildiv(@M, 3), @M % 5], math_fidelity = @DTYPE} {
    %cb = ttl.create_cb : !ttl.cb<[@M * 2, 1], !ttcore.tile<32x32, @DTYPE>, @M - 1>
  }
}
)";
  std::string custom = reprint(source, false);
  EXPECT_NE(custom.find("ttl.param @DTYPE = [bf16, bfp8_b]"), std::string::npos) << custom;
  EXPECT_NE(custom.find("%a: tensor<@Mx64x@DTYPE>"), std::string::npos) << custom;
  EXPECT_NE(custom.find("tensor<(@M / 32)x2x!ttcore.tile<32x32, @DTYPE>>"), std::string::npos)
      << custom;
  EXPECT_NE(custom.find("work = [ceildiv(@M, 3), @M % 5]"), std::string::npos) << custom;
  EXPECT_NE(custom.find("!ttl.cb<[(@M * 2), 1], !ttcore.tile<32x32, @DTYPE>, (@M - 1)>"),
            std::string::npos)
      << custom;
  std::string generic = reprint(source, true);
  EXPECT_NE(generic.find(R"(values = ["bf16", "bfp8_b"])"), std::string::npos) << generic;
  EXPECT_NE(generic.find("work = [#ttl.expr<ceildiv(@M, 3)>, #ttl.expr<@M % 5>]"),
            std::string::npos)
      << generic;
  EXPECT_NE(generic.find("!ttl.tensor<@Mx64x@DTYPE>"), std::string::npos) << generic;
  EXPECT_NE(generic.find("!ttl.tensor<(@M / 32)x2x!ttcore.tile<32x32, @DTYPE>>"), std::string::npos)
      << generic;
  EXPECT_EQ(reprint(generic, false), custom);
  EXPECT_EQ(reprint(custom, false), custom);
}

TEST(KnobSyntax, CollectsSymbolAndIntegerValues) {
  DiagnosticEngine diags;
  auto module =
      parseSource("ttl.param @D = [bf16, \"HiFi4\"]\nttl.param @N = [0, 1]\n", "t", diags);
  ASSERT_TRUE(module) << format(diags.diagnostics());
  std::vector<Param> params = collectParams(*module);
  ASSERT_EQ(params.size(), 2u);
  EXPECT_TRUE(params[0].isSymbolic());
  EXPECT_EQ(params[0].domain.str(), "[bf16, HiFi4]");
  EXPECT_TRUE(params[0].allows(KnobValue::symbol("HiFi4")).value_or(false));
  EXPECT_FALSE(params[1].isSymbolic());
  EXPECT_EQ(params[1].domain.listValues(), (std::vector<KnobValue>{0, 1}));
}

TEST(KnobSyntax, ReportsExpressionSyntaxErrorsAtTheirPlace) {
  DiagnosticEngine diags;
  EXPECT_FALSE(
      parseSource("ttl.kernel @k() attributes {work = [ceildiv(@M 2)]} {\n}\n", "t.ttl", diags));
  EXPECT_EQ(format(diags.diagnostics()).substr(0, 64),
            "t.ttl:1:48: error: expected ',' between the arguments of ceildiv");
}

} // namespace
} // namespace ttlplan::ir
