#include "ttlplan/ir/OpRegistry.h"

#include <algorithm>
#include <unordered_map>

namespace ttlplan::ir {

namespace {
using F = AsmFormat;
using P = Placement;
using K = ComputeKind;
using C = CostClass;
constexpr TypeKind kNone = TypeKind::Opaque;

// Op spellings follow the public tt-lang TTL dialect where it has the op (docs/language.md).
constexpr OpDef kOps[] = {
    // Structure.
    {"builtin.module", "a TTL file: params and kernels", F::Module, P::Anywhere, 0, 0, 1, kNone},
    {"ttl.param", "a tunable knob: a symbol and its domain (its candidate values)", F::Param,
     P::ModuleBody, 0, 0, 0, kNone},
    {"ttl.kernel", "a kernel: arguments, grid, work items, resources and threads", F::Kernel,
     P::ModuleBody, 0, 0, 1, kNone},
    {"func.func",
     "a function: a kernel thread after expand-threads, or a thread of a tt-lang kernel", F::Func,
     P::ModuleBody, 0, 0, 1, kNone},
    {"func.return", "return from a function (the last op of its body)", F::ScfYield, P::Anywhere,
     -1, 0, 0, kNone},
    {"ttl.launch", "run a thread function on the kernel's cores (after expand-threads)", F::Generic,
     P::KernelBody, -1, 0, 0, kNone},
    {"ttl.datamovement_thread", "a data-movement (RISC-V NoC) thread", F::Thread, P::KernelBody, 0,
     0, 1, kNone},
    {"ttl.compute_thread", "the compute (Tensix math) thread", F::Thread, P::KernelBody, 0, 0, 1,
     kNone},
    {"ttl.work_loop", "iterate over the work items assigned to this core", F::WorkLoop,
     P::AnyThread, 0, 0, 1, kNone},
    // Kernel-scope resources and queries.
    {"ttl.create_cb", "a circular buffer in L1", F::ResultType, P::KernelBody, 0, 1, 0, kNone},
    {"ttl.create_semaphore", "a semaphore on every core", F::ResultType, P::KernelBody, 0, 1, 0,
     kNone},
    {"ttl.param_value", "a knob's value as an index", F::ParamValue, P::KernelScope, 0, 1, 0,
     kNone},
    {"ttl.require", "reject bindings for which the condition is false", F::ImpliedTypes,
     P::KernelScope, 1, 0, 0, TypeKind::Integer},
    {"ttl.core_x", "logical x of the running core", F::ResultType, P::AnyThread, 0, 1, 0, kNone},
    {"ttl.core_y", "logical y of the running core", F::ResultType, P::AnyThread, 0, 1, 0, kNone},
    {"ttl.grid_size", "grid extent along `dim` (0: y, 1: x)", F::ResultType, P::AnyThread, 0, 1, 0,
     kNone},
    // Circular buffers.
    {"ttl.cb_reserve", "producer: acquire space for one block", F::Convert, P::AnyThread, 1, 1, 0,
     kNone},
    {"ttl.cb_push", "producer: publish the reserved block", F::SameType, P::AnyThread, 1, 0, 0,
     kNone},
    {"ttl.cb_wait", "consumer: wait for one block", F::Convert, P::AnyThread, 1, 1, 0, kNone},
    {"ttl.cb_pop", "consumer: release the front block", F::SameType, P::AnyThread, 1, 0, 0, kNone},
    // Data movement.
    {"ttl.tensor_slice", "a block of an argument tensor (indices in tiles)", F::Slice,
     P::DataMovement, -1, 1, 0, kNone},
    {"ttl.copy", "start a copy: read, write, pipe send or pipe receive", F::Functional,
     P::DataMovement, 2, 1, 0, kNone},
    {"ttl.wait", "wait for one issued copy", F::SameType, P::DataMovement, 1, 0, 0, kNone},
    {"ttl.dma_barrier", "wait for all issued copies", F::ImpliedTypes, P::DataMovement, 0, 0, 0,
     kNone},
    {"ttl.fill_reduce_scaler",
     "fill a reserved 1x1 bf16 view with a reduce scaler tile: `value` in row 0 of each 16x16 "
     "face, 0 elsewhere (add-reduce-scaler emits it)",
     F::SameType, P::DataMovement, 1, 0, 0, kNone},
    {"ttl.create_pipe", "a unicast or multicast pipe between cores", F::CreatePipe, P::DataMovement,
     -1, 1, 0, kNone},
    {"ttl.if_src", "body runs on the pipe's source core", F::PipeRegion, P::DataMovement, 1, 0, 1,
     TypeKind::Pipe},
    {"ttl.if_dst", "body runs on the pipe's destination cores", F::PipeRegion, P::DataMovement, 1,
     0, 1, TypeKind::Pipe},
    {"ttl.semaphore_wait", "wait until the local semaphore compares true", F::ImpliedTypes,
     P::DataMovement, 1, 0, 0, TypeKind::Semaphore},
    {"ttl.semaphore_set", "set a semaphore (local, remote or multicast)", F::ImpliedTypes,
     P::DataMovement, 1, 0, 0, TypeKind::Semaphore},
    {"ttl.semaphore_inc", "atomically increment a semaphore", F::ImpliedTypes, P::DataMovement, 1,
     0, 0, TypeKind::Semaphore},
    // Compute ops: the syntax, then the compute record (kind, API call, init, cost); the header of
    // each call is its ir/MetalApi.cpp record.
    // clang-format off
    // Compute: elementwise binary.
    {"ttl.add", "elementwise a + b", F::SameType, P::Compute, 2, 1, 0, kNone,
     {K::Binary, "add_binary_tile", "add_binary_tile_init", C::EltwiseAddSub, "TADD"}},
    {"ttl.sub", "elementwise a - b", F::SameType, P::Compute, 2, 1, 0, kNone,
     {K::Binary, "sub_binary_tile", "sub_binary_tile_init", C::EltwiseAddSub, "TSUB"}},
    {"ttl.mul", "elementwise a * b", F::SameType, P::Compute, 2, 1, 0, kNone,
     {K::Binary, "mul_binary_tile", "mul_binary_tile_init", C::EltwiseMul, "TMUL"}},
    {"ttl.div", "elementwise a / b", F::SameType, P::Compute, 2, 1, 0, kNone,
     {K::Binary, "div_binary_tile", "div_binary_tile_init", C::Sfpu, "TDIV"}},
    {"ttl.max", "elementwise max(a, b)", F::SameType, P::Compute, 2, 1, 0, kNone,
     {K::Binary, "binary_max_tile", "binary_max_tile_init", C::EltwiseAddSub, "TMAX"}},
    // Compute: elementwise unary (SFPU).
    {"ttl.exp", "elementwise e^x", F::SameType, P::Compute, 1, 1, 0, kNone,
     {K::Unary, "exp_tile", "exp_tile_init", C::Sfpu, "TEXP"}},
    {"ttl.log", "elementwise ln x", F::SameType, P::Compute, 1, 1, 0, kNone,
     {K::Unary, "log_tile", "log_tile_init", C::Sfpu, "TLOG"}},
    {"ttl.sqrt", "elementwise sqrt x", F::SameType, P::Compute, 1, 1, 0, kNone,
     {K::Unary, "sqrt_tile", "sqrt_tile_init", C::Sfpu, "TSQRT"}},
    {"ttl.rsqrt", "elementwise 1 / sqrt x", F::SameType, P::Compute, 1, 1, 0, kNone,
     {K::Unary, "rsqrt_tile", "rsqrt_tile_init", C::Sfpu, "TRSQRT"}},
    {"ttl.recip", "elementwise 1 / x", F::SameType, P::Compute, 1, 1, 0, kNone,
     {K::Unary, "recip_tile", "recip_tile_init", C::Sfpu, "TRECIP"}},
    {"ttl.relu", "elementwise max(x, 0)", F::SameType, P::Compute, 1, 1, 0, kNone,
     {K::Unary, "relu_tile", "relu_tile_init", C::Sfpu, "TRELU"}},
    {"ttl.gelu", "elementwise GELU", F::SameType, P::Compute, 1, 1, 0, kNone,
     {K::Unary, "gelu_tile", "gelu_tile_init", C::Sfpu,
      // x * sigmoid(1.5957691 (x + 0.044715 x^3)), the tanh form, as x / (1 + e^-(...))
      "t=TMUL(x, x); t=TMULS(t, -0.071354816); t=TADDS(t, -1.5957691); t=TMUL(t, x); "
      "t=TEXP(t); t=TADDS(t, 1); y=TDIV(x, t)"}},
    {"ttl.sigmoid", "elementwise 1 / (1 + e^-x)", F::SameType, P::Compute, 1, 1, 0, kNone,
     {K::Unary, "sigmoid_tile", "sigmoid_tile_init", C::Sfpu,
      "t=TMULS(x, -1); t=TEXP(t); t=TADDS(t, 1); y=TRECIP(t)"}},
    {"ttl.tanh", "elementwise tanh x", F::SameType, P::Compute, 1, 1, 0, kNone,
     {K::Unary, "tanh_tile", "tanh_tile_init", C::Sfpu,
      // 2 / (1 + e^-2x) - 1
      "t=TMULS(x, -2); t=TEXP(t); t=TADDS(t, 1); y=TRECIP(t); y=TMULS(y, 2); y=TADDS(y, -1)"}},
    {"ttl.neg", "elementwise -x", F::SameType, P::Compute, 1, 1, 0, kNone,
     {K::Unary, "negative_tile", "negative_tile_init", C::Sfpu, "TNEG"}},
    {"ttl.sin", "elementwise sin x", F::SameType, P::Compute, 1, 1, 0, kNone,
     {K::Unary, "sin_tile", "sin_tile_init", C::Sfpu}},
    {"ttl.abs", "elementwise |x|", F::SameType, P::Compute, 1, 1, 0, kNone,
     {K::Unary, "abs_tile", "abs_tile_init", C::Sfpu, "TABS"}},
    // Compute: matrix, reductions, broadcast, store.
    {"ttl.matmul", "matrix product of two blocks", F::Matmul, P::Compute, 2, 1, 0, kNone,
     {K::Matmul, "matmul_tiles", "mm_init_short", C::Matmul, "TMATMUL"}},
    {"ttl.reduce_sum", "sum over `dims`", F::Convert, P::Compute, 1, 1, 0, kNone,
     {K::Reduce, "reduce_tile", "reduce_init", C::ReduceSum, "TROWSUM"}},
    {"ttl.reduce_max", "maximum over `dims`", F::Convert, P::Compute, 1, 1, 0, kNone,
     {K::Reduce, "reduce_tile", "reduce_init", C::ReduceMax, "TROWMAX"}},
    {"ttl.bcast", "broadcast row 0 / column 0 / element (0, 0) over `dims`", F::Convert,
     P::Compute, 1, 1, 0, kNone,
     {K::Bcast, "unary_bcast", "unary_bcast_init", C::EltwiseAddSub, "TROWEXPAND"}},
    {"ttl.transpose", "swap a block's rows and columns: tile (i, j) of the result is tile (j, i) "
     "of the operand, itself transposed (tt-lang's ttl.math.transpose)", F::Convert, P::Compute,
     1, 1, 0, kNone,
     // transpose_wh_tile unpacks with the transpose flag and copies into DST: a datacopy.
     // No pto lowering yet (pto-isa's TTRANS would be its instruction).
     {K::Transpose, "transpose_wh_tile", "transpose_wh_init_short", C::EltwiseAddSub}},
    {"ttl.identity", "elementwise x: the block unchanged, through DST (tt-lang's store of a "
     "waited block)", F::SameType, P::Compute, 1, 1, 0, kNone,
     // copy_tile is the unpacker's datacopy into DST, one FPU pass per tile like an add.
     {K::Copy, "copy_tile", "copy_tile_init", C::EltwiseAddSub}},
    {"ttl.fill", "a block with every element `value` (tt-lang's ttl.block.fill)", F::FillValue,
     P::Compute, 0, 1, 0, kNone,
     {K::Fill, "fill_tile", "fill_tile_init", C::Sfpu}},
    {"ttl.store", "write a value into a reserved view (optionally accumulating)", F::SameType,
     P::Compute, 2, 0, 0, kNone,
     {K::Store, "pack_tile", "", C::None, "TMOV"}},
    // clang-format on
    // tt-lang's ops that ttlplan's own form spells differently (docs/ttlang-interop.md); the ops
    // both share (cb_wait, copy, add, matmul, ...) read in either spelling.
    {"ttl.bind_cb", "tt-lang: a thread's handle on CB `cb_index` with `block_count` blocks",
     F::ResultType, P::TtLangThread, 0, 1, 0, kNone},
    {"ttl.attach_cb", "tt-lang: the tensor, recorded as held by the CB", F::Functional,
     P::TtLangThread, 2, 1, 0, kNone},
    {"ttl.reduce", "tt-lang: scaled sum (0) or max (1) over `dims`", F::Reduce, P::TtLangThread, 2,
     1, 0, kNone},
    {"ttl.block.broadcast", "tt-lang: broadcast the size-1 `dims` to `shape`", F::BlockBroadcast,
     P::TtLangThread, 1, 1, 0, kNone},
    {"ttl.yield", "tt-lang: region terminator", F::ScfYield, P::Anywhere, -1, 0, 0, kNone},
    {"ttl.min", "tt-lang: elementwise min(a, b)", F::SameType, P::TtLangThread, 2, 1, 0, kNone},
    {"ttl.exp2", "tt-lang: elementwise 2^x", F::SameType, P::TtLangThread, 1, 1, 0, kNone},
    {"ttl.square", "tt-lang: elementwise x * x", F::SameType, P::TtLangThread, 1, 1, 0, kNone},
    {"ttl.silu", "tt-lang: elementwise x * sigmoid(x)", F::SameType, P::TtLangThread, 1, 1, 0,
     kNone},
    // tt-lang's other elementwise ops (tenstorrent/tt-lang TTLElementwiseOps.def, TTLOps.td):
    // read and printed back, not planned (import-ttlang names them as unsupported).
    {"ttl.floor", "tt-lang: elementwise floor(x)", F::SameType, P::TtLangThread, 1, 1, 0, kNone},
    {"ttl.cos", "tt-lang: elementwise cos(x)", F::SameType, P::TtLangThread, 1, 1, 0, kNone},
    {"ttl.tan", "tt-lang: elementwise tan(x)", F::SameType, P::TtLangThread, 1, 1, 0, kNone},
    {"ttl.asin", "tt-lang: elementwise asin(x)", F::SameType, P::TtLangThread, 1, 1, 0, kNone},
    {"ttl.acos", "tt-lang: elementwise acos(x)", F::SameType, P::TtLangThread, 1, 1, 0, kNone},
    {"ttl.atan", "tt-lang: elementwise atan(x)", F::SameType, P::TtLangThread, 1, 1, 0, kNone},
    {"ttl.ceil", "tt-lang: elementwise ceil(x)", F::SameType, P::TtLangThread, 1, 1, 0, kNone},
    {"ttl.sign", "tt-lang: elementwise sign(x): -1, 0 or 1", F::SameType, P::TtLangThread, 1, 1, 0,
     kNone},
    {"ttl.hardsigmoid", "tt-lang: elementwise hardsigmoid(x)", F::SameType, P::TtLangThread, 1, 1,
     0, kNone},
    {"ttl.expm1", "tt-lang: elementwise e^x - 1", F::SameType, P::TtLangThread, 1, 1, 0, kNone},
    {"ttl.softsign", "tt-lang: elementwise x / (1 + |x|)", F::SameType, P::TtLangThread, 1, 1, 0,
     kNone},
    {"ttl.signbit", "tt-lang: elementwise 1 where x is negative", F::SameType, P::TtLangThread, 1,
     1, 0, kNone},
    {"ttl.frac", "tt-lang: elementwise x - trunc(x)", F::SameType, P::TtLangThread, 1, 1, 0, kNone},
    {"ttl.trunc", "tt-lang: elementwise x rounded toward zero", F::SameType, P::TtLangThread, 1, 1,
     0, kNone},
    {"ttl.eq", "tt-lang: elementwise 1 where a == b, else 0", F::SameType, P::TtLangThread, 2, 1, 0,
     kNone},
    {"ttl.ne", "tt-lang: elementwise 1 where a != b, else 0", F::SameType, P::TtLangThread, 2, 1, 0,
     kNone},
    {"ttl.gt", "tt-lang: elementwise 1 where a > b, else 0", F::SameType, P::TtLangThread, 2, 1, 0,
     kNone},
    {"ttl.lt", "tt-lang: elementwise 1 where a < b, else 0", F::SameType, P::TtLangThread, 2, 1, 0,
     kNone},
    {"ttl.typecast", "tt-lang: a block converted to the result's data type", F::Functional,
     P::TtLangThread, 1, 1, 0, kNone},
    {"ttl.raw_element_read", "tt-lang: one element of a block", F::Slice, P::TtLangThread, -1, 1, 0,
     kNone},
    {"ttl.tile_regs_acquire", "tt-lang: DST registers acquire (after lowering)", F::ImpliedTypes,
     P::TtLangThread, 0, 0, 0, kNone},
    {"ttl.tile_regs_commit", "tt-lang: DST registers commit (after lowering)", F::ImpliedTypes,
     P::TtLangThread, 0, 0, 0, kNone},
    {"ttl.tile_regs_wait", "tt-lang: DST registers wait (after lowering)", F::ImpliedTypes,
     P::TtLangThread, 0, 0, 0, kNone},
    {"ttl.tile_regs_release", "tt-lang: DST registers release (after lowering)", F::ImpliedTypes,
     P::TtLangThread, 0, 0, 0, kNone},
    {"ttl.tile_floor", "tt-lang: floor of one tile, into DST", F::IntoDst, P::TtLangThread, 2, 1, 0,
     kNone},
    {"ttl.tile_cos", "tt-lang: cos of one tile, into DST", F::IntoDst, P::TtLangThread, 2, 1, 0,
     kNone},
    {"ttl.tile_tan", "tt-lang: tan of one tile, into DST", F::IntoDst, P::TtLangThread, 2, 1, 0,
     kNone},
    {"ttl.tile_asin", "tt-lang: asin of one tile, into DST", F::IntoDst, P::TtLangThread, 2, 1, 0,
     kNone},
    {"ttl.tile_acos", "tt-lang: acos of one tile, into DST", F::IntoDst, P::TtLangThread, 2, 1, 0,
     kNone},
    {"ttl.tile_atan", "tt-lang: atan of one tile, into DST", F::IntoDst, P::TtLangThread, 2, 1, 0,
     kNone},
    {"ttl.tile_ceil", "tt-lang: ceil of one tile, into DST", F::IntoDst, P::TtLangThread, 2, 1, 0,
     kNone},
    {"ttl.tile_sign", "tt-lang: sign of one tile, into DST", F::IntoDst, P::TtLangThread, 2, 1, 0,
     kNone},
    {"ttl.tile_hardsigmoid", "tt-lang: hardsigmoid of one tile, into DST", F::IntoDst,
     P::TtLangThread, 2, 1, 0, kNone},
    {"ttl.tile_expm1", "tt-lang: expm1 of one tile, into DST", F::IntoDst, P::TtLangThread, 2, 1, 0,
     kNone},
    {"ttl.tile_softsign", "tt-lang: softsign of one tile, into DST", F::IntoDst, P::TtLangThread, 2,
     1, 0, kNone},
    {"ttl.tile_signbit", "tt-lang: signbit of one tile, into DST", F::IntoDst, P::TtLangThread, 2,
     1, 0, kNone},
    {"ttl.tile_frac", "tt-lang: frac of one tile, into DST", F::IntoDst, P::TtLangThread, 2, 1, 0,
     kNone},
    {"ttl.tile_trunc", "tt-lang: trunc of one tile, into DST", F::IntoDst, P::TtLangThread, 2, 1, 0,
     kNone},
    {"ttl.tile_sin", "tt-lang: sin of one tile, into DST", F::IntoDst, P::TtLangThread, 2, 1, 0,
     kNone},
    {"ttl.tile_eq", "tt-lang: eq of two tiles, into DST", F::IntoDst, P::TtLangThread, 3, 1, 0,
     kNone},
    {"ttl.tile_ne", "tt-lang: ne of two tiles, into DST", F::IntoDst, P::TtLangThread, 3, 1, 0,
     kNone},
    {"ttl.tile_gt", "tt-lang: gt of two tiles, into DST", F::IntoDst, P::TtLangThread, 3, 1, 0,
     kNone},
    {"ttl.tile_lt", "tt-lang: lt of two tiles, into DST", F::IntoDst, P::TtLangThread, 3, 1, 0,
     kNone},
    {"ttl.tile_mul_unary_const",
     "tt-lang: one tile times the f32 `value`, into DST",
     F::IntoDst,
     P::TtLangThread,
     2,
     1,
     0,
     kNone,
     {},
     {.valueAfter = true}},
    {"ttl.mul_unary_const", "tt-lang: a block times the f32 `value`", F::ValueConvert,
     P::TtLangThread, 1, 1, 0, kNone},
    {"ttl.raw_element_write", "tt-lang: write one element of a block", F::ElementWrite,
     P::TtLangThread, -1, 0, 0, kNone},
    {"ttl.init_sfpu", "tt-lang: SFPU start-up for an input and an output CB (after lowering)",
     F::ParenOperands, P::TtLangThread, 2, 0, 0, kNone},
    {"ttl.dst_section", "tt-lang: a region that holds DST registers (after lowering)", F::Thread,
     P::TtLangThread, 0, 0, 1, kNone},
    // tt-lang's pipe transfers and pipe-net queries (its convert-pipe-ops pass's forms).
    {"ttl.pipe_transfer.create", "tt-lang: a transfer over a pipe", F::Convert, P::TtLangThread, 1,
     1, 0, kNone},
    {"ttl.pipe_transfer.post", "tt-lang: a receiver posts its buffer for a transfer", F::Functional,
     P::TtLangThread, 2, 1, 0, kNone},
    {"ttl.pipe_transfer.send", "tt-lang: the source sends its block over a transfer", F::Functional,
     P::TtLangThread, 2, 1, 0, kNone},
    {"ttl.pipe_transfer.wait", "tt-lang: wait for a posted transfer's token", F::SameType,
     P::TtLangThread, 1, 0, 0, kNone},
    {"ttl.pipenet_scope", "tt-lang: a region acting for the pipe nets it names", F::KeywordScope,
     P::TtLangThread, 0, 0, 1, kNone},
    {"ttl.is_src", "tt-lang: whether this core is a source of pipe net `pipe_net_id`", F::Predicate,
     P::TtLangThread, 0, 1, 0, kNone},
    {"ttl.is_dst", "tt-lang: whether this core is a destination of pipe net `pipe_net_id`",
     F::Predicate, P::TtLangThread, 0, 1, 0, kNone},
    {"ttl.is_active", "tt-lang: whether this core takes part in pipe net `pipe_net_id`",
     F::Predicate, P::TtLangThread, 0, 1, 0, kNone},
    {"tensor.empty", "an uninitialised tensor (tt-lang: the outputs of ttl.compute)", F::EmptyCall,
     P::Anywhere, -1, 1, 0, kNone},
    {"memref.alloca", "a buffer on the stack (tt-lang: a kernel-local counter)", F::EmptyCall,
     P::Anywhere, -1, 1, 0, kNone},
    {"tensor.extract", "one element of a tensor (tt-lang: a tile of a block)", F::Extract,
     P::Anywhere, -1, 1, 0, kNone},
    {"ttl.compute", "tt-lang: per-tile body over input and output blocks", F::Compute,
     P::TtLangThread, -1, -1, 1, kNone},
    {"ttl.tile_add", "tt-lang: one tile, a + b, into DST", F::IntoDst, P::TtLangThread, 3, 1, 0,
     kNone},
    {"ttl.tile_sub", "tt-lang: one tile, a - b, into DST", F::IntoDst, P::TtLangThread, 3, 1, 0,
     kNone},
    {"ttl.tile_mul", "tt-lang: one tile, a * b, into DST", F::IntoDst, P::TtLangThread, 3, 1, 0,
     kNone},
    {"ttl.tile_max", "tt-lang: one tile, max(a, b), into DST", F::IntoDst, P::TtLangThread, 3, 1, 0,
     kNone},
    {"ttl.tile_div", "tt-lang: one tile, a / b, into DST", F::IntoDst, P::TtLangThread, 3, 1, 0,
     kNone},
    {"ttl.tile_min", "tt-lang: one tile, min(a, b), into DST", F::IntoDst, P::TtLangThread, 3, 1, 0,
     kNone},
    {"ttl.tile_exp", "tt-lang: exp of one tile, into DST", F::IntoDst, P::TtLangThread, 2, 1, 0,
     kNone},
    {"ttl.tile_log", "tt-lang: log of one tile, into DST", F::IntoDst, P::TtLangThread, 2, 1, 0,
     kNone},
    {"ttl.tile_sqrt", "tt-lang: sqrt of one tile, into DST", F::IntoDst, P::TtLangThread, 2, 1, 0,
     kNone},
    {"ttl.tile_rsqrt", "tt-lang: rsqrt of one tile, into DST", F::IntoDst, P::TtLangThread, 2, 1, 0,
     kNone},
    {"ttl.tile_recip", "tt-lang: recip of one tile, into DST", F::IntoDst, P::TtLangThread, 2, 1, 0,
     kNone},
    {"ttl.tile_relu", "tt-lang: relu of one tile, into DST", F::IntoDst, P::TtLangThread, 2, 1, 0,
     kNone},
    {"ttl.tile_gelu", "tt-lang: gelu of one tile, into DST", F::IntoDst, P::TtLangThread, 2, 1, 0,
     kNone},
    {"ttl.tile_sigmoid", "tt-lang: sigmoid of one tile, into DST", F::IntoDst, P::TtLangThread, 2,
     1, 0, kNone},
    {"ttl.tile_tanh", "tt-lang: tanh of one tile, into DST", F::IntoDst, P::TtLangThread, 2, 1, 0,
     kNone},
    {"ttl.tile_neg", "tt-lang: neg of one tile, into DST", F::IntoDst, P::TtLangThread, 2, 1, 0,
     kNone},
    {"ttl.tile_abs", "tt-lang: abs of one tile, into DST", F::IntoDst, P::TtLangThread, 2, 1, 0,
     kNone},
    {"ttl.tile_exp2", "tt-lang: exp2 of one tile, into DST", F::IntoDst, P::TtLangThread, 2, 1, 0,
     kNone},
    {"ttl.tile_square", "tt-lang: square of one tile, into DST", F::IntoDst, P::TtLangThread, 2, 1,
     0, kNone},
    {"ttl.tile_silu", "tt-lang: silu of one tile, into DST", F::IntoDst, P::TtLangThread, 2, 1, 0,
     kNone},
    {"ttl.tile_typecast", "tt-lang: a tile converted to the result's data type, into DST",
     F::IntoDst, P::TtLangThread, 2, 1, 0, kNone},
    {"ttl.tile_fill",
     "tt-lang: a tile with every element `value`, into DST",
     F::IntoDst,
     P::TtLangThread,
     1,
     1,
     0,
     kNone,
     {},
     {.valueFirst = true}},
    {"ttl.tile_transpose",
     "tt-lang: a tile transposed, into DST",
     F::IntoDst,
     P::TtLangThread,
     3,
     1,
     0,
     kNone,
     {},
     {.parenTypes = true}},
    {"ttl.tile_bcast",
     "tt-lang: a tile's column (1), row (2) or scalar (3) broadcast, into DST",
     F::IntoDst,
     P::TtLangThread,
     3,
     1,
     0,
     kNone,
     {},
     {.attributes = {"bcast_type", ""}, .parenTypes = true}},
    {"ttl.tile_reduce",
     "tt-lang: a scaled tile reduction (0 sum, 1 max) along `reduce_dim`",
     F::IntoDst,
     P::TtLangThread,
     4,
     1,
     0,
     kNone,
     {},
     {.attributes = {"reduce_type", "reduce_dim"}, .parenTypes = true}},
    {"ttl.tile_matmul_block", "tt-lang: a block matmul, optionally accumulating, into DST",
     F::IntoDst, P::TtLangThread, -1, 1, 0, kNone},
    {"ttl.copy_tile",
     "tt-lang: copy a CB's tile at the given indices into DST",
     F::IntoDst,
     P::TtLangThread,
     -1,
     2,
     0,
     kNone,
     {},
     {.indexedFirst = true}},
    {"ttl.tile_store", "tt-lang: store a DST tile into a view at the given tile indices",
     F::TileStore, P::TtLangThread, -1, 0, 0, kNone},
    {"ttl.iter_index", "tt-lang: the compute body's index along `dim`", F::IterIndex,
     P::TtLangThread, 0, 1, 0, kNone},
    // Upstream MLIR.
    {"scf.for", "counted loop, optionally carrying values (iter_args)", F::ScfFor, P::Anywhere, -1,
     -1, 1, kNone},
    {"scf.if", "conditional, optionally yielding values", F::ScfIf, P::Anywhere, 1, -1, 2, kNone},
    {"scf.yield", "region terminator", F::ScfYield, P::Anywhere, -1, 0, 0, kNone},
    {"arith.constant", "a constant", F::ArithConstant, P::Anywhere, 0, 1, 0, kNone},
    {"arith.addi", "integer a + b", F::SameType, P::Anywhere, 2, 1, 0, kNone},
    {"arith.subi", "integer a - b", F::SameType, P::Anywhere, 2, 1, 0, kNone},
    {"arith.muli", "integer a * b", F::SameType, P::Anywhere, 2, 1, 0, kNone},
    {"arith.divui", "unsigned a / b", F::SameType, P::Anywhere, 2, 1, 0, kNone},
    {"arith.remui", "unsigned a % b", F::SameType, P::Anywhere, 2, 1, 0, kNone},
    {"arith.divsi", "signed a / b", F::SameType, P::Anywhere, 2, 1, 0, kNone},
    {"arith.remsi", "signed a % b", F::SameType, P::Anywhere, 2, 1, 0, kNone},
    {"arith.minui", "unsigned min", F::SameType, P::Anywhere, 2, 1, 0, kNone},
    {"arith.maxui", "unsigned max", F::SameType, P::Anywhere, 2, 1, 0, kNone},
    {"arith.andi", "bitwise and", F::SameType, P::Anywhere, 2, 1, 0, kNone},
    {"arith.ori", "bitwise or", F::SameType, P::Anywhere, 2, 1, 0, kNone},
    {"arith.xori", "bitwise xor", F::SameType, P::Anywhere, 2, 1, 0, kNone},
    {"arith.cmpi", "integer comparison", F::ArithCmpi, P::Anywhere, 2, 1, 0, kNone},
    {"arith.cmpf", "floating-point comparison", F::ArithCmpi, P::Anywhere, 2, 1, 0, kNone},
    {"scf.while", "a loop with a `before` region (ending in scf.condition) and a `do` region",
     F::ScfWhile, P::Anywhere, -1, -1, 2, kNone},
    {"scf.condition", "scf.while's test: continue with the values while true", F::ScfCondition,
     P::Anywhere, -1, 0, 0, kNone},
    {"tensor.extract_slice", "a slice of a tensor (offsets, sizes, strides)", F::ExtractSlice,
     P::Anywhere, -1, 1, 0, kNone},
    {"builtin.unrealized_conversion_cast", "a value seen as another type (between lowerings)",
     F::Cast, P::Anywhere, -1, -1, 0, kNone},
    // arith's casts, all written `%x : T to R`.
    {"arith.index_cast", "an integer to or from index", F::Cast, P::Anywhere, 1, 1, 0, kNone},
    {"arith.index_castui", "an unsigned integer to or from index", F::Cast, P::Anywhere, 1, 1, 0,
     kNone},
    {"arith.extsi", "a signed integer widened", F::Cast, P::Anywhere, 1, 1, 0, kNone},
    {"arith.extui", "an unsigned integer widened", F::Cast, P::Anywhere, 1, 1, 0, kNone},
    {"arith.trunci", "an integer narrowed", F::Cast, P::Anywhere, 1, 1, 0, kNone},
    {"arith.extf", "a float widened", F::Cast, P::Anywhere, 1, 1, 0, kNone},
    {"arith.truncf", "a float narrowed", F::Cast, P::Anywhere, 1, 1, 0, kNone},
    {"arith.sitofp", "a signed integer to float", F::Cast, P::Anywhere, 1, 1, 0, kNone},
    {"arith.uitofp", "an unsigned integer to float", F::Cast, P::Anywhere, 1, 1, 0, kNone},
    {"arith.fptosi", "a float to signed integer", F::Cast, P::Anywhere, 1, 1, 0, kNone},
    {"arith.fptoui", "a float to unsigned integer", F::Cast, P::Anywhere, 1, 1, 0, kNone},
    {"arith.bitcast", "the same bits as another type", F::Cast, P::Anywhere, 1, 1, 0, kNone},
};
} // namespace

const OpDef* lookupOp(std::string_view name) {
  // Hashed once: the cost model and lower-compute look ops up by name per evaluated point.
  static const std::unordered_map<std::string_view, const OpDef*> byName = [] {
    std::unordered_map<std::string_view, const OpDef*> m;
    for (const OpDef& d : kOps)
      m.emplace(d.name, &d); // the first record of a name wins, as a linear search would
    return m;
  }();
  auto it = byName.find(name);
  return it == byName.end() ? nullptr : it->second;
}

std::span<const OpDef> registeredOps() {
  return kOps;
}

namespace {
constexpr AttrDef kAttrs[] = {
    {"ttl.kernel", "grid", "the core grid [GY, GX], or the planner chooses", "[GY, GX] | \"auto\"",
     "\"auto\""},
    {"ttl.kernel", "work", "the kernel's work items, split over the cores by the planner",
     "[D0, D1, ...]", "none (no ttl.work_loop)"},
    {"ttl.kernel", "math_fidelity",
     "FPU fidelity of matmul and multiply (passes over the mantissa)",
     "\"LoFi\" | \"HiFi2\" | \"HiFi3\" | \"HiFi4\" | @KNOB", "\"HiFi4\""},
    {"ttl.kernel", "fp32_dest_acc", "accumulate in fp32 in DST (halves the DST tiles)",
     "0 | 1 | @KNOB", "0"},
    {"ttl.kernel", "assumed",
     "what the input left out and the plan assumes (import-ttlang writes it for tt-lang threads "
     "without ttl.launch_grid); `plan` reports each line",
     "[\"text\", ...]", "none"},
    {"ttl.create_cb", "outside",
     "which end of the CB runs in a thread this file does not hold (a tt-lang thread planned on "
     "its own): the CB is planned (L1, index) but the kernel cannot be costed, compiled or run",
     "\"producer\" | \"consumer\"", "none (both ends are threads of the kernel)"},
    {"ttl.fill_reduce_scaler", "value", "the scaler: 1 for a sum or a maximum", "a float",
     "none (required)"},
    {"ttl.tensor_slice", "clip",
     "the block may reach past the tensor's edge: those tiles are not read (their part of the "
     "block is unspecified) and not written",
     "true | false", "false"},
};
} // namespace

bool isMathFidelity(std::string_view name) {
  return std::find(std::begin(kMathFidelities), std::end(kMathFidelities), name) !=
         std::end(kMathFidelities);
}

std::span<const AttrDef> registeredAttributes() {
  return kAttrs;
}

const AttrDef* lookupAttr(std::string_view op, std::string_view name) {
  for (const AttrDef& a : kAttrs)
    if (a.op == op && a.name == name) return &a;
  return nullptr;
}

Type impliedOperandType(const OpDef& def) {
  switch (def.impliedOperand) {
  case TypeKind::Integer:
    return Type::integer(1);
  case TypeKind::Pipe:
    return Type::pipe();
  case TypeKind::Semaphore:
    return Type::semaphore();
  case TypeKind::Index:
    return Type::index();
  default:
    return Type();
  }
}

std::string_view toString(ComputeKind kind) {
  switch (kind) {
  case ComputeKind::None:
    return "none";
  case ComputeKind::Unary:
    return "unary";
  case ComputeKind::Binary:
    return "binary";
  case ComputeKind::Matmul:
    return "matmul";
  case ComputeKind::Reduce:
    return "reduce";
  case ComputeKind::Bcast:
    return "bcast";
  case ComputeKind::Transpose:
    return "transpose";
  case ComputeKind::Fill:
    return "fill";
  case ComputeKind::Copy:
    return "copy";
  case ComputeKind::Store:
    return "store";
  }
  return "?";
}

std::string_view toString(CostClass cost) {
  switch (cost) {
  case CostClass::None:
    return "none";
  case CostClass::EltwiseAddSub:
    return "compute.eltwise_add_sub_cycles_per_tile";
  case CostClass::EltwiseMul:
    return "compute.eltwise_mul_cycles_per_tile";
  case CostClass::Sfpu:
    return "compute.sfpu_exp_cycles_per_tile";
  case CostClass::Matmul:
    return "compute.matmul_cycles_per_tile";
  case CostClass::ReduceSum:
    return "compute.reduce_sum_cycles_per_tile";
  case CostClass::ReduceMax:
    return "compute.reduce_max_cycles_per_tile";
  }
  return "?";
}

std::span<const std::string_view> comparePredicates(std::string_view opName) {
  if (opName == "arith.cmpf") return kCmpfPredicates;
  return kCmpiPredicates;
}

std::string_view toString(Placement placement) {
  switch (placement) {
  case Placement::Anywhere:
    return "anywhere";
  case Placement::ModuleBody:
    return "the module body";
  case Placement::KernelBody:
    return "a kernel body";
  case Placement::KernelScope:
    return "a kernel";
  case Placement::AnyThread:
    return "a thread";
  case Placement::Compute:
    return "the compute thread";
  case Placement::DataMovement:
    return "a datamovement thread";
  case Placement::TtLangThread:
    return "a tt-lang thread function";
  }
  return "?";
}

namespace {
// The attributes each custom form spells itself.
constexpr std::string_view kSymName[] = {"sym_name"};
constexpr std::string_view kFuncAttrs[] = {"sym_name", "sym_visibility", "function_type",
                                           "arg_attrs", "res_attrs"};
constexpr std::string_view kParamAttrs[] = {"sym_name", "values", "range", "divisors"};
constexpr std::string_view kStaticCoords[] = {"static_coords"};
constexpr std::string_view kParam[] = {"param"};
constexpr std::string_view kValue[] = {"value"};
constexpr std::string_view kPredicate[] = {"predicate"};
constexpr std::string_view kReduceAttrs[] = {"reduce_type", "dims"};
constexpr std::string_view kBroadcastAttrs[] = {"dims", "shape"};
constexpr std::string_view kSegments[] = {"operandSegmentSizes"};
constexpr std::string_view kDim[] = {"dim"};
// MLIR 16's name for the segment sizes: mlir-opt-16 checks the generic form (MLIR 17 renamed it
// `operandSegmentSizes`; a generic form tt-lang wrote keeps its own spelling, in properties).
constexpr std::string_view kSliceAttrs[] = {"static_offsets", "static_sizes", "static_strides",
                                            "operand_segment_sizes"};

// In AsmFormat's order (formatDef indexes it; tests/ir/OpRecordsTest.cpp checks the order).
constexpr AsmFormatDef kFormats[] = {
    {F::Generic, "\"name\"(...) ({...}) {...} : (...) -> (...)", {}},
    {F::Module, "module [@name] [attributes {..}] { ... }", kSymName},
    {F::Kernel, "@name(%a: T, ...) [attributes {..}] { ... }", kSymName},
    {F::Func,
     "[private] @name(%a: T [{..}], ...) [-> T | -> (T [{..}], ...)] [attributes {..}] [{ ... }]",
     kFuncAttrs},
    {F::Param, "@name = [v0, v1, ...] or range(..) or divisors(..) [{problem}]", kParamAttrs},
    {F::Thread, "{ ... } [{..}]", {}},
    {F::WorkLoop, "(%i, %j) { ... } [{..}]", {}},
    {F::ResultType, "[{..}] : R", {}},
    {F::Convert, "$0 [{..}] : T0 -> R", {}},
    {F::SameType, "$0, $1, ... [{..}] : T", {}},
    {F::ImpliedTypes, "$0, ... [{..}]", {}},
    {F::Functional, "$0, $1 [{..}] : (T0, T1) -> R", {}},
    {F::Slice, "$0[$1, $2] [{..}] : T0 -> R", {}},
    {F::Matmul, "$0, $1 [{..}] : T0, T1 -> R", {}},
    {F::CreatePipe, "src(x, y) dst(x, y) [to(x, y)] [{..}] : !ttl.pipe", kStaticCoords},
    {F::PipeRegion, "$0 { ... } [{..}]", {}},
    {F::ParamValue, "@P [{..}] : R", kParam},
    {F::ScfFor, "%iv = $0 to $1 step $2 [iter_args(%a = $3, ..) -> (R, ..)] { ... } [{..}]", {}},
    {F::ScfIf, "$0 [-> (R, ..)] { ... } [else { ... }] [{..}]", {}},
    {F::ScfYield, "[$0, ... : T0, ...]", {}},
    {F::ArithConstant, "[{..}] VALUE", kValue},
    {F::ArithCmpi, "PRED, $0, $1 [{..}] : T", kPredicate},
    {F::Reduce, "$0, $1 KIND : i32 [dims] [{..}] : (T0, T1) -> R", kReduceAttrs},
    {F::BlockBroadcast, "$0 dims = [..], shape = [..] [{..}] : T0 -> R", kBroadcastAttrs},
    {F::FillValue, "VALUE [{..}] : R", kValue},
    {F::Compute, "ins($0, .. : T0, ..) outs($k, .. : Tk, ..) [{..}] { ^bb0(..): ... } -> R",
     kSegments},
    {F::IntoDst, "$0[, $1] into dst[$n] [{..}] : T0[, T1] -> R", {}},
    {F::TileStore, "$0, $1[$2, ..] from dst[$n] [{..}] : T0, T1", {}},
    {F::IterIndex, "DIM [{..}] : index", kDim},
    {F::EmptyCall, "([$0, ..]) [{..}] : R (the operands: dynamic sizes)", {}},
    {F::Extract, "$0[$1, ..] [{..}] : T0", {}},
    {F::Cast, "[$0, .. [{..}] : T0, ..] to R, ..", {}},
    {F::ValueConvert, "$0, VALUE [{..}] : T0 -> R", kValue},
    {F::ElementWrite, "$0[$1, ..], $n [{..}] : T0, Tn", {}},
    {F::ParenOperands, "($0, $1, ..) [{..}] : T0, T1, ..", {}},
    {F::Predicate, "[{..}], the result i1", {}},
    {F::KeywordScope, "[attributes {..}] { ... }", {}},
    {F::ExtractSlice,
     "$0[OFFSETS] [SIZES] [STRIDES] [{..}] : T0 to R (a dynamic entry is an operand)", kSliceAttrs},
    {F::ScfWhile, "(%a = $0, ..) : (T0, ..) -> (R, ..) { ... } do { ^bb0(..): ... } [{..}]", {}},
    {F::ScfCondition, "($0) [$1, .. : T1, ..]", {}},
};
} // namespace

const AsmFormatDef& formatDef(AsmFormat format) {
  return kFormats[static_cast<size_t>(format)];
}

std::span<const AsmFormatDef> registeredFormats() {
  return kFormats;
}

} // namespace ttlplan::ir
