// Tuning records (TuningDb.h): loading and repairing db files, ranking, merging, appending.
#include "ttlplan/search/TuningDb.h"

#include "ttlplan/search/TuningDbJson.h"
#include "ttlplan/support/ReadFile.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <optional>
#include <set>
#include <tuple>
#include <unistd.h>

namespace ttlplan::search {

using namespace dbjson;

namespace {

// ----- Loading ----------------------------------------------------------------------------------

struct Line {
  std::string text;
  size_t begin = 0; ///< byte offset of the line in the file
  bool newline = false;
  int number = 0; ///< 1-based
};

std::vector<Line> splitLines(const std::string& text) {
  std::vector<Line> lines;
  size_t begin = 0;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    bool newline = end != std::string::npos;
    if (!newline) end = text.size();
    lines.push_back({text.substr(begin, end - begin), begin, newline, int(lines.size()) + 1});
    begin = end + 1;
  }
  return lines;
}

/// The records under one header line.
struct Section {
  DbHeader header;
  int line = 0;
  std::vector<Record> records;
};

/// A file as read: its sections, what was wrong, and where a repair would cut it.
struct Scan {
  std::vector<Section> sections;
  std::vector<std::string> warnings;
  std::optional<size_t> cutAt; ///< the last line is torn: the file should end here
  bool missingNewline = false; ///< the last line is whole but has no '\n'
};

std::string fieldList(const std::vector<std::string>& fields) {
  return fmt::format("{}", fmt::join(fields, ", "));
}

// A later header line: a resume under other versions, or (skipped) one for another kernel.
void scanHeader(const std::string& path, const Line& line, const OJson& j, Scan& scan,
                bool& skipping) {
  Expected<DbHeader> h = headerFrom(j);
  std::vector<std::string> diff =
      h ? keyDifferences(scan.sections[0].header, *h) : std::vector<std::string>{};
  skipping = !h || !diff.empty();
  if (!h)
    scan.warnings.push_back(fmt::format("{}:{}: bad header ({}); the records under it are skipped",
                                        path, line.number, h.error().message));
  else if (skipping)
    scan.warnings.push_back(fmt::format("{}:{}: header differs from line 1 in {}; the records "
                                        "under it are skipped",
                                        path, line.number, fieldList(diff)));
  else
    scan.sections.push_back({*h, line.number, {}});
}

// The last line is torn by a crash mid-write when it has no '\n' or does not parse; a whole line
// without '\n' (a hand edit) is kept.
bool scanTail(const std::string& path, const Line& line, const Expected<OJson>& j, Scan& scan) {
  std::optional<std::string> problem = lineProblem(j);
  if (!problem && !line.newline) scan.missingNewline = true;
  if (!problem) return false;
  std::string why = line.newline ? *problem : "no newline";
  scan.warnings.push_back(fmt::format("{}:{}: torn last line ({}; a crash mid-write?) dropped",
                                      path, line.number, why));
  scan.cutAt = line.begin;
  return true;
}

void scanLine(const std::string& path, const Line& line, bool last, Scan& scan, bool& skipping) {
  Expected<OJson> j = parseJson(line.text);
  if (last && scanTail(path, line, j, scan)) return;
  if (j && isHeaderJson(*j)) return scanHeader(path, line, *j, scan, skipping);
  Expected<Record> r = j ? recordFrom(*j) : Expected<Record>(j.error());
  if (!r)
    scan.warnings.push_back(
        fmt::format("{}:{}: {}; line skipped", path, line.number, r.error().message));
  else if (!skipping)
    scan.sections.back().records.push_back(std::move(*r));
}

Expected<Scan> scanText(const std::string& path, const std::string& text) {
  std::vector<Line> lines = splitLines(text);
  if (lines.empty()) return Error{fmt::format("'{}' is empty, not a tuning db", path)};
  Expected<OJson> first = parseJson(lines[0].text);
  Expected<DbHeader> header = first ? headerFrom(*first) : Expected<DbHeader>(first.error());
  if (!header)
    return Error{fmt::format("'{}' is not a tuning db: line 1: {}", path, header.error().message)};
  Scan scan;
  scan.sections.push_back({*header, 1, {}});
  if (!lines[0].newline) scan.missingNewline = true;
  bool skipping = false;
  for (size_t i = 1; i < lines.size(); ++i)
    scanLine(path, lines[i], i + 1 == lines.size(), scan, skipping);
  return scan;
}

Expected<Scan> scanFile(const std::string& path) {
  Expected<std::string> text = readTextFile(path);
  if (!text) return text.error();
  return scanText(path, *text);
}

std::string versionChange(const DbHeader& old, const DbHeader& now) {
  std::vector<std::string> parts;
  auto note = [&](const char* name, const std::string& a, const std::string& b) {
    if (a != b) parts.push_back(fmt::format("{} '{}' (now '{}')", name, a, b));
  };
  note("planner", old.planner, now.planner);
  note("cost_model", old.costModel, now.costModel);
  note("calibration", old.calibration, now.calibration);
  return fieldList(parts);
}

// Every record in file order, stale where its section's versions are not `reference`'s.
std::vector<Record> flatten(const std::string& path, const Scan& scan, const DbHeader& reference,
                            std::vector<std::string>& warnings) {
  std::vector<Record> records;
  for (const Section& section : scan.sections) {
    bool stale = !versionDifferences(section.header, reference).empty();
    if (stale && !section.records.empty())
      warnings.push_back(fmt::format("{}:{}: {} records written under {}: stale, kept for rerank "
                                     "but not ranked",
                                     path, section.line, section.records.size(),
                                     versionChange(section.header, reference)));
    bool planStale = section.header.planner != reference.planner;
    for (Record r : section.records) {
      r.stale = stale;
      r.planStale = planStale;
      records.push_back(std::move(r));
    }
  }
  return records;
}

std::string keyMismatch(const std::string& path, const DbHeader& file, const DbHeader& expected) {
  return fmt::format("'{}' holds records for another kernel, bound or device: {}", path,
                     keyDifferenceText(file, expected));
}

Status writeAll(int fd, const std::string& data, const std::string& path) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error{fmt::format("cannot write '{}': {}", path, std::strerror(errno))};
    done += size_t(n);
  }
  return {};
}

