#include "ttlplan/codegen/KernelEmitter.h"

#include "ttlplan/codegen/CppText.h"
#include "ttlplan/ir/MetalApi.h"
#include "ttlplan/ir/OpRegistry.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>
#include <set>
#include <vector>

namespace ttlplan::codegen {

std::optional<ThreadKind> threadKindOf(const ir::Operation& func) {
  ir::Attribute a = func.attribute("ttl.kernel_thread");
  if (!a.is(ir::AttrKind::String)) return std::nullopt;
  if (a.stringValue() == "noc0") return ThreadKind::Reader;
  if (a.stringValue() == "compute") return ThreadKind::Compute;
  if (a.stringValue() == "noc1") return ThreadKind::Writer;
  return std::nullopt;
}

std::string_view fileStem(ThreadKind kind) {
  switch (kind) {
  case ThreadKind::Reader:
    return "reader";
  case ThreadKind::Compute:
    return "compute";
  case ThreadKind::Writer:
    return "writer";
  }
  return "?";
}

std::string_view threadAttrValue(ThreadKind kind) {
  switch (kind) {
  case ThreadKind::Reader:
    return "noc0";
  case ThreadKind::Compute:
    return "compute";
  case ThreadKind::Writer:
    return "noc1";
  }
  return "?";
}

namespace {

using ir::Operation;
using ir::Value;

/// C++ spellings of the binary arith ops (the ones that are plain infix operators).
const std::map<std::string, std::string, std::less<>> kInfixOps = {
    {"arith.addi", "+"},  {"arith.subi", "-"}, {"arith.muli", "*"}, {"arith.divui", "/"},
    {"arith.remui", "%"}, {"arith.andi", "&"}, {"arith.ori", "|"},  {"arith.xori", "^"}};

/// `arith.cmpi` predicates (kCmpiPredicates order): the C++ operator and whether it is signed.
struct CmpiSpelling {
  std::string_view op;
  bool isSigned;
};
constexpr CmpiSpelling kCmpiSpellings[] = {
    {"==", false}, {"!=", false}, {"<", true},   {"<=", true}, {">", true},
    {">=", true},  {"<", false},  {"<=", false}, {">", false}, {">=", false}};
static_assert(std::size(kCmpiSpellings) == std::size(ir::kCmpiPredicates));

/// The C++ type of a scalar: index and narrow integers are uint32_t, i64 uint64_t, i1 bool.
std::optional<std::string> scalarType(const ir::Type& type) {
  if (type.is(ir::TypeKind::Index)) return "uint32_t";
  if (type.is(ir::TypeKind::Integer)) {
    unsigned w = type.integerWidth();
    if (w == 1) return "bool";
    if (w <= 32) return "uint32_t";
    if (w == 64) return "uint64_t";
  }
  return std::nullopt;
}

/// Bit width of a scalar type (index counts as 32, the width of a Tensix RISC-V register).
unsigned scalarWidth(const ir::Type& type) {
  if (type.is(ir::TypeKind::Integer)) return type.integerWidth();
  return 32;
}

class KernelEmitter {
public:
  KernelEmitter(Operation& func, const EmitOptions& options, ir::DiagnosticEngine& diags)
      : func_(func), options_(options), diags_(diags) {}

  std::optional<std::string> run();

private:
  // --- Output ----------------------------------------------------------------------------------
  /// One statement from `location`, preceded by its source comment when the location changed.
  void statement(int indent, const ir::Location& location, const std::string& text);
  /// A line that is not a statement of its own (closing braces, `} else {`).
  void plain(int indent, const std::string& text) {
    body_ += std::string(2 * indent, ' ') + text + "\n";
  }

