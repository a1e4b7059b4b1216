// codegen: C++ emission for hand-written lowered IR (the form docs/lowering.md gives "after the
// full pipeline"): expression inlining, names, source comments, special spellings, errors at the
// op's location, the host program and the emulator build files. Expected texts were written by
// hand from the input below, not copied from the emitter's output.
#include "ttlplan/codegen/Codegen.h"

#include "ttlplan/codegen/CppText.h"
#include "ttlplan/codegen/EmuBuild.h"
#include "ttlplan/codegen/HostEmitter.h"
#include "ttlplan/codegen/KernelEmitter.h"
#include "ttlplan/ir/Parser.h"
#include "ttlplan/ir/Rewrite.h"
#include "ttlplan/support/Version.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <unistd.h>

using namespace ttlplan;
using namespace ttlplan::codegen;

namespace {

// Line numbers matter: the source comments name them. Line 1 is "!tile = ...".
constexpr const char* kLowered = R"(!tile = !ttcore.tile<32x32, bf16>
!cb = !ttl.cb<[2, 1], !tile, 2>
#dram = #ttl.layout<dram, interleaved>
module {
  ttl.kernel @k(%a: tensor<256x256xbf16, #dram>, %c: tensor<64x32xf32, #dram>) attributes {grid = [2, 3], ttl.grid_planned = [2, 3], ttl.semaphore_count = 2} {
    %cba = ttl.create_cb {ttl.bind_cb = {cb_index = 3, block_count = 2, l1_address = 103712 : i64}} : !cb
    %cbc = ttl.create_cb {ttl.bind_cb = {cb_index = 7, block_count = 1, l1_address = 111904 : i64}} : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 1>
    "ttl.launch"(%a, %cba, %cbc) {callee = @k_reader, ttl.kernel_thread = "noc0"} : (tensor<256x256xbf16, #dram>, !cb, !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 1>) -> ()
  }
  func.func @k_reader(%a: tensor<256x256xbf16, #dram>, %cba: !cb, %cbc: !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 1>) attributes {ttl.kernel = @k, ttl.kernel_thread = "noc0", ttl.runtime_args = ["a", "work_start", "work_count"], ttl.core_values = {work_start = [0, 4, 8, 12, 16, 20], work_count = [4, 4, 4, 4, 4, 3]}} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %addr = "ttkernel.get_arg_val"(%c0) : (index) -> index
    %ws = "ttkernel.get_arg_val"(%c1) : (index) -> index
    %wc = "ttkernel.get_arg_val"(%c2) : (index) -> index
    %we = arith.addi %ws, %wc : index
    %page = arith.constant 2048 : index
    %g = "ttkernel.interleaved_addr_gen"(%addr, %page) : (index, index) -> !ttkernel.addr_gen
    scf.for %w = %ws to %we step %c1 {
      "ttkernel.cb_reserve_back"(%cba, %c2) : (!cb, index) -> ()
      %p = "ttkernel.get_write_ptr"(%cba) : (!cb) -> index
      %t = arith.muli %w, %c2 : index
      "ttkernel.noc_async_read_tile"(%t, %g, %p) : (index, !ttkernel.addr_gen, index) -> ()
      %lt = arith.cmpi ult, %w, %c2 : index
      %neg = arith.cmpi slt, %w, %c2 : index
      %both = arith.andi %lt, %neg : i1
      scf.if %both {
        "ttkernel.noc_async_read_barrier"() : () -> ()
      } else {
        %m = arith.minui %w, %c2 : index
        %dead = arith.subi %w, %c1 : index
        "ttkernel.cb_push_back"(%cba, %m) : (!cb, index) -> ()
      }
      "ttkernel.cb_push_back"(%cba, %c2) : (!cb, index) -> ()
    }
  }
}
)";

struct Parsed {
  std::unique_ptr<ir::Module> module;
  ir::SourceManager sources;
  ir::Operation* func = nullptr;
  ir::Operation* kernel = nullptr;
};

Parsed parse(const char* text = kLowered) {
  Parsed p;
  ir::DiagnosticEngine diags;
  p.module = ir::parseSource(text, "k.ttl", diags);
  EXPECT_TRUE(p.module) << ir::format(diags.diagnostics());
  if (!p.module) return p;
  p.sources.add("k.ttl", text);
  for (ir::Operation* f : p.module->topLevel("func.func"))
    p.func = f;
  for (ir::Operation* k : p.module->topLevel("ttl.kernel"))
    p.kernel = k;
  return p;
}

std::string emit(Parsed& p, ir::DiagnosticEngine& diags) {
  EmitOptions options;
  options.sources = &p.sources;
  options.inputFile = "k.ttl";
  std::optional<std::string> text = emitKernel(*p.func, options, diags);
  return text ? *text : std::string();
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// The body of kernel_main without comment lines (statements only, with their indentation).
std::string statements(const std::string& text) {
  std::string out;
  size_t begin = text.find("void kernel_main() {\n");
  if (begin == std::string::npos) return out;
  size_t pos = begin;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    std::string line = text.substr(pos, end - pos);
    if (line.find_first_not_of(' ') == std::string::npos ||
        line.substr(line.find_first_not_of(' '), 2) != "//")
      out += line + "\n";
    if (end == std::string::npos) break;
    pos = end + 1;
  }
  return out;
}

} // namespace

