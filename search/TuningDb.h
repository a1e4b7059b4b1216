#pragma once
// The tuning-record database (docs/architecture.md, "The search"): JSON lines, one header line,
// then one record per evaluated point, appended and flushed one by one so a killed search resumes
// where it stopped.
//
// A file is a sequence of sections. Line 1 is a header; a resume under other planner, cost-model or
// calibration versions appends another header line, and each record belongs to the nearest header
// above it. Records of a section whose versions differ from the reference header (the caller's on
// open, the file's last header on read) are "stale": kept for rerank, never used for ranking.
//
// Determinism: the same records give byte-identical lines (fixed key order, round-trip number
// formatting); wall-clock figures live only in members named "timing" (see stripTiming).
#include "ttlplan/ir/KnobValue.h"
#include "ttlplan/support/Expected.h"
#include "ttlplan/support/Version.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ttlplan::planner::kernel {
struct KernelPlan;
} // namespace ttlplan::planner::kernel

namespace ttlplan::search {

/// The kernels' full plans an evaluation made, kept on its record for the caller that lowers the
/// point (TuneOptions::keepKernelPlans). A product of the run, not part of the record's value:
/// never serialized, and every two compare equal.
struct KeptPlans {
  std::shared_ptr<const std::vector<planner::kernel::KernelPlan>> plans; ///< null: none kept
  bool operator==(const KeptPlans&) const { return true; }
};

/// The file format version written as `"ttlplan_tuning_db": 1`.
inline constexpr int kTuningDbFormat = 1;
/// The tool version written into new headers.
inline constexpr std::string_view kTuningDbTool = kToolVersion;

/// Line 1 of a tuning db: what the records were computed for and by.
struct DbHeader {
  int format = kTuningDbFormat;    ///< "ttlplan_tuning_db"; other values are refused
  std::string tool{kTuningDbTool}; ///< "tool": informational only
  std::string planner;             ///< "planner": planner version (stale when it differs)
  std::string costModel;           ///< "cost_model": cost model version (stale when differs)
  std::string calibration;         ///< "calibration": calibration hash (stale when differs)
  std::string device;              ///< "device": device name (key)
  std::string deviceHash;          ///< "device_hash": hash of the device description (key)
  std::string kernel;              ///< "kernel": "@name", informational
  std::string kernelHash;          ///< "kernel_hash": hash of the kernel source (key)
  ir::Binding bound;               ///< "bound": knobs fixed with --bind (key)

  bool operator==(const DbHeader&) const = default;
};

/// One evaluated point.
struct Record {
  ir::Binding point;                 ///< "point": values of the searched knobs (the record's key)
  std::string status;                ///< "status": "ok" or "rejected"
  std::string reason;                ///< "reason": for rejected, a resource word ("l1", "dst", ...)
  std::string detail;                ///< "detail": human-readable message
  std::optional<double> predictedNs; ///< "predicted_ns": null when not predicted
  double utilization = 0;            ///< "utilization"
  std::string bound;                 ///< "bound": what limits the kernel ("compute", "dram", ...)
  int64_t l1Bytes = 0;               ///< "l1_bytes"
  int cores = 0;                     ///< "cores"
  double timingMs = 0;               ///< "timing": {"ms": ...}, wall clock of the evaluation
  /// "plans": for an ok record of a run with a db, its kernels' plans as search/StoredPlan.h
  /// writes them (a JSON array, compact), so `db rerank` re-costs it without planning again;
  /// "" (no member) when the record keeps none.
  std::string plans;
  /// With TuneOptions::keepKernelPlans, an ok record's kernels' plans in full (not serialized).
  KeptPlans kernelPlans;
  /// Set on load when the record's section has other planner/cost-model/calibration versions than
  /// the reference header; not serialized (it is a property of where the record sits).
  bool stale = false;
  /// Set on load when the record's section has another planner version than the reference
  /// header: its stored plans are out of date too (rerank plans it again). Not serialized.
  bool planStale = false;

