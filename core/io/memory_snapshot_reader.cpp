#include "io/memory_snapshot_reader.h"

#include <simdjson.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <map>
#include <optional>
#include <vector>

#include "io/pickle_data.h"
#include "util/format.h"

namespace ts {

namespace {

// One allocator record of a device's history, as the snapshot's TraceEntry holds it.
struct AllocatorRecord {
  std::string_view action;
  uint64_t address = 0;
  int64_t size = 0;
  TimeNs time = 0;
  int64_t deviceFree = -1;       // an out-of-memory record's free device memory, when it says
  uint32_t frames = UINT32_MAX;  // its stack (a list of {filename, line, name}), when recorded
};

// What the snapshot says a device held when it was taken.
struct DeviceState {
  int64_t allocated = 0, reserved = 0;
  std::vector<std::pair<uint64_t, int64_t>> liveBlocks;  // address, size
  std::vector<AllocatorRecord> history;
};

class SnapshotReader {
 public:
  SnapshotReader(const std::string& path, const PickleDoc& doc, SessionBuilder& b, uint32_t rank)
      : path_(path), doc_(doc), b_(b), rank_(rank) {}
  Result<ImportInfo> read();

 private:
  const std::string& path_;
  const PickleDoc& doc_;
  SessionBuilder& b_;
  uint32_t rank_;
  ImportInfo info_;
  std::map<int64_t, DeviceState> devices_;
  bool untimed_ = false;