// ----- Ranking and merging ----------------------------------------------------------------------

double rankNs(const Record& r) {
  return r.predictedNs && !std::isnan(*r.predictedNs) ? *r.predictedNs
                                                      : std::numeric_limits<double>::infinity();
}

/// A record in the ranking with its sort keys: the predicted time, then the point as text. The
/// text is needed only between equal times, so it is formatted at the first such comparison and
/// kept (the tuner ranks its records every few dozen feasible points).
struct RankEntry {
  double ns;
  const Record* record;
  mutable std::optional<std::string> text; // ir::str(record->point), once formatted

  const std::string& pointText() const {
    if (!text) text = ir::str(record->point);
    return *text;
  }
};

bool rankedBefore(const RankEntry& a, const RankEntry& b) {
  if (a.ns != b.ns) return a.ns < b.ns;
  if (int c = a.pointText().compare(b.pointText()); c != 0) return c < 0;
  if (a.record->point != b.record->point) return a.record->point < b.record->point;
  return preferredOver(*a.record, *b.record);
}

struct PointLess {
  bool operator()(const ir::Binding* a, const ir::Binding* b) const { return *a < *b; }
};

std::vector<const Record*> ranked(const std::vector<Record>& records) {
  std::vector<RankEntry> usable;
  usable.reserve(records.size());
  for (const Record& r : records)
    if (r.ok() && !r.stale) usable.push_back({rankNs(r), &r, std::nullopt});
  std::sort(usable.begin(), usable.end(), rankedBefore);
  std::set<const ir::Binding*, PointLess> seen; // the first (best) record of each point
  std::vector<const Record*> out;
  for (const RankEntry& e : usable)
    if (seen.insert(&e.record->point).second) out.push_back(e.record);
  return out;
}

using Versions = std::tuple<std::string, std::string, std::string>;

Versions versionsOf(const DbHeader& h) {
  return {h.planner, h.costModel, h.calibration};
}

/// A record competing for its point in a merge, with the versions it was written under.
struct Candidate {
  Record record;
  Versions versions;
};

// preferredOver, then the versions: identical stale lines from two version sections must not be
// chosen by input order.
bool candidateBefore(const Candidate& a, const Candidate& b) {
  if (preferredOver(a.record, b.record)) return true;
  if (preferredOver(b.record, a.record)) return false;
  return a.versions < b.versions;
}

bool pointBefore(const Record& a, const Record& b) {
  std::string sa = ir::str(a.point), sb = ir::str(b.point);
  return sa != sb ? sa < sb : a.point < b.point;
}

Status collect(const std::string& path, const Scan& scan, const DbHeader& reference,
               std::map<ir::Binding, Candidate>& best) {
  std::vector<std::string> diff = keyDifferences(scan.sections[0].header, reference);
  if (!diff.empty()) return Error{keyMismatch(path, scan.sections[0].header, reference)};
  for (const Section& section : scan.sections)
    for (const Record& r : section.records) {
      Candidate c{r, versionsOf(section.header)};
      c.record.stale = c.versions != versionsOf(reference);
      auto [it, inserted] = best.emplace(r.point, c);
      if (!inserted && candidateBefore(c, it->second)) it->second = std::move(c);
    }
  return {};
}

