#include "io/chrome_json_reader.h"

#include <simdjson.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "io/chrome_event_blocks.h"
#include "io/chrome_event_scan.h"
#include "io/decimal_time.h"
#include "io/json_cursor.h"
#include "session/occupancy.h"
#include "util/format.h"
#include "util/text.h"

namespace ts {

namespace {

namespace od = simdjson::ondemand;

bool isGpuCategory(std::string_view cat) {
  return cat == "kernel" || cat == "Kernel" || cat == "gpu_memcpy" || cat == "Memcpy" ||
         cat == "gpu_memset" || cat == "Memset" || cat == "gpu_user_annotation" ||
         cat == "cuda_sync";
}

MemoryKind memoryKindFromName(std::string_view word) {
  if (word == "Pageable") return MemoryKind::Pageable;
  if (word == "Pinned") return MemoryKind::Pinned;
  if (word == "Device") return MemoryKind::Device;
  if (word == "Array") return MemoryKind::Array;
  if (word == "Managed") return MemoryKind::Managed;
  return MemoryKind::Unknown;
}

// "Memcpy HtoD (Pageable -> Device)" → HtoD, Pageable, Device.
void parseCopyName(std::string_view name, MemcpyDetail& d) {
  d.copyKind = CopyKind::Other;
  if (name.substr(0, 7) == "Memcpy ") {
    std::string_view kind = name.substr(7, 4);
    if (auto k = copyKindFromString(kind)) d.copyKind = *k;
  }
  auto open = name.find('('), arrow = name.find(" -> "), close = name.rfind(')');
  if (open != std::string_view::npos && arrow != std::string_view::npos &&
      close != std::string_view::npos && open < arrow && arrow < close) {
    d.srcKind = memoryKindFromName(name.substr(open + 1, arrow - open - 1));
    d.dstKind = memoryKindFromName(name.substr(arrow + 4, close - arrow - 4));
  }
}

class Importer {
 public:
  Importer(const std::string& path, std::string_view json, SessionBuilder& b, uint32_t rank,
           const Progress& progress, const JsonReadOptions& options)
      : path_(path),
        span_(json),
        json_(options.arrive ? json.substr(0, 0) : json),
        b_(b),
        rank_(rank),
        progress_(progress),
        recover_(options.recover),
        threads_(options.threads),
        blockBytes_(options.blockBytes ? options.blockBytes : size_t{1} << 18),
        consumed_(options.consumed),
        arrive_(options.arrive),
        whole_(!options.arrive),
        expectedBytes_(options.expectedBytes) {}

  Result<ImportInfo> run();

 private:
  // Failures are rare: kept out of line, so that the per-event paths stay small.
  [[gnu::cold, gnu::noinline]] Status fail(const std::string& what) const {
    problem_ = what;
    return Error{path_ + ": byte " + formatCount(offset_) +
                 (eventIndex_ ? " (trace event " + formatCount(eventIndex_) + ")" : "") + ": " +
                 what};
  }
  Status simdjsonFail(simdjson::error_code e) const { return fail(simdjson::error_message(e)); }
  // A padded copy of a small JSON text (an M or C event's args) for simdjson.
  simdjson::error_code iterateCopy(std::string_view text, od::document& doc);

  Status readTopLevel();
  // Arriving text (JsonReadOptions::arrive): json_ holds what is in; these extend it.
  // The top-level keys before the events are read once their text is in, the events as they
  // arrive (readBlocks), and the rest once the text is whole.
  void startArriving();
  void arriveUpTo(size_t bytes);  // at least `bytes` in json_, or the whole text
  void makeWhole();
  enum class Prelude { Found, NeedMore, NotThere };
  // Where the event array's '[' is in `text` (a part of the trace from its start), if there.
  static Prelude findEventArray(std::string_view text, size_t& at);
  double progressAt(size_t offset) const {
    const size_t size = whole_ ? json_.size() : std::max(expectedBytes_, json_.size());
    return size == 0 ? 1.0 : std::min(1.0, static_cast<double>(offset) / static_cast<double>(size));
  }
  Status readTopField(std::string_view key, size_t from, size_t to);
  // `bare`: the document is the array itself (Chrome's JSON Array Format), whose closing ']' the
  // format makes optional (a process that died mid-trace never wrote it).
  Status readEventArray(size_t& i, bool bare);
  // The events from the cursor (at the first one's '{') read ahead on `threads_` workers and
  // handled here in order, for as long as the blocks fit together. The cursor is left after the
  // last event handled (`afterEvent`), or after the array's ']' (`closed`); the caller reads on
  // from there.
  Status readBlocks(JsonCursor& c, bool& afterEvent, bool& closed);
  // The text ended between trace events: the end of what can be read.
  void stopAtCut(const Status& cut);
  // A trace event that did not read (`failure`, starting at byte `start`): counted by its problem
  // and stepped over when the text after it is still JSON; false when nothing after it can be
  // read (the text ends, or stops being JSON), which ends the import there.
  [[gnu::cold, gnu::noinline]] bool stepOver(const Status& failure, size_t start, JsonCursor& c);
  // The problems met, in one sentence ("the trace ends inside trace event 9 at byte 812; …").
  std::string damageSummary() const;
  // Events read whole: those before the damage that ended the import, less the skipped ones.
  size_t intactEvents() const {
    const ImportDamage& d = info_.damage;
    return (d.truncatedInsideEvent || d.brokenAtEvent ? eventIndex_ - 1 : eventIndex_) -
           d.skippedEvents;
  }
  Status readEvent(JsonCursor& c);
  // An event read: counted, then its metadata kept or the event handled.
  Status finishEvent(const RawEvent& e);
  Status readDeviceProperties(od::array devices);
  Status readDistributedInfo(od::object info);
  // One event, by its phase; each phase's handler below it.
  Status handle(const RawEvent& e);
  Status complete(const RawEvent& e, TimeNs ts);
  Status gpuWork(const RawEvent& e, TimeNs ts, TimeNs end, StringId name);
  Status beginEnd(const RawEvent& e, char ph, TimeNs ts);
  Status instant(const RawEvent& e, TimeNs ts);
  Status memory(const RawEvent& e, TimeNs ts);
  Status counter(const RawEvent& e, TimeNs ts);
  Status flow(const RawEvent& e, char ph, TimeNs ts);
  Status asyncRange(const RawEvent& e, char ph, TimeNs ts);
  // The event's args: read while the event was when its category came first (the usual order),
  // else read now from the raw text.
  Status argsOf(const RawEvent& e, KinetoArgs& out) {
    if (e.argsParsed) {
      out = e.parsedArgs;
      return {};
    }
    if (!scan_.args(e.args, out, argsWantedFor(e.cat))) return fail(scan_.problem());
    return {};
  }
  Status time(std::string_view text, const char* field, TimeNs& out) const;

