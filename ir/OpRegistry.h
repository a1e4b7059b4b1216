#pragma once
// The op registry: one entry per op this IR knows (name, summary, custom assembly format, where the
// op may appear, operand/result/region counts, and for compute ops what they do to tiles, the
// kernel API call they lower to and the measured cost that prices them). The parser, printer,
// verifier, lower-compute, the cost model and `ttlplan ops` read this table; an op that is not in
// it is kept and printed in generic form. The reference interpreter and the emulator keep their
// own arithmetic (they are the independent checks); tests/ir/OpRecordsTest.cpp fails when a
// compute op lacks an API name, a cost class, a reference function or an emulator function.
#include "ttlplan/ir/Types.h"

#include <array>
#include <climits>
#include <cstdint>
#include <span>
#include <string_view>

namespace ttlplan::ir {

/// The shape of an op's custom syntax. Each names one parse routine (ir/Parse*.cpp) and one
/// print routine (ir/PrintCustomOps.cpp); its AsmFormatDef record (formatDef) spells it out and
/// names the attributes it writes in its own words.
enum class AsmFormat {
  Generic,
  Module,
  Kernel,
  Func,
  Param,
  Thread,
  WorkLoop,
  ResultType,
  Convert,
  SameType,
  ImpliedTypes,
  Functional,
  Slice,
  Matmul,
  CreatePipe,
  PipeRegion,
  ParamValue,
  ScfFor,
  ScfIf,
  ScfYield,
  ArithConstant,
  ArithCmpi,
  Reduce,         ///< tt-lang's `ttl.reduce`
  BlockBroadcast, ///< tt-lang's `ttl.block.broadcast`
  FillValue,      ///< tt-lang's `ttl.fill`
  Compute,        ///< tt-lang's `ttl.compute ins(..) outs(..) {..} -> R`
  IntoDst,        ///< tt-lang's tile ops: `$0, $1 into dst[$2] : T0, T1 -> R`
  TileStore,      ///< tt-lang's `ttl.tile_store $0, $1[$2, ..] from dst[$k] : T0, T1`
  IterIndex,      ///< tt-lang's `ttl.iter_index DIM : index`
  EmptyCall,      ///< `tensor.empty(%dynamic sizes..) : R`
  Extract,        ///< `tensor.extract $0[$1, ..] : T0`, the result T0's element type
  Cast,           ///< `$0 : T0 to R` (arith's casts, builtin.unrealized_conversion_cast)
  ValueConvert,   ///< tt-lang's `ttl.mul_unary_const $0, VALUE : T0 -> R`
  ElementWrite,   ///< tt-lang's `ttl.raw_element_write $0[$1, ..], $n : T0, Tn`
  ParenOperands,  ///< tt-lang's `ttl.init_sfpu($0, $1) : T0, T1`
  Predicate,      ///< tt-lang's `ttl.is_src {pipe_net_id = N}`: no operands, an i1 result
  KeywordScope,   ///< tt-lang's `ttl.pipenet_scope attributes {..} { ... }`
  ExtractSlice,   ///< `tensor.extract_slice $0[o, ..] [s, ..] [t, ..] : T0 to R`
  ScfWhile,       ///< `scf.while (%a = $0, ..) : (T..) -> (R..) { ... } do { ... }`
  ScfCondition,   ///< `scf.condition($0) $1, .. : T1, ..`
};

/// A custom syntax's record.
struct AsmFormatDef {
  AsmFormat format;
  std::string_view syntax; ///< the form, `$N` for operand N (`ttlplan ops --markdown`)
  /// Attributes the form spells itself (the printer leaves them out of its `{..}`).
  std::span<const std::string_view> elided;
};
/// The record of `format`.
const AsmFormatDef& formatDef(AsmFormat format);
/// Every format's record, in AsmFormat's order.
std::span<const AsmFormatDef> registeredFormats();

/// What a tile op (AsmFormat::IntoDst, tt-lang's `$0, .. into dst[$n] : T0, .. -> R`) writes
/// besides its operands (tenstorrent/tt-lang include/ttlang/Dialect/TTL/IR/TTLOps.td, each op's
/// assemblyFormat).
struct TileSyntax {
  std::array<std::string_view, 2> attributes{}; ///< written between the operands and `into`
  bool valueFirst = false;   ///< an f32 `value` before the operands (`ttl.tile_fill 1.0 into ...`)
  bool indexedFirst = false; ///< the first operand is indexed: `%cb[%i] into ...` (ttl.copy_tile)
  bool parenTypes = false;   ///< operand types in parentheses: `: (T0, T1) -> R`
  bool valueAfter = false;   ///< an f32 `value` after the operand: `%a, 1.25 into ...`
};

/// Where an op may appear (checked by the verifier).
enum class Placement {
  Anywhere,     ///< upstream ops (`arith`, `scf`) and unknown ops
  ModuleBody,   ///< directly in the module: `ttl.kernel`, `ttl.param`
  KernelBody,   ///< directly in a kernel body: CB/semaphore creation, threads
  KernelScope,  ///< anywhere inside a kernel (including threads)
  AnyThread,    ///< inside a compute or datamovement thread
  TtLangThread, ///< tt-lang's form: inside a thread `func.func` (import-ttlang converts it)
  Compute,      ///< inside the compute thread
  DataMovement, ///< inside a datamovement thread
};

/// What a compute op does to tiles: the kind the verifier, lower-compute and the cost model treat
/// it by.
enum class ComputeKind : uint8_t {
  None,   ///< not a compute op
  Unary,  ///< elementwise, one operand: an SFPU op on its DST tiles, in place
  Binary, ///< elementwise, two operands in DST
  Matmul, ///< reads both operands from CBs (srcA/srcB), accumulates over K
  Reduce, ///< reads its operand from a CB, accumulates over `dims`
  Bcast,  ///< reads its operand from a CB, repeats row/column/element 0
  /// reads its operand from a CB: tile (i, j) of the result is tile (j, i) of the operand with its
  /// rows and columns swapped (tt-lang's ttl.math.transpose)
  Transpose,
  Fill,  ///< no operands: sets every element of its DST tiles to its `value` attribute
  Copy,  ///< its operand unpacked from a CB into DST as it is (a block stored unchanged)
  Store, ///< packs a DST value into a reserved view
};

/// The measured per-tile cost that prices a compute op (ir::ComputeCosts, docs/cost-model.md).
enum class CostClass : uint8_t {
  None,          ///< no compute cost of its own (store: the pack is priced apart)
  EltwiseAddSub, ///< compute.eltwise_add_sub (FPU add/sub/max, unpacker broadcast)
  EltwiseMul,    ///< compute.eltwise_mul, by fidelity phases
  Sfpu,          ///< compute.sfpu_exp: exp is the one measured SFPU op; the others are priced as it
  Matmul,        ///< compute.matmul, by fidelity phases
  ReduceSum,     ///< compute.reduce_sum, by fidelity phases
  ReduceMax,     ///< compute.reduce_max
};

/// A compute op's record (ComputeKind::None for every other op).
struct ComputeDef {
  ComputeKind kind = ComputeKind::None;
  /// The TT-Metalium compute kernel API call ("exp_tile"); its header is its ir/MetalApi.h record.
  std::string_view apiFn;
  std::string_view apiInit; ///< the init it needs before it ("exp_tile_init"); empty for store
  CostClass cost = CostClass::None;
  /// The pto-isa instruction the pto target emits for it (hw-native-sys/pto-isa docs/isa/NAME.md,
  /// docs/pto.md): "TADD"; for reductions and broadcasts the row form ("TROWSUM": dims [1]),
  /// whose column form ("TCOLEXPAND": dims [0]) the pto code generator derives. A composite op is
  /// a program of `dst=INSTR(args)` statements over x (operand), y (result), t (a scratch tile)
  /// and float literals (lower::parsePtoProgram). Empty: the op has no pto-isa lowering yet,
  /// and `--target pto` refuses it with its location.
  std::string_view pto = {};
};

/// True for the kinds whose operands the unpacker reads from a CB (an operand computed in the same
/// chain must go through an intermediate CB first).
inline bool readsOperandsFromCb(ComputeKind kind) {
  return kind == ComputeKind::Matmul || kind == ComputeKind::Reduce || kind == ComputeKind::Bcast ||
         kind == ComputeKind::Transpose;
}

/// True for the elementwise kinds (the ops lower-compute emits as one API call per DST tile).
inline bool isElementwise(ComputeKind kind) {
  return kind == ComputeKind::Unary || kind == ComputeKind::Binary || kind == ComputeKind::Copy;
}

struct OpDef {
  std::string_view name;    ///< full name, e.g. "ttl.cb_wait"
  std::string_view summary; ///< one line for `ttlplan ops` and docs
  AsmFormat format;         ///< custom syntax
  Placement placement;      ///< where it may appear
  int numOperands;          ///< exact count; -1 for variadic
  int numResults;           ///< exact count; -1 for variadic
  int numRegions;           ///< exact count
  TypeKind impliedOperand;  ///< operand type for ImpliedTypes / PipeRegion formats
  ComputeDef compute = {};  ///< compute ops: kind, kernel API call, cost class
  TileSyntax tile = {};     ///< AsmFormat::IntoDst: what its syntax writes besides operands
};

/// `ttl.create_pipe`'s `static_coords` holds this where the coordinate is an operand (MLIR's
/// `ShapedType::kDynamic` convention).
inline constexpr int64_t kDynamicCoordinate = INT64_MIN;
/// `arith.cmpi` predicates in MLIR's enum order: the attribute value is the index.
inline constexpr std::string_view kCmpiPredicates[] = {"eq",  "ne",  "slt", "sle", "sgt",
                                                       "sge", "ult", "ule", "ugt", "uge"};
/// `arith.cmpf` predicates in MLIR's enum order (llvm-project mlir/include/mlir/Dialect/Arith/IR/
/// ArithBase.td, Arith_CmpFPredicateAttr).
inline constexpr std::string_view kCmpfPredicates[] = {"false", "oeq", "ogt", "oge", "olt", "ole",
                                                       "one",   "ord", "ueq", "ugt", "uge", "ult",
                                                       "ule",   "une", "uno", "true"};
/// The predicate names of `arith.cmpi` or `arith.cmpf` (by the op's name).
std::span<const std::string_view> comparePredicates(std::string_view opName);

/// An attribute an op gives meaning to, beyond its custom syntax (listed by `ttlplan ops`).
struct AttrDef {
  std::string_view op;           ///< "ttl.kernel"
  std::string_view name;         ///< "math_fidelity"
  std::string_view summary;      ///< one line
  std::string_view values;       ///< the accepted values, as the user writes them
  std::string_view defaultValue; ///< what an absent attribute means
};

/// Math fidelities of the Tensix FPU, lowest first (`math_fidelity = "HiFi4"`).
inline constexpr std::string_view kMathFidelities[] = {"LoFi", "HiFi2", "HiFi3", "HiFi4"};
bool isMathFidelity(std::string_view name);

/// Every registered attribute, in registry order.
std::span<const AttrDef> registeredAttributes();
/// The entry for `name` on `op`, or null.
const AttrDef* lookupAttr(std::string_view op, std::string_view name);

/// The entry for `name`, or null when the op is unknown.
const OpDef* lookupOp(std::string_view name);
/// Every registered op, in registry order.
std::span<const OpDef> registeredOps();
/// The type an ImpliedTypes / PipeRegion op's operands have.
Type impliedOperandType(const OpDef& def);
std::string_view toString(Placement placement);
/// "unary", "binary", "matmul", ... ("none" for ComputeKind::None).
std::string_view toString(ComputeKind kind);
/// The device field of the per-tile cost that prices the class
/// ("compute.sfpu_exp_cycles_per_tile", ...; "none").
std::string_view toString(CostClass cost);

} // namespace ttlplan::ir