TEST(KernelEmitter, TranslatesTheBodyWithConstantsInlined) {
  Parsed p = parse();
  ASSERT_TRUE(p.func);
  ir::DiagnosticEngine diags;
  std::string text = emit(p, diags);
  ASSERT_FALSE(text.empty()) << ir::format(diags.diagnostics());
  // Constants never become variables; arith ops become const declarations; the CB arguments are
  // compile-time args 0 and 1 in argument order; signed compares go through int32_t; minui needs
  // an explicit type; dead pure values (%dead) are dropped; the tensor argument %a is not declared.
  const std::string expected = R"(void kernel_main() {
  const uint32_t cb_cba = get_compile_time_arg_val(0);
  [[maybe_unused]] const uint32_t cb_cbc = get_compile_time_arg_val(1);
  const uint32_t addr = get_arg_val<uint32_t>(0);
  const uint32_t ws = get_arg_val<uint32_t>(1);
  const uint32_t wc = get_arg_val<uint32_t>(2);
  const uint32_t we = ws + wc;
  const InterleavedAddrGen<true> g = {.bank_base_address = addr, .page_size = 2048};
  for (uint32_t w = ws; w < we; w += 1) {
    cb_reserve_back(cb_cba, 2);
    const uint32_t p = get_write_ptr(cb_cba);
    const uint32_t t = w * 2;
    noc_async_read_tile(t, g, p);
    const bool lt = w < 2;
    const bool neg = static_cast<int32_t>(w) < static_cast<int32_t>(2);
    const bool both = lt & neg;
    if (both) {
      noc_async_read_barrier();
    } else {
      const uint32_t m = std::min<uint32_t>(w, 2);
      cb_push_back(cb_cba, m);
    }
    cb_push_back(cb_cba, 2);
  }
}
)";
  EXPECT_EQ(statements(text), expected) << text;
  EXPECT_TRUE(
      contains(text, "#include <cstdint>\n#include <algorithm>\n\n#include \"dataflow_api.h\""))
      << text;
  EXPECT_FALSE(contains(text, "compute_kernel_api.h"));
  // Header: file, kernel, thread and both argument tables.
  EXPECT_TRUE(contains(text, "// Generated by ttlplan from k.ttl: kernel @k, reader thread (noc0, "
                             "function @k_reader)."))
      << text;
  EXPECT_TRUE(contains(text, "//   1  cb_cbc  CB %cbc\n")) << text;
  EXPECT_TRUE(contains(text, "//   0  a  DRAM address of tensor %a\n")) << text;
  EXPECT_TRUE(contains(text, "//   2  work_count  per-core value\n")) << text;
}