  Error fail(const std::string& where, const std::string& what) const {
    return Error{path_ + ": memory snapshot: " + where + ": " + what};
  }
  Result<int64_t> integer(uint32_t dict, std::string_view key, const std::string& where,
                          bool required = true) const;
  Result<uint32_t> list(uint32_t node, const std::string& where) const;
  Status readSegments(uint32_t segments);
  Status readHistory(int64_t device, uint32_t records);
  Result<AllocatorRecord> record(uint32_t node, const std::string& where);
  void emit(int64_t device, const DeviceState& d);
  void outOfMemory(uint32_t device, const AllocatorRecord& r);
  void allocationSite(uint32_t device, const AllocatorRecord& r);
  std::string frameLabel(uint32_t frames) const;
  uint32_t allocatorProcess();
  std::map<uint32_t, std::string> labels_;  // frames list → its label (lists are memoised)
};

Result<int64_t> SnapshotReader::integer(uint32_t dict, std::string_view key,
                                        const std::string& where, bool required) const {
  auto v = doc_.find(dict, key);
  if (!v) {
    if (!required) return int64_t{-1};
    return fail(where, "no '" + std::string(key) + "'");
  }
  const PickleNode& n = doc_.at(*v);
  if (n.kind != PickleKind::Int)
    return fail(where, "'" + std::string(key) + "' is a " + toString(n.kind) + ", not an int");
  return n.integer;
}

Result<uint32_t> SnapshotReader::list(uint32_t node, const std::string& where) const {
  const PickleKind k = doc_.at(node).kind;
  if (k != PickleKind::List && k != PickleKind::Tuple)
    return fail(where, std::string("a ") + toString(k) + ", not a list");
  return node;
}

// The segments (cudaMalloc'd pools): reserved bytes per device, and the blocks in use.
Status SnapshotReader::readSegments(uint32_t segments) {
  const std::vector<uint32_t>& items = doc_.at(segments).items;
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string where = "segment " + std::to_string(i);
    if (doc_.at(items[i]).kind != PickleKind::Dict) return fail(where, "not a dict");
    TS_ASSIGN_OR_RETURN(int64_t device, integer(items[i], "device", where));
    TS_ASSIGN_OR_RETURN(int64_t total, integer(items[i], "total_size", where));
    if (device < 0 || device > INT32_MAX) return fail(where, "'device' is out of range");
    DeviceState& d = devices_[device];
    d.reserved += total;
    auto blocks = doc_.find(items[i], "blocks");
    if (!blocks) continue;
    TS_RETURN_IF_ERROR(list(*blocks, where + ": 'blocks'"));
    uint64_t address = 0;
    if (auto a = doc_.find(items[i], "address"); a && doc_.at(*a).kind == PickleKind::Int)
      address = static_cast<uint64_t>(doc_.at(*a).integer);
    for (size_t j = 0; j < doc_.at(*blocks).items.size(); ++j) {
      const uint32_t block = doc_.at(*blocks).items[j];
      const std::string at = where + ", block " + std::to_string(j);
      if (doc_.at(block).kind != PickleKind::Dict) return fail(at, "not a dict");
      TS_ASSIGN_OR_RETURN(int64_t size, integer(block, "size", at));
      auto state = doc_.find(block, "state");
      const bool live = state && doc_.at(*state).kind == PickleKind::Text &&
                        doc_.at(*state).text.starts_with("active_");
      // Blocks follow each other from the segment's address (PyTorch before 2.0 wrote none).
      TS_ASSIGN_OR_RETURN(int64_t own, integer(block, "address", at, false));
      const uint64_t blockAddress = own >= 0 ? static_cast<uint64_t>(own) : address;
      if (live) {
        d.allocated += size;
        d.liveBlocks.emplace_back(blockAddress, size);
      }
      address = blockAddress + static_cast<uint64_t>(size);
    }
  }
  return {};
}

Result<AllocatorRecord> SnapshotReader::record(uint32_t node, const std::string& where) {
  if (doc_.at(node).kind != PickleKind::Dict) return fail(where, "not a dict");
  AllocatorRecord r;
  auto action = doc_.find(node, "action");
  if (!action || doc_.at(*action).kind != PickleKind::Text) return fail(where, "no 'action' text");
  r.action = doc_.at(*action).text;
  TS_ASSIGN_OR_RETURN(int64_t size, integer(node, "size", where, false));
  r.size = std::max<int64_t>(size, 0);
  TS_ASSIGN_OR_RETURN(int64_t address, integer(node, "addr", where, false));
  r.address = address < 0 && !doc_.find(node, "addr") ? 0 : static_cast<uint64_t>(address);
  TS_ASSIGN_OR_RETURN(r.deviceFree, integer(node, "device_free", where, false));
  if (auto frames = doc_.find(node, "frames"); frames && doc_.at(*frames).kind == PickleKind::List)
    r.frames = *frames;
  TS_ASSIGN_OR_RETURN(int64_t us, integer(node, "time_us", where, false));
  if (!doc_.find(node, "time_us")) {
    untimed_ = true;
  } else if (us < 0 || us > INT64_MAX / 1000) {
    return fail(where, "'time_us' is out of range");
  } else {
    r.time = us * 1000;
  }
  return r;
}

Status SnapshotReader::readHistory(int64_t device, uint32_t records) {
  const std::vector<uint32_t>& items = doc_.at(records).items;
  DeviceState& d = devices_[device];
  d.history.reserve(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    TS_ASSIGN_OR_RETURN(AllocatorRecord r, record(items[i], "device " + std::to_string(device) +
                                                                ", record " + std::to_string(i)));
    d.history.push_back(r);
  }
  info_.events += items.size();
  return {};
}

uint32_t SnapshotReader::allocatorProcess() {
  const uint32_t p = b_.process(rank_, 0);
  if (b_.processInfo(p).name.empty()) b_.processInfo(p).name = "CUDA caching allocator";
  return p;
}

// The frame that says where in the program a record came from: the innermost Python frame
// outside PyTorch itself, else the innermost Python frame, else the innermost frame; as
// "name (file.py:line)".
std::string SnapshotReader::frameLabel(uint32_t frames) const {
  auto text = [&](uint32_t frame, std::string_view key) -> std::string {
    auto v = doc_.find(frame, key);
    if (!v) return {};
    const PickleNode& n = doc_.at(*v);
    return n.kind == PickleKind::Text  ? n.text
           : n.kind == PickleKind::Int ? std::to_string(n.integer)
                                       : std::string();
  };
  std::optional<uint32_t> chosen, python, first;
  for (uint32_t f : doc_.at(frames).items) {
    if (doc_.at(f).kind != PickleKind::Dict) continue;
    if (!first) first = f;
    const std::string file = text(f, "filename");
    if (!file.ends_with(".py")) continue;
    if (!python) python = f;
    if (file.find("/torch/") == std::string::npos) {
      chosen = f;
      break;
    }
  }
  const std::optional<uint32_t> f = chosen ? chosen : python ? python : first;
  if (!f) return {};
  std::string file = text(*f, "filename");
  if (const size_t slash = file.rfind('/'); slash != std::string::npos) file.erase(0, slash + 1);
  return text(*f, "name") + " (" + file + ":" + text(*f, "line") + ")";
}

// Where the program allocated or freed: a range of a nanosecond on the device's "allocation
// sites" thread, named by the record's frame, so that measured tensors name the code that made
// and freed them as they name a PyTorch trace's ops.
void SnapshotReader::allocationSite(uint32_t device, const AllocatorRecord& r) {
  if (r.frames == UINT32_MAX) return;
  auto [it, fresh] = labels_.try_emplace(r.frames);
  if (fresh) it->second = frameLabel(r.frames);
  if (it->second.empty()) return;
  const int32_t ordinal = b_.deviceInfo(device).ordinal;
  const uint32_t t = b_.thread(allocatorProcess(), 1000 + ordinal);
  if (b_.threadInfo(t).name.empty())
    b_.threadInfo(t).name = "allocation sites, device " + std::to_string(ordinal);
  NvtxDetail d;
  d.domain = b_.intern("python");
  b_.addNvtx(t, r.time, r.time + 1, b_.intern(it->second), d);
}

void SnapshotReader::outOfMemory(uint32_t device, const AllocatorRecord& r) {
  const uint32_t p = allocatorProcess();
  const uint32_t t = b_.thread(p, static_cast<int64_t>(b_.deviceInfo(device).ordinal));
  b_.threadInfo(t).name = "out of memory, device " + std::to_string(b_.deviceInfo(device).ordinal);
  std::string text = "out of memory: " + formatBytes(r.size) + " requested";
  if (r.deviceFree >= 0) text += ", " + formatBytes(r.deviceFree) + " free on the device";
  NvtxDetail d;
  d.domain = b_.intern("allocator");
  d.isMark = 1;
  b_.addNvtx(t, r.time, r.time, b_.intern(text), d);
}

// The device's counters: its history replayed from the bytes held before it began (what was held
// at the end less what the history added), or, with no history, the blocks live when taken.
void SnapshotReader::emit(int64_t ordinal, const DeviceState& d) {
  const uint32_t device = b_.device(rank_, static_cast<int32_t>(ordinal));
  if (d.history.empty()) {
    int64_t held = 0;
    for (const auto& [address, size] : d.liveBlocks) {
      held += size;
      b_.addCounterSample("Memory allocated", "bytes", device, kNone,
                          {0, static_cast<double>(held), size, address});
    }
    if (d.reserved > 0)
      b_.addCounterSample("Memory reserved", "bytes", device, kNone, 0,
                          static_cast<double>(d.reserved));
    return;
  }
  int64_t allocated = d.allocated, reserved = d.reserved;
  for (const AllocatorRecord& r : d.history) {
    if (r.action == "alloc") allocated -= r.size;
    if (r.action == "free_completed" || r.action == "free") allocated += r.size;
    if (r.action == "segment_alloc" || r.action == "segment_map") reserved -= r.size;
    if (r.action == "segment_free" || r.action == "segment_unmap") reserved += r.size;
  }
  allocated = std::max<int64_t>(allocated, 0);
  reserved = std::max<int64_t>(reserved, 0);
  const TimeNs first = d.history.front().time;
  b_.addCounterSample("Memory allocated", "bytes", device, kNone, first,
                      static_cast<double>(allocated));
  b_.addCounterSample("Memory reserved", "bytes", device, kNone, first,
                      static_cast<double>(reserved));
  for (const AllocatorRecord& r : d.history) {
    if (r.action == "alloc" || r.action == "free_completed" || r.action == "free") {
      const int64_t change = r.action == "alloc" ? r.size : -r.size;
      allocated += change;
      b_.addCounterSample("Memory allocated", "bytes", device, kNone,
                          {r.time, static_cast<double>(allocated), change, r.address});
      allocationSite(device, r);
    } else if (r.action.starts_with("segment_")) {
      reserved += r.action == "segment_alloc" || r.action == "segment_map" ? r.size : -r.size;
      b_.addCounterSample("Memory reserved", "bytes", device, kNone, r.time,
                          static_cast<double>(reserved));
    } else if (r.action == "oom") {
      outOfMemory(device, r);
    } else if (r.action != "free_requested" && r.action != "snapshot") {
      ++info_.skipped["allocator records of action '" + std::string(r.action.substr(0, 40)) + "'"];
    }
  }
  // Both counters reach the last record: what they hold then is held until the snapshot.
  const TimeNs last = d.history.back().time;
  b_.addCounterSample("Memory allocated", "bytes", device, kNone, last,
                      static_cast<double>(allocated));
  b_.addCounterSample("Memory reserved", "bytes", device, kNone, last,
                      static_cast<double>(reserved));
}

Result<ImportInfo> SnapshotReader::read() {
  // torch.cuda.memory._snapshot(): {"segments": [...], "device_traces": [[...] per device]};
  // memory_snapshot() and PyTorch before 2.0: the list of segments alone.
  uint32_t segments = doc_.root;
  std::optional<uint32_t> traces;
  if (doc_.at(doc_.root).kind == PickleKind::Dict) {
    auto s = doc_.find(doc_.root, "segments");
    if (!s) return fail("the top-level dict", "no 'segments' (is this a memory snapshot?)");
    segments = *s;
    traces = doc_.find(doc_.root, "device_traces");
  }
  TS_RETURN_IF_ERROR(list(segments, "'segments'"));
  TS_RETURN_IF_ERROR(readSegments(segments));
  if (traces) {
    TS_RETURN_IF_ERROR(list(*traces, "'device_traces'"));
    const std::vector<uint32_t>& perDevice = doc_.at(*traces).items;
    for (size_t i = 0; i < perDevice.size(); ++i) {
      TS_RETURN_IF_ERROR(list(perDevice[i], "device_traces[" + std::to_string(i) + "]"));
      TS_RETURN_IF_ERROR(readHistory(static_cast<int64_t>(i), perDevice[i]));
    }
  }
  if (untimed_) {  // PyTorch before 2.1 kept no times: one microsecond per record, in order
    for (auto& [device, d] : devices_)
      for (size_t i = 0; i < d.history.size(); ++i)
        d.history[i].time = static_cast<TimeNs>(i) * 1000;
  }
  // Records in time order (the counters need it); records at one time keep theirs.
  for (auto& [device, d] : devices_)
    std::stable_sort(
        d.history.begin(), d.history.end(),
        [](const AllocatorRecord& a, const AllocatorRecord& b) { return a.time < b.time; });
  if (devices_.empty())
    return fail("the snapshot", "it holds no segments and no allocator history: nothing to show");
  bool any = false;
  for (auto& [device, d] : devices_) {
    for (const AllocatorRecord& r : d.history)
      info_.firstTimestamp = any ? std::min(info_.firstTimestamp, r.time) : r.time, any = true;
    emit(device, d);
  }
  // The allocator's clock is the Unix epoch's (microseconds since 1970).
  info_.absoluteClock = any && !untimed_ && info_.firstTimestamp > 100'000'000'000'000'000;
  b_.provenance().sources.push_back({path_, "pytorch-memory-snapshot"});
  b_.provenance().profiler =
      std::string("PyTorch CUDA caching allocator (memory snapshot") +
      (untimed_ ? "; its records carry no times: drawn one microsecond apart, in order)" : ")");
  return info_;
}

}  // namespace

