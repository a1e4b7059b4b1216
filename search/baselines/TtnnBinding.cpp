#include "ttlplan/search/baselines/TtnnBinding.h"

#include <fmt/format.h>

namespace ttlplan::search::baselines {

namespace {

// The value of a problem knob: bound in `partial`, or the knob's only (or first) value. `flag`
// ("--config ttnn-default") starts the errors.
Expected<ir::KnobValue> problemKnob(const std::vector<ir::Param>& params,
                                    const ir::Binding& partial, const std::string& name,
                                    bool firstValueIsDefault, const std::string& flag) {
  auto it = partial.find(name);
  if (it != partial.end()) return it->second;
  const ir::Param* param = ir::findParam(params, name);
  if (!param)
    return Error{fmt::format("{}: the kernel has no knob @{} (it needs ttnn's knob names, as "
                             "examples/matmul_2d_template.ttl)",
                             flag, name)};
  const std::vector<ir::KnobValue>& list = param->domain.listValues();
  bool isList = param->domain.kind() == ir::KnobDomain::Kind::List;
  if (isList && !list.empty() && (list.size() == 1 || firstValueIsDefault)) return list.front();
  return Error{
      fmt::format("{}: bind @{} (its domain is {}) with --bind", flag, name, param->domain.str())};
}

Expected<uint64_t> positive(const ir::KnobValue& v, const std::string& name,
                            const std::string& flag) {
  if (!v.isInteger() || v.integer() <= 0)
    return Error{fmt::format("{}: @{} = {} is not a positive integer", flag, name, v.str())};
  return uint64_t(v.integer());
}

uint32_t configValue(const MatmulConfig& c, const std::string& name) {
  if (name == "in0_block_w") return c.in0BlockW;
  if (name == "out_subblock_h") return c.outSubblockH;
  if (name == "out_subblock_w") return c.outSubblockW;
  if (name == "out_block_h") return c.outBlockH;
  if (name == "out_block_w") return c.outBlockW;
  if (name == "per_core_M") return c.perCoreM;
  return c.perCoreN;
}

Expected<MatmulProblem> problemOf(const std::vector<ir::Param>& params, const ir::Binding& partial,
                                  const ir::Device& device, const std::string& flag) {
  MatmulProblem p;
  uint64_t* dims[] = {&p.m, &p.k, &p.n};
  const char* names[] = {"M", "K", "N"};
  for (int i = 0; i < 3; ++i) {
    Expected<ir::KnobValue> v = problemKnob(params, partial, names[i], false, flag);
    if (!v) return v.error();
    Expected<uint64_t> n = positive(*v, names[i], flag);
    if (!n) return n.error();
    *dims[i] = *n;
  }
  Expected<ir::KnobValue> dtype = problemKnob(params, partial, "DTYPE", true, flag);
  if (!dtype) return dtype.error();
  std::optional<ir::DataType> type = ir::parseDataType(dtype->str());
  if (!type) return Error{flag + ": @DTYPE = " + dtype->str() + " is no data type"};
  p.in0TileBytes = p.in1TileBytes = p.outTileBytes = uint32_t(device.tileBytes(*type));
  auto fp32 = partial.find("FP32_DEST_ACC");
  p.fp32DestAcc = fp32 != partial.end() && fp32->second.isInteger() && fp32->second.integer();
  placeOn(p, device);
  return p;
}

/// `partial` completed with `config`'s knobs (the binding both --config values share).
Expected<DefaultBinding> bindConfig(const std::vector<ir::Param>& params,
                                    const ir::Binding& partial, const ir::Device& device,
                                    const MatmulConfig& config, const std::string& flag);

} // namespace

Expected<DefaultBinding> ttnnDefaultBinding(const std::vector<ir::Param>& params,
                                            const ir::Binding& partial, const ir::Device& device) {
  const std::string flag = "--config ttnn-default";
  Expected<MatmulProblem> problem = problemOf(params, partial, device, flag);
  if (!problem) return problem.error();
  Expected<MatmulConfig> config = ttnnDefaultMatmulConfig(*problem);
  if (!config) return Error{flag + ": " + config.error().message};
  if (config->family == MatmulFamily::MultiCore)
    return Error{fmt::format("{}: ttnn picks {} for this shape ({}), which has no knobs to bind",
                             flag, familyName(config->family), config->why)};
  return bindConfig(params, partial, device, *config, flag);
}

Expected<DefaultBinding> ttMlirRuleBinding(const std::vector<ir::Param>& params,
                                           const ir::Binding& partial, const ir::Device& device) {
  const std::string flag = "--config tt-mlir-rule";
  Expected<MatmulProblem> problem = problemOf(params, partial, device, flag);
  if (!problem) return problem.error();
  Expected<MatmulConfig> config = ttMlirRule(*problem, SweepOptions{});
  if (!config) return Error{flag + ": " + config.error().message};
  if (config->family == MatmulFamily::MultiCast1DIn1)
    return Error{fmt::format("{}: the rule routes this shape to {} ({}), which the templates "
                             "do not implement (the 1-D one is mcast_in0)",
                             flag, familyName(config->family), config->why)};
  return bindConfig(params, partial, device, *config, flag);
}

namespace {

Expected<DefaultBinding> bindConfig(const std::vector<ir::Param>& params,
                                    const ir::Binding& partial, const ir::Device& device,
                                    const MatmulConfig& config, const std::string& flag) {
  DefaultBinding out{partial, config};
  // The problem knobs the config assumed when `partial` leaves them out (DTYPE's first value,
  // FP32_DEST_ACC 0) are part of the binding: a planning command tunes the knobs still unbound,
  // which must not move them away from what ttnn sized its config for.
  if (!partial.count("DTYPE"))
    if (const ir::Param* dtype = ir::findParam(params, "DTYPE");
        dtype && !dtype->domain.listValues().empty())
      out.binding["DTYPE"] = dtype->domain.listValues().front();
  if (!partial.count("FP32_DEST_ACC"))
    if (const ir::Param* fp32 = ir::findParam(params, "FP32_DEST_ACC");
        fp32 && fp32->allows(ir::KnobValue(int64_t(0)), out.binding).value_or(false))
      out.binding["FP32_DEST_ACC"] = ir::KnobValue(int64_t(0));
  for (const char* name : kConfigKnobs) {
    ir::KnobValue value(int64_t(configValue(config, name)));
    const ir::Param* param = ir::findParam(params, name);
    if (!param) return Error{fmt::format("{}: the kernel has no knob @{}", flag, name)};
    auto given = partial.find(name);
    if (given != partial.end() && !(given->second == value))
      return Error{fmt::format("{} sets @{} = {} ({}); --bind gives {}", flag, name, value.str(),
                               familyName(config.family), given->second.str())};
    out.binding[name] = value;
  }
  // Checked once all are set: a domain may read the others (`divisors(@per_core_M)`).
  for (const char* name : kConfigKnobs) {
    const ir::Param* param = ir::findParam(params, name);
    const ir::KnobValue& value = out.binding.at(name);
    if (!param->allows(value, out.binding).value_or(false))
      return Error{fmt::format("{} sets @{} = {} ({}), which is not in its domain {}", flag, name,
                               value.str(), familyName(config.family), param->domain.str())};
  }
  // A template that lays its cores out row by row (matmul_1d_template's @grid_x, the x of ttnn's
  // compute_with_storage_grid_size) gets ttnn's default: the device's columns.
  if (const ir::Param* gridX = ir::findParam(params, "grid_x"); gridX && !partial.count("grid_x")) {
    ir::KnobValue columns(int64_t(device.grid.compute.columns));
    if (!gridX->allows(columns, out.binding).value_or(false))
      return Error{fmt::format("{} sets @grid_x = {} (the device's columns), which is not in its "
                               "domain {}",
                               flag, columns.str(), gridX->domain.str())};
    out.binding["grid_x"] = columns;
  }
  return out;
}

} // namespace

void placeOn(MatmulProblem& problem, const ir::Device& device) {
  problem.gridRows = uint32_t(device.grid.compute.rows);
  problem.gridCols = uint32_t(device.grid.compute.columns);
  problem.l1FreeBytes = uint64_t(device.freeL1Bytes());
  problem.dstTiles = uint32_t(device.dstCapacityTiles(device.dst.defaultFullSync, false));
  problem.dstTilesFp32 = uint32_t(device.dstCapacityTiles(device.dst.defaultFullSync, true));
}

} // namespace ttlplan::search::baselines
