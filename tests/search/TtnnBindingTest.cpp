// --config ttnn-default (search/baselines/TtnnBinding.h) on the matmul templates: the config knobs
// get exactly what ttnnDefaultMatmulConfig gives for the bound shape, and every way the glue can
// fail names the knob.
#include "ttlplan/search/baselines/TtnnBinding.h"

#include "ttlplan/ir/Parser.h"
#include "ttlplan/ir/Verifier.h"

#include <gtest/gtest.h>

namespace ttlplan::search::baselines {
namespace {

const std::string kSource = TTLPLAN_SOURCE_DIR;

std::vector<ir::Param> templateParams(const std::string& name,
                                      std::unique_ptr<ir::Module>& module) {
  ir::DiagnosticEngine diags;
  module = ir::parseFile(kSource + "/examples/" + name, diags);
  EXPECT_TRUE(module && ir::verify(*module, diags));
  return module ? ir::collectParams(*module) : std::vector<ir::Param>{};
}

TEST(TtnnBinding, ConfigKnobsAreTtnnsDefaultForTheBoundShape) {
  std::unique_ptr<ir::Module> module;
  auto params = templateParams("matmul_2d_template.ttl", module);
  ir::Device d = *ir::builtinDevice("wormhole_b0");
  ir::Binding partial{
      {"M", 4096}, {"K", 4096}, {"N", 4096}, {"DTYPE", ir::KnobValue::symbol("bfp8_b")}};
  Expected<DefaultBinding> b = ttnnDefaultBinding(params, partial, d);
  ASSERT_TRUE(b) << b.error().message;
  // The same question asked of the baseline directly.
  MatmulProblem p;
  p.m = p.k = p.n = 4096;
  p.in0TileBytes = p.in1TileBytes = p.outTileBytes = 1088;
  p.gridRows = p.gridCols = 8;
  p.l1FreeBytes = uint64_t(d.freeL1Bytes());
  MatmulConfig c = *ttnnDefaultMatmulConfig(p);
  EXPECT_EQ(c.family, MatmulFamily::MultiCast2D);
  EXPECT_EQ(b->binding.at("in0_block_w"), ir::KnobValue(int64_t(c.in0BlockW)));
  EXPECT_EQ(b->binding.at("out_subblock_h"), ir::KnobValue(int64_t(c.outSubblockH)));
  EXPECT_EQ(b->binding.at("out_subblock_w"), ir::KnobValue(int64_t(c.outSubblockW)));
  EXPECT_EQ(b->binding.at("out_block_h"), ir::KnobValue(int64_t(c.outBlockH)));
  EXPECT_EQ(b->binding.at("out_block_w"), ir::KnobValue(int64_t(c.outBlockW)));
  EXPECT_EQ(b->binding.at("per_core_M"), ir::KnobValue(int64_t(c.perCoreM)));
  EXPECT_EQ(b->binding.at("per_core_N"), ir::KnobValue(int64_t(c.perCoreN)));
  // 4096 = 128 tiles over 8 rows and columns: 16 x 16 per core.
  EXPECT_EQ(b->binding.at("per_core_M"), ir::KnobValue(int64_t(16)));
  EXPECT_EQ(b->binding.at("M"), ir::KnobValue(int64_t(4096)));
}

TEST(TtnnBinding, TheOneDTemplatesLayoutWidthIsTheDevicesColumns) {
  // ttnn lays a 1-D config's cores out over its compute_with_storage_grid_size: the template's
  // @grid_x gets the device's columns (8 on wormhole_b0, 11 on blackhole_p150), unless bound.
  std::unique_ptr<ir::Module> module;
  auto params = templateParams("matmul_1d_template.ttl", module);
  ir::Binding partial{{"M", 64}, {"K", 1024}, {"N", 2048}};
  for (auto [device, columns] : {std::pair{"wormhole_b0", 8}, std::pair{"blackhole_p150", 11}}) {
    SCOPED_TRACE(device);
    ir::Device d = *ir::builtinDevice(device);
    ASSERT_EQ(d.grid.compute.columns, columns);
    Expected<DefaultBinding> b = ttnnDefaultBinding(params, partial, d);
    ASSERT_TRUE(b) << b.error().message;
    EXPECT_EQ(b->config.family, MatmulFamily::MultiCast1DIn0);
    EXPECT_EQ(b->binding.at("grid_x"), ir::KnobValue(int64_t(columns)));
  }
  ir::Binding narrow = partial;
  narrow["grid_x"] = 4;
  Expected<DefaultBinding> kept =
      ttnnDefaultBinding(params, narrow, *ir::builtinDevice("wormhole_b0"));
  ASSERT_TRUE(kept) << kept.error().message;
  EXPECT_EQ(kept->binding.at("grid_x"), ir::KnobValue(int64_t(4)));
  // The 2-D template has no @grid_x, and gets none.
  auto params2d = templateParams("matmul_2d_template.ttl", module);
  Expected<DefaultBinding> b2d = ttnnDefaultBinding(
      params2d, {{"M", 4096}, {"K", 4096}, {"N", 4096}}, *ir::builtinDevice("wormhole_b0"));
  ASSERT_TRUE(b2d) << b2d.error().message;
  EXPECT_EQ(b2d->binding.count("grid_x"), 0u);
}

TEST(TtnnBinding, ErrorsNameTheKnob) {
  std::unique_ptr<ir::Module> module;
  auto params = templateParams("matmul_2d_template.ttl", module);
  ir::Device d = *ir::builtinDevice("wormhole_b0");
  Expected<DefaultBinding> noM = ttnnDefaultBinding(params, {{"K", 4096}, {"N", 4096}}, d);
  ASSERT_FALSE(noM);
  EXPECT_NE(noM.error().message.find("bind @M (its domain is range(1, 1048577))"),
            std::string::npos)
      << noM.error().message;
  Expected<DefaultBinding> conflict =
      ttnnDefaultBinding(params, {{"M", 4096}, {"K", 4096}, {"N", 4096}, {"per_core_M", 2}}, d);
  ASSERT_FALSE(conflict);
  EXPECT_NE(conflict.error().message.find("sets @per_core_M = 16 (MultiCast2D); --bind gives 2"),
            std::string::npos)
      << conflict.error().message;
  // 64 x 8192 is wide (N / M > 8), so ttnn picks 1-D: the glue binds its knobs and the 2-D
  // template's requires reject them later (the CLI test config_* covers that message).
  Expected<DefaultBinding> wide =
      ttnnDefaultBinding(params, {{"M", 64}, {"K", 64}, {"N", 8192}}, d);
  ASSERT_TRUE(wide) << wide.error().message;
  EXPECT_EQ(wide->config.family, MatmulFamily::MultiCast1DIn0);
  // 768 = 24 tiles over 8 rows: 3-tile per-core blocks with a sub-block height of 3, which the
  // shipped template's domain divisors(@out_block_h) holds; a template whose domain is the list
  // [1, 2, 4, 8] lacks it, and the error names the knob, the value and the domain.
  ir::Binding tall{{"M", 768}, {"K", 1024}, {"N", 1024}};
  Expected<DefaultBinding> inDomain = ttnnDefaultBinding(params, tall, d);
  ASSERT_TRUE(inDomain) << inDomain.error().message;
  EXPECT_EQ(inDomain->binding.at("out_subblock_h"), ir::KnobValue(3));
  std::vector<ir::Param> listed = params;
  for (ir::Param& p : listed)
    if (p.name == "out_subblock_h") p.domain = ir::KnobDomain::list({1, 2, 4, 8});
  Expected<DefaultBinding> notInDomain = ttnnDefaultBinding(listed, tall, d);
  ASSERT_FALSE(notInDomain);
  EXPECT_NE(notInDomain.error().message.find(
                "sets @out_subblock_h = 3 (MultiCast2D), which is not in its domain [1, 2, 4, 8]"),
            std::string::npos)
      << notInDomain.error().message;
  std::vector<ir::Param> none;
  Expected<DefaultBinding> noKnobs = ttnnDefaultBinding(none, {{"M", 64}}, d);
  ASSERT_FALSE(noKnobs);
  EXPECT_NE(noKnobs.error().message.find("has no knob @K"), std::string::npos)
      << noKnobs.error().message;
}

} // namespace
} // namespace ttlplan::search::baselines