// Stale sections first, each under its own versions, so the reference header is the last one.
std::string mergedText(const DbHeader& reference, std::map<ir::Binding, Candidate>& best,
                       std::vector<Record>& order) {
  std::map<Versions, std::vector<Record>> groups;
  for (auto& [point, c] : best)
    groups[c.versions].push_back(std::move(c.record));
  Versions current = versionsOf(reference);
  std::vector<std::pair<DbHeader, std::vector<Record>*>> sections;
  for (auto& [versions, records] : groups) {
    if (versions == current) continue;
    DbHeader h = reference;
    std::tie(h.planner, h.costModel, h.calibration) = versions;
    sections.push_back({h, &records});
  }
  sections.push_back({reference, &groups[current]});
  std::string text;
  for (auto& [header, records] : sections) {
    std::sort(records->begin(), records->end(), pointBefore);
    text += toJsonLine(header) + "\n";
    for (const Record& r : *records) {
      text += toJsonLine(r) + "\n";
      order.push_back(r);
    }
  }
  return text;
}

Status writeFileAtomically(const std::string& path, const std::string& text) {
  std::string temp = fmt::format("{}.tmp{}", path, ::getpid());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) return Error{fmt::format("cannot write '{}'", temp)};
  }
  std::error_code ec;
  std::filesystem::rename(temp, path, ec);
  if (ec) {
    std::filesystem::remove(temp, ec);
    return Error{fmt::format("cannot write '{}': {}", path, ec.message())};
  }
  return {};
}

} // namespace

std::vector<std::string> keyDifferences(const DbHeader& a, const DbHeader& b) {
  std::vector<std::string> fields;
  if (a.format != b.format) fields.push_back("ttlplan_tuning_db");
  if (a.kernelHash != b.kernelHash) fields.push_back("kernel_hash");
  if (a.bound != b.bound) fields.push_back("bound");
  if (a.device != b.device) fields.push_back("device");
  if (a.deviceHash != b.deviceHash) fields.push_back("device_hash");
  return fields;
}

std::string keyDifferenceText(const DbHeader& file, const DbHeader& expected) {
  std::vector<std::string> parts;
  auto note = [&](const char* name, const std::string& a, const std::string& b) {
    if (a != b) parts.push_back(fmt::format("{} '{}' (expected '{}')", name, a, b));
  };
  note("kernel_hash", file.kernelHash, expected.kernelHash);
  note("bound", ir::str(file.bound), ir::str(expected.bound));
  note("device", file.device, expected.device);
  note("device_hash", file.deviceHash, expected.deviceHash);
  if (file.format != expected.format)
    parts.push_back(
        fmt::format("ttlplan_tuning_db {} (expected {})", file.format, expected.format));
  return fieldList(parts);
}

std::vector<std::string> versionDifferences(const DbHeader& a, const DbHeader& b) {
  std::vector<std::string> fields;
  if (a.planner != b.planner) fields.push_back("planner");
  if (a.costModel != b.costModel) fields.push_back("cost_model");
  if (a.calibration != b.calibration) fields.push_back("calibration");
  return fields;
}

// ----- Files ------------------------------------------------------------------------------------

Expected<DbFile> read(const std::string& path) {
  try {
    Expected<Scan> scan = scanFile(path);
    if (!scan) return scan.error();
    DbFile file;
    file.header = scan->sections.back().header;
    file.warnings = scan->warnings;
    file.records = flatten(path, *scan, file.header, file.warnings);
    return file;
  } catch (const std::exception& e) { // std::bad_alloc and the like: still no throw
    return Error{fmt::format("cannot read '{}': {}", path, e.what())};
  }
}

bool preferredOver(const Record& a, const Record& b) {
  if (a.stale != b.stale) return !a.stale;
  if (a.ok() != b.ok()) return a.ok();
  if (rankNs(a) != rankNs(b)) return rankNs(a) < rankNs(b);
  return toJsonLine(a) < toJsonLine(b);
}

Expected<DbFile> merge(const std::vector<std::string>& inputs, const std::string& output,
                       CreateMode mode) {
  if (inputs.empty()) return Error{"merge needs at least one tuning db"};
  std::error_code ec;
  if (mode == CreateMode::FailIfExists && std::filesystem::exists(output, ec))
    return Error{fmt::format("'{}' exists (choose another output or overwrite it)", output)};
  try {
    DbFile merged;
    std::map<ir::Binding, Candidate> best;
    for (const std::string& path : inputs) {
      Expected<Scan> scan = scanFile(path);
      if (!scan) return scan.error();
      if (&path == &inputs.front()) merged.header = scan->sections.back().header;
      merged.warnings.insert(merged.warnings.end(), scan->warnings.begin(), scan->warnings.end());
      if (Status s = collect(path, *scan, merged.header, best); !s) return s.error();
    }
    std::string text = mergedText(merged.header, best, merged.records);
    if (Status s = writeFileAtomically(output, text); !s) return s.error();
    return merged;
  } catch (const std::exception& e) {
    return Error{fmt::format("cannot merge into '{}': {}", output, e.what())};
  }
}

