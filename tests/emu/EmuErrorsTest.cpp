// The emulator reports what a wrong plan or a wrong emitter does: deadlock (naming every blocked
// thread and what it waits for), pop without wait, push beyond the reservation, CB overlap, a push
// of data whose read was not waited for, and API misuse. Reports name the TTL location from the
// nearest `// FILE:LINE:COL: text` comment above the failing call (some kernels below carry such
// comments for that purpose).
#include "EmuTestSupport.h"

#include <chrono>

namespace ttlplan::emu::test {
namespace {

using namespace tt::tt_metal;
using namespace ckernel;

class EmuErrors : public EmuFixture {};

// ---- Deadlock: the reader pushes 2 tiles into a CB of 1 page while compute waits for 2.

void deadlockReader() {
  for (int i = 0; i < 2; ++i) {
    // deadlock.ttl:12:5: ttl.cb_reserve %cb
    cb_reserve_back(0, 1);
    cb_push_back(0, 1);
  }
}

void deadlockCompute() {
  compute_kernel_hw_startup(0, 16);
  // deadlock.ttl:20:7: %x = ttl.cb_wait %cb : !cb -> !blk
  cb_wait_front(0, 2);
  cb_pop_front(0, 2);
}

TEST_F(EmuErrors, DeadlockNamesTheCbAndBothThreads) {
  registerKernel("emu_test/deadlock/reader.cpp", deadlockReader);
  registerKernel("emu_test/deadlock/compute.cpp", deadlockCompute);
  MeshDevicePtr device = openDevice();
  Program program = CreateProgram();
  const CoreCoord core{0, 0};
  addCb(program, core, 0, 1, tt::DataFormat::Float16_b);
  CreateKernel(program, "emu_test/deadlock/reader.cpp", core, readerConfig());
  CreateKernel(program, "emu_test/deadlock/compute.cpp", core, computeConfig());
  const auto start = std::chrono::steady_clock::now();
  runProgram(device, program);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  const auto errors = lastRunErrors();
  ASSERT_EQ(errors.size(), 1u) << allReports(errors);
  EXPECT_EQ(errors[0].kind, "deadlock");
  EXPECT_TRUE(hasError(errors, "deadlock",
                       {"core (0,0) reader: cb_reserve_back(cb 0, 1 tile): 0 of 1 pages free",
                        "at deadlock.ttl:12:5: ttl.cb_reserve %cb",
                        "core (0,0) compute: cb_wait_front(cb 0, 2 tiles): 1 of 2 pages filled "
                        "(the CB holds 1 page)",
                        "at deadlock.ttl:20:7: %x = ttl.cb_wait %cb : !cb -> !blk"}))
      << errors[0].report;
  device->close();
}

// A semaphore wait nobody satisfies, next to a thread that finished: still a deadlock, and the
// report names the semaphore and its value.
void semaphoreDeadlockReader() {
  volatile tt_l1_ptr uint32_t* sem =
      reinterpret_cast<volatile tt_l1_ptr uint32_t*>(get_semaphore(0));
  noc_semaphore_wait(sem, 1);
}

void idleWriter() {}

TEST_F(EmuErrors, SemaphoreDeadlockNamesTheSemaphore) {
  registerKernel("emu_test/semdead/reader.cpp", semaphoreDeadlockReader);
  registerKernel("emu_test/semdead/writer.cpp", idleWriter);
  MeshDevicePtr device = openDevice();
  Program program = CreateProgram();
  const CoreRange cores{{0, 0}, {1, 0}};
  CreateSemaphore(program, cores, 7);
  CreateKernel(program, "emu_test/semdead/reader.cpp", cores, readerConfig());
  CreateKernel(program, "emu_test/semdead/writer.cpp", cores, writerConfig());
  runProgram(device, program);
  const auto errors = lastRunErrors();
  // Semaphore 0 of the built-in wormhole_b0 sits at 0x19420 = 103,456: 16 semaphores of 16 B
  // below l1.unreserved_base 103,712.
  EXPECT_TRUE(hasError(errors, "deadlock",
                       {"core (0,0) reader: noc_semaphore_wait(semaphore 0 at L1 0x19420, == 1): "
                        "holds 7",
                        "core (1,0) reader: noc_semaphore_wait"}))
      << allReports(errors);
  device->close();
}

// ---- Time limit: a run that does not end (no deadlock: two threads keep moving pages, one keeps
// calling the API) is stopped; the report lists each unfinished thread with its wait or its last
// call, and every thread unwinds at its next kernel API call, so EnqueueMeshWorkload returns.

void endlessReader() {
  while (true) {
    // endless.ttl:3:5: ttl.cb_reserve %cb
    cb_reserve_back(0, 1);
    cb_push_back(0, 1);
  }
}

void endlessCompute() {
  compute_kernel_hw_startup(0, 16);
  while (true) {
    // endless.ttl:9:5: ttl.cb_wait %cb
    cb_wait_front(0, 1);
    cb_pop_front(0, 1);
  }
}

void waitingWriter() {
  volatile tt_l1_ptr uint32_t* sem =
      reinterpret_cast<volatile tt_l1_ptr uint32_t*>(get_semaphore(0));
  // endless.ttl:15:3: ttl.semaphore_wait %s
  noc_semaphore_wait(sem, 1);
}

void spinningReader() {
  while (true) {
    // spin.ttl:4:7: %s = ttl.semaphore
    (void)get_semaphore(0);
  }
}

TEST_F(EmuErrors, TimeLimitStopsTheRunAndNamesEveryThread) {
  registerKernel("emu_test/endless/reader.cpp", endlessReader);
  registerKernel("emu_test/endless/compute.cpp", endlessCompute);
  registerKernel("emu_test/endless/writer.cpp", waitingWriter);
  registerKernel("emu_test/spin/reader.cpp", spinningReader);
  Options o = options();
  o.timeLimitSeconds = 0.5;
  setOptions(o);
  MeshDevicePtr device = openDevice();
  Program program = CreateProgram();
  const CoreCoord core{0, 0}, spinner{1, 0};
  addCb(program, core, 0, 2, tt::DataFormat::Float16_b);
  CreateSemaphore(program, core, 0);
  CreateKernel(program, "emu_test/endless/reader.cpp", core, readerConfig());
  CreateKernel(program, "emu_test/endless/compute.cpp", core, computeConfig());
  CreateKernel(program, "emu_test/endless/writer.cpp", core, writerConfig());
  CreateKernel(program, "emu_test/spin/reader.cpp", spinner, readerConfig());
  const auto start = std::chrono::steady_clock::now();
  runProgram(device, program);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_GE(elapsed, std::chrono::milliseconds(500));
  EXPECT_LT(elapsed, std::chrono::seconds(30)); // a hang guard, not a timing
  o.timeLimitSeconds = 0;
  setOptions(o);
  const auto errors = lastRunErrors();
  ASSERT_EQ(errors.size(), 1u) << allReports(errors);
  EXPECT_EQ(errors[0].kind, "timeout");
  EXPECT_EQ(errors[0].message, "the run did not finish within 0.5 s; the unfinished threads:");
  // The reader and compute threads may be caught blocked or running; either way at their calls.
  EXPECT_TRUE(hasError(errors, "timeout",
                       {"  core (0,0) reader: ", "  core (0,0) compute: ",
                        "  core (0,0) writer: blocked in noc_semaphore_wait(semaphore 0 at L1 "
                        "0x19420, == 1): holds 0\n    at endless.ttl:15:3: ttl.semaphore_wait %s",
                        "  core (1,0) reader: running, its last kernel API call\n    at "
                        "spin.ttl:4:7: %s = ttl.semaphore"}))
      << errors[0].report;
  const std::string& report = errors[0].report;
  EXPECT_TRUE(report.find("at endless.ttl:3:5: ttl.cb_reserve %cb") != std::string::npos) << report;
  EXPECT_TRUE(report.find("at endless.ttl:9:5: ttl.cb_wait %cb") != std::string::npos) << report;
  device->close();
}

// ---- Pop without wait, push beyond the reservation: one data-movement thread misusing a CB.

void popWithoutWaitReader() {
  cb_reserve_back(0, 1);
  cb_push_back(0, 1);
  cb_pop_front(0, 1); // never waited for
}

void pushBeyondReader() {
  cb_reserve_back(0, 1);
  cb_push_back(0, 2); // reserved 1
}

TEST_F(EmuErrors, PopWithoutWaitAndPushBeyondReservation) {
  registerKernel("emu_test/pop/reader.cpp", popWithoutWaitReader);
  registerKernel("emu_test/push/reader.cpp", pushBeyondReader);
  MeshDevicePtr device = openDevice();
  {
    Program program = CreateProgram();
    addCb(program, CoreCoord{0, 0}, 0, 2, tt::DataFormat::Float16_b);
    CreateKernel(program, "emu_test/pop/reader.cpp", CoreCoord{0, 0}, readerConfig());
    runProgram(device, program);
    EXPECT_TRUE(hasError(lastRunErrors(), "pop without wait",
                         {"cb_pop_front(cb 0, 1 tile): only 0 pages waited for",
                          "core (0,0) reader", "emu/EmuErrorsTest.cpp:"}))
        << allReports(lastRunErrors());
  }
  {
    Program program = CreateProgram();
    addCb(program, CoreCoord{1, 0}, 0, 2, tt::DataFormat::Float16_b);
    CreateKernel(program, "emu_test/push/reader.cpp", CoreCoord{1, 0}, readerConfig());
    runProgram(device, program);
    EXPECT_TRUE(
        hasError(lastRunErrors(), "push beyond capacity",
                 {"cb_push_back(cb 0, 2 tiles): only 1 page reserved", "core (1,0) reader"}))
        << allReports(lastRunErrors());
  }
  device->close();
}

// ---- CB overlap: cb 0 and cb 1 share L1; both hold a live page when compute reads cb 0. A CB has
// no address of its own in TT-Metalium (the program places its CBs in creation order, one after
// another), so the overlap comes the one way the API gives: two CB indices in one
// CircularBufferConfig ({{0, fmt}, {1, fmt}}) share its L1 region.

void overlapReader() {
  cb_reserve_back(0, 1);
  cb_push_back(0, 1);
  cb_reserve_back(1, 1);
  cb_push_back(1, 1);
}

void overlapCompute() {
  compute_kernel_hw_startup(0, 16);
  cb_wait_front(0, 1);
  cb_wait_front(1, 1); // so that cb 1's page is live when cb 0 is read
  tile_regs_acquire();
  copy_tile_init(0);
  // overlap.ttl:9:3: %a = ttl.cb_wait %cb0
  copy_tile(0, 0, 0);
  tile_regs_commit();
  tile_regs_wait();
  tile_regs_release();
  cb_pop_front(0, 1);
  cb_pop_front(1, 1);
}

TEST_F(EmuErrors, OverlappingLiveCbsAreReportedAndTheRunGoesOn) {
  registerKernel("emu_test/overlap/reader.cpp", overlapReader);
  registerKernel("emu_test/overlap/compute.cpp", overlapCompute);
  MeshDevicePtr device = openDevice();
  Program program = CreateProgram();
  const CoreCoord core{0, 0};
  // One region of 2 pages for both indices: page 0 of cb 0 and page 0 of cb 1 are the same bytes,
  // [base, base + 2048), base the unreserved base (the program's first CB).
  CircularBufferConfig shared(2 * 2048,
                              {{0, tt::DataFormat::Float16_b}, {1, tt::DataFormat::Float16_b}});
  shared.set_page_size(0, 2048).set_page_size(1, 2048);
  CreateCircularBuffer(program, core, shared);
  CreateKernel(program, "emu_test/overlap/reader.cpp", core, readerConfig());
  CreateKernel(program, "emu_test/overlap/compute.cpp", core, computeConfig());
  runProgram(device, program);
  const auto errors = lastRunErrors();
  ASSERT_EQ(errors.size(), 1u) << allReports(errors); // no deadlock: the run finished
  const uint64_t base = device->allocator()->get_base_allocator_addr(HalMemType::L1);
  EXPECT_TRUE(hasError(errors, "CB overlap",
                       {"copy_tile reads L1 [" + std::to_string(base) + ", " +
                            std::to_string(base + 2048) + ") of cb 0 while cb 1 holds live pages",
                        "at overlap.ttl:9:3: %a = ttl.cb_wait %cb0"}))
      << allReports(errors);
  device->close();
}

// Two CBs sharing one region (one CircularBufferConfig) but never live together: no report.
void sequentialReader() {
  cb_reserve_back(0, 1);
  cb_push_back(0, 1);
  cb_wait_front(0, 1);
  const uint32_t src = get_read_ptr(0);
  noc_async_write(src, get_noc_addr(src + 4096), 2048);
  noc_async_write_barrier();
  cb_pop_front(0, 1);
  cb_reserve_back(1, 1);
  cb_push_back(1, 1);
  cb_wait_front(1, 1);
  cb_pop_front(1, 1);
}

TEST_F(EmuErrors, SharedAddressWithoutLiveOverlapIsFine) {
  registerKernel("emu_test/sequential/reader.cpp", sequentialReader);
  MeshDevicePtr device = openDevice();
  Program program = CreateProgram();
  CircularBufferConfig shared(2048,
                              {{0, tt::DataFormat::Float16_b}, {1, tt::DataFormat::Float16_b}});
  shared.set_page_size(0, 2048).set_page_size(1, 2048);
  CreateCircularBuffer(program, CoreCoord{0, 0}, shared);
  CreateKernel(program, "emu_test/sequential/reader.cpp", CoreCoord{0, 0}, readerConfig());
  runProgram(device, program);
  EXPECT_TRUE(lastRunErrors().empty()) << allReports(lastRunErrors());
  device->close();
}

// ---- A push of data whose NoC read was not barrier-waited; a pop of a page still being written.

void noBarrierReader() {
  const auto in = TensorAccessor(::TensorAccessorArgs<0>(), get_arg_val<uint32_t>(0), 2048);
  cb_reserve_back(0, 1);
  noc_async_read_page(0, in, get_write_ptr(0));
  cb_push_back(0, 1); // no noc_async_read_barrier
  cb_wait_front(0, 1);
  noc_async_write_page(0, in, get_read_ptr(0));
  cb_pop_front(0, 1); // no noc_async_write_barrier
}

TEST_F(EmuErrors, PushBeforeReadBarrierAndPopBeforeWriteBarrier) {
  registerKernel("emu_test/nobarrier/reader.cpp", noBarrierReader);
  MeshDevicePtr device = openDevice();
  auto buffer = emptyBuffer(device, 1, tt::DataFormat::Float16_b);
  Program program = CreateProgram();
  addCb(program, CoreCoord{0, 0}, 0, 2, tt::DataFormat::Float16_b); // at the unreserved base
  KernelHandle k = CreateKernel(program, "emu_test/nobarrier/reader.cpp", CoreCoord{0, 0},
                                readerConfig(withAccessors({}, {buffer})));
  SetRuntimeArgs(program, k, CoreCoord{0, 0}, {static_cast<uint32_t>(buffer->address())});
  runProgram(device, program);
  const auto errors = lastRunErrors();
  const uint64_t base = device->allocator()->get_base_allocator_addr(HalMemType::L1);
  EXPECT_TRUE(hasError(errors, "unissued barrier",
                       {"cb_push_back(cb 0, 1 tile): L1 [" + std::to_string(base) + ", " +
                        std::to_string(base + 2048) +
                        ") was filled by a NoC read that was not waited for"}))
      << allReports(errors);
  EXPECT_TRUE(hasError(errors, "unissued barrier",
                       {"cb_pop_front(cb 0, 1 tile)", "noc_async_write_barrier"}))
      << allReports(errors);
  device->close();
}

// ---- Misuse of the compute protocol: math without acquire, an op without its init, pack without
// wait, an unset runtime arg. The kernel starts the hardware first, so that none of these is the
// missing compute_kernel_hw_startup, and packs at page 0 explicitly (pack_tile<true>): in order,
// its second pack would go to page 1 of a 1-page reservation, a fifth report.

void misuseCompute() {
  compute_kernel_hw_startup(0, 16);
  cb_reserve_back(16, 1);
  fill_tile_init();
  fill_tile(0, 1.0f); // no tile_regs_acquire
  tile_regs_acquire();
  exp_tile(0);                    // no exp_tile_init
  (void)get_arg_val<uint32_t>(3); // never set
  pack_tile<true>(0, 16, 0);      // no tile_regs_commit / tile_regs_wait
  tile_regs_commit();
  tile_regs_wait();
  pack_tile<true>(0, 16, 0);
  tile_regs_release();
  cb_push_back(16, 1);
  cb_wait_front(16, 1);
  cb_pop_front(16, 1);
}

TEST_F(EmuErrors, ComputeProtocolMisuse) {
  registerKernel("emu_test/misuse/compute.cpp", misuseCompute);
  MeshDevicePtr device = openDevice();
  Program program = CreateProgram();
  addCb(program, CoreCoord{0, 0}, 16, 1, tt::DataFormat::Float16_b);
  KernelHandle k =
      CreateKernel(program, "emu_test/misuse/compute.cpp", CoreCoord{0, 0}, computeConfig());
  SetRuntimeArgs(program, k, CoreCoord{0, 0}, {1, 2});
  runProgram(device, program);
  const auto errors = lastRunErrors();
  EXPECT_TRUE(hasError(errors, "misuse", {"fill_tile without tile_regs_acquire"}))
      << allReports(errors);
  EXPECT_TRUE(hasError(errors, "misuse", {"exp_tile without exp_tile_init"})) << allReports(errors);
  EXPECT_TRUE(hasError(errors, "misuse", {"get_arg_val(3): runtime arg 3 was never set"}))
      << allReports(errors);
  EXPECT_TRUE(hasError(errors, "misuse", {"pack_tile without tile_regs_wait"}))
      << allReports(errors);
  EXPECT_EQ(errors.size(), 4u) << allReports(errors);
  device->close();
}

// An op's init stops counting once an op of another kind ran.
void initOrderCompute() {
  compute_kernel_hw_startup(0, 16);
  tile_regs_acquire();
  copy_tile_init(0);
  fill_tile_init();
  fill_tile(0, 2.0f);
  fill_tile(1, 2.0f);
  add_binary_tile_init();
  add_binary_tile(0, 1, 2);
  fill_tile(3, 1.0f); // fill_tile_init was before add_binary_tile
  tile_regs_commit();
  tile_regs_wait();
  tile_regs_release();
}

TEST_F(EmuErrors, InitIsNeededAgainAfterAnotherOp) {
  registerKernel("emu_test/init/compute.cpp", initOrderCompute);
  MeshDevicePtr device = openDevice();
  Program program = CreateProgram();
  CreateKernel(program, "emu_test/init/compute.cpp", CoreCoord{0, 0}, computeConfig());
  runProgram(device, program);
  const auto errors = lastRunErrors();
  ASSERT_EQ(errors.size(), 1u) << allReports(errors);
  EXPECT_TRUE(hasError(errors, "misuse", {"fill_tile without fill_tile_init"}));
  device->close();
}

// ---- Multicast num_dests that does not count the cores, and a write past the end of L1.

void badMulticastReader() {
  const uint32_t x0 = get_arg_val<uint32_t>(0), y0 = get_arg_val<uint32_t>(1);
  const uint32_t x1 = get_arg_val<uint32_t>(2), y1 = get_arg_val<uint32_t>(3);
  noc_async_write_multicast(200000, get_noc_multicast_addr(x0, y0, x1, y1, 200000), 64, 4);
  noc_async_write(200000, get_noc_addr(x1, y1, 1499136 - 32), 64);
  noc_async_write_barrier();
}

TEST_F(EmuErrors, MulticastDestCountAndWriteOutsideL1) {
  registerKernel("emu_test/badmcast/reader.cpp", badMulticastReader);
  MeshDevicePtr device = openDevice();
  Program program = CreateProgram();
  KernelHandle k =
      CreateKernel(program, "emu_test/badmcast/reader.cpp", CoreCoord{0, 0}, readerConfig());
  SetRuntimeArgs(program, k, CoreCoord{0, 0}, {18, 18, 19, 19});
  runProgram(device, program);
  const auto errors = lastRunErrors();
  EXPECT_TRUE(
      hasError(errors, "misuse",
               {"noc_async_write_multicast: num_dests is 4, but the rectangle (18,18)..(19,19) "
                "reaches 3 cores (the sender excluded)"}))
      << allReports(errors);
  EXPECT_TRUE(hasError(errors, "write outside L1",
                       {"noc_async_write: writes L1 [1499104, 1499168) of core (1,1)"}))
      << allReports(errors);
  device->close();
}

// ---- Host-side errors: an unknown kernel path stops the run; a CB outside the unreserved L1.
// CBs have no address of their own (TT-Metalium places them in creation order from the unreserved
// base), so the CB that ends past L1 is one that earlier CBs pushed out.

TEST_F(EmuErrors, UnknownKernelPathAndCbOutsideUnreservedL1) {
  MeshDevicePtr device = openDevice();
  {
    Program program = CreateProgram();
    CreateKernel(program, "emu_test/no_such_kernel.cpp", CoreCoord{0, 0}, readerConfig());
    runProgram(device, program);
    EXPECT_TRUE(hasError(lastRunErrors(), "misuse",
                         {"unknown kernel path \"emu_test/no_such_kernel.cpp\"", "host"}))
        << allReports(lastRunErrors());
  }
  {
    Program program = CreateProgram();
    // cb 0: 600 pages at [103712, 1332512), inside L1; cb 3 after it: [1332512, 1537312).
    addCb(program, CoreCoord{0, 0}, 0, 600, tt::DataFormat::Float16_b);
    addCb(program, CoreCoord{0, 0}, 3, 100, tt::DataFormat::Float16_b);
    runProgram(device, program);
    EXPECT_TRUE(hasError(lastRunErrors(), "write outside L1",
                         {"CreateCircularBuffer(cb 3): pages [1332512, 1537312) lie outside "
                          "[l1_unreserved_base, l1_bytes) = [103712, 1499136)"}))
        << allReports(lastRunErrors());
    EXPECT_FALSE(hasError(lastRunErrors(), "write outside L1", {"CreateCircularBuffer(cb 0)"}))
        << allReports(lastRunErrors());
  }
  EXPECT_EQ(allErrors().empty(), false);
  device->close();
}

} // namespace
} // namespace ttlplan::emu::test