TEST(KernelEmitter, SourceCommentBeforeEachNewLocation) {
  Parsed p = parse();
  ASSERT_TRUE(p.func);
  ir::DiagnosticEngine diags;
  std::string text = emit(p, diags);
  ASSERT_FALSE(text.empty()) << ir::format(diags.diagnostics());
  // Line 14 of kLowered, column 13 (the op name after "%addr = "), trimmed source text.
  EXPECT_TRUE(contains(text, "  // k.ttl:14:13: %addr = \"ttkernel.get_arg_val\"(%c0) : (index) -> "
                             "index\n  const uint32_t addr = get_arg_val<uint32_t>(0);\n"))
      << text;
  // Inside the loop (2 levels) the comment is indented like its statement.
  EXPECT_TRUE(contains(text, "    // k.ttl:23:12: %t = arith.muli %w, %c2 : index\n"
                             "    const uint32_t t = w * 2;\n"))
      << text;
  EXPECT_TRUE(contains(text, "  // k.ttl:20:5: scf.for %w = %ws to %we step %c1 {\n  for ("))
      << text;
  // Constants and the dropped %dead value emit no comment.
  EXPECT_FALSE(contains(text, "k.ttl:11:")) << text;
  EXPECT_FALSE(contains(text, "k.ttl:18:")) << text;
  EXPECT_FALSE(contains(text, "k.ttl:32:")) << text;
}

TEST(KernelEmitter, OneCommentForConsecutiveStatementsOfOneLocation) {
  // Statements made from one TTL op (as lowering does: several calls per op) share a comment.
  Parsed p = parse();
  ASSERT_TRUE(p.func);
  ir::Operation* reserve = nullptr;
  p.func->walk([&](ir::Operation* op) {
    if (op->isa("ttkernel.cb_reserve_back")) reserve = op;
  });
  ASSERT_TRUE(reserve);
  ir::OpBuilder b = ir::OpBuilder::after(reserve);
  b.call("noc_async_read_barrier", {}); // takes the location of cb_reserve_back (line 21)
  ir::DiagnosticEngine diags;
  std::string text = emit(p, diags);
  ASSERT_FALSE(text.empty()) << ir::format(diags.diagnostics());
  EXPECT_TRUE(contains(text, "    // k.ttl:21:7: \"ttkernel.cb_reserve_back\"(%cba, %c2) : (!cb, "
                             "index) -> ()\n    cb_reserve_back(cb_cba, 2);\n"
                             "    noc_async_read_barrier();\n    // k.ttl:22:"))
      << text;
}

TEST(KernelEmitter, NamesAreSanitizedAndUnique) {
  ir::Location loc{std::make_shared<const std::string>("n.ttl"), 1, 1};
  std::unique_ptr<ir::Operation> func =
      ir::Operation::create("func.func", loc, {}, {},
                            {{"sym_name", ir::Attribute::string("k_compute")},
                             {"ttl.kernel", ir::Attribute::symbolRef("k")},
                             {"ttl.kernel_thread", ir::Attribute::string("compute")}},
                            1);
  ir::Block& body = func->body();
  ir::Type cbType =
      ir::Type::circularBuffer({ir::Dim::fixed(1), ir::Dim::fixed(1)},
                               ir::Type::tile(32, 32, ir::DataType::BF16), ir::Dim::fixed(2));
  ir::Value* cbIn = body.addArgument(cbType, "in.0", loc);
  ir::Value* cbFor = body.addArgument(cbType, "", loc);
  ir::OpBuilder b = ir::OpBuilder::atEnd(body);
  ir::Value* one = b.constant(1);
  ir::Value* x1 = b.call("get_arg_val", {one}, ir::Type::index(), {}, "x");
  ir::Value* x2 = b.call("get_arg_val", {one}, ir::Type::index(), {}, "x");
  ir::Value* kw = b.arith("addi", x1, x2, "for");
  ir::Value* digit = b.arith("muli", kw, kw, "0");
  ir::Value* anon1 = b.arith("addi", digit, one);
  ir::Value* anon2 = b.arith("subi", anon1, one, "");
  ir::Value* api = b.arith("addi", anon2, one, "cb_wait_front");
  ir::Value* wide = b.call("get_noc_addr", {api}, ir::Type::integer(64), {}, "a-b.c");
  b.call("cb_wait_front", {cbIn, api});
  b.call("cb_pop_front", {cbFor, one});
  b.call("noc_async_write", {api, wide, one});
  ir::DiagnosticEngine diags;
  std::optional<std::string> text = emitKernel(*func, {}, diags);
  ASSERT_TRUE(text) << ir::format(diags.diagnostics());
  const std::string expected = R"(void kernel_main() {
  const uint32_t cb_in_0 = get_compile_time_arg_val(0);
  const uint32_t cb_1 = get_compile_time_arg_val(1);
  const uint32_t x = get_arg_val<uint32_t>(1);
  const uint32_t x_1 = get_arg_val<uint32_t>(1);
  const uint32_t for_ = x + x_1;
  const uint32_t v0 = for_ * for_;
  const uint32_t v1 = v0 + 1;
  const uint32_t v2 = v1 - 1;
  const uint32_t cb_wait_front_1 = v2 + 1;
  const uint64_t a_b_c = get_noc_addr(cb_wait_front_1);
  cb_wait_front(cb_in_0, cb_wait_front_1);
  cb_pop_front(cb_1, 1);
  noc_async_write(cb_wait_front_1, a_b_c, 1);
}
)";
  EXPECT_EQ(statements(*text), expected) << *text;
  // Compute kernels include the compute API.
  EXPECT_TRUE(contains(*text, "#include \"compute_kernel_api.h\"")) << *text;
  // The location n.ttl:1:1 has no source text here: the comment ends at the colon.
  EXPECT_TRUE(contains(*text, "  // n.ttl:1:1:\n  const uint32_t cb_in_0")) << *text;
}

