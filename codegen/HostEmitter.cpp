#include "ttlplan/codegen/HostEmitter.h"

#include "ttlplan/codegen/CppText.h"
#include "ttlplan/ir/MetalApi.h"
#include "ttlplan/ir/Ops.h"
#include "ttlplan/ir/Padding.h"
#include "ttlplan/ir/Verifier.h"
#include "ttlplan/lower/Extract.h"
#include "ttlplan/lower/passes/DataMovementSupport.h"
#include "ttlplan/support/Checked.h"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>
#include <set>

namespace ttlplan::codegen {

std::string_view dataFormatName(ir::DataType type) {
  switch (type) {
  case ir::DataType::BF16:
    return "Float16_b";
  case ir::DataType::F32:
    return "Float32";
  case ir::DataType::F16:
    return "Float16";
  case ir::DataType::BFP8_B:
    return "Bfp8_b";
  case ir::DataType::BFP4_B:
    return "Bfp4_b";
  case ir::DataType::I32:
    return "Int32";
  case ir::DataType::U32:
    return "UInt32";
  }
  return "Invalid";
}

namespace {

using ir::Operation;
using ir::Value;

/// The dimensions of `type` when every one is a number; otherwise the first that is not (in
/// `dynamic`) and nullopt.
std::optional<std::vector<int64_t>> staticShape(const ir::Type& type, const ir::Dim*& dynamic) {
  std::vector<int64_t> dims;
  for (const ir::Dim& d : type.shape()) {
    if (!d.isStatic()) {
      dynamic = &d;
      return std::nullopt;
    }
    dims.push_back(d.value);
  }
  return dims;
}

int64_t intEntry(const ir::Attribute& dict, std::string_view key, bool& found) {
  if (dict.is(ir::AttrKind::Dictionary))
    for (const ir::NamedAttribute& e : dict.entries())
      if (e.name == key && e.value.is(ir::AttrKind::Integer)) {
        found = true;
        return e.value.intValue();
      }
  found = false;
  return 0;
}

struct TensorInfo {
  Value* value = nullptr;
  std::string name;                 ///< the SSA name, used for the .npy files
  std::string var;                  ///< buf_<name>
  std::vector<int64_t> shape;       ///< logical, in elements
  std::vector<int64_t> paddedShape; ///< rounded up to whole tiles (ir/Padding.h)
  std::string pad;                  ///< the pad value's C++ spelling; empty when not padded
  ir::DataType dataType = ir::DataType::BF16;
  int64_t tileBytes = 0;
  int64_t bytes = 0;
};

struct CbInfo {
  Operation* op = nullptr;
  int64_t index = 0, blockCount = 0, address = 0, blockTiles = 0, tileBytes = 0;
  ir::DataType dataType = ir::DataType::BF16;
};

class HostEmitter {
public:
  HostEmitter(Operation& kernel, const std::vector<Operation*>& funcs, const ir::Device& device,
              const EmitOptions& options, ir::DiagnosticEngine& diags)
      : kernel_(kernel), funcs_(funcs), device_(device), options_(options), diags_(diags) {}

  std::optional<std::string> run();

private:
  bool fail(const ir::Location& location, std::string message) {
    diags_.error(location, std::move(message));
    return false;
  }
  void line(int indent, const std::string& text) {
    out_ += std::string(2 * indent, ' ') + text + "\n";
  }
  /// The TTL location comment of a resource or launch (the same form as in the kernels).
  void where(int indent, const ir::Location& location) {
    std::string c = sourceComment(location, options_.sources);
    if (!c.empty()) line(indent, c);
  }
  bool collectTensors();
  void emitIo();
  bool collectCbs();
  bool emitLaunch(Operation& launch);
  Operation* callee(Operation& launch);