  // --- Translation -----------------------------------------------------------------------------
  bool emitBlock(ir::Block& block, int indent, bool topLevel);
  bool emitOp(Operation& op, int indent, bool topLevel);
  bool emitConstant(Operation& op);
  bool emitArith(Operation& op, int indent);
  bool emitFor(Operation& op, int indent);
  bool emitIf(Operation& op, int indent);
  bool emitCall(Operation& op, int indent);
  bool emitL1Load(Operation& op, const std::vector<std::string>& args, int indent);
  /// The ttkernel ops that are declarations rather than API calls: the tensor accessor, an L1
  /// pointer and an L1 load. False (after an error) or true; nullopt when `fn` is none of them.
  std::optional<bool> emitSpecial(Operation& op, const std::string& fn,
                                  const std::vector<std::string>& args, int indent);
  /// The template arguments and trailing literal `def` spells from the op's attributes.
  std::optional<std::string> templateArgs(Operation& op, const ir::metal::ApiDef& def,
                                          std::vector<std::string>& args);

  /// The C++ expression of an operand; reports an error at `user` when the value has none.
  std::optional<std::string> operand(Operation& user, size_t i);
  std::optional<std::vector<std::string>> operands(Operation& op);
  /// A name for `value` (from its hint), recorded as its expression.
  std::string bind(Value* value);
  bool used(const Value* value) const { return uses_.count(value) != 0; }
  bool fail(const Operation& op, std::string message) {
    diags_.error(op.location(), std::move(message));
    return false;
  }

  std::string header();