TEST(KernelEmitter, SpecialSpellings) {
  ir::Location loc{std::make_shared<const std::string>("s.ttl"), 3, 5};
  std::unique_ptr<ir::Operation> func =
      ir::Operation::create("func.func", loc, {}, {},
                            {{"sym_name", ir::Attribute::string("k_compute")},
                             {"ttl.kernel", ir::Attribute::symbolRef("k")},
                             {"ttl.kernel_thread", ir::Attribute::string("compute")}},
                            1);
  ir::Block& body = func->body();
  ir::OpBuilder b = ir::OpBuilder::atEnd(body);
  ir::Value* c0 = b.constant(0);
  ir::Value* c4 = b.constant(4);
  ir::Value* big = b.constant(4000000000LL);
  ir::Value* yes = b.constant(1, ir::Type::integer(1));
  b.call("unary_bcast", {c0, c4, c0}, ir::Type(), {{"bcast", ir::Attribute::string("COL")}});
  b.call("fill_tile", {c4}, ir::Type(), {{"value", ir::Attribute::floating(0.0)}});
  b.call("fill_tile", {c4}, ir::Type(), {{"value", ir::Attribute::floating(-1.5)}});
  b.call("matmul_tiles", {c0, c4, c0, c0, c4});
  ir::Value* ptr = b.call("l1_ptr", {big}, ir::Type::opaque("!ttkernel.l1_ptr"), {}, "sem");
  b.call("noc_semaphore_wait", {ptr, yes});
  ir::DiagnosticEngine diags;
  std::optional<std::string> text = emitKernel(*func, {}, diags);
  ASSERT_TRUE(text) << ir::format(diags.diagnostics());
  const std::string expected = R"(void kernel_main() {
  unary_bcast<BroadcastType::COL>(0, 4, 0);
  fill_tile(4, 0.0f);
  fill_tile(4, -1.5f);
  matmul_tiles(0, 4, 0, 0, 4, false);
  volatile tt_l1_ptr uint32_t* sem = reinterpret_cast<volatile tt_l1_ptr uint32_t*>(4000000000u);
  noc_semaphore_wait(sem, true);
}
)";
  EXPECT_EQ(statements(*text), expected) << *text;
}

TEST(KernelEmitter, LeftoverTtlOpIsAnErrorAtItsLocation) {
  Parsed p = parse();
  ASSERT_TRUE(p.func);
  // A ttl.cb_wait that lower-sync failed to lower, placed at the get_write_ptr (line 22 col 12).
  ir::Operation* ptr = nullptr;
  p.func->walk([&](ir::Operation* op) {
    if (op->isa("ttkernel.get_write_ptr")) ptr = op;
  });
  ASSERT_TRUE(ptr);
  ir::Value* cb = ptr->operand(0);
  ir::OpBuilder::before(ptr).create(
      "ttl.cb_wait", {cb},
      {ir::Type::tensor({ir::Dim::fixed(2), ir::Dim::fixed(1)}, cb->type().elementType())});
  ir::DiagnosticEngine diags;
  std::string text = emit(p, diags);
  EXPECT_TRUE(text.empty());
  ASSERT_EQ(diags.errorCount(), 1u) << ir::format(diags.diagnostics());
  const ir::Diagnostic& d = diags.diagnostics()[0];
  EXPECT_EQ(d.location.str(), "k.ttl:22:12");
  EXPECT_TRUE(contains(d.message, "'ttl.cb_wait' has no C++ translation")) << d.message;
}