Result<ImportInfo> importMemorySnapshot(const std::string& path, std::string_view bytes,
                                        SessionBuilder& builder, uint32_t rank) {
  auto doc = readPickle(bytes);
  if (!doc) return doc.failure().prefixed(path + ": not a readable memory snapshot: ");
  SnapshotReader reader(path, *doc, builder, rank);
  return reader.read();
}

bool looksLikeMemoryTimeline(std::string_view head) {
  auto next = [&](size_t from) {
    while (from < head.size() && std::isspace(static_cast<unsigned char>(head[from]))) ++from;
    return from;
  };
  const size_t open = next(0);
  return open < head.size() && head[open] == '[' && next(open + 1) < head.size() &&
         head[next(open + 1)] == '[';
}

namespace {

// export_memory_timeline's categories, in the order of its rows (after an unused first entry):
// the order of torch.profiler._memory_profiler's _CATEGORY_TO_COLORS.
constexpr std::array<const char*, 8> kTimelineCategories = {
    "parameter",  "optimizer state", "input",           "temporary",
    "activation", "gradient",        "autograd detail", "unknown"};

Result<std::vector<int64_t>> timelineTimes(simdjson::dom::array times, const std::string& path) {
  std::vector<int64_t> out;
  for (simdjson::dom::element t : times) {
    int64_t v = 0;
    if (t.get_int64().get(v)) {
      double d = 0;
      if (t.get_double().get(d) || !std::isfinite(d) || std::fabs(d) > 9e18)
        return Error{path + ": memory timeline: time " + std::to_string(out.size()) +
                     " is not a number"};
      v = static_cast<int64_t>(d);
    }
    out.push_back(v);
  }
  return out;
}

}  // namespace