  uint32_t process(const RawEvent& e);
  uint32_t thread(const RawEvent& e);
  uint32_t gpuStream(const RawEvent& e, const KinetoArgs& a);
  void applyMetadata();

  const std::string& path_;
  std::string_view span_;  // the text, or with arriving text the span it fills
  std::string_view json_;  // the text that may be read
  SessionBuilder& b_;
  uint32_t rank_;
  const Progress& progress_;
  const bool recover_;
  const unsigned threads_;
  // Events are read ahead on other threads in blocks of this size, in traces of two blocks or more
  // (256 KiB: as fast as 1 MiB on the 110 MB benchmark trace, with a quarter of the memory).
  const size_t blockBytes_;
  const std::function<void(size_t)>& consumed_;
  const std::function<size_t(size_t)>& arrive_;
  bool whole_;  // json_ holds the whole text
  const size_t expectedBytes_;
  mutable std::string problem_;  // the last failure's problem, without file and byte
  std::string firstFailure_;     // the first damaged event's whole error
  bool stopped_ = false;         // the import ended at damage it cannot step over
  od::parser argsParser_;
  od::parser topParser_;
  std::string lastPid_, lastTid_;  // the last thread looked up, by its pid/tid text
  uint32_t lastThread_ = kNone;
  int64_t lastDevice_ = -1, lastStreamId_ = -1;
  uint32_t lastStream_ = kNone;
  std::vector<char> top_;       // a padded copy of one top-level value being parsed
  std::vector<char> argsCopy_;  // a padded copy of one args object (M and C events)
  EventScanner scan_{span_};    // reads events in file order (and args kept as text)
  StringPool strings_;          // decoded top-level keys
  ImportInfo info_;
  size_t offset_ = 0;
  size_t eventIndex_ = 0;
  bool sawBaseTime_ = false;
  TimeNs minTime_ = INT64_MAX;
  TimeNs maxTime_ = INT64_MIN;