  bool ok() const { return status == "ok"; }
  bool operator==(const Record&) const = default;
};

/// The header as one JSON line (no trailing newline), keys in the documented order.
std::string toJsonLine(const DbHeader& header);
/// The record as one JSON line (no trailing newline), keys in a fixed order; `stale` is not
/// written.
std::string toJsonLine(const Record& record);
/// Parses a header line; an Error says what is missing or malformed.
Expected<DbHeader> parseHeader(const std::string& line);
/// Parses a record line; an Error says what is missing or malformed.
Expected<Record> parseRecord(const std::string& line);

/// The key fields (kernel_hash, bound, device, device_hash, and the format) that differ, by JSON
/// name; empty when records of `a` and `b` are about the same thing.
std::vector<std::string> keyDifferences(const DbHeader& a, const DbHeader& b);
/// keyDifferences() with both values of each field, for messages:
/// "kernel_hash 'a' (expected 'b'), bound 'BK=2' (expected 'BK=4')".
std::string keyDifferenceText(const DbHeader& file, const DbHeader& expected);
/// The version fields (planner, cost_model, calibration) that differ; non-empty means stale.
std::vector<std::string> versionDifferences(const DbHeader& a, const DbHeader& b);

/// Every member named "timing" removed, at any depth, from each line of a JSON-lines text that
/// parses as JSON (other lines are kept as they are), so two runs compare byte for byte.
std::string stripTiming(std::string_view jsonLines);

/// A file loaded for `db show` / `db best` / merge.
struct DbFile {
  DbHeader header;                   ///< the last header line: the versions that are current
  std::vector<Record> records;       ///< good records in file order; stale ones have `stale` set
  std::vector<std::string> warnings; ///< lines skipped or repaired, stale sections
};

/// Reads `path` without changing it. A torn last line or a garbage line is skipped with a warning;
/// a file whose line 1 is not a header is an Error.
Expected<DbFile> read(const std::string& path);

/// What create() does when the file exists.
enum class CreateMode { FailIfExists, Overwrite };
/// What open() does when the file is missing.
enum class OpenMode { MustExist, CreateIfMissing };

/// True when `a` is kept over `b` for the same point: current before stale, ok before rejected,
/// smaller predicted time (none = last), then the smaller canonical line. A total order, so a merge
/// does not depend on the order of its inputs.
bool preferredOver(const Record& a, const Record& b);

/// Merges tuning dbs (search shards) into `output`: every header must match the first input's key
/// fields (else an Error naming the file and the fields); one record per point, chosen by
/// preferredOver; records sorted by ir::str(point); header from the first input (its last header).
/// Stale records keep their own versions: they go first, in sections under their own headers, so
/// the first input's header is the output's last. Written to a temporary file and renamed, so
/// `output` may be one of the inputs. Returns the merged contents with the inputs' warnings.
Expected<DbFile> merge(const std::vector<std::string>& inputs, const std::string& output,
                       CreateMode mode = CreateMode::FailIfExists);

/// The usable (ok, not stale) record with the smallest predicted time, ties by ir::str(point);
/// nullptr when there is none. Points into `records`.
const Record* best(const std::vector<Record>& records);
/// The first `k` usable records in best() order, one per point.
std::vector<Record> top(const std::vector<Record>& records, size_t k);

namespace detail {
/// An owned POSIX file descriptor (append() writes each line with one write call).
class UniqueFd {
public:
  explicit UniqueFd(int fd = -1) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd();
  int get() const { return fd_; }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }

private:
  int fd_;
};
} // namespace detail

/// An open tuning db that a search appends to. One writer per file (shards write their own files
/// and merge); not thread-safe: the search appends from its in-order reduction.
class TuningDb {
public:
  /// Starts a new file holding only `header`; an Error if it exists unless `mode` is Overwrite.
  static Expected<TuningDb> create(const std::string& path, const DbHeader& header,
                                   CreateMode mode = CreateMode::FailIfExists);
  /// Opens an existing file to resume (`--resume`). A torn last line (a crash mid-write) is cut
  /// off, garbage lines are skipped, both with a warning. A header for another kernel, bound or
  /// device is an Error naming the fields; other versions make its records stale (warning) and
  /// append a header line with `header`'s versions, so new records are current next time.
  static Expected<TuningDb> open(const std::string& path, const DbHeader& header,
                                 OpenMode mode = OpenMode::MustExist);

  /// Writes one record line and flushes it (one write call, so a kill leaves at most one torn
  /// line). The record becomes the one lookup() returns for its point.
  Status append(const Record& record);
  /// The usable (not stale) record for `point`, the last one written; nullptr when none.
  const Record* lookup(const ir::Binding& point) const;

  /// Every record loaded or appended, in file order; stale ones have `stale` set.
  const std::vector<Record>& records() const { return records_; }
  /// What open() skipped, repaired or found stale.
  const std::vector<std::string>& warnings() const { return warnings_; }
  /// The caller's header (the versions records are current under).
  const DbHeader& header() const { return header_; }
  const std::string& path() const { return path_; }

private:
  TuningDb(std::string path, DbHeader header, detail::UniqueFd fd)
      : path_(std::move(path)), header_(std::move(header)), fd_(std::move(fd)) {}
  void add(Record record);
  Status writeLine(const std::string& line);

  std::string path_;
  DbHeader header_;
  std::vector<Record> records_;
  std::vector<std::string> warnings_;
  std::map<ir::Binding, size_t> usable_; ///< point -> index into records_
  detail::UniqueFd fd_;
};

} // namespace ttlplan::search