  Operation& func_;
  const EmitOptions& options_;
  ir::DiagnosticEngine& diags_;
  NameTable names_;
  std::map<const Value*, std::string> exprs_;
  std::set<const Value*> uses_;
  std::vector<std::pair<std::string, std::string>> cbArgs_; ///< (C++ name, SSA name)
  std::string body_;
  ir::Location last_;
  bool needsAlgorithm_ = false;
  bool needsL1Load_ = false; ///< the kernel reads an L1 word (ttlplan_l1_load, defined here)
  ir::metal::ApiSide side_ = ir::metal::ApiSide::DataMovement;
  std::set<std::string, std::less<>> headers_; ///< the compute headers the calls need
};

void KernelEmitter::statement(int indent, const ir::Location& location, const std::string& text) {
  std::string pad(2 * indent, ' ');
  bool same = last_.known() && location.known() && *last_.file == *location.file &&
              last_.line == location.line && last_.column == location.column;
  if (location.known() && !same) {
    body_ += pad + sourceComment(location, options_.sources) + "\n";
    last_ = location;
  }
  body_ += pad + text + "\n";
}

std::string KernelEmitter::bind(Value* value) {
  std::string name = names_.unique(value->nameHint());
  exprs_[value] = name;
  return name;
}

std::optional<std::string> KernelEmitter::operand(Operation& user, size_t i) {
  Value* v = user.operand(i);
  auto it = exprs_.find(v);
  if (it != exprs_.end()) return it->second;
  std::string what =
      v->isBlockArgument() && v->ownerBlock() == &func_.body()
          ? fmt::format("function argument %{} of type {}", v->nameHint(), v->type().str())
          : fmt::format("value %{} of type {}", v->nameHint(), v->type().str());
  fail(user, fmt::format("codegen: operand {} of '{}' is the {}, which has no C++ value in a "
                         "kernel (after the full pipeline, tensors are read through runtime-arg "
                         "addresses and semaphores through ids; a lowering pass left this use)",
                         i, user.name(), what));
  return std::nullopt;
}

std::optional<std::vector<std::string>> KernelEmitter::operands(Operation& op) {
  std::vector<std::string> out;
  for (size_t i = 0; i < op.numOperands(); ++i) {
    std::optional<std::string> e = operand(op, i);
    if (!e) return std::nullopt;
    out.push_back(*e);
  }
  return out;
}

bool KernelEmitter::emitBlock(ir::Block& block, int indent, bool topLevel) {
  bool ok = true;
  for (auto& op : block.operations()) {
    if (emitOp(*op, indent, topLevel)) continue;
    ok = false;
    // Later uses of a failed op's results would only repeat its error.
    for (Value* r : op->results())
      exprs_.emplace(r, "/*error*/");
  }
  return ok;
}

bool KernelEmitter::emitOp(Operation& op, int indent, bool topLevel) {
  const std::string& name = op.name();
  if (name == "arith.constant") return emitConstant(op);
  if (name.starts_with("arith.")) return emitArith(op, indent);
  if (name == "scf.for") return emitFor(op, indent);
  if (name == "scf.if") return emitIf(op, indent);
  if (name == "scf.yield" || (topLevel && name == "func.return")) {
    if (op.numOperands() != 0)
      return fail(op, fmt::format("codegen: '{}' with operands is not supported (loops and "
                                  "branches that yield values have no C++ translation here)",
                                  name));
    return true;
  }
  if (name.starts_with("ttkernel.")) return emitCall(op, indent);
  return fail(op, fmt::format("codegen: '{}' has no C++ translation; after the full pipeline a "
                              "thread function holds only scf.for, scf.if, arith and ttkernel "
                              "ops, so a lowering pass left it (a bug in the pass pipeline)",
                              name));
}

bool KernelEmitter::emitConstant(Operation& op) {
  ir::Attribute v = op.attribute("value");
  Value* result = op.result(0);
  if (v.is(ir::AttrKind::Bool)) {
    exprs_[result] = v.boolValue() ? "true" : "false";
    return true;
  }
  if (v.is(ir::AttrKind::Integer)) {
    if (!scalarType(result->type()))
      return fail(op, fmt::format("codegen: constant of type {} has no C++ scalar type",
                                  result->type().str()));
    exprs_[result] = integerLiteral(v.intValue(), scalarWidth(result->type()));
    return true;
  }
  if (v.is(ir::AttrKind::Float)) {
    exprs_[result] = floatLiteral(v.floatValue());
    return true;
  }
  return fail(op, fmt::format("codegen: constant value {} has no C++ literal",
                              v ? v.str() : std::string("(missing)")));
}

bool KernelEmitter::emitArith(Operation& op, int indent) {
  const std::string& name = op.name();
  if (op.numResults() != 1 || op.numOperands() != 2)
    return fail(op, fmt::format("codegen: '{}' has no C++ translation", name));
  Value* result = op.result(0);
  std::optional<std::string> type = scalarType(result->type());
  if (!type)
    return fail(op, fmt::format("codegen: '{}' result of type {} has no C++ scalar type", name,
                                result->type().str()));
  std::optional<std::vector<std::string>> args = operands(op);
  if (!args) return false;
  const std::string& a = (*args)[0];
  const std::string& b = (*args)[1];
  std::string expr;
  if (auto it = kInfixOps.find(name); it != kInfixOps.end()) {
    expr = fmt::format("{} {} {}", a, it->second, b);
  } else if (name == "arith.minui" || name == "arith.maxui") {
    needsAlgorithm_ = true;
    // The explicit type keeps std::min from failing when one side is an int literal.
    expr = fmt::format("std::{}<{}>({}, {})", name == "arith.minui" ? "min" : "max", *type, a, b);
  } else if (name == "arith.divsi" || name == "arith.remsi") {
    std::string s = scalarWidth(result->type()) > 32 ? "int64_t" : "int32_t";
    expr = fmt::format("static_cast<{}>(static_cast<{}>({}) {} static_cast<{}>({}))", *type, s, a,
                       name == "arith.divsi" ? "/" : "%", s, b);
  } else if (name == "arith.cmpi") {
    ir::Attribute p = op.attribute("predicate");
    if (!p.is(ir::AttrKind::Integer) || p.intValue() < 0 ||
        p.intValue() >= static_cast<int64_t>(std::size(kCmpiSpellings)))
      return fail(op, "codegen: 'arith.cmpi' without a valid predicate");
    const CmpiSpelling& c = kCmpiSpellings[p.intValue()];
    if (c.isSigned) {
      std::string s = scalarWidth(op.operand(0)->type()) > 32 ? "int64_t" : "int32_t";
      expr = fmt::format("static_cast<{}>({}) {} static_cast<{}>({})", s, a, c.op, s, b);
    } else {
      expr = fmt::format("{} {} {}", a, c.op, b);
    }
  } else {
    return fail(op, fmt::format("codegen: '{}' has no C++ translation", name));
  }
  // A pure value nobody reads would only draw -Wunused-variable.
  if (!used(result)) return true;
  std::string var = bind(result);
  statement(indent, op.location(), fmt::format("const {} {} = {};", *type, var, expr));
  return true;
}

bool KernelEmitter::emitFor(Operation& op, int indent) {
  if (op.numOperands() != 3 || op.numRegions() != 1 || op.region(0).numBlocks() != 1 ||
      op.body().numArguments() != 1 || op.numResults() != 0)
    return fail(op, "codegen: only 'scf.for' with one induction variable and no loop-carried "
                    "values has a C++ translation");
  std::optional<std::vector<std::string>> args = operands(op);
  if (!args) return false;
  Value* iv = op.body().argument(0);
  std::optional<std::string> type = scalarType(iv->type());
  if (!type || *type == "bool")
    return fail(op, fmt::format("codegen: induction variable of type {} has no C++ loop type",
                                iv->type().str()));
  std::string var = bind(iv);
  statement(indent, op.location(),
            fmt::format("for ({} {} = {}; {} < {}; {} += {}) {{", *type, var, (*args)[0], var,
                        (*args)[1], var, (*args)[2]));
  bool ok = emitBlock(op.body(), indent + 1, false);
  plain(indent, "}");
  return ok;
}

bool KernelEmitter::emitIf(Operation& op, int indent) {
  if (op.numOperands() != 1 || op.numResults() != 0)
    return fail(op, "codegen: only 'scf.if' without results has a C++ translation");
  std::optional<std::string> cond = operand(op, 0);
  if (!cond) return false;
  statement(indent, op.location(), fmt::format("if ({}) {{", *cond));
  bool ok = true;
  if (!op.region(0).empty()) ok = emitBlock(op.region(0).front(), indent + 1, false);
  bool hasElse = false;
  if (op.numRegions() > 1 && !op.region(1).empty())
    for (auto& inner : op.region(1).front().operations())
      if (!inner->isa("scf.yield")) hasElse = true;
  if (hasElse) {
    plain(indent, "} else {");
    ok = emitBlock(op.region(1).front(), indent + 1, false) && ok;
  }
  plain(indent, "}");
  return ok;
}

std::optional<std::string> KernelEmitter::templateArgs(Operation& op, const ir::metal::ApiDef& def,
                                                       std::vector<std::string>& args) {
  std::vector<std::string> spelled;
  std::set<std::string, std::less<>> known;
  bool omitted = false;
  for (const ir::metal::TemplateArg& t : def.templateArgs) {
    known.insert(std::string(t.attribute));
    ir::Attribute a = op.attribute(t.attribute);
    if (!a) {
      if (t.required) {
        fail(op, fmt::format("codegen: 'ttkernel.{}' needs its attribute '{}' (a template "
                             "argument of {})",
                             def.name, t.attribute, def.header));
        return std::nullopt;
      }
      omitted = true;
      continue;
    }
    bool ok = !omitted;
    if (t.values.empty()) {
      ok = ok && a.is(ir::AttrKind::Bool);
      if (ok) spelled.push_back(a.boolValue() ? "true" : "false");
    } else {
      ok = ok && a.is(ir::AttrKind::String) &&
           std::find(t.values.begin(), t.values.end(), a.stringValue()) != t.values.end();
      if (ok) spelled.push_back(fmt::format("{}{}", t.prefix, a.stringValue()));
    }
    if (!ok) {
      fail(op, fmt::format("codegen: attribute '{}' = {} of 'ttkernel.{}' is not {}", t.attribute,
                           a.str(), def.name,
                           t.values.empty() ? std::string("true or false")
                                            : fmt::format("one of {}", fmt::join(t.values, ", "))));
      return std::nullopt;
    }
  }
  if (!def.trailingFloat.empty()) {
    known.insert(std::string(def.trailingFloat));
    ir::Attribute a = op.attribute(def.trailingFloat);
    if (!a || !(a.is(ir::AttrKind::Float) || a.is(ir::AttrKind::Integer))) {
      fail(op, fmt::format("codegen: 'ttkernel.{}' needs its number attribute '{}'", def.name,
                           def.trailingFloat));
      return std::nullopt;
    }
    args.push_back(floatLiteral(a.is(ir::AttrKind::Float) ? a.floatValue()
                                                          : static_cast<double>(a.intValue())));
  }
  // Any other attribute would be meaning that C++ silently drops.
  for (const ir::NamedAttribute& a : op.attributes())
    if (!known.count(a.name)) {
      fail(op, fmt::format("codegen: attribute '{}' = {} of 'ttkernel.{}' has no C++ spelling "
                           "(docs/lowering.md, \"After the full pipeline\")",
                           a.name, a.value.str(), def.name));
      return std::nullopt;
    }
  if (def.name == "get_arg_val") return std::string("<uint32_t>");
  return spelled.empty() ? std::string() : fmt::format("<{}>", fmt::join(spelled, ", "));
}

/// `"ttkernel.l1_load"(%ptr) : (!ttkernel.l1_ptr) -> index`: a word of this core's L1, read by
/// the helper the kernel defines (the emulator defines its own: TTLPLAN_EMULATOR).
bool KernelEmitter::emitL1Load(Operation& op, const std::vector<std::string>& args, int indent) {
  Value* result = op.numResults() ? op.result(0) : nullptr;
  if (!result || args.size() != 1 || !op.attributes().empty())
    return fail(op, "codegen: 'ttkernel.l1_load' takes an L1 pointer and has one result");
  if (!used(result)) return true;
  needsL1Load_ = true;
  statement(indent, op.location(),
            fmt::format("const uint32_t {} = ttlplan_l1_load({});", bind(result), args[0]));
  return true;
}

std::optional<bool> KernelEmitter::emitSpecial(Operation& op, const std::string& fn,
                                               const std::vector<std::string>& args, int indent) {
  Value* result = op.numResults() ? op.result(0) : nullptr;
  if (fn == "l1_load") return emitL1Load(op, args, indent);
  if (fn != "tensor_accessor" && fn != "l1_ptr") return std::nullopt;
  const bool accessor = fn == "tensor_accessor";
  ir::Attribute cta = op.attribute("cta_offset");
  if (!result || args.size() != (accessor ? 2u : 1u) ||
      (accessor &&
       (!cta.is(ir::AttrKind::Integer) || cta.intValue() < 0 ||
        !op.attribute("tensor").is(ir::AttrKind::String) || op.attributes().size() != 2)) ||
      (!accessor && !op.attributes().empty()))
    return fail(op, fmt::format("codegen: 'ttkernel.{}' takes {} and has one result", fn,
                                accessor ? "an address and a page size, with attributes "
                                           "cta_offset and tensor"
                                         : "an address"));
  if (!used(result)) return true;
  std::string var = bind(result);
  if (!accessor) {
    statement(indent, op.location(),
              fmt::format("volatile tt_l1_ptr uint32_t* {} = reinterpret_cast<volatile "
                          "tt_l1_ptr uint32_t*>({});",
                          var, args[0]));
    return true;
  }
  // TensorAccessorArgs<N> reads compile-time args N and N + 1, which the host appends for this
  // tensor (TensorAccessorArgs(buffer).append_to).
  std::string argsVar = names_.unique(var + "_args");
  statement(indent, op.location(),
            fmt::format("constexpr auto {} = TensorAccessorArgs<{}>();", argsVar, cta.intValue()));
  statement(
      indent, op.location(),
      fmt::format("const auto {} = TensorAccessor({}, {}, {});", var, argsVar, args[0], args[1]));
  return true;
}

bool KernelEmitter::emitCall(Operation& op, int indent) {
  std::string fn = op.name().substr(std::string_view("ttkernel.").size());
  if (op.numRegions() != 0 || op.numResults() > 1)
    return fail(op, fmt::format("codegen: 'ttkernel.{}' with regions or several results has no "
                                "C++ translation",
                                fn));
  std::optional<std::vector<std::string>> args = operands(op);
  if (!args) return false;
  if (std::optional<bool> special = emitSpecial(op, fn, *args, indent)) return *special;
  Value* result = op.numResults() ? op.result(0) : nullptr;

  // Every call is a record of the pinned TT-Metalium API (ir/MetalApi.cpp): its name on this
  // kernel's side, its operand count, its template arguments.
  const ir::metal::ApiDef* def = ir::metal::lookupMetalApi(fn, side_);
  if (!def || def->operands < 0)
    return fail(op, fmt::format("codegen: 'ttkernel.{}' is not a {} kernel call of TT-Metalium "
                                "(tt-metal {}, ir/MetalApi.cpp)",
                                fn, ir::metal::toString(side_), ir::metal::kPinnedDate));
  const size_t most = static_cast<size_t>(std::max(def->operands, def->maxOperands));
  if (args->size() < static_cast<size_t>(def->operands) || args->size() > most)
    return fail(op, fmt::format("codegen: 'ttkernel.{}' has {} operand{}; TT-Metalium's {} "
                                "({}) takes {}",
                                fn, args->size(), args->size() == 1 ? "" : "s", fn, def->header,
                                most == static_cast<size_t>(def->operands)
                                    ? std::to_string(def->operands)
                                    : fmt::format("{} to {}", def->operands, most)));
  std::optional<std::string> templ = templateArgs(op, *def, *args);
  if (!templ) return false;
  if (side_ == ir::metal::ApiSide::Compute) headers_.insert(std::string(def->header));

  std::string call = fmt::format("{}{}({})", fn, *templ, fmt::join(*args, ", "));
  if (!result || !used(result)) {
    statement(indent, op.location(), call + ";");
    return true;
  }
  std::optional<std::string> type = scalarType(result->type());
  if (!type)
    return fail(op, fmt::format("codegen: result of 'ttkernel.{}' has type {}, which has no C++ "
                                "scalar type (index, i1, i32 or i64)",
                                fn, result->type().str()));
  std::string var = bind(result);
  statement(indent, op.location(), fmt::format("const {} {} = {};", *type, var, call));
  return true;
}

std::string KernelEmitter::header() {
  std::string kernel = func_.attribute("ttl.kernel").is(ir::AttrKind::SymbolRef)
                           ? func_.attribute("ttl.kernel").stringValue()
                           : std::string("?");
  std::optional<ThreadKind> kind = threadKindOf(func_);
  std::string fnName =
      func_.attribute("sym_name") ? func_.attribute("sym_name").stringValue() : std::string("?");
  std::string file = options_.inputFile;
  if (file.empty() && func_.location().file) file = *func_.location().file;
  std::string out = fmt::format(
      "// Generated by ttlplan from {}: kernel @{}, {} thread ({}, function @{}).\n", file, kernel,
      kind ? fileStem(*kind) : "?", kind ? threadAttrValue(*kind) : "?", fnName);
  if (!options_.provenance.empty()) out += "// " + options_.provenance + ".\n";
  out += "// Do not edit: rerun `ttlplan compile`. `// FILE:LINE:COL:` comments name the TTL op\n"
         "// each statement below comes from.\n";
  out += "//\n// Compile-time args (the host passes each CB's index):\n";
  if (cbArgs_.empty()) out += "//   (none)\n";
  for (size_t i = 0; i < cbArgs_.size(); ++i)
    out += fmt::format("//   {}  {}  CB {}\n", i, cbArgs_[i].first,
                       cbArgs_[i].second.empty() ? "(unnamed)" : "%" + cbArgs_[i].second);
  out += "// Runtime args (per core, set by host.cpp):\n";
  ir::Attribute rt = func_.attribute("ttl.runtime_args");
  std::set<std::string> tensors;
  for (Value* arg : func_.body().arguments())
    if (arg->type().is(ir::TypeKind::Tensor)) tensors.insert(arg->nameHint());
  if (!rt.is(ir::AttrKind::Array) || rt.elements().empty()) out += "//   (none)\n";
  if (rt.is(ir::AttrKind::Array))
    for (size_t i = 0; i < rt.elements().size(); ++i) {
      const ir::Attribute& e = rt.elements()[i];
      std::string name = e.is(ir::AttrKind::String) ? e.stringValue() : e.str();
      out += fmt::format("//   {}  {}  {}\n", i, name,
                         tensors.count(name) ? fmt::format("DRAM address of tensor %{}", name)
                                             : std::string("per-core value"));
    }
  return out;
}

std::optional<std::string> KernelEmitter::run() {
  std::optional<ThreadKind> kind = threadKindOf(func_);
  if (!kind) {
    diags_.error(func_.location(),
                 "codegen: func.func without ttl.kernel_thread = \"noc0\" | \"compute\" | "
                 "\"noc1\" is not a kernel thread");
    return std::nullopt;
  }
  side_ =
      *kind == ThreadKind::Compute ? ir::metal::ApiSide::Compute : ir::metal::ApiSide::DataMovement;
  func_.walk([&](Operation* op) {
    for (Value* v : op->operands())
      uses_.insert(v);
  });
  // API names and C++ types the body spells must not be shadowed by a variable.
  for (std::string_view reserved :
       {"kernel_main", "get_arg_val", "get_compile_time_arg_val", "TensorAccessor",
        "TensorAccessorArgs", "BroadcastType", "PoolType", "ReduceDim", "DataFormat", "ckernel",
        "tt_l1_ptr", "uint32_t", "uint64_t", "int32_t", "int64_t", "std"})
    names_.reserve(std::string(reserved));
  func_.walk([&](Operation* op) {
    if (op->name().starts_with("ttkernel."))
      names_.reserve(op->name().substr(std::string_view("ttkernel.").size()));
  });

  ir::Block& entry = func_.body();
  std::vector<std::pair<Value*, std::string>> cbDecls;
  for (Value* arg : entry.arguments()) {
    if (!arg->type().is(ir::TypeKind::CircularBuffer)) continue;
    std::string hint = arg->nameHint().empty() ? std::to_string(cbArgs_.size()) : arg->nameHint();
    std::string name = names_.unique("cb_" + hint);
    exprs_[arg] = name;
    cbArgs_.emplace_back(name, arg->nameHint());
    cbDecls.emplace_back(arg, name);
  }
  // `const`, not `constexpr` as on hardware: the emulator reads compile-time args at run time
  // (codegen/emu/include/ttlplan_emu_kernel.h), and `const` compiles against both.
  for (size_t i = 0; i < cbDecls.size(); ++i) {
    auto [arg, name] = cbDecls[i];
    statement(1, arg->location(),
              fmt::format("{}const uint32_t {} = get_compile_time_arg_val({});",
                          used(arg) ? "" : "[[maybe_unused]] ", name, i));
  }
  bool ok = emitBlock(entry, 1, true);
  if (!ok) return std::nullopt;

  std::string out = header();
  out += "\n#include <cstdint>\n";
  if (needsAlgorithm_) out += "#include <algorithm>\n";
  // Data-movement kernels: the one header TT-Metalium's JIT also includes before them. Compute
  // kernels: the header of every call (ir/MetalApi.cpp), as TT-Metalium has one per op family.
  out += "\n";
  if (*kind == ThreadKind::Compute) {
    if (!cbArgs_.empty()) headers_.insert("api/compile_time_args.h");
    for (const std::string& h : headers_)
      out += fmt::format("#include \"{}\"\n", h);
  } else {
    out += "#include \"api/dataflow/dataflow_api.h\"\n";
  }
  if (needsL1Load_)
    out += "\n#ifndef TTLPLAN_EMULATOR\n"
           "// A word of this core's L1 (a pipe's receive address that its receivers published).\n"
           "inline uint32_t ttlplan_l1_load(volatile tt_l1_ptr uint32_t* p) { return *p; }\n"
           "#endif\n";
  out += "\nvoid kernel_main() {\n" + body_ + "}\n";
  return out;
}

} // namespace

std::optional<std::string> emitKernel(ir::Operation& func, const EmitOptions& options,
                                      ir::DiagnosticEngine& diagnostics) {
  return KernelEmitter(func, options, diagnostics).run();
}

} // namespace ttlplan::codegen