  std::unordered_map<std::string, int64_t> syntheticIds_;  // string pid/tid → id
  std::unordered_map<int64_t, std::string> processNames_;
  std::unordered_map<std::string, std::string> threadNames_;  // "pid/tid" → name
  std::unordered_map<int64_t, int64_t> processSort_;
  std::unordered_map<std::string, int64_t> threadSort_;  // "pid/tid" → sort index
  struct Open {
    StringId name, cat;
    TimeNs start;
    StringId args;
  };
  std::unordered_map<uint32_t, std::vector<Open>> stacks_;  // B/E per thread
  // Flow events by (cat, id), in file order: chained by time once all are read (a trace may
  // write a flow's finish before its start).
  struct FlowStep {
    char ph;
    SessionBuilder::FlowEnd end;
  };
  std::unordered_map<std::string, std::vector<FlowStep>> flowSteps_;
  void chainFlows();
  std::unordered_map<std::string, std::pair<uint32_t, Open>> asyncOpen_;  // b/e by (cat, id, name)
  // [memory] events without totals (PyTorch before 1.10): summed into "allocated since the trace
  // began" once all are read, in time order (threads write theirs out of order).
  struct MemoryChange {
    uint32_t device, process;  // the counter's owner: one of them
    std::string suffix;        // of the counter's name
    TimeNs time;
    int64_t bytes;
    uint64_t address;
  };
  std::vector<MemoryChange> memoryChanges_;
  Status sumMemoryChanges();
};

constexpr size_t kPadding = simdjson::SIMDJSON_PADDING;

int64_t syntheticId(std::unordered_map<std::string, int64_t>& ids, std::string_view text) {
  auto [it, fresh] = ids.try_emplace(std::string(text), -static_cast<int64_t>(ids.size()) - 1);
  return it->second;
}

// A pid or tid: an integer, a string of digits, or any other string (given a synthetic id).
int64_t idOf(std::unordered_map<std::string, int64_t>& ids, std::string_view text) {
  if (auto v = parseJsonInteger(text)) return *v;
  return syntheticId(ids, text);
}

Status Importer::time(std::string_view text, const char* field, TimeNs& out) const {
  if (text.empty()) return fail(std::string("missing '") + field + "'");
  auto ns = parseMicrosToNs(text);
  if (!ns) {
    // A number too large for nanoseconds in 64 bits is out of range, not "not a number".
    std::string copy(text.substr(0, 64));
    char* end = nullptr;
    (void)std::strtod(copy.c_str(), &end);
    const bool number = !copy.empty() && end == copy.c_str() + copy.size();
    return fail(std::string("'") + field +
                (number ? "' is out of range: " : "' is not a number: ") +
                std::string(text.substr(0, 40)));
  }
  out = *ns;
  return {};
}

uint32_t Importer::process(const RawEvent& e) {
  int64_t pid = idOf(syntheticIds_, e.pid);
  uint32_t p = b_.process(rank_, pid);
  if (e.pidIsString && b_.processInfo(p).name.empty()) b_.processInfo(p).name = std::string(e.pid);
  return p;
}

uint32_t Importer::thread(const RawEvent& e) {
  // Consecutive events are mostly on one thread: skip the lookups then.
  if (lastThread_ != kNone && e.pid == lastPid_ && e.tid == lastTid_) return lastThread_;
  uint32_t p = process(e);
  int64_t tid = idOf(syntheticIds_, e.tid);
  uint32_t t = b_.thread(p, tid);
  if (e.tidIsString && b_.threadInfo(t).name.empty()) {
    if (!parseJsonInteger(e.tid)) b_.threadInfo(t).name = std::string(e.tid);
  }
  lastPid_.assign(e.pid);
  lastTid_.assign(e.tid);
  lastThread_ = t;
  return t;
}

uint32_t Importer::gpuStream(const RawEvent& e, const KinetoArgs& a) {
  int64_t device = a.device;
  if (device < 0) device = parseJsonInteger(e.pid).value_or(0);
  int64_t stream = a.stream;
  if (stream < 0) {
    std::string_view tid = e.tid;
    if (tid.substr(0, 7) == "stream ") tid.remove_prefix(7);  // legacy "stream 7"
    while (!tid.empty() && tid.back() == ' ') tid.remove_suffix(1);
    stream = parseJsonInteger(tid).value_or(0);
  }
  if (lastStream_ != kNone && device == lastDevice_ && stream == lastStreamId_ && a.context <= 0) {
    return lastStream_;
  }
  uint32_t d = b_.device(rank_, static_cast<int32_t>(device));
  uint32_t s = b_.stream(d, static_cast<uint32_t>(stream));
  lastDevice_ = device, lastStreamId_ = stream, lastStream_ = s;
  if (a.context > 0) {
    Stream& info = b_.streamInfo(s);
    if (info.context == kNone) info.context = b_.context(d, static_cast<uint32_t>(a.context));
  }
  return s;
}

simdjson::error_code Importer::iterateCopy(std::string_view text, od::document& doc) {
  argsCopy_.assign(text.begin(), text.end());
  argsCopy_.resize(text.size() + kPadding, '\0');
  return argsParser_.iterate(argsCopy_.data(), text.size(), argsCopy_.size()).get(doc);
}

// The profiler's estimates for a kernel, fixed-point, with a bit for each one reported.
void setReportedStats(const KinetoArgs& a, KernelDetail& k) {
  auto fixed = [](double v, double scale, double max) {
    return std::llround(std::min(v * scale, max));
  };
  if (a.estOccupancy >= 0) {
    k.reportedStats |= kReportedOccupancy;
    k.estOccupancyX100 = static_cast<uint16_t>(fixed(a.estOccupancy, 100, 10000));
  }
  if (a.blocksPerSm >= 0) {
    k.reportedStats |= kReportedBlocksPerSm;
    k.blocksPerSmX1000 = static_cast<uint32_t>(fixed(a.blocksPerSm, 1000, 4e9));
  }
  if (a.warpsPerSm >= 0) {
    k.reportedStats |= kReportedWarpsPerSm;
    k.warpsPerSmX1000 = static_cast<uint32_t>(fixed(a.warpsPerSm, 1000, 4e9));
  }
  if (a.externalId >= 0 && a.externalId <= UINT32_MAX) {
    k.reportedStats |= kReportedExternalId;
    k.externalId = static_cast<uint32_t>(a.externalId);
  }
}

// The PyTorch profiler's notes about itself, not about the program: the span of the whole trace
// (category "Trace", on a pseudo-process "Spans" or "Traces"), its "Iteration Start: …" marks and
// "Record Window End" (on an empty pid). Drawn, they are rows of their own that stretch the
// session past the real activity; they are left out and counted.
bool isProfilerBookkeeping(const RawEvent& e, char ph) {
  if (ph == 'X' && e.cat == "Trace") return true;
  if (ph != 'i' && ph != 'I') return false;
  return (e.pid == "Traces" && e.name.rfind("Iteration Start: ", 0) == 0) ||
         (e.pid.empty() && e.name == "Record Window End");
}

Status Importer::handle(const RawEvent& e) {
  const char ph = e.ph.empty() ? '\0' : e.ph[0];
  if (ph == 'M') return {};  // metadata is read in readEvent
  if (isProfilerBookkeeping(e, ph)) {
    ++info_.skipped["the profiler's notes about itself (trace span, iteration marks)"];
    return {};
  }
  TimeNs ts = 0;
  if (e.tsRead)
    ts = e.tsNs;
  else if (Status st = time(e.ts, "ts", ts); !st)
    return st;
  if (!timeInRange(ts)) return fail("'ts' is out of range");
  minTime_ = std::min(minTime_, ts);
  maxTime_ = std::max(maxTime_, ts);

  switch (ph) {
    case 'X':
      return complete(e, ts);
    case 'B':
    case 'E':
      return beginEnd(e, ph, ts);
    case 'i':
    case 'I':
    case 'n':
      return instant(e, ts);
    case 'C':
      return counter(e, ts);
    case 's':
    case 't':
    case 'f':
      return flow(e, ph, ts);
    case 'b':
    case 'e':
      return asyncRange(e, ph, ts);
    default:
      ++info_.skipped["events of phase '" + std::string(e.ph.substr(0, 8)) + "'"];
      return {};
  }
}

// 'X': a complete event — GPU work on a stream, or CPU work (API call, op, annotation, range) on
// a thread.
Status Importer::complete(const RawEvent& e, TimeNs ts) {
  TimeNs dur = 0;
  if (e.durRead)
    dur = e.durNs;
  else if (Status st = time(e.dur, "dur", dur); !st)
    return st;
  if (dur < 0) return fail("negative 'dur'");
  TimeNs end;
  if (__builtin_add_overflow(ts, dur, &end) || !timeInRange(end))
    return fail("'ts' + 'dur' is out of range");
  maxTime_ = std::max(maxTime_, end);
  StringId name = b_.intern(e.name);
  std::string_view cat = e.cat;
  // The PyTorch profiler's categories: the file is a Kineto trace, not any Chrome trace.
  if (!info_.pytorch && (cat == "cpu_op" || cat == "cuda_runtime" || cat == "Operator" ||
                         cat == "Runtime" || cat == "python_function"))
    info_.pytorch = true;
  if (isGpuCategory(cat)) return gpuWork(e, ts, end, name);
  uint32_t t = thread(e);
  if (cat == "cuda_runtime" || cat == "Runtime" || cat == "cuda_driver") {
    KinetoArgs a;
    if (Status st = argsOf(e, a); !st) return st;
    b_.addApi(t, ts, end, name,
              {static_cast<uint32_t>(a.correlation), 0,
               cat == "cuda_driver" ? ApiDomain::Driver : ApiDomain::Runtime});
  } else if (cat == "cpu_op" || cat == "Operator" || cat == "user_annotation") {
    KinetoArgs a;
    if (Status st = argsOf(e, a); !st) return st;
    b_.addNvtx(t, ts, end, name,
               {b_.intern(cat), 0, 0, a.opInputs.empty() ? 0 : b_.intern(a.opInputs)});
  } else if (cat == "nvtx") {
    KinetoArgs a;
    if (Status st = argsOf(e, a); !st) return st;
    b_.addNvtx(t, ts, end, name, {b_.intern(a.domain.empty() ? cat : a.domain), 0, 0});
  } else {
    b_.addRange(t, ts, end, name, {b_.intern(cat), b_.intern(e.args)});
  }
  return {};
}

// A complete event of a GPU category: kernel, copy, memset, or an annotation or sync on a stream.
Status Importer::gpuWork(const RawEvent& e, TimeNs ts, TimeNs end, StringId name) {
  std::string_view cat = e.cat;
  KinetoArgs a;
  if (Status st = argsOf(e, a); !st) return st;
  uint32_t stream = gpuStream(e, a);
  auto corr = static_cast<uint32_t>(a.correlation);
  auto ctx = static_cast<uint32_t>(a.context);
  if (cat == "kernel" || cat == "Kernel") {
    KernelDetail k;
    k.correlation = corr;
    k.context = ctx;
    k.gridX = static_cast<uint32_t>(a.grid[0]), k.gridY = static_cast<uint32_t>(a.grid[1]);
    k.gridZ = static_cast<uint32_t>(a.grid[2]);
    k.blockX = static_cast<uint32_t>(a.block[0]), k.blockY = static_cast<uint32_t>(a.block[1]);
    k.blockZ = static_cast<uint32_t>(a.block[2]);
    k.registersPerThread = static_cast<uint16_t>(std::clamp<int64_t>(a.registers, 0, 65535));
    // Kineto reports static + dynamic shared memory as one number.
    k.staticSharedMemory = static_cast<uint32_t>(std::max<int64_t>(a.sharedMemory, 0));
    setReportedStats(a, k);
    if (a.graphId > 0 && a.graphId <= UINT32_MAX) k.graphId = static_cast<uint32_t>(a.graphId);
    b_.addKernel(stream, ts, end, name, k);
  } else if (cat == "gpu_memcpy" || cat == "Memcpy") {
    MemcpyDetail m;
    parseCopyName(e.name, m);
    if (m.copyKind == CopyKind::Other) {
      if (auto k = copyKindFromString(a.kind)) m.copyKind = *k;
    }
    m.bytes = static_cast<uint64_t>(std::max<int64_t>(a.bytes, 0));
    int32_t device = b_.deviceInfo(b_.streamInfo(stream).device).ordinal;
    m.srcDevice = m.srcKind == MemoryKind::Device ? device : -1;
    m.dstDevice = m.dstKind == MemoryKind::Device ? device : -1;
    if (a.fromDevice >= 0) m.srcDevice = static_cast<int32_t>(a.fromDevice);
    if (a.toDevice >= 0) m.dstDevice = static_cast<int32_t>(a.toDevice);
    if (m.copyKind == CopyKind::DtoD && m.srcDevice != m.dstDevice) m.copyKind = CopyKind::PtoP;
    m.async = 1;
    m.correlation = corr;
    m.context = ctx;
    if (a.externalId >= 0 && a.externalId <= UINT32_MAX)
      m.externalId = static_cast<uint32_t>(a.externalId), m.hasExternalId = 1;
    if (a.migration == 1) {
      if (a.migrationCause < 0 || a.migrationCause >= kMigrationCauseCount)
        return fail("unknown 'migration cause' " + std::to_string(a.migrationCause));
      m.migration = 1;
      m.migrationCause = static_cast<MigrationCause>(a.migrationCause);
      m.address = static_cast<uint64_t>(a.address);
    }
    b_.addMemcpy(stream, ts, end, name, m);
  } else if (cat == "gpu_memset" || cat == "Memset") {
    MemsetDetail m;
    m.bytes = static_cast<uint64_t>(std::max<int64_t>(a.bytes, 0));
    auto open = e.name.find('('), close = e.name.rfind(')');
    if (open != std::string_view::npos && close > open) {
      m.memKind = memoryKindFromName(e.name.substr(open + 1, close - open - 1));
    }
    m.correlation = corr;
    m.context = ctx;
    if (a.externalId >= 0 && a.externalId <= UINT32_MAX)
      m.externalId = static_cast<uint32_t>(a.externalId), m.hasExternalId = 1;
    b_.addMemset(stream, ts, end, name, m);
  } else if (cat == "gpu_user_annotation") {
    b_.addStreamNvtx(stream, ts, end, name, {b_.intern(cat), 0, 0});
  } else {  // cuda_sync
    b_.addStreamRange(stream, ts, end, name, {b_.intern(cat), b_.intern(e.args)});
  }
  return {};
}

// 'B' / 'E': a range opened and closed on its thread's stack.
Status Importer::beginEnd(const RawEvent& e, char ph, TimeNs ts) {
  uint32_t t = thread(e);
  auto& stack = stacks_[t];
  if (ph == 'B') {
    stack.push_back({b_.intern(e.name), b_.intern(e.cat), ts, b_.intern(e.args)});
    return {};
  }
  if (stack.empty()) {
    ++info_.skipped["'E' events without their 'B'"];  // nothing to close
    return {};
  }
  Open o = stack.back();
  stack.pop_back();
  b_.addRange(t, o.start, ts, o.name, {o.cat, o.args});
  return {};
}

// 'i' / 'I' / 'n': an instant, kept as a zero-length mark.
Status Importer::instant(const RawEvent& e, TimeNs ts) {
  if (e.name == "[memory]") return memory(e, ts);
  KinetoArgs a;
  if (e.cat == "nvtx" || isGpuCategory(e.cat)) {
    if (Status st = argsOf(e, a); !st) return st;
  }
  std::string_view domain = !a.domain.empty() ? a.domain : e.cat.empty() ? "instant" : e.cat;
  b_.addNvtx(thread(e), ts, ts, b_.intern(e.name), {b_.intern(domain), 0, 1});
  return {};
}

// PyTorch's [memory] instant (profile_memory=True): one allocation (Bytes > 0) or free (< 0) at
// Addr on a device, with the allocator's totals after it ("Total Allocated", "Total Reserved";
// absent before PyTorch 1.10). Read as memory counters of the device (CUDA; a CPU allocation
// counts for its process), each sample keeping the allocation's size and address.
Status Importer::memory(const RawEvent& e, TimeNs ts) {
  if (e.args.empty()) return fail("[memory] event without 'args'");
  od::document doc;
  if (auto err = iterateCopy(e.args, doc)) return simdjsonFail(err);
  od::object obj;
  if (doc.get_object().get(obj)) return fail("[memory] 'args' is not an object");
  int64_t deviceType = 0, deviceId = -1, bytes = 0;
  uint64_t address = 0;
  std::optional<int64_t> allocated, reserved;
  for (auto field : obj) {
    std::string_view key;
    if (field.unescaped_key().get(key)) return fail("[memory] 'args' has an unreadable key");
    std::string_view token;
    if (field.value().raw_json_token().get(token)) return fail("[memory] 'args' is not JSON");
    while (!token.empty() && (token.back() == ' ' || token.back() == '\n' || token.back() == '\r' ||
                              token.back() == '\t'))
      token.remove_suffix(1);
    auto integer = [&](int64_t& out) -> Status {
      if (auto v = parseJsonInteger(token)) {
        out = *v;
        return {};
      }
      return fail("[memory] '" + std::string(key) +
                  "' is not an integer: " + std::string(token.substr(0, 40)));
    };
    int64_t v = 0;
    if (key == "Device Type") {
      TS_RETURN_IF_ERROR(integer(deviceType));
    } else if (key == "Device Id") {
      TS_RETURN_IF_ERROR(integer(deviceId));
    } else if (key == "Bytes") {
      TS_RETURN_IF_ERROR(integer(bytes));
    } else if (key == "Addr") {
      // An address may use all 64 bits.
      const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), address);
      if (ec != std::errc() || end != token.data() + token.size()) {
        TS_RETURN_IF_ERROR(integer(v));
        address = static_cast<uint64_t>(v);
      }
    } else if (key == "Total Allocated") {
      TS_RETURN_IF_ERROR(integer(v));
      allocated = v;
    } else if (key == "Total Reserved") {
      TS_RETURN_IF_ERROR(integer(v));
      reserved = v;
    }
  }
  // c10::DeviceType: 0 CPU, 1 CUDA (ROCm builds report their GPUs as CUDA too), 6 HIP.
  const bool gpu = (deviceType == 1 || deviceType == 6) && deviceId >= 0;
  if (gpu && deviceId > INT32_MAX) return fail("[memory] 'Device Id' is out of range");
  const uint32_t device = gpu ? b_.device(rank_, static_cast<int32_t>(deviceId)) : kNone;
  const uint32_t owner = gpu ? kNone : process(e);
  std::string suffix;
  if (!gpu && deviceType != 0) suffix = " (device type " + std::to_string(deviceType) + ")";
  if (allocated) {
    b_.addCounterSample("Memory allocated" + suffix, "bytes", device, owner,
                        {ts, static_cast<double>(*allocated), bytes, address});
  } else {
    // Only the change is known: the counter starts at 0 when the trace does, and says so.
    memoryChanges_.push_back({device, owner, suffix, ts, bytes, address});
  }
  if (reserved) {
    b_.addCounterSample("Memory reserved" + suffix, "bytes", device, owner,
                        {ts, static_cast<double>(*reserved), 0, 0});
  }
  return {};
}