TEST(KernelEmitter, UnknownOpAndUnknownAttributeAreErrors) {
  ir::Location loc{std::make_shared<const std::string>("u.ttl"), 7, 9};
  ir::Location loc2{std::make_shared<const std::string>("u.ttl"), 8, 3};
  std::unique_ptr<ir::Operation> func =
      ir::Operation::create("func.func", loc, {}, {},
                            {{"sym_name", ir::Attribute::string("k_writer")},
                             {"ttl.kernel", ir::Attribute::symbolRef("k")},
                             {"ttl.kernel_thread", ir::Attribute::string("noc1")}},
                            1);
  ir::OpBuilder b = ir::OpBuilder::atEnd(func->body());
  ir::Value* c0 = b.constant(0);
  b.create("mystery.op", {c0});
  ir::OpBuilder b2 = std::move(b).withLocation(loc2);
  b2.call("cb_pop_front", {c0, c0}, ir::Type(), {{"dst_idx", ir::Attribute::integer(2)}});
  ir::DiagnosticEngine diags;
  EXPECT_FALSE(emitKernel(*func, {}, diags));
  ASSERT_EQ(diags.errorCount(), 2u) << ir::format(diags.diagnostics());
  EXPECT_EQ(diags.diagnostics()[0].location.str(), "u.ttl:7:9");
  EXPECT_TRUE(contains(diags.diagnostics()[0].message, "'mystery.op'"));
  EXPECT_EQ(diags.diagnostics()[1].location.str(), "u.ttl:8:3");
  EXPECT_TRUE(contains(diags.diagnostics()[1].message, "attribute 'dst_idx'"))
      << diags.diagnostics()[1].message;
}

TEST(KernelEmitter, TensorArgumentUsedDirectlyIsAnError) {
  // After the full pipeline a tensor is reached through its runtime-arg address, never as a value.
  Parsed p = parse();
  ASSERT_TRUE(p.func);
  ir::Value* a = p.func->body().argument(0);
  ir::Operation* ptr = nullptr;
  p.func->walk([&](ir::Operation* op) {
    if (op->isa("ttkernel.get_write_ptr")) ptr = op;
  });
  ASSERT_TRUE(ptr);
  ptr->setOperand(0, a);
  ir::DiagnosticEngine diags;
  EXPECT_TRUE(emit(p, diags).empty());
  ASSERT_EQ(diags.errorCount(), 1u);
  EXPECT_EQ(diags.diagnostics()[0].location.str(), "k.ttl:22:12");
  EXPECT_TRUE(contains(diags.diagnostics()[0].message, "function argument %a"))
      << diags.diagnostics()[0].message;
}