// [times, sizes]: times in microseconds (nanoseconds before PyTorch 2.2, told apart by size: a
// Unix time in nanoseconds is past 10^17), -1 for memory that existed before the profile began;
// sizes[i] the bytes live per category from times[i] on.
Result<ImportInfo> importMemoryTimeline(const std::string& path, std::string_view json,
                                        SessionBuilder& b, uint32_t rank) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded(json);
  simdjson::dom::element root;
  if (auto err = parser.parse(padded).get(root))
    return Error{path + ": memory timeline: not JSON (" + simdjson::error_message(err) + ")"};
  simdjson::dom::array top, times, sizes;
  if (root.get_array().get(top) || top.size() != 2 || top.at(0).get_array().get(times) ||
      top.at(1).get_array().get(sizes))
    return Error{path + ": memory timeline: expected [times, sizes], two arrays"};
  TS_ASSIGN_OR_RETURN(std::vector<int64_t> t, timelineTimes(times, path));
  if (t.size() != sizes.size())
    return Error{path + ": memory timeline: " + std::to_string(t.size()) + " times but " +
                 std::to_string(sizes.size()) + " rows of sizes"};
  int64_t first = -1, last = 0;
  for (int64_t v : t)
    if (v >= 0) first = first < 0 ? v : std::min(first, v), last = std::max(last, v);
  const int64_t scale = last > 100'000'000'000'000'000 ? 1 : 1000;
  // The export is of one device, which the file does not name: shown as the rank's GPU 0.
  const uint32_t device = b.device(rank, 0);
  ImportInfo info;
  size_t row = 0;
  for (simdjson::dom::element r : sizes) {
    simdjson::dom::array values;
    if (r.get_array().get(values) || values.size() != kTimelineCategories.size() + 1)
      return Error{path + ": memory timeline: row " + std::to_string(row) + " has not " +
                   std::to_string(kTimelineCategories.size() + 1) + " sizes"};
    const TimeNs time = (t[row] < 0 ? std::max<int64_t>(first, 0) : t[row]) * scale;
    double total = 0;
    size_t c = 0;
    for (simdjson::dom::element v : values) {
      double bytes = 0;
      if (v.get_double().get(bytes) || !std::isfinite(bytes))
        return Error{path + ": memory timeline: row " + std::to_string(row) + " holds no number"};
      if (c > 0) {
        total += bytes;
        b.addCounterSample(std::string("Memory (") + kTimelineCategories[c - 1] + ")", "bytes",
                           device, kNone, time, bytes);
      }
      ++c;
    }
    b.addCounterSample("Memory allocated", "bytes", device, kNone, time, total);
    if (row == 0) info.firstTimestamp = time;
    ++row;
  }
  info.events = row;
  info.absoluteClock = first * scale > 100'000'000'000'000'000;
  b.provenance().sources.push_back({path, "pytorch-memory-timeline"});
  b.provenance().profiler = "PyTorch profiler memory timeline (export_memory_timeline)";
  return info;
}

}  // namespace ts