Status Importer::sumMemoryChanges() {
  std::stable_sort(memoryChanges_.begin(), memoryChanges_.end(),
                   [](const MemoryChange& a, const MemoryChange& b) {
                     return std::tie(a.device, a.process, a.suffix, a.time) <
                            std::tie(b.device, b.process, b.suffix, b.time);
                   });
  int64_t sum = 0;
  for (size_t i = 0; i < memoryChanges_.size(); ++i) {
    const MemoryChange& c = memoryChanges_[i];
    if (i == 0 || c.device != memoryChanges_[i - 1].device ||
        c.process != memoryChanges_[i - 1].process || c.suffix != memoryChanges_[i - 1].suffix)
      sum = 0;
    if (__builtin_add_overflow(sum, c.bytes, &sum))
      return Error{path_ + ": [memory] events' 'Bytes' add up past 2^63"};
    b_.addCounterSample("Allocated since trace start" + c.suffix, "bytes", c.device, c.process,
                        {c.time, static_cast<double>(sum), c.bytes, c.address});
  }
  memoryChanges_.clear();
  return {};
}

// 'C': one sample of each series in args (a counter with one series is named by the event).
Status Importer::counter(const RawEvent& e, TimeNs ts) {
  if (e.args.empty()) {
    ++info_.skipped["counter events without values"];
    return {};
  }
  od::document doc;
  if (auto err = iterateCopy(e.args, doc)) return simdjsonFail(err);
  od::object obj;
  if (doc.get_object().get(obj)) return fail("counter 'args' is not an object");
  uint32_t p = process(e);
  std::vector<std::pair<std::string, double>> values;
  for (auto field : obj) {
    std::string_view key;
    double v = 0;
    if (field.unescaped_key().get(key) || field.value().get_double().get(v)) {
      return fail("counter value is not a number");
    }
    values.emplace_back(std::string(key), v);
  }
  for (const auto& [key, v] : values) {
    std::string series = values.size() == 1 ? std::string(e.name) : std::string(e.name) + "." + key;
    b_.addCounterSample(series, {}, kNone, p, ts, v);
  }
  return {};
}