TEST(HostEmitter, GridBuffersCbsSemaphoresKernelsAndRuntimeArgs) {
  Parsed p = parse();
  ASSERT_TRUE(p.kernel && p.func);
  Expected<ir::Device> device = ir::builtinDevice("wormhole_b0");
  ASSERT_TRUE(device);
  ir::DiagnosticEngine diags;
  EmitOptions options;
  options.sources = &p.sources;
  std::optional<std::string> text = emitHost(*p.kernel, {p.func}, *device, options, diags);
  ASSERT_TRUE(text) << ir::format(diags.diagnostics());
  const std::string& h = *text;
  // grid_planned = [2, 3]: 2 rows, 3 columns; x is the column.
  EXPECT_TRUE(contains(h, "const CoreRange cores{{0, 0}, {2, 1}};")) << h;
  // %a: 256x256 bf16 = 64 tiles of 2048 B; %c: 64x32 f32 = 2 tiles of 4096 B.
  EXPECT_TRUE(contains(h, "std::shared_ptr<Buffer> buf_a = CreateBuffer(InterleavedBufferConfig{"
                          "device, 131072, 2048, BufferType::DRAM});"))
      << h;
  EXPECT_TRUE(contains(h, "EnqueueWriteBuffer(cq, buf_a, load(input_dir + \"/a.npy\", 256, 256, "
                          "tt::DataFormat::Float16_b), true);"))
      << h;
  EXPECT_TRUE(contains(h, "CreateBuffer(InterleavedBufferConfig{device, 8192, 4096, "
                          "BufferType::DRAM});"))
      << h;
  EXPECT_TRUE(
      contains(h, "store(output_dir + \"/c.npy\", words, 64, 32, tt::DataFormat::Float32);"))
      << h;
  // CBs: 2 blocks x 2 tiles x 2048 B at index 3; 1 x 1 x 4096 B (f32) at index 7.
  EXPECT_TRUE(contains(h, "CreateCircularBuffer(program, cores, CircularBufferConfig(2 * 2 * 2048, "
                          "{{3, tt::DataFormat::Float16_b}}).set_page_size(3, 2048)"
                          ".set_l1_address(103712));"))
      << h;
  EXPECT_TRUE(contains(h, "CircularBufferConfig(1 * 1 * 4096, {{7, tt::DataFormat::Float32}})"
                          ".set_page_size(7, 4096).set_l1_address(111904));"))
      << h;
  EXPECT_TRUE(contains(h, "CreateSemaphore(program, cores, 0); // id 0\n"
                          "  CreateSemaphore(program, cores, 0); // id 1\n"))
      << h;
  EXPECT_FALSE(contains(h, "// id 2"));
  // The reader: RISCV_0 on NOC 0, compile-time args = the CB indices of its CB operands.
  EXPECT_TRUE(contains(h, "KernelHandle reader_kernel = CreateKernel(program, \"k/reader.cpp\", "
                          "cores, DataMovementConfig{.processor = DataMovementProcessor::RISCV_0, "
                          ".noc = NOC::RISCV_0_default, .compile_args = {3, 7}});"))
      << h;
  // Runtime args per core, row-major over (y, x): core (x=2, y=1) is index 5.
  EXPECT_TRUE(contains(h, "SetRuntimeArgs(program, reader_kernel, CoreCoord{0, 0}, "
                          "{buf_a->address(), 0, 4});\n"))
      << h;
  EXPECT_TRUE(contains(h, "SetRuntimeArgs(program, reader_kernel, CoreCoord{1, 1}, "
                          "{buf_a->address(), 16, 4});\n"))
      << h;
  EXPECT_TRUE(contains(h, "SetRuntimeArgs(program, reader_kernel, CoreCoord{2, 1}, "
                          "{buf_a->address(), 20, 3});\n"))
      << h;
  // The launch's TTL location is named (line 8, column 5).
  EXPECT_TRUE(contains(h, "  // k.ttl:8:5: \"ttl.launch\"(%a, %cba, %cbc)")) << h;
  // Order: buffers written before the program runs, read back after.
  EXPECT_LT(h.find("EnqueueWriteBuffer"), h.find("EnqueueProgram(cq, program, true);"));
  EXPECT_LT(h.find("EnqueueProgram(cq, program, true);"), h.find("EnqueueReadBuffer"));
  EXPECT_LT(h.find("EnqueueReadBuffer"), h.find("CloseDevice(device);"));
}

TEST(HostEmitter, MissingPlanAttributesAreErrors) {
  Parsed p = parse();
  ASSERT_TRUE(p.kernel && p.func);
  ir::Operation* cb = nullptr;
  for (auto& op : p.kernel->body().operations())
    if (op->isa("ttl.create_cb") && !cb) cb = op.get();
  ASSERT_TRUE(cb);
  cb->removeAttribute("ttl.bind_cb");
  p.func->setAttribute("ttl.core_values", ir::Attribute::dictionary({}));
  Expected<ir::Device> device = ir::builtinDevice("wormhole_b0");
  ASSERT_TRUE(device);
  ir::DiagnosticEngine diags;
  EXPECT_FALSE(emitHost(*p.kernel, {p.func}, *device, {}, diags));
  ASSERT_GE(diags.errorCount(), 1u);
  EXPECT_EQ(diags.diagnostics()[0].location.str(), "k.ttl:6:12");
  EXPECT_TRUE(contains(diags.diagnostics()[0].message, "ttl.bind_cb"));

  p.kernel->removeAttribute("ttl.grid_planned");
  ir::DiagnosticEngine diags2;
  EXPECT_FALSE(emitHost(*p.kernel, {p.func}, *device, {}, diags2));
  ASSERT_EQ(diags2.errorCount(), 1u);
  EXPECT_TRUE(contains(diags2.diagnostics()[0].message, "ttl.grid_planned"));
}

