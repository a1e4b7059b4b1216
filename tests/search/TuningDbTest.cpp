// The tuning db (search/TuningDb.h): byte-stable lines, resume after a crash, stale records under
// another cost model, order-independent merges and deterministic ranking.
#include "ttlplan/search/TuningDb.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <unistd.h>

namespace ttlplan::search {
namespace {

using ir::Binding;
using ir::KnobValue;

// A fresh path per call, so tests (and concurrent test runs) never share a file.
std::string tempPath(const std::string& name) {
  static int counter = 0;
  std::filesystem::path p = std::filesystem::temp_directory_path() /
                            fmt::format("ttlplan_tuningdb_{}_{}_{}", ::getpid(), counter++, name);
  std::filesystem::remove(p);
  return p.string();
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void spit(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

DbHeader header() {
  DbHeader h;
  h.planner = "planner-1";
  h.costModel = "cost-1";
  h.calibration = "0123456789abcdef";
  h.device = "wormhole_b0";
  h.deviceHash = "feedface00000000";
  h.kernel = "@matmul";
  h.kernelHash = "abcdef0123456789";
  h.bound = {{"M", 4096}, {"DTYPE", KnobValue::symbol("bfp8_b")}};
  return h;
}

Binding point(int64_t bm, const char* fidelity = "HiFi2") {
  return {{"BM", bm}, {"FIDELITY", KnobValue::symbol(fidelity)}};
}

Record ok(Binding p, double ns, double ms = 0.5) {
  Record r;
  r.point = std::move(p);
  r.status = "ok";
  r.predictedNs = ns;
  r.utilization = 0.75;
  r.bound = "compute";
  r.l1Bytes = 524288;
  r.cores = 64;
  r.timingMs = ms;
  return r;
}

Record rejected(Binding p, const char* reason) {
  Record r;
  r.point = std::move(p);
  r.status = "rejected";
  r.reason = reason;
  r.detail = "CBs need 1.6 MB of L1; 1.4 MB free";
  return r;
}

bool anyWarning(const std::vector<std::string>& warnings, const std::string& needle) {
  for (const std::string& w : warnings)
    if (w.find(needle) != std::string::npos) return true;
  return false;
}

std::string joined(const std::vector<std::string>& warnings) {
  std::string out;
  for (const std::string& w : warnings)
    out += w + "\n";
  return out;
}

TEST(TuningDb, HeaderAndRecordsRoundTrip) {
  DbHeader h = header();
  std::string line = toJsonLine(h);
  EXPECT_EQ(line,
            R"({"ttlplan_tuning_db":1,"tool":"ttlplan 0.1.0","planner":"planner-1",)"
            R"("cost_model":"cost-1","calibration":"0123456789abcdef","device":"wormhole_b0",)"
            R"("device_hash":"feedface00000000","kernel":"@matmul",)"
            R"("kernel_hash":"abcdef0123456789","bound":{"DTYPE":"bfp8_b","M":4096}})");
  Expected<DbHeader> back = parseHeader(line);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(*back, h);

  Record good = ok(point(4, "LoFi"), 0.1 + 0.2, 0.41); // 0.30000000000000004 must survive
  good.predictedNs = 123456.78901234567;
  good.utilization = 0.1 + 0.2;
  Record bad = rejected(point(8), "l1");
  EXPECT_EQ(toJsonLine(bad), R"({"point":{"BM":8,"FIDELITY":"HiFi2"},"status":"rejected",)"
                             R"("reason":"l1","detail":"CBs need 1.6 MB of L1; 1.4 MB free",)"
                             R"("predicted_ns":null,"utilization":0.0,"bound":"","l1_bytes":0,)"
                             R"("cores":0,"timing":{"ms":0.0}})");
  for (const Record& r : {good, bad}) {
    Expected<Record> parsed = parseRecord(toJsonLine(r));
    ASSERT_TRUE(parsed) << parsed.error().message;
    EXPECT_EQ(*parsed, r);
    EXPECT_EQ(toJsonLine(*parsed), toJsonLine(r));
  }
  EXPECT_FALSE(parseRecord(R"({"point":{"BM":1.5},"status":"ok"})"));
  Expected<Record> noStatus = parseRecord(R"({"point":{"BM":1},"status":"maybe"})");
  ASSERT_FALSE(noStatus);
  EXPECT_NE(noStatus.error().message.find("status"), std::string::npos);
}

TEST(TuningDb, AppendThenResumeGivesTheSameLookups) {
  std::string path = tempPath("resume.jsonl");
  std::vector<Record> written = {ok(point(1), 300), rejected(point(2), "dst"), ok(point(4), 100)};
  {
    Expected<TuningDb> db = TuningDb::create(path, header());
    ASSERT_TRUE(db) << db.error().message;
    for (const Record& r : written)
      ASSERT_TRUE(db->append(r));
    ASSERT_NE(db->lookup(point(2)), nullptr);
    EXPECT_EQ(*db->lookup(point(2)), written[1]);
  }
  Expected<TuningDb> db = TuningDb::open(path, header());
  ASSERT_TRUE(db) << db.error().message;
  EXPECT_TRUE(db->warnings().empty()) << joined(db->warnings());
  EXPECT_EQ(db->records(), written);
  for (const Record& r : written) {
    ASSERT_NE(db->lookup(r.point), nullptr) << ir::str(r.point);
    EXPECT_EQ(*db->lookup(r.point), r);
  }
  EXPECT_EQ(db->lookup(point(16)), nullptr);
  EXPECT_FALSE(TuningDb::create(path, header())) << "create must not clobber a db";
  EXPECT_TRUE(TuningDb::create(path, header(), CreateMode::Overwrite));
  EXPECT_FALSE(TuningDb::open(tempPath("missing.jsonl"), header()));
}

TEST(TuningDb, TornLastLineIsCutOffOnResume) {
  std::string path = tempPath("torn.jsonl");
  {
    Expected<TuningDb> db = TuningDb::create(path, header());
    ASSERT_TRUE(db) << db.error().message;
    for (int64_t bm : {1, 2, 4})
      ASSERT_TRUE(db->append(ok(point(bm), 100.0 * double(bm))));
  }
  std::string full = slurp(path);
  std::string twoRecords = full.substr(0, full.rfind('\n', full.size() - 2) + 1);
  spit(path, full.substr(0, full.size() - 9)); // a kill -9 in the middle of line 4
  Expected<TuningDb> db = TuningDb::open(path, header());
  ASSERT_TRUE(db) << db.error().message;
  EXPECT_EQ(slurp(path), twoRecords);
  EXPECT_TRUE(anyWarning(db->warnings(), ":4: torn last line")) << joined(db->warnings());
  EXPECT_EQ(db->records().size(), 2u);
  EXPECT_EQ(db->lookup(point(4)), nullptr);
  ASSERT_TRUE(db->append(ok(point(4), 400)));
  EXPECT_EQ(slurp(path), full);
  Expected<TuningDb> again = TuningDb::open(path, header());
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_TRUE(again->warnings().empty()) << joined(again->warnings());
  EXPECT_NE(again->lookup(point(4)), nullptr);
}

TEST(TuningDb, WholeLastLineWithoutNewlineIsKept) {
  std::string path = tempPath("nonewline.jsonl");
  std::string text = toJsonLine(header()) + "\n" + toJsonLine(ok(point(1), 5));
  spit(path, text);
  Expected<TuningDb> db = TuningDb::open(path, header());
  ASSERT_TRUE(db) << db.error().message;
  EXPECT_NE(db->lookup(point(1)), nullptr);
  ASSERT_TRUE(db->append(ok(point(2), 6)));
  EXPECT_EQ(slurp(path), text + "\n" + toJsonLine(ok(point(2), 6)) + "\n");
}

TEST(TuningDb, GarbageLinesInTheMiddleAreSkipped) {
  std::string path = tempPath("garbage.jsonl");
  spit(path, toJsonLine(header()) + "\n" + toJsonLine(ok(point(1), 10)) + "\n" +
                 "{\"point\": {\"BM\": 2}, \"sta\n" + R"({"point":{"BM":3},"status":"maybe"})" +
                 "\n" + toJsonLine(ok(point(4), 40)) + "\n");
  Expected<TuningDb> db = TuningDb::open(path, header());
  ASSERT_TRUE(db) << db.error().message;
  EXPECT_TRUE(anyWarning(db->warnings(), ":3: not JSON")) << joined(db->warnings());
  EXPECT_TRUE(anyWarning(db->warnings(), ":4: \"status\"")) << joined(db->warnings());
  EXPECT_EQ(db->warnings().size(), 2u) << joined(db->warnings());
  EXPECT_EQ(db->records().size(), 2u);
  EXPECT_NE(db->lookup(point(1)), nullptr);
  EXPECT_NE(db->lookup(point(4)), nullptr);
  Expected<DbFile> file = read(path);
  ASSERT_TRUE(file) << file.error().message;
  EXPECT_EQ(file->records, db->records());
}

TEST(TuningDb, SectionForAnotherKernelIsSkipped) {
  std::string path = tempPath("foreign.jsonl");
  DbHeader other = header();
  other.device = "blackhole";
  spit(path, toJsonLine(header()) + "\n" + toJsonLine(ok(point(1), 10)) + "\n" + toJsonLine(other) +
                 "\n" + toJsonLine(ok(point(2), 20)) + "\n" + toJsonLine(header()) + "\n" +
                 toJsonLine(ok(point(4), 40)) + "\n");
  Expected<DbFile> file = read(path);
  ASSERT_TRUE(file) << file.error().message;
  EXPECT_TRUE(anyWarning(file->warnings, ":3: header differs from line 1 in device;"))
      << joined(file->warnings);
  EXPECT_EQ(file->records, (std::vector<Record>{ok(point(1), 10), ok(point(4), 40)}));
}

TEST(TuningDb, AnotherKernelBoundOrDeviceIsAnError) {
  std::string path = tempPath("other.jsonl");
  ASSERT_TRUE(TuningDb::create(path, header()));
  DbHeader otherKernel = header();
  otherKernel.kernelHash = "0000000000000000";
  Expected<TuningDb> db = TuningDb::open(path, otherKernel);
  ASSERT_FALSE(db);
  EXPECT_NE(db.error().message.find("kernel_hash 'abcdef0123456789'"), std::string::npos)
      << db.error().message;
  EXPECT_EQ(db.error().message.find("device_hash"), std::string::npos) << db.error().message;
  DbHeader otherBound = header();
  otherBound.bound["M"] = 2048;
  Expected<TuningDb> bound = TuningDb::open(path, otherBound);
  ASSERT_FALSE(bound);
  EXPECT_NE(bound.error().message.find("bound 'DTYPE=bfp8_b, M=4096'"), std::string::npos)
      << bound.error().message;
  EXPECT_EQ(slurp(path), toJsonLine(header()) + "\n") << "a refused open must not write";
}

TEST(TuningDb, OtherCostModelMakesRecordsStale) {
  std::string path = tempPath("stale.jsonl");
  DbHeader old = header();
  old.costModel = "cost-0";
  {
    Expected<TuningDb> db = TuningDb::create(path, old);
    ASSERT_TRUE(db) << db.error().message;
    ASSERT_TRUE(db->append(ok(point(1), 10)));
  }
  Expected<TuningDb> db = TuningDb::open(path, header());
  ASSERT_TRUE(db) << db.error().message;
  EXPECT_EQ(db->lookup(point(1)), nullptr);
  ASSERT_EQ(db->records().size(), 1u);
  EXPECT_TRUE(db->records()[0].stale);
  EXPECT_TRUE(anyWarning(db->warnings(), "cost_model 'cost-0' (now 'cost-1')"))
      << joined(db->warnings());
  EXPECT_EQ(best(db->records()), nullptr) << "stale records are not ranked";
  ASSERT_TRUE(db->append(ok(point(1), 20)));
  ASSERT_NE(db->lookup(point(1)), nullptr);
  EXPECT_EQ(*db->lookup(point(1))->predictedNs, 20);

  // The appended records sit under a new header line, so they are current next time.
  Expected<TuningDb> resumed = TuningDb::open(path, header());
  ASSERT_TRUE(resumed) << resumed.error().message;
  ASSERT_NE(resumed->lookup(point(1)), nullptr);
  EXPECT_EQ(*resumed->lookup(point(1))->predictedNs, 20);
  Expected<DbFile> file = read(path);
  ASSERT_TRUE(file) << file.error().message;
  EXPECT_EQ(file->header.costModel, "cost-1");
  ASSERT_NE(best(file->records), nullptr);
  EXPECT_EQ(*best(file->records)->predictedNs, 20);
}

// Writes `records` into a new db at `path`.
void writeDb(const std::string& path, const std::vector<Record>& records,
             const DbHeader& h = header()) {
  Expected<TuningDb> db = TuningDb::create(path, h);
  ASSERT_TRUE(db) << db.error().message;
  for (const Record& r : records)
    ASSERT_TRUE(db->append(r));
}

TEST(TuningDb, MergeIsTheOrderIndependentUnion) {
  std::vector<Record> all = {ok(point(1), 50),  rejected(point(2), "cb-index"),
                             ok(point(4), 30),  ok(point(8), 70),
                             ok(point(16), 10), rejected(point(32), "cores")};
  std::string a = tempPath("a.jsonl"), b = tempPath("b.jsonl"), c = tempPath("c.jsonl");
  writeDb(a, {all[4], all[0], all[2]});
  writeDb(b, {all[2], all[5], all[3], all[1]});
  writeDb(c, {all[3], all[1], all[0], all[5], all[4], all[2]});
  std::string ab = tempPath("ab.jsonl"), ba = tempPath("ba.jsonl"), cc = tempPath("cc.jsonl");
  Expected<DbFile> merged = merge({a, b}, ab);
  ASSERT_TRUE(merged) << merged.error().message;
  ASSERT_TRUE(merge({b, a}, ba));
  ASSERT_TRUE(merge({c}, cc));
  EXPECT_EQ(slurp(ab), slurp(ba));
  EXPECT_EQ(slurp(ab), slurp(cc));
  EXPECT_EQ(merged->records.size(), all.size());
  // Sorted by the point's canonical string: BM=1, BM=16, BM=2, BM=32, BM=4, BM=8.
  std::string expected = toJsonLine(header()) + "\n";
  for (int i : {0, 4, 1, 5, 2, 3})
    expected += toJsonLine(all[size_t(i)]) + "\n";
  EXPECT_EQ(slurp(ab), expected);
  EXPECT_FALSE(merge({a, b}, ab)) << "merge must not clobber an existing output";
}

TEST(TuningDb, MergeConflictsFollowTheTotalOrder) {
  Record slow = ok(point(1), 200), fast = ok(point(1), 100);
  Record rejectedTwo = rejected(point(2), "l1"), okTwo = ok(point(2), 900);
  Record tieA = ok(point(4), 50), tieB = ok(point(4), 50);
  tieA.detail = "a";
  tieB.detail = "b";
  std::string a = tempPath("ca.jsonl"), b = tempPath("cb.jsonl");
  writeDb(a, {slow, rejectedTwo, tieB});
  writeDb(b, {fast, okTwo, tieA});
  std::string ab = tempPath("cab.jsonl"), ba = tempPath("cba.jsonl");
  Expected<DbFile> merged = merge({a, b}, ab);
  ASSERT_TRUE(merged) << merged.error().message;
  ASSERT_TRUE(merge({b, a}, ba));
  EXPECT_EQ(slurp(ab), slurp(ba));
  EXPECT_EQ(merged->records, (std::vector<Record>{fast, okTwo, tieA}));
  EXPECT_TRUE(preferredOver(fast, slow));
  EXPECT_TRUE(preferredOver(okTwo, rejectedTwo));
  EXPECT_FALSE(preferredOver(tieB, tieA));
}

TEST(TuningDb, MergeRefusesAnotherDevice) {
  DbHeader other = header();
  other.deviceHash = "0000000000000000";
  std::string a = tempPath("da.jsonl"), b = tempPath("db.jsonl");
  writeDb(a, {ok(point(1), 1)});
  writeDb(b, {ok(point(2), 2)}, other);
  std::string out = tempPath("dab.jsonl");
  Expected<DbFile> merged = merge({a, b}, out);
  ASSERT_FALSE(merged);
  EXPECT_NE(merged.error().message.find(b), std::string::npos) << merged.error().message;
  EXPECT_NE(merged.error().message.find("device_hash"), std::string::npos)
      << merged.error().message;
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(TuningDb, MergeKeepsStaleRecordsUnderTheirOwnHeader) {
  DbHeader old = header();
  old.planner = "planner-0";
  std::string a = tempPath("sa.jsonl"), b = tempPath("sb.jsonl"), out = tempPath("sab.jsonl");
  writeDb(a, {ok(point(1), 10)});
  writeDb(b, {ok(point(1), 5), ok(point(2), 20)}, old);
  Expected<DbFile> merged = merge({a, b}, out);
  ASSERT_TRUE(merged) << merged.error().message;
  Expected<DbFile> back = read(out);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->header, header());
  ASSERT_EQ(back->records.size(), 2u);
  // The current record wins BM=1 although the stale one is faster; BM=2 survives, stale.
  EXPECT_EQ(best(back->records)->point, point(1));
  EXPECT_EQ(*best(back->records)->predictedNs, 10);
  EXPECT_TRUE(back->records[0].stale);
  EXPECT_EQ(back->records[0].point, point(2));
}

TEST(TuningDb, BestAndTopBreakTiesByPoint) {
  Record staleFast = ok(point(64), 1);
  staleFast.stale = true;
  Record unpredicted = ok(point(128), 0);
  unpredicted.predictedNs.reset();
  std::vector<Record> records = {
      ok(point(2), 100), ok(point(1), 100), ok(point(4), 50),  rejected(point(8), "cost"),
      staleFast,         unpredicted,       ok(point(2), 300), ok(point(1, "LoFi"), 100)};
  ASSERT_NE(best(records), nullptr);
  EXPECT_EQ(best(records)->point, point(4));
  std::vector<Record> t = top(records, 10);
  std::vector<Binding> order;
  for (const Record& r : t)
    order.push_back(r.point);
  // 100 ns three ways: "BM=1, FIDELITY=HiFi2" < "BM=1, FIDELITY=LoFi" < "BM=2, ...".
  EXPECT_EQ(order,
            (std::vector<Binding>{point(4), point(1), point(1, "LoFi"), point(2), point(128)}));
  EXPECT_EQ(*t[3].predictedNs, 100) << "one record per point, the best one";
  EXPECT_EQ(top(records, 2).size(), 2u);
  std::vector<Record> reversed(records.rbegin(), records.rend());
  EXPECT_EQ(top(reversed, 10), t);
  EXPECT_EQ(best(std::vector<Record>{rejected(point(1), "l1")}), nullptr);
}

TEST(TuningDb, StripTimingMakesRunsComparable) {
  std::string first = toJsonLine(ok(point(1), 10, 0.41)) + "\nnot json\n";
  std::string second = toJsonLine(ok(point(1), 10, 7.5)) + "\nnot json\n";
  EXPECT_NE(first, second);
  EXPECT_EQ(stripTiming(first), stripTiming(second));
  EXPECT_EQ(stripTiming(first).find("timing"), std::string::npos);
  EXPECT_EQ(stripTiming("{\"a\":{\"timing\":1,\"b\":2}}"), "{\"a\":{\"b\":2}}");
  Expected<Record> back = parseRecord(stripTiming(toJsonLine(ok(point(1), 10, 0.41))));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(*back, ok(point(1), 10, 0));
}

} // namespace
} // namespace ttlplan::search