// 's' / 't' / 'f': a flow's start, steps and finish, tied by category and id; each step becomes
// a flow from the previous one, bound to events by time at build().
Status Importer::flow(const RawEvent& e, char ph, TimeNs ts) {
  // Kineto's launch flows (ac2g; "async"/"launch" in 2021 traces) repeat the correlation ids
  // the builder links already.
  if (e.cat == "ac2g" || (e.cat == "async" && e.name == "launch")) return {};
  std::string key = std::string(e.cat) + '\x1f' + std::string(e.id);
  flowSteps_[key].push_back({ph, {thread(e), kNone, ts, ph != 'f' || e.bp == "e"}});
  return {};
}

// Each flow's steps in time order (a start before a step before a finish at one time): every
// step or finish is a flow from the step before it; a finish ends the chain.
void Importer::chainFlows() {
  std::vector<std::pair<const std::string*, std::vector<FlowStep>*>> flows;
  for (auto& [key, steps] : flowSteps_) flows.emplace_back(&key, &steps);
  std::sort(flows.begin(), flows.end(),
            [](const auto& a, const auto& b) { return *a.first < *b.first; });
  auto rank = [](char ph) { return ph == 's' ? 0 : ph == 't' ? 1 : 2; };
  for (auto& [key, steps] : flows) {
    std::stable_sort(steps->begin(), steps->end(), [&](const FlowStep& a, const FlowStep& b) {
      return a.end.time != b.end.time ? a.end.time < b.end.time : rank(a.ph) < rank(b.ph);
    });
    std::optional<SessionBuilder::FlowEnd> tail;
    bool tailIsStart = false;  // a start with nothing after it yet: no flow made of it
    for (const FlowStep& step : *steps) {
      if (step.ph == 's') {
        if (tailIsStart) ++info_.skipped["flow starts without a step or finish"];
        tail = step.end;
        tailIsStart = true;
      } else if (!tail) {
        ++info_.skipped["flow steps without their start"];
      } else {
        b_.addFlow(*tail, step.end);
        tailIsStart = false;
        if (step.ph == 't')
          tail = step.end;
        else
          tail.reset();
      }
    }
    if (tailIsStart) ++info_.skipped["flow starts without a step or finish"];
  }
  flowSteps_.clear();
}

// 'b' / 'e': an async range, tied by category, id and name, kept on the thread that opened it.
Status Importer::asyncRange(const RawEvent& e, char ph, TimeNs ts) {
  std::string key = std::string(e.cat) + '\x1f' + std::string(e.id) + '\x1f' + std::string(e.name);
  uint32_t t = thread(e);
  if (ph == 'b') {
    asyncOpen_[key] = {t, {b_.intern(e.name), b_.intern(e.cat), ts, b_.intern(e.args)}};
  } else if (auto it = asyncOpen_.find(key); it != asyncOpen_.end()) {
    const auto& [owner, o] = it->second;
    b_.addRange(owner, o.start, std::max(o.start, ts), o.name, {o.cat, o.args});
    asyncOpen_.erase(it);
  } else {
    ++info_.skipped["async ends ('e') without their begin"];
  }
  return {};
}

// One trace event, the cursor at its '{'; on success the cursor is just past its '}'.
Status Importer::readEvent(JsonCursor& c) {
  scan_.reset();
  RawEvent e;
  if (!scan_.event(c, e)) return fail(scan_.problem());
  return finishEvent(e);
}