TEST(HostEmitter, RuntimeArgWithoutCoreValuesIsAnError) {
  Parsed p = parse();
  ASSERT_TRUE(p.kernel && p.func);
  p.func->setAttribute("ttl.core_values",
                       ir::Attribute::dictionary({{"work_start", ir::Attribute::array({})}}));
  Expected<ir::Device> device = ir::builtinDevice("wormhole_b0");
  ASSERT_TRUE(device);
  ir::DiagnosticEngine diags;
  EXPECT_FALSE(emitHost(*p.kernel, {p.func}, *device, {}, diags));
  ASSERT_EQ(diags.errorCount(), 1u);
  EXPECT_TRUE(contains(diags.diagnostics()[0].message, "runtime arg 'work_start'"))
      << diags.diagnostics()[0].message;
}

TEST(Codegen, EmitModuleNamesFilesPerKernelAndThread) {
  Parsed p = parse();
  ASSERT_TRUE(p.module);
  Expected<ir::Device> device = ir::builtinDevice("wormhole_b0");
  ASSERT_TRUE(device);
  ir::DiagnosticEngine diags;
  EmitOptions options;
  options.sources = &p.sources;
  auto files = emitModule(*p.module, *device, nullptr, options, diags);
  ASSERT_TRUE(files) << ir::format(diags.diagnostics());
  ASSERT_EQ(files->size(), 2u);
  EXPECT_EQ((*files)[0].path, "k/reader.cpp");
  EXPECT_EQ((*files)[1].path, "k/host.cpp");
}

TEST(Codegen, WriteFilesReportsTheOsReason) {
  Expected<std::vector<bool>> s =
      writeFiles("/proc/definitely/not/writable", {{"k/reader.cpp", "x"}});
  ASSERT_FALSE(s);
  EXPECT_TRUE(contains(s.error().message, "/proc/definitely/not/writable")) << s.error().message;
}

