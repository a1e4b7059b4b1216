#include "ttlplan/search/cost/MatmulProgram.h"

#include "ttlplan/search/cost/Price.h"

#include <fmt/format.h>

namespace ttlplan::search::cost {

namespace {

using baselines::MatmulFamily;

Step transfer(StepKind kind, int64_t tiles, int64_t tileBytes) {
  return Step::transfer(kind, tiles * tileBytes, tiles);
}

enum Cbs { kCbA = 0, kCbB = 1, kCbC = 2 };

// How one core gets an operand block: from DRAM (and maybe multicast it on), or from a net.
struct Source {
  bool reads = true; // reads the block from DRAM
  int sendNet = -1;  // multicasts it on this net after reading
  int recvNet = -1;  // receives it from this net instead
};

struct Shape {
  int64_t blocks = 0; // output blocks per core
  int64_t kBlocks = 0;
  int64_t aTiles = 0, bTiles = 0, cTiles = 0;
};

std::vector<Step> fetch(int cb, const Source& src, int64_t tiles, int64_t tileBytes, bool inL1) {
  std::vector<Step> out = {Step::onCb(StepKind::Reserve, cb)};
  if (src.recvNet >= 0) {
    out.push_back(Step::onNet(StepKind::Receive, src.recvNet, 0));
  } else {
    if (src.reads && !inL1) {
      out.push_back(transfer(StepKind::Read, tiles, tileBytes));
      out.push_back(Step::waitTransfers());
    }
    if (src.sendNet >= 0)
      out.push_back(Step::onNet(StepKind::Send, src.sendNet, tiles * tileBytes));
  }
  out.push_back(Step::onCb(StepKind::Push, cb));
  return out;
}

Step chainStep(const MatmulRun& run, int64_t kBlocks, const ir::Device& device) {
  const baselines::MatmulConfig& c = run.config;
  planner::dst::Problem problem;
  problem.chain.ops = {planner::dst::Op{"ttl.matmul", {0, 1}, 2, true, 0, 0}};
  problem.chain.blockRows = c.outBlockH;
  problem.chain.blockCols = c.outBlockW;
  planner::dst::Solution solution;
  planner::dst::Segment seg;
  seg.endOp = 1;
  seg.blockRows = c.outBlockH;
  seg.blockCols = c.outBlockW;
  seg.subblockRows = c.outSubblockH;
  seg.subblockCols = c.outSubblockW;
  seg.rounds = int64_t(c.outBlockH / c.outSubblockH) * (c.outBlockW / c.outSubblockW);
  solution.segments = {seg};
  std::vector<OpShape> shapes = {OpShape{int64_t(c.in0BlockW), 2, run.problem.in0TileBytes}};
  ComputeSettings settings{fidelityPhases(run.fidelity), run.problem.fp32DestAcc,
                           int64_t(run.problem.outTileBytes),
                           run.packerL1Acc ? 0.0 : double(kBlocks - 1) / double(kBlocks)};
  Step s;
  s.kind = StepKind::Compute;
  s.split = priceChain(problem, solution, shapes, settings, device);
  s.cycles = s.split.math + s.split.unpack + s.split.pack + s.split.overhead;
  s.idealCycles = idealMathCycles(problem, shapes, settings.fidelityPhases, device);
  return s;
}

// One class's three threads: A on NoC 0; B and the output on NoC 1; compute.
std::vector<Thread> threads(const MatmulRun& run, const Shape& sh, const Source& a, const Source& b,
                            const Step& chain) {
  const baselines::MatmulProblem& p = run.problem;
  std::vector<Step> kA = fetch(kCbA, a, sh.aTiles, p.in0TileBytes, run.in0InL1);
  std::vector<Step> kB = fetch(kCbB, b, sh.bTiles, p.in1TileBytes, false);
  std::vector<Step> writeC = {Step::onCb(StepKind::Wait, kCbC)};
  if (!run.outInL1) {
    writeC.push_back(transfer(StepKind::Write, sh.cTiles, p.outTileBytes));
    writeC.push_back(Step::waitTransfers());
  }
  writeC.push_back(Step::onCb(StepKind::Pop, kCbC));
  std::vector<Step> noc1Body = {Step::loop(sh.kBlocks, kB, false)};
  noc1Body.insert(noc1Body.end(), writeC.begin(), writeC.end());
  std::vector<Step> computeK = {Step::onCb(StepKind::Wait, kCbA), Step::onCb(StepKind::Wait, kCbB),
                                chain, Step::onCb(StepKind::Pop, kCbA),
                                Step::onCb(StepKind::Pop, kCbB)};
  std::vector<Step> computeBody = {Step::onCb(StepKind::Reserve, kCbC),
                                   Step::loop(sh.kBlocks, computeK, false),
                                   Step::onCb(StepKind::Push, kCbC)};
  return {
      Thread{ThreadRole::Noc0, {Step::loop(sh.blocks, {Step::loop(sh.kBlocks, kA, false)}, true)}},
      Thread{ThreadRole::Noc1, {Step::loop(sh.blocks, noc1Body, true)}},
      Thread{ThreadRole::Compute, {Step::loop(sh.blocks, computeBody, true)}}};
}

Status checkKnobs(const MatmulRun& run, int64_t kt) {
  const baselines::MatmulConfig& c = run.config;
  if (c.family == MatmulFamily::MultiCore)
    return Error{"cost model: MatmulMultiCoreProgramConfig (no reuse) has no model"};
  if (!c.in0BlockW || !c.outSubblockH || !c.outSubblockW || !c.outBlockH || !c.outBlockW ||
      !c.perCoreM || !c.perCoreN)
    return Error{"cost model: a matmul knob is 0"};
  if (kt % c.in0BlockW || c.perCoreM % c.outBlockH || c.perCoreN % c.outBlockW ||
      c.outBlockH % c.outSubblockH || c.outBlockW % c.outSubblockW)
    return Error{
        fmt::format("cost model: knobs do not divide (Kt {} in0_block_w {}, per_core {}x{} "
                    "out_block {}x{} sub-block {}x{})",
                    kt, c.in0BlockW, c.perCoreM, c.perCoreN, c.outBlockH, c.outBlockW,
                    c.outSubblockH, c.outSubblockW)};
  return Status::success();
}

CoreClass makeClass(std::string name, int cores, int x, int y, const MatmulRun& run,
                    std::vector<Thread> threads) {
  CoreClass cls;
  cls.name = std::move(name);
  cls.cores = cores;
  cls.representativeX = x;
  cls.representativeY = y;
  const baselines::MatmulConfig& c = run.config;
  const baselines::MatmulProblem& p = run.problem;
  int64_t kTiles = c.in0BlockW;
  cls.cbs = {{"in0", 2, int64_t(c.outBlockH) * kTiles * p.in0TileBytes},
             {"in1", 2, kTiles * c.outBlockW * p.in1TileBytes},
             {"out", 1, int64_t(c.outBlockH) * c.outBlockW * p.outTileBytes}};
  cls.threads = std::move(threads);
  return cls;
}

// 2-D: a rows x cols grid of per-core blocks; column 0 reads A and multicasts it along its row,
// row 0 reads B and multicasts it down its column.
void build2d(const MatmulRun& run, const Shape& sh, int rows, int cols, const Step& chain,
             Program& p) {
  // Nets: 0 A from (0,0), 1 A from (0,y>0), 2 B from (0,0), 3 B from (x>0,0); classes in the
  // order corner, column 0, row 0, inner (those that exist).
  int corner = 0, column = rows > 1 ? 1 : -1, row = cols > 1 ? (rows > 1 ? 2 : 1) : -1;
  int inner = rows > 1 && cols > 1 ? 3 : -1;
  auto net = [&](std::string name, int sender, int receiver, int dests, int count) {
    if (receiver < 0) return -1;
    p.nets.push_back(Net{std::move(name), sender, {receiver}, dests, count});
    return int(p.nets.size()) - 1;
  };
  int aCorner = net("in0 row 0", corner, row, cols - 1, 1);
  int aColumn = column >= 0 ? net("in0 rows 1..", column, inner, cols - 1, rows - 1) : -1;
  int bCorner = net("in1 column 0", corner, column, rows - 1, 1);
  int bRow = row >= 0 ? net("in1 columns 1..", row, inner, rows - 1, cols - 1) : -1;
  p.classes.push_back(makeClass("core (0,0): reads in0 and in1", 1, 0, 0, run,
                                threads(run, sh, {true, aCorner, -1}, {true, bCorner, -1}, chain)));
  if (column >= 0)
    p.classes.push_back(
        makeClass("column 0: reads in0, receives in1", rows - 1, 0, 1, run,
                  threads(run, sh, {true, aColumn, -1}, {false, -1, bCorner}, chain)));
  if (row >= 0)
    p.classes.push_back(makeClass("row 0: receives in0, reads in1", cols - 1, 1, 0, run,
                                  threads(run, sh, {false, -1, aCorner}, {true, bRow, -1}, chain)));
  if (inner >= 0)
    p.classes.push_back(
        makeClass("inner: receives in0 and in1", (rows - 1) * (cols - 1), 1, 1, run,
                  threads(run, sh, {false, -1, aColumn}, {false, -1, bRow}, chain)));
}

// 1-D: `cores` cores in a row; core 0 reads the multicast operand and sends it to the others,
// every core reads its own blocks of the other operand.
void build1d(const MatmulRun& run, const Shape& sh, int cores, bool mcastIn0, const Step& chain,
             Program& p) {
  int net = -1;
  if (cores > 1) {
    p.nets.push_back(Net{mcastIn0 ? "in0 to all" : "in1 to all", 0, {1}, cores - 1, 1});
    net = 0;
  }
  Source own{true, -1, -1}, send{true, net, -1}, receive{false, -1, net};
  p.classes.push_back(makeClass("core 0: reads and multicasts", 1, 0, 0, run,
                                mcastIn0 ? threads(run, sh, send, own, chain)
                                         : threads(run, sh, own, send, chain)));
  if (cores > 1)
    p.classes.push_back(makeClass("receivers", cores - 1, 1, 0, run,
                                  mcastIn0 ? threads(run, sh, receive, own, chain)
                                           : threads(run, sh, own, receive, chain)));
}

int64_t ceilDiv(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

} // namespace

Expected<Program> matmulProgram(const MatmulRun& run, const ir::Device& device) {
  const baselines::MatmulProblem& pr = run.problem;
  const baselines::MatmulConfig& c = run.config;
  int64_t mt = ceilDiv(int64_t(pr.m), 32), kt = ceilDiv(int64_t(pr.k), 32);
  int64_t nt = ceilDiv(int64_t(pr.n), 32);
  if (Status ok = checkKnobs(run, kt); !ok) return ok.error();
  Shape sh;
  sh.blocks = int64_t(c.perCoreM / c.outBlockH) * (c.perCoreN / c.outBlockW);
  sh.kBlocks = kt / c.in0BlockW;
  sh.aTiles = int64_t(c.outBlockH) * c.in0BlockW;
  sh.bTiles = int64_t(c.in0BlockW) * c.outBlockW;
  sh.cTiles = int64_t(c.outBlockH) * c.outBlockW;
  int64_t rows = ceilDiv(mt, c.perCoreM), cols = ceilDiv(nt, c.perCoreN);
  Program p;
  p.kernel = baselines::familyName(c.family);
  p.gridRows = int(pr.gridRows);
  p.gridCols = int(pr.gridCols);
  Step chain = chainStep(run, sh.kBlocks, device);
  if (c.family == MatmulFamily::MultiCast2D) {
    if (rows > pr.gridRows || cols > pr.gridCols)
      return Error{fmt::format("cost model: the 2-D config needs {}x{} cores, the grid is {}x{}",
                               rows, cols, pr.gridRows, pr.gridCols)};
    build2d(run, sh, int(rows), int(cols), chain, p);
  } else {
    int64_t cores = rows * cols;
    if (cores > int64_t(pr.gridRows) * pr.gridCols)
      return Error{fmt::format("cost model: the 1-D config needs {} cores, the grid has {}", cores,
                               pr.gridRows * pr.gridCols)};
    build1d(run, sh, int(cores), c.family == MatmulFamily::MultiCast1DIn0, chain, p);
  }
  return p;
}

} // namespace ttlplan::search::cost