Status Importer::finishEvent(const RawEvent& e) {
  ++info_.events;
  if (e.ph.empty()) return fail("trace event without 'ph'");
  if (e.ph == "M") {
    // process_name / thread_name / *_sort_index; applied once all events are in.
    bool sort = e.name == "process_sort_index" || e.name == "thread_sort_index";
    if (e.args.empty() || (e.name != "process_name" && e.name != "thread_name" && !sort)) return {};
    od::document doc;
    if (auto err = iterateCopy(e.args, doc)) return simdjsonFail(err);
    int64_t pid = idOf(syntheticIds_, e.pid);
    if (sort) {
      int64_t index = 0;
      if (doc.find_field_unordered("sort_index").get_int64().get(index)) return {};
      if (e.name == "process_sort_index")
        processSort_[pid] = index;
      else
        threadSort_[std::to_string(pid) + "/" + std::to_string(idOf(syntheticIds_, e.tid))] = index;
      return {};
    }
    std::string_view name;
    if (doc.find_field_unordered("name").get_string().get(name)) return {};
    if (e.name == "process_name") {
      processNames_[pid] = std::string(name);
    } else {
      int64_t tid = idOf(syntheticIds_, e.tid);
      threadNames_[std::to_string(pid) + "/" + std::to_string(tid)] = std::string(name);
    }
    return {};
  }
  return handle(e);
}

void Importer::stopAtCut(const Status& cut) {
  if (firstFailure_.empty()) firstFailure_ = cut.error();
  info_.damage.truncated = true;
  info_.damage.truncatedAtByte = json_.size();
  stopped_ = true;
}

Status Importer::readBlocks(JsonCursor& c, bool& afterEvent, bool& closed) {
  EventBlockReader reader(whole_ ? json_ : span_, c.pos(), threads_, blockBytes_,
                          2 * size_t{threads_} + 2,
                          whole_ ? std::function<size_t(size_t)>{} : arrive_);
  size_t expected = c.pos();
  while (const EventBlock* block = reader.next()) {
    if (block->begin != expected) break;  // a boundary guessed wrong: the rest is read here
    for (size_t j = 0; j < block->count; ++j) {
      const size_t start = block->starts[j];
      if ((eventIndex_ & 0xFFF) == 0) {
        if (progress_.cancelled()) return Error::cancelled(path_ + ": cancelled");
        progress_.update(progressAt(start));
      }
      offset_ = start;
      ++eventIndex_;
      const TimeNs minBefore = minTime_, maxBefore = maxTime_;
      scan_.reset();  // args kept as text are read here, with strings of their own
      if (Status st = finishEvent(block->events[j]); !st) {
        minTime_ = minBefore, maxTime_ = maxBefore;
        makeWhole();  // the damaged event is stepped over in the whole text
        JsonCursor skip(json_, start);
        if (!stepOver(st, start, skip)) return {};
      }
    }
    if (block->count > 0) {
      c.setPos(block->lastEnd);
      afterEvent = true;
      if (consumed_) consumed_(block->lastEnd);
    }
    if (block->closedAt != EventBlock::npos) {
      c.setPos(block->closedAt);
      closed = true;
      return {};
    }
    if (block->next == EventBlock::npos) break;  // damage, or not an event: read here
    expected = block->next;
  }
  return {};
}

Status Importer::readEventArray(size_t& i, bool bare) {
  // i is at '['. Events are read in place, one after another.
  JsonCursor c(json_, i + 1);
  bool afterEvent = false;  // the cursor is just after an event, before its ',' or the ']'
  c.skipSpace();
  if (!whole_) {  // enough of the array in to tell whether it is worth reading in blocks
    arriveUpTo(c.pos() + 2 * blockBytes_ + 1);
    c = JsonCursor(json_, c.pos());
    c.skipSpace();
  }
  if (threads_ > 1 && json_.size() - c.pos() >= 2 * blockBytes_ && c.peek() == '{') {
    bool closed = false;
    TS_RETURN_IF_ERROR(readBlocks(c, afterEvent, closed));
    if (stopped_) return {};
    if (closed) {
      i = c.pos();
      return {};
    }
  }
  if (arrive_) {  // what the blocks did not read is read here, from the whole text
    makeWhole();
    c = JsonCursor(json_, c.pos());  // c was made on a part of it
  }
  for (bool first = !afterEvent;; first = false) {
    if (!first) {
      if (c.consume(',')) {
      } else if (c.consume(']')) {
        i = c.pos();
        return {};
      } else {
        offset_ = std::min(c.pos(), json_.size());
        if (!c.atEnd()) return fail("expected ',' or ']' between trace events");
        if (bare) {  // the optional ']' left out: complete
          stopped_ = true;
          return {};
        }
        stopAtCut(fail("truncated: the trace ends inside 'traceEvents'"));
        return {};
      }
    }
    c.skipSpace();
    if (c.atEnd()) {
      offset_ = json_.size();
      if (bare) {  // the optional ']' left out: complete
        stopped_ = true;
        return {};
      }
      stopAtCut(fail("truncated: the trace ends inside 'traceEvents'"));
      return {};
    }
    if (first && c.peek() == ']') break;
    if ((eventIndex_ & 0xFFF) == 0) {
      if (progress_.cancelled()) return Error::cancelled(path_ + ": cancelled");
      progress_.update(static_cast<double>(c.pos()) / static_cast<double>(json_.size()));
      if (consumed_) consumed_(c.pos());
    }
    offset_ = c.pos();
    ++eventIndex_;
    const size_t start = c.pos();
    const TimeNs minBefore = minTime_, maxBefore = maxTime_;
    if (Status st = readEvent(c); !st) {
      if (st.cancelled()) return st;
      // What the damaged event did to the clock range is undone with it.
      minTime_ = minBefore, maxTime_ = maxBefore;
      if (!stepOver(st, start, c)) return {};
    }
  }
  i = c.pos() + 1;
  return {};
}

bool Importer::stepOver(const Status& failure, size_t start, JsonCursor& c) {
  if (firstFailure_.empty()) firstFailure_ = failure.error();
  JsonCursor skip(json_, start);
  if (skip.skipValue()) {
    // An event with impossible fields: counted by its problem ("'ts' is not a number", without
    // the value), the events after it read on.
    std::string kind = problem_.substr(0, problem_.find(": "));
    ++info_.damage.skippedByProblem[kind];
    ++info_.damage.skippedEvents;
    c.setPos(skip.pos());
    return true;
  }
  stopped_ = true;
  if (skip.truncated()) {
    info_.damage.truncated = true;
    info_.damage.truncatedInsideEvent = eventIndex_;
    info_.damage.truncatedAtByte = start;
  } else {
    info_.damage.brokenAtEvent = eventIndex_;
    info_.damage.brokenAtByte = start;
    info_.damage.broken = problem_;
  }
  return false;
}