TEST(Codegen, WriteFilesLeavesUnchangedFilesAlone) {
  std::string dir = (std::filesystem::temp_directory_path() /
                     ("ttlplan_writefiles_" + std::to_string(::getpid())))
                        .string();
  std::filesystem::remove_all(dir);
  std::vector<GeneratedFile> files{{"k/reader.cpp", "a\n"}, {"plan.json", "{}\n"}};
  Expected<std::vector<bool>> first = writeFiles(dir, files);
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(*first, (std::vector<bool>{true, true}));
  auto stamp = std::filesystem::last_write_time(dir + "/k/reader.cpp");
  files[1].text = "{\"x\": 1}\n";
  Expected<std::vector<bool>> second = writeFiles(dir, files);
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_EQ(*second, (std::vector<bool>{false, true})) << "only the changed file is written";
  EXPECT_EQ(std::filesystem::last_write_time(dir + "/k/reader.cpp"), stamp);
  std::ifstream in(dir + "/plan.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, files[1].text);
  std::filesystem::remove_all(dir);
}

TEST(Codegen, HeadersNameTheToolDeviceAndBinding) {
  ir::Device device = *ir::builtinDevice("wormhole_b0");
  EXPECT_EQ(provenance(device, nullptr),
            std::string(kToolVersion) + ", device wormhole_b0, binding none");
  lower::ModulePlan plan;
  plan.binding.binding = {{"BK", 2}, {"DTYPE", ir::KnobValue::symbol("bf16")}};
  plan.binding.source = "--bind";
  EXPECT_EQ(provenance(device, &plan),
            std::string(kToolVersion) + ", device wormhole_b0, binding BK=2, DTYPE=bf16 (--bind)");
}

TEST(CppText, LiteralsAndIdentifiers) {
  EXPECT_EQ(integerLiteral(7, 32), "7");
  EXPECT_EQ(integerLiteral(0x80000000LL, 32), "2147483648u");
  EXPECT_EQ(integerLiteral(-1, 32), "4294967295u");
  EXPECT_EQ(integerLiteral(1, 1), "true");
  EXPECT_EQ(integerLiteral(5, 64), "5ull");
  EXPECT_EQ(floatLiteral(0.0), "0.0f");
  EXPECT_EQ(floatLiteral(2.5), "2.5f");
  EXPECT_EQ(floatLiteral(1e-5), "1e-05f");
  EXPECT_EQ(sanitizeIdentifier("a.b-c"), "a_b_c");
  EXPECT_EQ(sanitizeIdentifier("3x"), "v3x");
  EXPECT_EQ(sanitizeIdentifier("int"), "int_");
  EXPECT_EQ(sanitizeIdentifier("__x"), "v__x");
  ir::SourceManager sources;
  sources.add("f.ttl", "line one\n   %x = ttl.core_x : index   \\\\\n");
  EXPECT_EQ(sourceComment({std::make_shared<const std::string>("f.ttl"), 2, 4}, &sources),
            "// f.ttl:2:4: %x = ttl.core_x : index");
  EXPECT_EQ(sourceComment({}, &sources), "");
}

TEST(EmuBuild, RegistryAndCommandLines) {
  std::vector<EmuKernelFile> kernels = {{"eltwise_add", "reader"}, {"eltwise_add", "compute"}};
  std::string registry = emitEmuRegistry(kernels);
  EXPECT_TRUE(contains(registry, "#include \"ttlplan_emu_kernel.h\"")) << registry;
  EXPECT_TRUE(contains(registry, "void ttlplan_kernel_eltwise_add_reader();\n")) << registry;
  EXPECT_TRUE(contains(registry, "TTLPLAN_EMU_REGISTER_KERNEL(\"eltwise_add/compute.cpp\", "
                                 "&ttlplan_kernel_eltwise_add_compute);\n"))
      << registry;
  EmuBuildOptions options;
  options.dir = "/out";
  options.emuIncludeDir = "/emu/include";
  options.emuLibrary = "/emu/libttlplan_emu.a";
  options.extraFlags = {"-O1"};
  options.linkLibraries = {"/lib/libttlplan_support.a", "-lfmt"};
  auto commands = emuBuildCommands(options, kernels, {"eltwise_add"});
  ASSERT_EQ(commands.size(), 4u);
  EXPECT_EQ(shellCommandLine(commands[0]),
            "g++ -std=c++20 -I /emu/include -O1 -c /out/eltwise_add/reader.emu.cpp -o "
            "/out/eltwise_add/reader.o");
  EXPECT_EQ(emitEmuKernelWrapper(kernels[1]),
            "// Generated by ttlplan: eltwise_add/compute.cpp built for the CPU emulator under the "
            "entry point the registry\n// (ttlplan_emu_registry.cpp) names.\n"
            "#define kernel_main ttlplan_kernel_eltwise_add_compute\n#include \"compute.cpp\"\n");
  EXPECT_EQ(shellCommandLine(commands[2]),
            "g++ -std=c++20 -I /emu/include -O1 -c /out/ttlplan_emu_registry.cpp -o "
            "/out/ttlplan_emu_registry.o");
  EXPECT_EQ(
      shellCommandLine(commands[3]),
      "g++ -std=c++20 -I /emu/include -O1 /out/eltwise_add/host.cpp "
      "/out/eltwise_add/reader.o /out/eltwise_add/compute.o /out/ttlplan_emu_registry.o "
      "/emu/libttlplan_emu.a /lib/libttlplan_support.a -lfmt -pthread -o /out/eltwise_add/host");
  EXPECT_EQ(shellCommandLine({"echo", "it's here"}), "echo 'it'\\''s here'");
  // Kernel names that are not identifiers still give distinct entry points.
  EXPECT_NE(emuEntryPoint({"a.b", "reader"}), emuEntryPoint({"a_b", "reader"}));
}