const Record* best(const std::vector<Record>& records) {
  std::vector<const Record*> order = ranked(records);
  return order.empty() ? nullptr : order.front();
}

std::vector<Record> top(const std::vector<Record>& records, size_t k) {
  std::vector<Record> out;
  for (const Record* r : ranked(records)) {
    if (out.size() == k) break;
    out.push_back(*r);
  }
  return out;
}

// ----- TuningDb ---------------------------------------------------------------------------------

detail::UniqueFd& detail::UniqueFd::operator=(UniqueFd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.release();
  }
  return *this;
}

detail::UniqueFd::~UniqueFd() {
  if (fd_ >= 0) ::close(fd_);
}

Expected<TuningDb> TuningDb::create(const std::string& path, const DbHeader& header,
                                    CreateMode mode) {
  int flags = O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC;
  flags |= mode == CreateMode::FailIfExists ? O_EXCL : O_TRUNC;
  detail::UniqueFd fd(::open(path.c_str(), flags, 0644));
  if (fd.get() < 0 && errno == EEXIST)
    return Error{fmt::format("'{}' exists (resume it, or overwrite it)", path)};
  if (fd.get() < 0) return Error{fmt::format("cannot create '{}': {}", path, std::strerror(errno))};
  TuningDb db(path, header, std::move(fd));
  if (Status s = db.writeLine(toJsonLine(header)); !s) return s.error();
  return db;
}

Expected<TuningDb> TuningDb::open(const std::string& path, const DbHeader& header, OpenMode mode) {
  std::error_code ec;
  bool exists = std::filesystem::exists(path, ec);
  // An empty file is what a crash between creating the file and writing its header leaves.
  if (mode == OpenMode::CreateIfMissing &&
      (!exists || (std::filesystem::file_size(path, ec) == 0 && !ec)))
    return create(path, header, CreateMode::Overwrite);
  if (!exists) return Error{fmt::format("'{}' does not exist (nothing to resume)", path)};
  try {
    Expected<Scan> scan = scanFile(path);
    if (!scan) return scan.error();
    const DbHeader& first = scan->sections[0].header;
    std::vector<std::string> diff = keyDifferences(first, header);
    if (!diff.empty()) return Error{keyMismatch(path, first, header)};
    if (scan->cutAt) {
      std::filesystem::resize_file(path, *scan->cutAt, ec);
      if (ec) return Error{fmt::format("cannot repair '{}': {}", path, ec.message())};
    }
    detail::UniqueFd fd(::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC));
    if (fd.get() < 0) return Error{fmt::format("cannot open '{}': {}", path, std::strerror(errno))};
    TuningDb db(path, header, std::move(fd));
    db.warnings_ = scan->warnings;
    for (Record& r : flatten(path, *scan, header, db.warnings_))
      db.add(std::move(r));
    if (scan->missingNewline)
      if (Status s = writeAll(db.fd_.get(), "\n", path); !s) return s.error();
    if (!versionDifferences(scan->sections.back().header, header).empty())
      if (Status s = db.writeLine(toJsonLine(header)); !s) return s.error();
    return db;
  } catch (const std::exception& e) {
    return Error{fmt::format("cannot open '{}': {}", path, e.what())};
  }
}

void TuningDb::add(Record record) {
  records_.push_back(std::move(record));
  if (!records_.back().stale) usable_[records_.back().point] = records_.size() - 1;
}

// One write call for the whole line: a kill -9 leaves the file ending in a whole line or in one
// torn line, which open() cuts off. No user-space buffer stands between, so nothing to fflush.
Status TuningDb::writeLine(const std::string& line) {
  return writeAll(fd_.get(), line + "\n", path_);
}

Status TuningDb::append(const Record& record) {
  if (record.status != "ok" && record.status != "rejected")
    return Error{
        fmt::format("record status must be \"ok\" or \"rejected\", not \"{}\"", record.status)};
  try {
    if (Status s = writeLine(toJsonLine(record)); !s) return s;
    Record current = record;
    current.stale = false;
    current.planStale = false;
    add(std::move(current));
    return {};
  } catch (const std::exception& e) {
    return Error{fmt::format("cannot append to '{}': {}", path_, e.what())};
  }
}

const Record* TuningDb::lookup(const ir::Binding& point) const {
  auto it = usable_.find(point);
  return it == usable_.end() ? nullptr : &records_[it->second];
}

} // namespace ttlplan::search