  Operation& kernel_;
  const std::vector<Operation*>& funcs_;
  const ir::Device& device_;
  const EmitOptions& options_;
  ir::DiagnosticEngine& diags_;
  NameTable names_;
  std::string out_;
  int64_t rows_ = 0, cols_ = 0;
  std::vector<TensorInfo> tensors_;
  std::map<const Value*, size_t> tensorOf_;
  std::map<const Value*, CbInfo> cbs_;
};

bool HostEmitter::collectTensors() {
  bool ok = true;
  for (Value* arg : kernel_.body().arguments()) {
    const ir::Type& t = arg->type();
    ir::Location loc = arg->location().known() ? arg->location() : kernel_.location();
    if (!t.is(ir::TypeKind::Tensor)) {
      ok = fail(loc, fmt::format("codegen: kernel argument %{} of type {} is not a tensor; the "
                                 "host can only pass tensors",
                                 arg->nameHint(), t.str()));
      continue;
    }
    ir::Attribute enc = t.encoding();
    if (enc && (!enc.is(ir::AttrKind::Layout) ||
                enc.layoutValue().memory != ir::MemorySpace::Dram || enc.layoutValue().sharded)) {
      ok = fail(loc, fmt::format("codegen: tensor %{} has layout {}; the host program supports "
                                 "DRAM interleaved tensors only",
                                 arg->nameHint(), enc.str()));
      continue;
    }
    TensorInfo info;
    info.value = arg;
    info.name = arg->nameHint();
    info.var = names_.unique("buf_" + sanitizeIdentifier(info.name));
    const ir::Dim* dynamic = nullptr;
    std::optional<std::vector<int64_t>> shape = staticShape(t, dynamic);
    if (!shape) {
      ok = fail(loc, fmt::format("codegen: tensor %{} has the non-constant dimension {}; "
                                 "apply-plan substitutes knobs",
                                 info.name, dynamic->str()));
      continue;
    }
    info.shape = std::move(*shape);
    // The verifier bounds static tensors; a knob's value substituted later is checked here.
    std::optional<int64_t> count = checkedProduct(info.shape, ir::kMaxTensorElements);
    if (!count || *count <= 0) {
      ok = fail(loc, fmt::format("codegen: tensor %{} ({}) has no elements or more than 2^48",
                                 info.name, t.str()));
      continue;
    }
    if (info.shape.size() != 2) {
      ok = fail(loc, fmt::format("codegen: tensor %{} has rank {}; the host program reads and "
                                 "writes 2-D .npy files only",
                                 info.name, info.shape.size()));
      continue;
    }
    std::optional<ir::DataType> dt = elementDataType(t.elementType());
    if (!dt) {
      ok = fail(loc, fmt::format("codegen: tensor %{} has element type {}, which is not a tile "
                                 "data type",
                                 info.name, t.elementType().str()));
      continue;
    }
    // A tensor that is not whole tiles lives padded to them, with the value apply-plan derived
    // (ir/Padding.h); the host pads it on the way in and crops it on the way out.
    info.paddedShape = info.shape;
    for (int64_t& n : info.paddedShape)
      n = (n + ir::kPadTile - 1) / ir::kPadTile * ir::kPadTile;
    if (info.paddedShape != info.shape) {
      ir::Attribute pads = kernel_.attribute(ir::kPadAttribute);
      size_t index = tensors_.size();
      if (!pads.is(ir::AttrKind::Array) || index >= pads.elements().size() ||
          !pads.elements()[index].is(ir::AttrKind::String)) {
        ok = fail(loc, fmt::format("codegen: tensor %{} ({}) is not whole 32x32 tiles and the "
                                   "kernel has no {} attribute; run apply-plan",
                                   info.name, t.str(), ir::kPadAttribute));
        continue;
      }
      info.pad = pads.elements()[index].stringValue() == ir::padValueName(ir::PadValue::NegInf)
                     ? "-std::numeric_limits<float>::infinity()"
                     : "0.0f";
    }
    info.dataType = *dt;
    info.tileBytes = device_.tileBytes(*dt);
    info.bytes = info.paddedShape[0] / 32 * (info.paddedShape[1] / 32) * info.tileBytes;
    tensorOf_[arg] = tensors_.size();
    tensors_.push_back(std::move(info));
  }
  return ok;
}

void HostEmitter::emitIo() {
  std::set<ir::DataType> formats;
  for (const TensorInfo& t : tensors_)
    formats.insert(t.dataType);
  line(0, "[[noreturn]] void fail(const std::string& what) {");
  line(1, "std::fprintf(stderr, \"host: error: %s\\n\", what.c_str());");
  line(1, "std::exit(1);");
  line(0, "}");
  line(0, "");
  line(0, "// INPUT_DIR/<tensor>.npy (rows x cols) as row-major floats, padded to padded_rows x");
  line(
      0,
      "// padded_cols with `pad` when the tensor is not whole tiles; exits with status 1 when the");
  line(0, "// file is missing or has another shape.");
  line(0, "std::vector<float> load(const std::string& path, uint32_t rows, uint32_t cols, "
          "uint32_t padded_rows,");
  line(0, "                        uint32_t padded_cols, float pad) {");
  line(1, "ttlplan::npy::Matrix m;");
  line(1, "std::string error;");
  line(1, "if (!ttlplan::npy::readNpyOfShape(path, rows, cols, m, error)) fail(error);");
  line(1, "if (padded_rows != rows || padded_cols != cols)");
  line(2, "m = ttlplan::npy::padMatrix(m, padded_rows, padded_cols, pad);");
  line(1, "return m.data;");
  line(0, "}");
  line(0, "");
  line(0, "// The top-left rows x cols of a padded_rows x padded_cols matrix as "
          "OUTPUT_DIR/<tensor>.npy.");
  line(0, "void store(const std::string& path, const std::vector<float>& values, uint32_t rows, "
          "uint32_t cols,");
  line(0, "           uint32_t padded_rows, uint32_t padded_cols) {");
  line(1, "ttlplan::npy::Matrix m{padded_rows, padded_cols, values};");
  line(1, "std::string error;");
  line(1, "if (!ttlplan::npy::writeNpy(path, ttlplan::npy::cropMatrix(m, rows, cols), error)) "
          "fail(error);");
  line(0, "}");
  line(0, "");
  line(0, "// A row-major matrix into a DRAM buffer of `format` tiles, each four 16x16 faces "
          "(tilize_nfaces).");
  line(0,
       "void upload(distributed::MeshCommandQueue& cq, std::shared_ptr<distributed::MeshBuffer>& "
       "buffer,");
  line(0, "            const std::vector<float>& values, uint32_t rows, uint32_t cols, "
          "tt::DataFormat format) {");
  line(1, "const std::vector<float> tiles = tilize_nfaces(values, rows, cols);");
  line(1, "switch (format) {");
  for (ir::DataType f : formats) {
    line(1, fmt::format("case tt::DataFormat::{}: {{", dataFormatName(f)));
    if (f == ir::DataType::BF16) {
      line(2, "const std::vector<bfloat16> words(tiles.begin(), tiles.end());");
      line(2, "distributed::EnqueueWriteMeshBuffer(cq, buffer, words, true);");
    } else if (f == ir::DataType::F32) {
      line(2, "distributed::EnqueueWriteMeshBuffer(cq, buffer, tiles, true);");
    } else {
      line(2, fmt::format("const std::vector<uint32_t> words = pack_as_{}_tiles("
                          "tt::stl::make_const_span(tiles),",
                          f == ir::DataType::BFP8_B ? "bfp8" : "bfp4"));
      line(2, "                                                  /*row_major_input=*/false, "
              "/*is_exp_a=*/false);");
      line(2, "distributed::EnqueueWriteMeshBuffer(cq, buffer, words, true);");
    }
    line(2, "return;");
    line(1, "}");
  }
  line(1, "default:");
  line(2, "fail(\"upload: a data format this host program does not convert\");");
  line(1, "}");
  line(0, "}");
  line(0, "");
  line(0, "// The buffer's tiles as a row-major rows x cols matrix.");
  line(0, "std::vector<float> download(distributed::MeshCommandQueue& cq,");
  line(0, "                            std::shared_ptr<distributed::MeshBuffer>& buffer, uint32_t "
          "rows, uint32_t cols,");
  line(0, "                            tt::DataFormat format) {");
  line(1, "std::vector<float> tiles;");
  line(1, "switch (format) {");
  for (ir::DataType f : formats) {
    line(1, fmt::format("case tt::DataFormat::{}: {{", dataFormatName(f)));
    if (f == ir::DataType::BF16) {
      line(2, "std::vector<bfloat16> words;");
      line(2, "distributed::EnqueueReadMeshBuffer(cq, words, buffer, true);");
      line(2, "tiles.assign(words.begin(), words.end());");
    } else if (f == ir::DataType::F32) {
      line(2, "distributed::EnqueueReadMeshBuffer(cq, tiles, buffer, true);");
    } else {
      line(2, "std::vector<uint32_t> words;");
      line(2, "distributed::EnqueueReadMeshBuffer(cq, words, buffer, true);");
      line(2, fmt::format("tiles = unpack_{}_tiles_into_float_vec(tt::stl::make_const_span(words),",
                          f == ir::DataType::BFP8_B ? "bfp8" : "bfp4"));
      line(2, "                                               /*row_major_output=*/false, "
              "/*is_exp_a=*/false);");
    }
    line(2, "break;");
    line(1, "}");
  }
  line(1, "default:");
  line(2, "fail(\"download: a data format this host program does not convert\");");
  line(1, "}");
  line(1, "return untilize_nfaces(tiles, rows, cols);");
  line(0, "}");
  line(0, "");
}

bool HostEmitter::collectCbs() {
  bool ok = true;
  for (auto& op : kernel_.body().operations()) {
    if (!op->isa(ir::CreateCBOp::kName)) continue;
    ir::Attribute bind = op->attribute("ttl.bind_cb");
    CbInfo cb;
    cb.op = op.get();
    bool a = false, b = false, c = false;
    cb.index = intEntry(bind, "cb_index", a);
    cb.blockCount = intEntry(bind, "block_count", b);
    cb.address = intEntry(bind, "l1_address", c);
    if (!a || !b || !c) {
      ok = fail(op->location(), "codegen: ttl.create_cb without ttl.bind_cb = {cb_index, "
                                "block_count, l1_address}; run the plan and apply-plan passes");
      continue;
    }
    ir::Type type = op->result(0)->type();
    const ir::Dim* dynamic = nullptr;
    std::optional<std::vector<int64_t>> shape = staticShape(type, dynamic);
    if (!shape) {
      ok = fail(op->location(), fmt::format("codegen: CB block dimension {} is not a constant; "
                                            "apply-plan substitutes knobs",
                                            dynamic->str()));
      continue;
    }
    std::optional<int64_t> tiles = checkedProduct(*shape, lower::kMaxCbBytes);
    if (!tiles || *tiles <= 0) {
      ok = fail(op->location(),
                fmt::format("codegen: CB block {} has no tiles or more than 2^40", type.str()));
      continue;
    }
    cb.blockTiles = *tiles;
    if (!type.elementType().is(ir::TypeKind::Tile)) {
      ok = fail(op->location(), "codegen: CB element type is not a tile");
      continue;
    }
    cb.dataType = type.elementType().tileDataType();
    cb.tileBytes = device_.tileBytes(cb.dataType);
    cbs_[op->result(0)] = cb;
  }
  return ok;
}

Operation* HostEmitter::callee(Operation& launch) {
  ir::Attribute c = launch.attribute("callee");
  if (!c.is(ir::AttrKind::SymbolRef)) return nullptr;
  for (Operation* f : funcs_) {
    ir::Attribute name = f->attribute("sym_name");
    if (name && name.stringValue() == c.stringValue()) return f;
  }
  return nullptr;
}

bool HostEmitter::emitLaunch(Operation& launch) {
  Operation* func = callee(launch);
  if (!func)
    return fail(launch.location(),
                fmt::format("codegen: ttl.launch of {} has no thread function with that name "
                            "(ttl.kernel = @{})",
                            launch.attribute("callee") ? launch.attribute("callee").str()
                                                       : std::string("(no callee)"),
                            kernel_.attribute("sym_name").stringValue()));
  std::optional<ThreadKind> kind = threadKindOf(*func);
  if (!kind)
    return fail(func->location(), "codegen: thread function without ttl.kernel_thread = "
                                  "\"noc0\" | \"compute\" | \"noc1\"");
  std::vector<Value*> args = func->body().arguments();
  if (args.size() != launch.numOperands())
    return fail(launch.location(),
                fmt::format("codegen: ttl.launch passes {} operands to @{}, which takes {}",
                            launch.numOperands(), func->attribute("sym_name").stringValue(),
                            args.size()));
  // Compile-time args: the index of each CB operand, in order (the kernel reads them with
  // get_compile_time_arg_val(i), KernelEmitter).
  std::vector<std::string> compileArgs;
  std::map<std::string, std::string> bufferOfArg; // func tensor argument name -> buf_ variable
  for (size_t i = 0; i < args.size(); ++i) {
    Value* v = launch.operand(i);
    if (args[i]->type().is(ir::TypeKind::CircularBuffer)) {
      auto it = cbs_.find(v);
      if (it == cbs_.end())
        return fail(launch.location(),
                    fmt::format("codegen: ttl.launch operand {} is not a ttl.create_cb of this "
                                "kernel",
                                i));
      compileArgs.push_back(std::to_string(it->second.index));
    } else if (args[i]->type().is(ir::TypeKind::Tensor)) {
      auto it = tensorOf_.find(v);
      if (it == tensorOf_.end())
        return fail(launch.location(),
                    fmt::format("codegen: ttl.launch operand {} is not a tensor argument of "
                                "the kernel",
                                i));
      bufferOfArg[args[i]->nameHint()] = tensors_[it->second].var;
    }
  }
  // Runtime args of every core: buffer addresses, or the per-core values the passes computed; a
  // NoC coordinate (ttl.noc_coords) is a logical column or row that the host translates.
  ir::Attribute names = func->attribute("ttl.runtime_args");
  ir::Attribute values = func->attribute("ttl.core_values");
  std::map<std::string, std::string> nocAxis;
  if (ir::Attribute noc = func->attribute("ttl.noc_coords"); noc.is(ir::AttrKind::Dictionary))
    for (const ir::NamedAttribute& e : noc.entries())
      if (e.value.is(ir::AttrKind::String)) nocAxis[e.name] = e.value.stringValue();
  std::vector<std::vector<std::string>> perCore(rows_ * cols_);
  std::vector<std::string> columns;
  if (names && !names.is(ir::AttrKind::Array))
    return fail(func->location(), "codegen: ttl.runtime_args is not a list of names");
  if (names)
    for (const ir::Attribute& n : names.elements()) {
      if (!n.is(ir::AttrKind::String))
        return fail(func->location(),
                    fmt::format("codegen: ttl.runtime_args entry {} is not a string", n.str()));
      const std::string& name = n.stringValue();
      columns.push_back(name);
      if (auto it = bufferOfArg.find(name); it != bufferOfArg.end()) {
        for (auto& core : perCore)
          core.push_back(fmt::format("static_cast<uint32_t>({}->address())", it->second));
        continue;
      }
      std::vector<int64_t> perCoreValues;
      bool found = false;
      if (values.is(ir::AttrKind::Dictionary))
        for (const ir::NamedAttribute& e : values.entries())
          if (e.name == name && e.value.getIntegers(perCoreValues)) found = true;
      if (!found || perCoreValues.size() != perCore.size())
        return fail(func->location(),
                    fmt::format("codegen: runtime arg '{}' of @{} is neither a tensor argument "
                                "nor in ttl.core_values with one integer per core of the {}x{} "
                                "grid ({} values)",
                                name, func->attribute("sym_name").stringValue(), rows_, cols_,
                                rows_ * cols_));
      auto axis = nocAxis.find(name);
      for (size_t c = 0; c < perCore.size(); ++c) {
        if (axis == nocAxis.end()) {
          perCore[c].push_back(integerLiteral(perCoreValues[c], 32));
          continue;
        }
        const int64_t limit = axis->second == "x" ? cols_ : rows_;
        if (perCoreValues[c] < 0 || perCoreValues[c] >= limit)
          return fail(func->location(),
                      fmt::format("codegen: runtime arg '{}' of @{} is a NoC {} coordinate, but "
                                  "its value {} is no logical {} of the {}x{} grid",
                                  name, func->attribute("sym_name").stringValue(), axis->second,
                                  perCoreValues[c], axis->second == "x" ? "column" : "row", rows_,
                                  cols_));
        perCore[c].push_back(fmt::format("noc_{}[{}]", axis->second, perCoreValues[c]));
      }
    }
  // After the CB indices, two compile-time args per tensor accessor the kernel makes, in the order
  // of their offsets (lower-data-movement numbers them so): TensorAccessorArgs(buffer).append_to.
  std::vector<std::pair<int64_t, std::string>> accessors;
  bool accessorsOk = true;
  func->walk([&](Operation* op) {
    if (!op->isa("ttkernel.tensor_accessor")) return;
    ir::Attribute offset = op->attribute("cta_offset"), tensor = op->attribute("tensor");
    auto buf = tensor.is(ir::AttrKind::String) ? bufferOfArg.find(tensor.stringValue())
                                               : bufferOfArg.end();
    if (!offset.is(ir::AttrKind::Integer) || buf == bufferOfArg.end()) {
      accessorsOk = fail(op->location(), "codegen: ttkernel.tensor_accessor without cta_offset "
                                         "and the name of a tensor argument of its function");
      return;
    }
    accessors.emplace_back(offset.intValue(), buf->second);
  });
  if (!accessorsOk) return false;
  std::sort(accessors.begin(), accessors.end());
  for (size_t k = 0; k < accessors.size(); ++k)
    if (accessors[k].first != static_cast<int64_t>(compileArgs.size() + 2 * k))
      return fail(func->location(),
                  fmt::format("codegen: tensor accessor {} of @{} reads compile-time args from {}, "
                              "not {} (after the {} CB indices): a bug in lower-data-movement",
                              k, func->attribute("sym_name").stringValue(), accessors[k].first,
                              compileArgs.size() + 2 * k, compileArgs.size()));

  std::string stem(fileStem(*kind));
  std::string handle = names_.unique(stem + "_kernel");
  std::string argsVar = names_.unique(stem + "_compile_args");
  std::string kernelName = kernel_.attribute("sym_name").stringValue();
  line(1,
       fmt::format("// {} thread: function @{}", stem, func->attribute("sym_name").stringValue()));
  where(1, launch.location());
  line(1, fmt::format("std::vector<uint32_t> {} = {{{}}}; // CB indices", argsVar,
                      fmt::join(compileArgs, ", ")));
  for (const auto& [offset, buffer] : accessors)
    line(1, fmt::format("TensorAccessorArgs(*{}).append_to({});", buffer, argsVar));
  std::string config;
  if (*kind == ThreadKind::Compute) {
    std::string fidelity = "HiFi4";
    if (ir::Attribute f = kernel_.attribute("math_fidelity"); f.is(ir::AttrKind::String))
      fidelity = f.stringValue();
    bool fp32 = false;
    if (ir::Attribute a = kernel_.attribute("fp32_dest_acc"); a.is(ir::AttrKind::Integer))
      fp32 = a.intValue() != 0;
    config = fmt::format("ComputeConfig{{.math_fidelity = MathFidelity::{}, .fp32_dest_acc_en = "
                         "{}, .compile_args = {}}}",
                         fidelity, fp32 ? "true" : "false", argsVar);
  } else {
    config =
        fmt::format("DataMovementConfig{{.processor = DataMovementProcessor::{}, .noc = "
                    "NOC::{}, .compile_args = {}}}",
                    *kind == ThreadKind::Reader ? "RISCV_0" : "RISCV_1",
                    *kind == ThreadKind::Reader ? "RISCV_0_default" : "RISCV_1_default", argsVar);
  }
  std::string create = fmt::format("CreateKernel(program, TTLPLAN_KERNEL_DIR \"/{}/{}.cpp\", "
                                   "cores, {});",
                                   kernelName, stem, config);
  // A kernel without runtime args needs no handle (an unused one would draw -Wunused-variable).
  line(1, columns.empty() ? create : fmt::format("KernelHandle {} = {}", handle, create));

  if (columns.empty()) {
    line(1, "// No runtime args.");
    line(0, "");
    return true;
  }
  line(1, fmt::format("// Runtime args per core (x, y): {{{}}}", fmt::join(columns, ", ")));
  for (int64_t y = 0; y < rows_; ++y)
    for (int64_t x = 0; x < cols_; ++x)
      line(1, fmt::format("SetRuntimeArgs(program, {}, CoreCoord{{{}, {}}}, {{{}}});", handle, x, y,
                          fmt::join(perCore[y * cols_ + x], ", ")));
  line(0, "");
  return true;
}

std::optional<std::string> HostEmitter::run() {
  std::string kernelName = kernel_.attribute("sym_name").stringValue();
  std::optional<std::pair<int64_t, int64_t>> planned = lower::plannedGrid(&kernel_);
  if (!planned) {
    fail(kernel_.location(), fmt::format("codegen: kernel @{} has no ttl.grid_planned = [rows, "
                                         "cols] (sides in [1, {}]); run the plan and apply-plan "
                                         "passes",
                                         kernelName, kMaxGridSide));
    return std::nullopt;
  }
  const std::vector<int64_t> grid = {planned->first, planned->second};
  rows_ = grid[0];
  cols_ = grid[1];
  for (std::string_view reserved :
       {"mesh_device", "device",     "cq",           "program",  "cores",
        "input_dir",   "output_dir", "argc",         "argv",     "words",
        "load",        "store",      "upload",       "download", "fail",
        "workload",    "base",       "planned_base", "planned",  "dram_tile_pages",
        "compile_args"})
    names_.reserve(std::string(reserved));
  bool ok = collectTensors();
  ok = collectCbs() && ok;

  // Semaphores: the ids the multicast plan and the lowering passes use (ttl.semaphore_count:
  // pipes' address words, scratch words of remote sets; PassUtil.h takeSemaphoreId), plus any user
  // semaphore that a pass gave an id (ttl.semaphore_id); CreateSemaphore hands out ids 0, 1, ...
  // in order.
  int64_t semaphores = 0;
  if (ir::Attribute n = kernel_.attribute("ttl.semaphore_count"); n.is(ir::AttrKind::Integer))
    semaphores = n.intValue();
  std::map<int64_t, std::pair<int64_t, Operation*>> userSemaphores; // id -> (init, op)
  for (auto& op : kernel_.body().operations()) {
    const std::string& name = op->name();
    if (name == ir::CreateSemaphoreOp::kName) {
      ir::Attribute id = op->attribute("ttl.semaphore_id");
      if (!id.is(ir::AttrKind::Integer) || id.intValue() < 0) {
        ok = fail(op->location(), "codegen: ttl.create_semaphore without ttl.semaphore_id; the "
                                  "host cannot know which semaphore id the kernels use for it");
        continue;
      }
      userSemaphores[id.intValue()] = {ir::CreateSemaphoreOp(op.get()).initialValue(), op.get()};
      semaphores = std::max(semaphores, id.intValue() + 1);
    } else if (name != ir::CreateCBOp::kName && name != "ttl.launch" &&
               !name.starts_with("arith.")) {
      // arith ops at kernel scope are what knob arithmetic (ttl.require conditions) leaves; the
      // host has no use for them.
      ok = fail(op->location(),
                fmt::format("codegen: '{}' in the body of kernel @{} has no host translation; "
                            "after expand-threads a kernel holds only ttl.create_cb, "
                            "ttl.create_semaphore, ttl.launch and arith ops",
                            name, kernelName));
    }
  }
  if (!ok) return std::nullopt;

  // CBs in the order TT-Metalium's allocator must place them: by planned address, each at the
  // aligned end of the one before from the unreserved base (the planner lays every plan out so;
  // docs/codegen.md). A plan that is not such a packing cannot be realised: an error naming the CB.
  std::vector<std::pair<Operation*, CbInfo>> cbOrder;
  for (auto& op : kernel_.body().operations())
    if (auto it = cbs_.find(op->numResults() ? op->result(0) : nullptr); it != cbs_.end())
      cbOrder.emplace_back(op.get(), it->second);
  std::stable_sort(cbOrder.begin(), cbOrder.end(), [](const auto& x, const auto& y) {
    return x.second.address < y.second.address;
  });
  const int64_t align = std::max<int64_t>(1, device_.cb.addressAlignment);
  int64_t next = device_.l1.unreservedBase;
  for (const auto& [op, cb] : cbOrder) {
    next = (next + align - 1) / align * align;
    if (cb.address != next)
      ok = fail(op->location(),
                fmt::format(
                    "codegen: the plan puts CB %{} at L1 address {}, but TT-Metalium's "
                    "allocator places a program's CBs one after another in creation order "
                    "from l1_unreserved_base {}, each aligned to {} B, so it would be at {}: "
                    "no creation order realises this plan",
                    op->result(0)->nameHint(), cb.address, device_.l1.unreservedBase, align, next));
    next = cb.address + cb.blockCount * cb.blockTiles * cb.tileBytes;
  }
  if (static_cast<int64_t>(cbOrder.size()) > device_.cb.maxPerProgram && !cbOrder.empty())
    ok = fail(cbOrder.back().first->location(),
              fmt::format("codegen: kernel @{} has {} CBs; a TT-Metalium program has at most {}",
                          kernelName, cbOrder.size(), device_.cb.maxPerProgram));
  if (semaphores > device_.kernel.semaphoresPerCore)
    ok = fail(kernel_.location(),
              fmt::format("codegen: kernel @{} needs {} semaphores; a core has {}", kernelName,
                          semaphores, device_.kernel.semaphoresPerCore));
  if (!ok) return std::nullopt;

  std::string file = options_.inputFile;
  if (file.empty() && kernel_.location().file) file = *kernel_.location().file;
  std::set<ir::DataType> formats;
  for (const TensorInfo& t : tensors_)
    formats.insert(t.dataType);
  line(0, fmt::format("// Generated by ttlplan from {}: host program of kernel @{} on {}.", file,
                      kernelName, device_.name));
  if (!options_.provenance.empty()) line(0, "// " + options_.provenance + ".");
  line(0, "// Do not edit: rerun `ttlplan compile`.");
  line(0, "// Usage: host INPUT_DIR OUTPUT_DIR. Reads INPUT_DIR/<tensor>.npy for every tensor "
          "argument,");
  line(0, "// runs the kernel on the planned grid and writes every tensor to "
          "OUTPUT_DIR/<tensor>.npy.");
  line(0, fmt::format("// TT-Metalium API of tenstorrent/tt-metal {} ({}); kernels are found "
                      "under",
                      ir::metal::kPinnedCommit.substr(0, 12), ir::metal::kPinnedDate));
  line(0, "// TTLPLAN_KERNEL_DIR (an absolute path; the generated CMakeLists.txt defines it).");
  line(0, "#include <tt-metalium/bfloat16.hpp>");
  if (formats.count(ir::DataType::BFP4_B)) line(0, "#include <tt-metalium/bfloat4.hpp>");
  if (formats.count(ir::DataType::BFP8_B)) line(0, "#include <tt-metalium/bfloat8.hpp>");
  line(0, "#include <tt-metalium/distributed.hpp>");
  line(0, "#include <tt-metalium/host_api.hpp>");
  line(0, "#include <tt-metalium/mesh_buffer.hpp>");
  line(0, "#include <tt-metalium/mesh_device.hpp>");
  line(0, "#include <tt-metalium/mesh_workload.hpp>");
  line(0, "#include <tt-metalium/tensor_accessor_args.hpp>");
  line(0, "#include <tt-metalium/tilize_utils.hpp>");
  line(0, "#include <tt-metalium/tt_metal.hpp>");
  line(0, "");
  line(0, "#include \"ttlplan_npy.hpp\"");
  line(0, "");
  line(0, "#include <cstdint>");
  line(0, "#include <cstdio>");
  line(0, "#include <cstdlib>");
  line(0, "#include <limits>");
  line(0, "#include <memory>");
  line(0, "#include <string>");
  line(0, "#include <vector>");
  line(0, "");
  line(0, "#ifndef TTLPLAN_KERNEL_DIR");
  line(0,
       "#error \"define TTLPLAN_KERNEL_DIR as the directory `ttlplan compile` wrote (absolute)\"");
  line(0, "#endif");
  line(0, "");
  line(0, "using namespace tt::tt_metal;");
  line(0, "");
  line(0, "namespace {");
  line(0, "");
  emitIo();
  line(0, "} // namespace");
  line(0, "");
  line(0, "int main(int argc, char** argv) {");
  line(1, "if (argc != 3) {");
  line(2, "std::fprintf(stderr, \"usage: %s INPUT_DIR OUTPUT_DIR\\n\", argv[0]);");
  line(2, "return 2;");
  line(1, "}");
  line(1, "const std::string input_dir = argv[1];");
  line(1, "const std::string output_dir = argv[2];");
  line(1, "std::shared_ptr<distributed::MeshDevice> mesh_device = "
          "distributed::MeshDevice::create_unit_mesh(0);");
  line(1, "distributed::MeshCommandQueue& cq = mesh_device->mesh_command_queue();");
  line(1,
       "// The plan's L1 addresses start at this device's unreserved base; another base (another");
  line(1, "// tt-metal version) moves every CB: replan with --device-file and that base.");
  line(1, fmt::format("const uint64_t planned_base = {};", device_.l1.unreservedBase));
  line(1, "const uint64_t base = "
          "mesh_device->allocator()->get_base_allocator_addr(HalMemType::L1);");
  line(1, "if (base != planned_base)");
  line(2, "fail(\"the device's L1 unreserved base is \" + std::to_string(base) + \", the plan "
          "assumed \" +");
  line(2, "     std::to_string(planned_base) + \": run ttlplan compile with --device-file and "
          "l1.unreserved_base = \" +");
  line(2, "     std::to_string(base));");
  line(1, "Program program = CreateProgram();");
  where(1, kernel_.location());
  line(1, fmt::format("// The planned grid: {}x{} cores (rows x columns; x = column, y = row).",
                      rows_, cols_));
  line(1, fmt::format("const CoreRange cores{{{{0, 0}}, {{{}, {}}}}};", cols_ - 1, rows_ - 1));
  bool nocCoordinates = false;
  for (Operation* f : funcs_)
    nocCoordinates = nocCoordinates || f->hasAttribute("ttl.noc_coords");
  if (nocCoordinates) {
    line(1,
         "// NoC coordinates of the grid's columns and rows, as this device translates them (the");
    line(1, "// kernels' multicast rectangles, senders and semaphore targets).");
    line(1, fmt::format("std::vector<uint32_t> noc_x({}), noc_y({});", cols_, rows_));
    line(1, fmt::format("for (uint32_t x = 0; x < {}; ++x)", cols_));
    line(2,
         "noc_x[x] = static_cast<uint32_t>(mesh_device->worker_core_from_logical_core(CoreCoord{x, "
         "0}).x);");
    line(1, fmt::format("for (uint32_t y = 0; y < {}; ++y)", rows_));
    line(2,
         "noc_y[y] = static_cast<uint32_t>(mesh_device->worker_core_from_logical_core(CoreCoord{0, "
         "y}).y);");
  }
  line(0, "");

  line(1, "// Tensor arguments: DRAM interleaved buffers, one page per tile.");
  line(1, "const distributed::DeviceLocalBufferConfig dram_tile_pages{.page_size = 0, "
          ".buffer_type = BufferType::DRAM};");
  for (const TensorInfo& t : tensors_) {
    where(1, t.value->location());
    std::string format = fmt::format("tt::DataFormat::{}", dataFormatName(t.dataType));
    line(1, fmt::format("// %{}: {}, {} tiles of {} B", t.name, t.value->type().str(),
                        t.bytes / t.tileBytes, t.tileBytes));
    line(1, fmt::format("distributed::DeviceLocalBufferConfig {}_pages = dram_tile_pages;", t.var));
    line(1, fmt::format("{}_pages.page_size = {};", t.var, t.tileBytes));
    line(1, fmt::format("std::shared_ptr<distributed::MeshBuffer> {} = distributed::MeshBuffer::"
                        "create(",
                        t.var));
    line(2, fmt::format("distributed::ReplicatedBufferConfig{{.size = {}}}, {}_pages, "
                        "mesh_device.get());",
                        t.bytes, t.var));
    line(1,
         fmt::format("upload(cq, {}, load(input_dir + \"/{}.npy\", {}, {}, {}, {}, {}), {}, {}, "
                     "{});",
                     t.var, t.name, t.shape[0], t.shape[1], t.paddedShape[0], t.paddedShape[1],
                     t.pad.empty() ? "0.0f" : t.pad, t.paddedShape[0], t.paddedShape[1], format));
  }
  line(0, "");

  line(1,
       "// Circular buffers, created in planned-address order: TT-Metalium places a program's CBs");
  line(1,
       fmt::format("// one after another from the unreserved base, each aligned to {} B, so each "
                   "lands at its",
                   align));
  line(1, "// planned address (checked after the run).");
  for (const auto& [op, cb] : cbOrder) {
    where(1, op->location());
    line(1, fmt::format("// %{}: index {}, {} blocks of {} tiles of {} B, planned at L1 address {}",
                        op->result(0)->nameHint(), cb.index, cb.blockCount, cb.blockTiles,
                        cb.tileBytes, cb.address));
    line(1, fmt::format("CreateCircularBuffer(program, cores, CircularBufferConfig({} * {} * {}, "
                        "{{{{{}, tt::DataFormat::{}}}}}).set_page_size({}, {}));",
                        cb.blockCount, cb.blockTiles, cb.tileBytes, cb.index,
                        dataFormatName(cb.dataType), cb.index, cb.tileBytes));
  }
  line(0, "");

  if (semaphores > 0) {
    line(1, "// Semaphores (ids 0, 1, ... in creation order).");
    for (int64_t id = 0; id < semaphores; ++id) {
      int64_t init = 0;
      if (auto it = userSemaphores.find(id); it != userSemaphores.end()) {
        where(1, it->second.second->location());
        init = it->second.first;
      }
      line(1, fmt::format("CreateSemaphore(program, cores, {}); // id {}", init, id));
    }
    line(0, "");
  }

  for (auto& op : kernel_.body().operations())
    if (op->isa("ttl.launch") && !emitLaunch(*op)) ok = false;
  if (!ok) return std::nullopt;

  line(1, "distributed::MeshWorkload workload;");
  line(1, "workload.add_program(distributed::MeshCoordinateRange(mesh_device->shape()), "
          "std::move(program));");
  line(1, "distributed::EnqueueMeshWorkload(cq, workload, true);");
  line(1, "distributed::Finish(cq);");
  line(0, "");
  if (!cbOrder.empty()) {
    line(1, "// Every CB where the plan put it, on every core: TT-Metalium keeps no CB address on "
            "the host,");
    line(1,
         "// so read the CB config entries the run used (4 words per index: address, size, pages, "
         "page size).");
    line(1, "{");
    line(2, "IDevice* device = mesh_device->get_device(distributed::MeshCoordinate(0, 0));");
    line(2, fmt::format("const uint32_t planned[][2] = {{{}}}; // {{index, address}}", [&] {
           std::vector<std::string> pairs;
           for (const auto& [op, cb] : cbOrder)
             pairs.push_back(fmt::format("{{{}, {}}}", cb.index, cb.address));
           return fmt::format("{}", fmt::join(pairs, ", "));
         }()));
    line(2, fmt::format("for (uint32_t y = 0; y < {}; ++y)", rows_));
    line(3, fmt::format("for (uint32_t x = 0; x < {}; ++x) {{", cols_));
    line(4, "const CoreCoord core{x, y};");
    line(4, "std::vector<uint32_t> entries;");
    line(4, "const uint32_t at = workload.get_cb_base_addr(mesh_device, core, CoreType::WORKER);");
    line(4, fmt::format("if (!detail::ReadFromDeviceL1(device, core, at, {} * 16, entries))",
                        device_.cb.maxPerProgram));
    line(5, "fail(\"cannot read the CB config of core (\" + std::to_string(x) + \", \" + "
            "std::to_string(y) + \")\");");
    line(4, "for (const auto& [index, address] : planned)");
    line(5, "if (entries.at(4 * index) != address)");
    line(6, "fail(\"CB \" + std::to_string(index) + \" is at L1 address \" + "
            "std::to_string(entries.at(4 * index)) +");
    line(6, "     \" on core (\" + std::to_string(x) + \", \" + std::to_string(y) + \"), the plan "
            "put it at \" +");
    line(6, "     std::to_string(address) + \": this TT-Metalium places CBs differently\");");
    line(3, "}");
    line(1, "}");
    line(0, "");
  }
  line(1, "// Every tensor, inputs included, goes back to OUTPUT_DIR.");
  for (const TensorInfo& t : tensors_)
    line(1,
         fmt::format("store(output_dir + \"/{}.npy\", download(cq, {}, {}, {}, "
                     "tt::DataFormat::{}), {}, {}, {}, {});",
                     t.name, t.var, t.paddedShape[0], t.paddedShape[1], dataFormatName(t.dataType),
                     t.shape[0], t.shape[1], t.paddedShape[0], t.paddedShape[1]));
  line(1, "mesh_device->close();");
  line(1, "return 0;");
  line(0, "}");
  return out_;
}

} // namespace

std::optional<std::string> emitHost(ir::Operation& kernel, const std::vector<ir::Operation*>& funcs,
                                    const ir::Device& device, const EmitOptions& options,
                                    ir::DiagnosticEngine& diagnostics) {
  return HostEmitter(kernel, funcs, device, options, diagnostics).run();
}

} // namespace ttlplan::codegen