std::string Importer::damageSummary() const {
  const ImportDamage& d = info_.damage;
  std::vector<std::string> parts;
  const size_t before = intactEvents();
  const std::string intact = before == 1
                                 ? "the 1 event before it is complete"
                                 : "the " + formatCount(before) + " events before it are complete";
  if (d.truncated) {
    parts.push_back((d.truncatedInsideEvent
                         ? "the trace ends inside trace event " +
                               formatCount(d.truncatedInsideEvent) + " at byte " +
                               formatCount(d.truncatedAtByte)
                         : "the trace ends after trace event " + formatCount(eventIndex_) +
                               " (byte " + formatCount(d.truncatedAtByte) + ")") +
                    "; " + intact);
  } else if (!d.broken.empty()) {
    parts.push_back("the text stops being JSON inside trace event " + formatCount(d.brokenAtEvent) +
                    " at byte " + formatCount(d.brokenAtByte) + " (" + d.broken + "); " + intact);
  }
  if (d.skippedEvents) {
    std::string kinds;
    for (const auto& [kind, n] : d.skippedByProblem)
      kinds += (kinds.empty() ? "" : ", ") + kind + " ×" + formatCount(n);
    parts.push_back(formatCount(d.skippedEvents) + " trace event" +
                    (d.skippedEvents == 1 ? "" : "s") + " with impossible fields (" + kinds + ")");
  }
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

Status Importer::readDeviceProperties(od::array devices) {
  for (auto item : devices) {
    od::object obj;
    if (item.get_object().get(obj)) return fail("deviceProperties holds a non-object");
    Device d;
    int64_t id = -1, maxThreadsPerSm = 0;
    for (auto field : obj) {
      std::string_view key;
      if (auto err = field.unescaped_key().get(key)) return simdjsonFail(err);
      od::value v = field.value();
      if (key == "name") {
        std::string_view name;
        if (v.get_string().get(name)) return fail("deviceProperties 'name' is not a string");
        d.name = std::string(name);
        continue;
      }
      int64_t n = 0;
      od::json_type type;
      if (v.type().get(type) || type != od::json_type::number) continue;
      if (v.get_int64().get(n)) continue;
      auto i32 = [&] { return static_cast<int32_t>(std::clamp<int64_t>(n, INT32_MIN, INT32_MAX)); };
      if (key == "id")
        id = n;
      else if (key == "totalGlobalMem")
        d.memoryBytes = static_cast<uint64_t>(std::max<int64_t>(n, 0));
      else if (key == "computeMajor")
        d.computeMajor = i32();
      else if (key == "computeMinor")
        d.computeMinor = i32();
      else if (key == "maxThreadsPerBlock")
        d.maxThreadsPerBlock = i32();
      else if (key == "maxThreadsPerMultiprocessor")
        maxThreadsPerSm = n;
      else if (key == "regsPerBlock")
        d.maxRegistersPerBlock = i32();
      else if (key == "regsPerMultiprocessor")
        d.maxRegistersPerSm = i32();
      else if (key == "warpSize")
        d.warpSize = i32();
      else if (key == "sharedMemPerBlock")
        d.maxSharedMemoryPerBlock = i32();
      else if (key == "sharedMemPerMultiprocessor")
        d.maxSharedMemoryPerSm = i32();
      else if (key == "numSms")
        d.smCount = i32();
    }
    if (id < 0) return fail("deviceProperties entry without an 'id'");
    if (d.warpSize > 0) d.maxWarpsPerSm = static_cast<int32_t>(maxThreadsPerSm / d.warpSize);
    Device& target = b_.deviceInfo(b_.device(rank_, static_cast<int32_t>(id)));
    d.rank = target.rank;
    d.ordinal = target.ordinal;
    d.maxBlocksPerSm = maxBlocksPerSmFor(d.computeMajor, d.computeMinor);
    target = std::move(d);
  }
  return {};
}

Status Importer::readDistributedInfo(od::object info) {
  for (auto field : info) {
    std::string_view key;
    if (auto err = field.unescaped_key().get(key)) return simdjsonFail(err);
    int64_t n = 0;
    if (key == "rank" && !field.value().get_int64().get(n)) {
      info_.distributedRank = static_cast<int32_t>(n);
      Rank& r = b_.rankInfo(rank_);
      r.rank = static_cast<int32_t>(n);
      r.label = "rank " + std::to_string(n);
    } else if (key == "world_size" && !field.value().get_int64().get(n)) {
      info_.worldSize = n;
    }
  }
  return {};
}

// Parses a small value of the top-level object (deviceProperties, distributedInfo, ...) on its own.
Status Importer::readTopField(std::string_view key, size_t from, size_t to) {
  offset_ = from;
  top_.assign(json_.begin() + static_cast<std::ptrdiff_t>(from),
              json_.begin() + static_cast<std::ptrdiff_t>(to));
  top_.resize(to - from + kPadding, '\0');
  od::document doc;
  if (auto err = topParser_.iterate(top_.data(), to - from, top_.size()).get(doc))
    return simdjsonFail(err);
  if (key == "deviceProperties") {
    od::array devices;
    if (doc.get_array().get(devices)) return fail("'deviceProperties' is not an array");
    return readDeviceProperties(devices);
  }
  if (key == "distributedInfo") {
    od::object info;
    if (doc.get_object().get(info)) return fail("'distributedInfo' is not an object");
    return readDistributedInfo(info);
  }
  if (key == "baseTimeNanoseconds") {
    std::string_view raw;
    // raw_json_token() keeps the whitespace that follows a token.
    std::optional<int64_t> base;
    if (!doc.raw_json_token().get(raw)) base = parseJsonInteger(trim(raw));
    if (!base) return fail("'baseTimeNanoseconds' is not an integer");
    b_.rankInfo(rank_).clockOffsetNs = *base;
    sawBaseTime_ = true;
  }
  return {};
}

Status Importer::readTopLevel() {
  JsonCursor c(json_);
  c.skipSpace();
  if (c.peek() == '[') {
    size_t i = c.pos();
    TS_RETURN_IF_ERROR(readEventArray(i, true));
    if (stopped_) return {};
    makeWhole();
    c = JsonCursor(json_, i);
    c.skipSpace();
    offset_ = c.pos();
    return c.atEnd() ? Status{} : fail("text after the end of the trace");
  }
  if (c.peek() != '{') {
    offset_ = c.pos();
    return fail("not a trace: the document is neither an array nor an object");
  }
  c.setPos(c.pos() + 1);
  bool sawEvents = false;
  bool done = c.consume('}');
  while (!done) {
    c.skipSpace();
    offset_ = c.pos();
    std::string_view key;
    if (c.peek() != '"' && !c.atEnd()) return fail("expected a key");
    if (!c.string(key, strings_)) {
      return fail(c.truncated() ? "truncated: the document ends early" : c.error());
    }
    if (!c.consume(':')) {
      offset_ = std::min(c.pos(), json_.size());
      return fail(c.atEnd() ? "truncated: the document ends early"
                            : "expected ':' after \"" + std::string(key) + "\"");
    }
    c.skipSpace();
    offset_ = c.pos();
    if (key == "traceEvents") {
      if (c.peek() != '[')
        return fail(c.atEnd() ? "truncated: the document ends early"
                              : "'traceEvents' is not an array");
      size_t i = c.pos();
      if (Status st = readEventArray(i, false); !st) return st;
      if (stopped_) return {};  // nothing after the damage can be read
      makeWhole();
      c = JsonCursor(json_, i);
      sawEvents = true;
    } else {
      std::string name(key);  // the key's view may not outlive the next string read
      size_t from = c.pos();
      if (!c.skipValue()) {
        return fail(c.truncated() ? "truncated: the value of \"" + name + "\" does not end"
                                  : "in the value of \"" + name + "\": " + c.error());
      }
      if (name == "deviceProperties" || name == "distributedInfo" ||
          name == "baseTimeNanoseconds") {
        if (Status st = readTopField(name, from, c.pos()); !st) return st;
      }
    }
    if (c.consume(',')) continue;
    if (c.consume('}')) break;
    offset_ = std::min(c.pos(), json_.size());
    return fail(c.atEnd() ? "truncated: the document ends early" : "expected ',' or '}'");
  }
  c.skipSpace();
  if (!c.atEnd()) {
    offset_ = c.pos();
    return fail("text after the end of the trace");
  }
  if (!sawEvents) {
    offset_ = 0;
    return fail("not a trace: no 'traceEvents' array");
  }
  return {};
}

void Importer::applyMetadata() {
  for (uint32_t p = 0; p < b_.processCount(); ++p) {
    Process& proc = b_.processInfo(p);
    if (proc.rank != rank_) continue;
    if (auto it = processNames_.find(proc.pid); it != processNames_.end()) proc.name = it->second;
    if (auto it = processSort_.find(proc.pid); it != processSort_.end())
      proc.sortIndex = it->second;
  }
  for (uint32_t t = 0; t < b_.threadCount(); ++t) {
    Thread& th = b_.threadInfo(t);
    const Process& proc = b_.processInfo(th.process);
    if (proc.rank != rank_) continue;
    std::string key = std::to_string(proc.pid) + "/" + std::to_string(th.tid);
    if (auto it = threadNames_.find(key); it != threadNames_.end()) th.name = it->second;
    if (auto it = threadSort_.find(key); it != threadSort_.end()) th.sortIndex = it->second;
  }
}

void Importer::arriveUpTo(size_t bytes) {
  if (whole_) return;
  const size_t in = std::min(arrive_(bytes), span_.size());
  json_ = span_.substr(0, in);
  whole_ = in < bytes;
}

void Importer::makeWhole() {
  arriveUpTo(SIZE_MAX);
}

Importer::Prelude Importer::findEventArray(std::string_view text, size_t& at) {
  JsonCursor c(text);
  c.skipSpace();
  if (c.atEnd()) return Prelude::NeedMore;
  if (c.peek() == '[') {
    at = c.pos();
    return Prelude::Found;
  }
  if (c.peek() != '{') return Prelude::NotThere;
  c.setPos(c.pos() + 1);
  StringPool pool;
  for (;;) {
    c.skipSpace();
    if (c.atEnd()) return Prelude::NeedMore;
    std::string_view key;
    if (!c.string(key, pool)) return c.truncated() ? Prelude::NeedMore : Prelude::NotThere;
    const bool events = key == "traceEvents";
    if (!c.consume(':')) return c.atEnd() ? Prelude::NeedMore : Prelude::NotThere;
    c.skipSpace();
    if (c.atEnd()) return Prelude::NeedMore;
    if (events) {
      if (c.peek() != '[') return Prelude::NotThere;
      at = c.pos();
      return Prelude::Found;
    }
    if (!c.skipValue()) return c.truncated() ? Prelude::NeedMore : Prelude::NotThere;
    if (c.consume(',')) continue;
    // The object ends without events, or the text is no trace: read whole, as any text is.
    return c.atEnd() ? Prelude::NeedMore : Prelude::NotThere;
  }
}

void Importer::startArriving() {
  // Small blocks (tests) start small, so that short texts arrive in parts too.
  for (size_t want = std::min<size_t>(size_t{1} << 16, 4 * blockBytes_ + 64); !whole_; want *= 2) {
    arriveUpTo(want);
    size_t at = 0;
    const Prelude found = findEventArray(json_, at);
    if (found == Prelude::Found) return;  // readEventArray waits for its first blocks
    if (found == Prelude::NotThere) break;
  }
  makeWhole();
}

Result<ImportInfo> Importer::run() {
  if (!whole_) startArriving();
  TS_RETURN_IF_ERROR(readTopLevel());
  if (!firstFailure_.empty()) {
    const ImportDamage& d = info_.damage;
    info_.damage.summary = damageSummary();
    if (intactEvents() == 0) return Error{firstFailure_ + "; no trace event is intact"};
    // Without the user's consent nothing damaged is opened: the first problem as before, then
    // what a recovery would keep, so that the caller can offer it (said once: a cut alone is
    // the first problem already).
    if (!recover_) {
      std::string more = d.skippedEvents == 0 ? "; " + d.summary.substr(d.summary.find("; ") + 2)
                         : d.skippedEvents == 1 && !d.truncated && d.broken.empty()
                             ? " (the only damaged event)"
                             : " — in all: " + d.summary;
      return Error{firstFailure_ + more, ErrorCode::Damaged};
    }
  }
  chainFlows();
  TS_RETURN_IF_ERROR(sumMemoryChanges());
  // Unclosed B events end with the trace: kept, not dropped; so do async ranges never ended.
  for (auto& [t, stack] : stacks_) {
    for (const Open& o : stack)
      b_.addRange(t, o.start, std::max(o.start, maxTime_), o.name, {o.cat, o.args});
  }
  std::vector<std::pair<uint32_t, Open>> unended;  // in a fixed order, not the hash map's
  for (const auto& [key, open] : asyncOpen_) unended.push_back(open);
  std::sort(unended.begin(), unended.end(), [](const auto& a, const auto& b) {
    return std::tie(a.first, a.second.start, a.second.name) <
           std::tie(b.first, b.second.start, b.second.name);
  });
  for (const auto& [owner, o] : unended)
    b_.addRange(owner, o.start, std::max(o.start, maxTime_), o.name, {o.cat, o.args});
  applyMetadata();
  info_.firstTimestamp = minTime_ == INT64_MAX ? 0 : minTime_;
  // Kineto and Chrome timestamps are epoch-based when large (after 2001 in µs) or when the trace
  // gives its base time.
  info_.absoluteClock = sawBaseTime_ || info_.firstTimestamp > 1'000'000'000'000'000'000;
  return info_;
}

}  // namespace

bool looksLikeJson(std::string_view head) {
  for (char c : head) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    return c == '{' || c == '[';
  }
  return false;
}

Result<ImportInfo> importChromeJson(const std::string& path, std::string_view json,
                                    SessionBuilder& builder, uint32_t rank,
                                    const Progress& progress, const JsonReadOptions& options) {
  Importer importer(path, json, builder, rank, progress, options);
  return importer.run();
}

}  // namespace ts
