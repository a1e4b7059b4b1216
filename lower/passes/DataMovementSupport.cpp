#include "ttlplan/lower/passes/DataMovementSupport.h"

#include "ttlplan/lower/Extract.h"

#include <algorithm>
#include <fmt/format.h>

namespace ttlplan::lower {

using ir::Attribute;
using ir::AttrKind;

std::vector<ir::Operation*> threadFunctions(ir::Module& module, bool dataMovementOnly) {
  std::vector<ir::Operation*> out;
  for (ir::Operation* func : module.topLevel("func.func")) {
    Attribute thread = func->attribute("ttl.kernel_thread");
    if (!thread.is(AttrKind::String)) continue;
    const std::string& t = thread.stringValue();
    if (dataMovementOnly && t != "noc0" && t != "noc1") continue;
    out.push_back(func);
  }
  return out;
}

ir::Operation* kernelOfFunction(ir::Module& module, const ir::Operation* func) {
  Attribute name = func->attribute("ttl.kernel");
  if (!name.is(AttrKind::SymbolRef) && !name.is(AttrKind::String)) return nullptr;
  for (ir::Operation* kernel : module.topLevel("ttl.kernel"))
    if (kernel->attribute("sym_name").stringValue() == name.stringValue()) return kernel;
  return nullptr;
}

std::optional<std::pair<int64_t, int64_t>> plannedGrid(const ir::Operation* kernel) {
  std::vector<int64_t> grid;
  if (!kernel) return std::nullopt;
  Attribute a = kernel->attribute("ttl.grid_planned");
  if (!a || !a.getIntegers(grid) || grid.size() != 2) return std::nullopt;
  for (int64_t side : grid)
    if (side < 1 || side > kMaxGridSide) return std::nullopt;
  return std::make_pair(grid[0], grid[1]);
}

RuntimeArgs RuntimeArgs::load(const ir::Operation* func) {
  RuntimeArgs args;
  Attribute names = func->attribute("ttl.runtime_args");
  if (names.is(AttrKind::Array))
    for (const Attribute& n : names.elements())
      args.names_.push_back(n.is(AttrKind::String) ? n.stringValue() : n.str());
  Attribute values = func->attribute("ttl.core_values");
  if (values.is(AttrKind::Dictionary)) args.values_ = values.entries();
  Attribute noc = func->attribute("ttl.noc_coords");
  if (noc.is(AttrKind::Dictionary)) args.noc_ = noc.entries();
  return args;
}

void RuntimeArgs::markNocCoordinate(const std::string& name, char axis) {
  noc_.push_back({name, Attribute::string(std::string(1, axis))});
}

std::optional<int64_t> RuntimeArgs::indexOf(const std::string& name) const {
  auto it = std::find(names_.begin(), names_.end(), name);
  if (it == names_.end()) return std::nullopt;
  return static_cast<int64_t>(it - names_.begin());
}

int64_t RuntimeArgs::append(const std::string& name, std::vector<int64_t> perCore) {
  std::vector<Attribute> values;
  values.reserve(perCore.size());
  for (int64_t v : perCore)
    values.push_back(Attribute::integer(v));
  names_.push_back(name);
  values_.push_back({name, Attribute::array(std::move(values))});
  return static_cast<int64_t>(names_.size()) - 1;
}

void RuntimeArgs::store(ir::Operation* func) const {
  std::vector<Attribute> names;
  for (const std::string& n : names_)
    names.push_back(Attribute::string(n));
  func->setAttribute("ttl.runtime_args", Attribute::array(std::move(names)));
  func->setAttribute("ttl.core_values", Attribute::dictionary(values_));
  if (!noc_.empty()) func->setAttribute("ttl.noc_coords", Attribute::dictionary(noc_));
}

ir::Value* getArgVal(ir::OpBuilder& builder, int64_t index, const std::string& name) {
  std::string hint = name;
  std::replace(hint.begin(), hint.end(), '.', '_');
  return builder.call("get_arg_val", {builder.constant(index)}, ir::Type::index(), {}, hint);
}

namespace {

/// The logical index of NoC coordinate `v` in `translated`, or nullopt.
std::optional<int64_t> logicalOf(const std::vector<int>& translated, int64_t v) {
  auto it = std::find(translated.begin(), translated.end(), v);
  if (it == translated.end()) return std::nullopt;
  return static_cast<int64_t>(it - translated.begin());
}

/// Reads `key` of a net dictionary as integers.
bool netInts(const Attribute& net, std::string_view key, std::vector<int64_t>& out) {
  for (const ir::NamedAttribute& e : net.entries())
    if (e.name == key) return e.value.getIntegers(out);
  return false;
}

bool netInt(const Attribute& net, std::string_view key, int64_t& out) {
  for (const ir::NamedAttribute& e : net.entries())
    if (e.name == key && e.value.is(AttrKind::Integer)) {
      out = e.value.intValue();
      return true;
    }
  return false;
}

const Attribute* netEntry(const Attribute& net, std::string_view key) {
  for (const ir::NamedAttribute& e : net.entries())
    if (e.name == key) return &e.value;
  return nullptr;
}

} // namespace

Expected<PipeArgTable> pipeArgTable(const ir::Attribute& nets, int64_t rows, int64_t cols,
                                    const ir::Device& device) {
  PipeArgTable table;
  table.cores.resize(static_cast<size_t>(rows * cols));
  if (!nets) return table; // a pipe no core uses: nobody sends or receives
  if (!nets.is(AttrKind::Array)) return Error{"ttl.nets must be an array of net dictionaries"};
  const auto& tr = device.grid.translatedRows;
  const auto& tc = device.grid.translatedColumns;
  auto inGrid = [&](int64_t x, int64_t y) { return x >= 0 && x < cols && y >= 0 && y < rows; };
  std::vector<int> sentBy(table.cores.size(), -1), receivedFrom(table.cores.size(), -1);
  for (size_t n = 0; n < nets.elements().size(); ++n) {
    const Attribute& net = nets.elements()[n];
    std::vector<int64_t> sender;
    int64_t receivers = 0, ready = 0, valid = 0;
    const Attribute* dests = net.is(AttrKind::Dictionary) ? netEntry(net, "dests") : nullptr;
    const Attribute* rects = net.is(AttrKind::Dictionary) ? netEntry(net, "rects") : nullptr;
    if (!dests || !rects || !dests->is(AttrKind::Array) || !rects->is(AttrKind::Array) ||
        !netInts(net, "sender", sender) || sender.size() != 2 ||
        !netInt(net, "receivers", receivers) || !netInt(net, "ready_semaphore", ready) ||
        !netInt(net, "valid_semaphore", valid))
      return Error{fmt::format("ttl.nets entry {} is malformed: expected {{sender = [x, y], dests "
                               "= [[x, y], ...], rects = [[sx, sy, ex, ey, num_dests, loopback], "
                               "...], receivers = R, ready_semaphore = I, valid_semaphore = J}}",
                               n)};
    int64_t sx = sender[0], sy = sender[1];
    if (!inGrid(sx, sy))
      return Error{fmt::format("ttl.nets entry {}: sender ({}, {}) is outside the {} x {} grid", n,
                               sx, sy, rows, cols)};
    if (sy >= static_cast<int64_t>(tr.size()) || sx >= static_cast<int64_t>(tc.size()))
      return Error{fmt::format("device {} has no translated coordinates for core ({}, {})",
                               device.name, sx, sy)};
    size_t senderCore = static_cast<size_t>(sy * cols + sx);
    if (sentBy[senderCore] >= 0)
      return Error{fmt::format("core ({}, {}) sends two nets of this pipe (entries {} and {}); one "
                               "sender per core and pipe is supported: give the other "
                               "destinations a pipe of their own",
                               sx, sy, sentBy[senderCore], n)};
    sentBy[senderCore] = static_cast<int>(n);
    PipeCoreArgs& s = table.cores[senderCore];
    s.sender = true;
    s.receivers = receivers;
    s.sendReadySem = ready;
    s.sendValidSem = valid;
    int64_t writtenTotal = 0;
    for (const Attribute& r : rects->elements()) {
      std::vector<int64_t> v;
      if (!r.getIntegers(v) || v.size() != 6 || v[4] < 0 || (v[5] != 0 && v[5] != 1))
        return Error{fmt::format("ttl.nets entry {}: a rectangle is not [sx, sy, ex, ey, "
                                 "num_dests, loopback]",
                                 n)};
      // Loopback would also write the sender's own copy, which it already holds: the plain
      // variant skips the sender, so it writes one core fewer.
      int64_t written = v[4] - v[5];
      if (written <= 0) continue;
      // The plan's rectangles are in the device description's NoC coordinates; the kernel gets
      // them back as logical ones, which the host translates with the SDK.
      std::optional<int64_t> lx0 = logicalOf(tc, v[0]), ly0 = logicalOf(tr, v[1]),
                             lx1 = logicalOf(tc, v[2]), ly1 = logicalOf(tr, v[3]);
      if (!lx0 || !ly0 || !lx1 || !ly1)
        return Error{fmt::format("ttl.nets entry {}: a rectangle corner is not a NoC coordinate "
                                 "of a core of {}",
                                 n, device.name)};
      s.rects.push_back({*lx0, *ly0, *lx1, *ly1, written});
      writtenTotal += written;
    }
    // The sender waits for `receivers` increments, one per core its multicasts write.
    if (writtenTotal != receivers)
      return Error{fmt::format("ttl.nets entry {}: the rectangles write {} cores but receivers = "
                               "{}",
                               n, writtenTotal, receivers)};
    for (const Attribute& d : dests->elements()) {
      std::vector<int64_t> xy;
      if (!d.getIntegers(xy) || xy.size() != 2 || !inGrid(xy[0], xy[1]))
        return Error{fmt::format("ttl.nets entry {}: a destination is not [x, y] inside the {} x "
                                 "{} grid",
                                 n, rows, cols)};
      if (xy[0] == sx && xy[1] == sy) { // the sender holds the bytes already
        table.senderInDests = true;
        continue;
      }
      size_t core = static_cast<size_t>(xy[1] * cols + xy[0]);
      if (receivedFrom[core] >= 0)
        return Error{fmt::format("core ({}, {}) receives from two nets of this pipe (entries {} "
                                 "and {}); a core may receive a pipe from one sender only",
                                 xy[0], xy[1], receivedFrom[core], n)};
      receivedFrom[core] = static_cast<int>(n);
      PipeCoreArgs& c = table.cores[core];
      c.receiver = true;
      c.senderNocX = sx;
      c.senderNocY = sy;
      c.recvReadySem = ready;
      c.recvValidSem = valid;
    }
  }
  bool anySender = false;
  table.minSenderRects = SIZE_MAX;
  for (const PipeCoreArgs& c : table.cores) {
    if (!c.sender) continue;
    anySender = true;
    table.maxRects = std::max(table.maxRects, c.rects.size());
    table.minSenderRects = std::min(table.minSenderRects, c.rects.size());
  }
  if (!anySender) table.minSenderRects = 0;
  return table;
}

std::vector<std::string> pipeArgNames(const std::string& prefix, size_t maxRects) {
  std::vector<std::string> names;
  for (const char* n : {"is_sender", "receivers", "send_ready_sem", "send_valid_sem", "num_rects"})
    names.push_back(prefix + "." + n);
  for (size_t r = 0; r < maxRects; ++r)
    for (const char* n : {"start_x", "start_y", "end_x", "end_y", "num_dests"})
      names.push_back(fmt::format("{}.r{}.{}", prefix, r, n));
  for (const char* n :
       {"is_receiver", "sender_noc_x", "sender_noc_y", "recv_ready_sem", "recv_valid_sem"})
    names.push_back(prefix + "." + n);
  return names;
}

char pipeArgNocAxis(const std::string& name) {
  for (const char* tail : {".sender_noc_x", ".start_x", ".end_x"})
    if (name.ends_with(tail)) return 'x';
  for (const char* tail : {".sender_noc_y", ".start_y", ".end_y"})
    if (name.ends_with(tail)) return 'y';
  return 0;
}

std::vector<std::vector<int64_t>> pipeArgValues(const PipeArgTable& table, size_t maxRects) {
  size_t count = 10 + 5 * maxRects;
  std::vector<std::vector<int64_t>> values(count, std::vector<int64_t>(table.cores.size(), 0));
  for (size_t core = 0; core < table.cores.size(); ++core) {
    const PipeCoreArgs& c = table.cores[core];
    size_t i = 0;
    auto put = [&](int64_t v) { values[i++][core] = v; };
    put(c.sender ? 1 : 0);
    put(c.receivers);
    put(c.sendReadySem);
    put(c.sendValidSem);
    put(static_cast<int64_t>(c.rects.size()));
    for (size_t r = 0; r < maxRects; ++r) {
      PipeRectArgs rect = r < c.rects.size() ? c.rects[r] : PipeRectArgs{};
      for (int64_t v : {rect.startX, rect.startY, rect.endX, rect.endY, rect.numDests})
        put(v);
    }
    put(c.receiver ? 1 : 0);
    put(c.senderNocX);
    put(c.senderNocY);
    put(c.recvReadySem);
    put(c.recvValidSem);
  }
  return values;
}

} // namespace ttlplan::lower
