#include "capture/record_sink.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>
#include <tuple>

#include "capture/allocation_counters.h"
#include "capture/cupti_version.h"
#include "session/session_builder.h"

namespace ts::capture {

namespace {

// A process's name: its command line without the program's directories ("/opt/conda/bin/python
// train.py" → "python train.py"). The timeline cuts a long label at its end, where a full path
// left only directories to read (as Nsight Systems, the program by its name). The command line
// comes joined by spaces, so a directory with a space in its name keeps what follows the space.
std::string withoutDirectories(const std::string& command) {
  const size_t slash = command.rfind('/', command.find(' '));  // within the program's path
  return slash == std::string::npos ? command : command.substr(slash + 1);
}

// CUPTI_ACTIVITY_MEMCPY_KIND_*: 1 HtoD, 2 DtoH, 3 HtoA, 4 AtoH, 5 AtoA, 6 AtoD, 7 DtoA, 8 DtoD,
// 9 HtoH, 10 PtoP. Array copies are shown by their host/device direction.
CopyKind copyKindOf(uint8_t k) {
  switch (k) {
    case 1:
    case 3:
      return CopyKind::HtoD;
    case 2:
    case 4:
      return CopyKind::DtoH;
    case 5:
    case 6:
    case 7:
    case 8:
      return CopyKind::DtoD;
    case 9:
      return CopyKind::HtoH;
    case 10:
      return CopyKind::PtoP;
    default:
      return CopyKind::Other;
  }
}

// CUPTI_ACTIVITY_MEMORY_KIND_*: 1 pageable, 2 pinned, 3 device, 4 array, 5 managed, 6 device
// static, 7 managed static — the same numbering as ours.
MemoryKind memoryKindOf(uint8_t k) {
  return k <= 7 ? static_cast<MemoryKind>(k) : MemoryKind::Unknown;
}

std::string_view memoryWord(MemoryKind k) {
  switch (k) {
    case MemoryKind::Pageable:
      return "Pageable";
    case MemoryKind::Pinned:
      return "Pinned";
    case MemoryKind::Device:
    case MemoryKind::DeviceStatic:
      return "Device";
    case MemoryKind::Array:
      return "Array";
    case MemoryKind::Managed:
    case MemoryKind::ManagedStatic:
      return "Managed";
    default:
      return "Unknown";
  }
}

// CUPTI_ACTIVITY_FLAG_MARKER_*.
constexpr uint32_t kMarkerInstant = 1u << 0, kMarkerStart = 1u << 1, kMarkerEnd = 1u << 2;
// CUPTI_SYNCHRONIZATION_INVALID_VALUE: the stream of a context-wide synchronisation.
constexpr uint32_t kNoSyncStream = 0xFFFFFFFFu;

}  // namespace

std::string apiName(std::string_view name) {
  auto v = name.rfind("_v");
  if (v != std::string_view::npos && v + 2 < name.size() &&
      name.find_first_not_of("0123456789", v + 2) == std::string_view::npos) {
    name = name.substr(0, v);
  }
  return std::string(name);
}

std::string demangle(const std::string& mangled) {
  if (mangled.rfind("_Z", 0) != 0) return mangled;
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(
      abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && out ? std::string(out.get()) : mangled;
}

size_t RecordSink::open() {
  conns_.emplace_back();
  return conns_.size() - 1;
}

uint32_t RecordSink::intern(const std::string& s) {
  auto [it, fresh] = nameIndex_.try_emplace(s, static_cast<uint32_t>(names_.size()));
  if (fresh) names_.push_back(s);
  return it->second;
}

Status RecordSink::feed(size_t id, std::string_view bytes) {
  Connection& c = conns_[id];
  if (c.broken) return {};
  c.pending.append(bytes);
  size_t at = 0;
  while (c.pending.size() - at >= 8) {
    uint32_t type = 0, length = 0;
    std::memcpy(&type, c.pending.data() + at, 4);
    std::memcpy(&length, c.pending.data() + at + 4, 4);
    if (length > kMaxFrameBytes + 64) {
      c.broken = true;
      return Error{"process " + std::to_string(c.info.pid) + ": a record of " +
                   std::to_string(length) + " bytes (corrupt stream)"};
    }
    if (c.pending.size() - at - 8 < length) break;  // the rest has not arrived yet
    if (Status st = frame(c, static_cast<FrameType>(type),
                          std::string_view(c.pending).substr(at + 8, length));
        !st) {
      c.broken = true;
      return st;
    }
    at += 8 + length;
  }
  c.pending.erase(0, at);
  return {};
}

void RecordSink::close(size_t id) {
  Connection& c = conns_[id];
  c.open = false;
  // The process died inside a record — unless it had answered a stop's flush request: it was
  // then terminated while sending what it recorded after the stop, which nobody asked for.
  if (!c.pending.empty() && !c.flushed) c.broken = true;
  if (c.flushed) c.pending.clear();
}

bool RecordSink::flushAnswered() const {
  for (const Connection& c : conns_) {
    if (c.open && !c.ended && !c.flushed && !c.broken) return false;
  }
  return true;
}

// CUPTI leaves a record's timestamps zero when it could not complete it (the context ended, a
// forced flush): placed, it would sit at t = 0 and stretch the session to the epoch. Counted.
bool RecordSink::incomplete(int64_t start, int64_t end) {
  if (start > 0 && end > 0) return false;
  ++incomplete_;
  return true;
}

std::vector<std::string> RecordSink::warnings() const {
  // "1 record … was", "2 records … were".
  auto records = [](uint64_t n) { return std::to_string(n) + (n == 1 ? " record" : " records"); };
  auto were = [](uint64_t n) { return std::string(n == 1 ? "was" : "were"); };
  std::vector<std::string> out = messages_;
  if (incomplete_)
    out.push_back(records(incomplete_) + " CUPTI could not complete (no timestamps) " +
                  were(incomplete_) + " left out");
  if (uint64_t bad = live().rejected())
    out.push_back(records(bad) + " with impossible timestamps (past ±2^62 ns) " + were(bad) +
                  " left out");
  uint64_t backlog = 0, unreadable = 0, all = dropped();
  for (const Connection& c : conns_) backlog += c.backlogDropped, unreadable += c.unreadable;
  if (uint64_t cupti = all - backlog - unreadable)
    out.push_back(records(cupti) + " CUPTI dropped (its buffers were full)");
  if (backlog)
    out.push_back(records(backlog) + " " + were(backlog) +
                  " dropped in the program because the launcher did not keep up (the program is "
                  "never made to wait for it)");
  if (unreadable)
    out.push_back(records(unreadable) +
                  " CUPTI handed back could not be read (incomplete or invalid) and " +
                  were(unreadable) + " left out");
  return out;
}

Status RecordSink::frame(Connection& c, FrameType type, std::string_view payload) {
  FrameReader r(payload);
  auto bad = [&](const char* what) {
    return Error{"process " + std::to_string(c.info.pid) + ": malformed " + what + " record"};
  };
  if (!c.hello && type != FrameType::Hello) return bad("first (expected hello)");
  switch (type) {
    case FrameType::Hello:
      if (!r.fixed(c.info) || !r.string(c.host) || !r.string(c.command)) return bad("hello");
      if (c.info.version != kWireVersion) {
        return Error{"process " + std::to_string(c.info.pid) + ": record stream version " +
                     std::to_string(c.info.version) + ", expected " + std::to_string(kWireVersion) +
                     " (injection library from another Tensorscope build)"};
      }
      c.hello = true;
      return {};
    case FrameType::Kernel: {
      KernelFrame k;
      std::string name;
      if (!r.fixed(k) || !r.string(name)) return bad("kernel");
      if (incomplete(k.start, k.end)) return {};
      c.kernels.emplace_back(k, intern(name));
      ++events_;
      return {};
    }
    case FrameType::Memcpy: {
      MemcpyFrame m;
      if (!r.fixed(m)) return bad("memcpy");
      if (incomplete(m.start, m.end)) return {};
      c.memcpys.push_back(m);
      ++events_;
      return {};
    }
    case FrameType::Memset: {
      MemsetFrame m;
      if (!r.fixed(m)) return bad("memset");
      if (incomplete(m.start, m.end)) return {};
      c.memsets.push_back(m);
      ++events_;
      return {};
    }
    case FrameType::Api: {
      ApiFrame a;
      std::string name;
      if (!r.fixed(a) || !r.string(name)) return bad("API");
      if (incomplete(a.start, a.end)) return {};
      c.apis.emplace_back(a, intern(apiName(name)));
      ++events_;
      return {};
    }
    case FrameType::Marker: {
      MarkerFrame m;
      std::string name, domain;
      if (!r.fixed(m) || !r.string(name) || !r.string(domain)) return bad("NVTX marker");
      c.markers.push_back({m, intern(name), intern(domain)});
      if (!(m.flags & kMarkerEnd)) ++events_;
      return {};
    }
    case FrameType::Device: {
      DeviceFrame d;
      std::string name, uuid;
      if (!r.fixed(d) || !r.string(name) || !r.string(uuid)) return bad("device");
      c.devices.push_back({d, {name, uuid}});
      return {};
    }
    case FrameType::Context: {
      ContextFrame x;
      if (!r.fixed(x)) return bad("context");
      c.contexts.push_back(x);
      return {};
    }
    case FrameType::Stream: {
      StreamFrame x;
      if (!r.fixed(x)) return bad("stream");
      c.streams.push_back(x);
      return {};
    }
    case FrameType::Sync: {
      SyncFrame x;
      if (!r.fixed(x)) return bad("synchronization");
      if (incomplete(x.start, x.end)) return {};
      c.syncs.push_back(x);
      ++events_;
      return {};
    }
    case FrameType::Dropped:
    case FrameType::Overhead:
    case FrameType::Unknown: {
      CountFrame n;
      if (!r.fixed(n)) return bad("count");
      (type == FrameType::Dropped    ? c.dropped
       : type == FrameType::Overhead ? c.overhead
                                     : c.unknown) += n.count;
      if (type == FrameType::Dropped && n.detail == static_cast<uint32_t>(DropCause::Backlog))
        c.backlogDropped += n.count;
      if (type == FrameType::Dropped && n.detail == static_cast<uint32_t>(DropCause::Unreadable))
        c.unreadable += n.count;
      return {};
    }
    case FrameType::Memory: {
      MemoryFrame m;
      if (!r.fixed(m)) return bad("memory");
      if (m.timestamp == 0) {  // CUPTI could not complete it
        ++incomplete_;
        return {};
      }
      c.memory.push_back(m);
      ++events_;
      return {};
    }
    case FrameType::Message: {
      std::string text;
      if (!r.string(text)) return bad("message");
      messages_.push_back("process " + std::to_string(c.info.pid) + ": " + text);
      return {};
    }
    case FrameType::End:
      c.ended = true;
      return {};
    case FrameType::FlushDone:
      c.flushed = true;
      return {};
  }
  // A newer injection library may send frames this launcher does not know: skip them.
  ++c.unknown;
  return {};
}

uint64_t RecordSink::dropped() const {
  uint64_t n = 0;
  for (const Connection& c : conns_) n += c.dropped;
  return n;
}

uint64_t RecordSink::lost() const {
  return dropped() + incomplete_ + live().rejected();
}

std::map<std::string, uint64_t> RecordSink::lostByCause() const {
  uint64_t backlog = 0, unreadable = 0;
  for (const Connection& c : conns_) backlog += c.backlogDropped, unreadable += c.unreadable;
  const std::pair<const char*, uint64_t> causes[] = {
      {"dropped by CUPTI (its buffers were full)", dropped() - backlog - unreadable},
      {"dropped in the program (the launcher did not keep up)", backlog},
      {"unreadable (incomplete or invalid)", unreadable},
      {"without timestamps (CUPTI could not complete them)", incomplete_},
      {"with impossible timestamps (past ±2^62 ns)", live().rejected()},
  };
  std::map<std::string, uint64_t> out;
  for (const auto& [why, n] : causes)
    if (n) out[why] = n;
  return out;
}

uint64_t RecordSink::unknown() const {
  uint64_t n = 0;
  for (const Connection& c : conns_) n += c.unknown;
  return n;
}

bool RecordSink::complete() const {
  for (const Connection& c : conns_) {
    if (!(c.ended || c.flushed) || c.broken || !c.pending.empty()) return false;
  }
  return true;
}

// snapshot()'s steps, kept from one snapshot to the next: one rank for the capture, then per
// connection (a process) its devices, contexts and streams, and its records by kind — only those
// that came since the last snapshot, which are let go once they are in the live session.
class RecordSink::Translator {
 public:
  explicit Translator(RecordSink& sink) : sink_(sink), b_(live_.entities()) {
    rank_ = b_.rank(0);  // numbered by the first process that says hello
  }

  Result<SessionPtr> snapshot(const Provenance& provenance, TimeNs holdback) {
    holdback_ = holdback;
    nameRank();
    ids_.resize(sink_.names_.size(), kNone);
    states_.resize(sink_.conns_.size());
    for (size_t ci = 0; ci < sink_.conns_.size(); ++ci) {
      Connection& c = sink_.conns_[ci];
      if (!c.hello) continue;
      state_ = &states_[ci];
      process_ = b_.process(rank_, c.info.pid);
      if (b_.processInfo(process_).name.empty())
        b_.processInfo(process_).name = withoutDirectories(c.command);
      addDevices(c);
      addContextsAndStreams(c);
      addKernels(c);
      addCopies(c);
      addMemsets(c);
      addApis(c);
      addSyncs(c);
      addMarkers(c);
      for (const MemoryFrame& m : take(c.memory))
        allocations_.add(m, b_.device(rank_, static_cast<int32_t>(m.deviceId)), process_);
    }
    nameSharedStreams();
    allocations_.publish(b_);
    // A program that never initialised CUDA connects nothing: a valid session without GPU events.
    Provenance p = provenance;
    p.profiler = profiler();
    p.incomplete = provenance.incomplete || !sink_.complete();
    p.droppedRecords = sink_.lost();
    p.lost = sink_.lostByCause();
    if (allocations_.leftOut() > 0)
      p.skipped["CUDA memory records of arrays or unknown kinds"] = allocations_.leftOut();
    return live_.publish(p, holdback, holdback <= 0);
  }

  const LiveSession& live() const { return live_; }
  uint64_t beforeWindow() const { return beforeWindow_; }  // records left out by the window

 private:
  // Per connection, what its records refer to across snapshots.
  struct State {
    std::map<uint32_t, uint32_t> contextDevice;  // CUPTI context id → device id
    std::map<uint32_t, uint32_t> nullStream;     // CUPTI context id → its NULL stream
    std::unordered_map<uint64_t, TimeNs> ends;   // NVTX END records whose START has not come
    std::unordered_map<uint64_t, LiveSession::OpenRange> open;  // NVTX ranges started, not ended
    // NVTX ranges started before the window (--delay), not ended: not in the session until it is
    // clear that they reach into the window (see addMarkers).
    struct Early {
      uint32_t thread;
      TimeNs start;
      StringId name;
      NvtxDetail detail;
    };
    std::unordered_map<uint64_t, Early> early;
    // Records that name a context whose record has not come yet (CUPTI hands its buffers over
    // in any order): kept for the snapshots after it.
    std::vector<StreamFrame> streams;
    std::vector<SyncFrame> syncs;
  };

  // The CUPTI the first process that loaded one recorded with, and the one this was built with.
  std::string profiler() const {
    for (const Connection& c : sink_.conns_) {
      if (c.hello && c.info.cuptiVersion) {
        return "CUPTI " + cuptiVersionText(c.info.cuptiVersion) + ", built with " +
               cuptiVersionText(c.info.cuptiBuiltVersion);
      }
    }
    return "";
  }

  // One rank per capture file, numbered and named by the first process that said hello;
  // processes (the target and its children) below it.
  void nameRank() {
    if (rankNamed_) return;
    for (const Connection& c : sink_.conns_) {
      if (!c.hello) continue;
      Rank& r = b_.rankInfo(rank_);
      r.rank = std::max(c.info.rank, 0);
      r.host = c.host;
      r.label = c.info.rank >= 0 ? "rank " + std::to_string(c.info.rank) + " / " + c.host
                                 : "rank " + std::to_string(r.rank);
      rankNamed_ = true;
      return;
    }
  }

  StringId name(uint32_t i) {
    if (ids_[i] == kNone) ids_[i] = b_.intern(sink_.names_[i]);
    return ids_[i];
  }

  // Each kind's frames are taken from the connection (and their memory let go) as they are added.
  template <class T>
  static std::vector<T> take(std::vector<T>& frames) {
    std::vector<T> out;
    out.swap(frames);
    return out;
  }

  void addDevices(Connection& c) {
    for (const auto& [d, text] : take(c.devices)) {
      Device& dev = b_.deviceInfo(b_.device(rank_, static_cast<int32_t>(d.id)));
      dev.name = text.first;
      dev.uuid = text.second;
      dev.computeMajor = d.computeMajor, dev.computeMinor = d.computeMinor, dev.smCount = d.smCount;
      dev.memoryBytes = d.globalMemoryBytes;
      dev.memoryBandwidthBytesPerSecond = d.globalMemoryBandwidthKBs * 1000;
      dev.clockKHz = d.coreClockKHz;
      dev.maxWarpsPerSm = d.maxWarpsPerSm, dev.maxBlocksPerSm = d.maxBlocksPerSm;
      dev.maxThreadsPerBlock = d.maxThreadsPerBlock;
      dev.maxRegistersPerSm = d.maxRegistersPerSm,
      dev.maxRegistersPerBlock = d.maxRegistersPerBlock;
      dev.maxSharedMemoryPerSm = d.maxSharedMemoryPerSm,
      dev.maxSharedMemoryPerBlock = d.maxSharedMemoryPerBlock;
    }
  }

  void addContextsAndStreams(Connection& c) {
    for (const ContextFrame& x : take(c.contexts)) {
      state_->contextDevice[x.contextId] = x.deviceId;
      state_->nullStream[x.contextId] = x.nullStreamId;
      const uint32_t d = b_.device(rank_, static_cast<int32_t>(x.deviceId));
      b_.contextInfo(b_.context(d, contextId(d, x.contextId))).process = process_;
    }
    std::vector<StreamFrame> streams = take(state_->streams);
    for (const StreamFrame& x : take(c.streams)) streams.push_back(x);
    for (const StreamFrame& x : streams) {
      auto it = state_->contextDevice.find(x.contextId);
      if (it != state_->contextDevice.end())
        b_.streamInfo(stream(it->second, x.contextId, x.streamId)).priority = x.priority;
      else
        state_->streams.push_back(x);
    }
  }

  // The session stream of a record, its context (of this process) made on first use. Streams are
  // the process's own (CUPTI numbers them per process).
  uint32_t stream(uint32_t device, uint32_t context, uint32_t streamId) {
    uint32_t d = b_.device(rank_, static_cast<int32_t>(device));
    uint32_t s = b_.stream(d, streamId, process_);
    Stream& info = b_.streamInfo(s);
    if (info.context == kNone) {
      info.context = b_.context(d, contextId(d, context));
      b_.contextInfo(info.context).process = process_;
      streamOwners_[{d, streamId}].insert(process_);
      madeStreams_.push_back({s, d, streamId, process_});
    }
    return s;
  }

  // The session's id for a context of this process: CUPTI's, unless another process on the same
  // device has that number too (CUPTI numbers contexts per process); then the next free one, so
  // that kernels still find their process's API calls by correlation.
  uint32_t contextId(uint32_t device, uint32_t cuptiId) {
    auto [it, fresh] = contextIds_.try_emplace({device, cuptiId, process_}, cuptiId);
    if (!fresh) return it->second;
    uint32_t id = cuptiId;
    while (!usedContexts_.insert({device, id}).second) ++id;
    it->second = id;
    return id;
  }

  // Two processes with a stream of the same number on one GPU: each row says whose it is.
  void nameSharedStreams() {
    for (const MadeStream& m : madeStreams_) {
      if (streamOwners_[{m.device, m.streamId}].size() < 2) continue;
      Stream& info = b_.streamInfo(m.stream);
      if (info.name.empty()) info.name = "pid " + std::to_string(b_.processInfo(m.process).pid);
    }
  }
  struct MadeStream {
    uint32_t stream, device, streamId, process;
  };

  void addKernels(Connection& c) {
    for (const auto& [k, mangled] : take(c.kernels)) {
      if (k.end < from()) {
        ++beforeWindow_;  // --delay
        continue;
      }
      KernelDetail d;
      d.mangled = name(mangled);
      d.correlation = k.correlationId;
      d.context = contextId(b_.device(rank_, static_cast<int32_t>(k.deviceId)), k.contextId);
      d.gridX = static_cast<uint32_t>(k.gridX), d.gridY = static_cast<uint32_t>(k.gridY),
      d.gridZ = static_cast<uint32_t>(k.gridZ);
      d.blockX = static_cast<uint32_t>(k.blockX), d.blockY = static_cast<uint32_t>(k.blockY),
      d.blockZ = static_cast<uint32_t>(k.blockZ);
      d.registersPerThread = k.registersPerThread;
      d.staticSharedMemory = k.staticSharedMemory;
      d.dynamicSharedMemory = k.dynamicSharedMemory;
      d.localMemoryPerThread = k.localMemoryPerThread;
      d.graphId = k.graphId;
      auto [it, fresh] = demangled_.try_emplace(mangled, kNone);
      if (fresh) it->second = b_.intern(demangle(sink_.names_[mangled]));
      live_.addKernel(stream(k.deviceId, k.contextId, k.streamId), k.start, k.end, it->second, d);
      live_.sawTime(k.end);
    }
  }

  void addCopies(Connection& c) {
    for (const MemcpyFrame& m : take(c.memcpys)) {
      if (m.end < from()) {
        ++beforeWindow_;  // --delay
        continue;
      }
      MemcpyDetail d;
      d.bytes = m.bytes;
      d.copyKind = copyKindOf(m.copyKind);
      d.srcKind = memoryKindOf(m.srcKind);
      d.dstKind = memoryKindOf(m.dstKind);
      bool srcOnDevice = d.srcKind == MemoryKind::Device || d.srcKind == MemoryKind::DeviceStatic ||
                         d.srcKind == MemoryKind::Array;
      bool dstOnDevice = d.dstKind == MemoryKind::Device || d.dstKind == MemoryKind::DeviceStatic ||
                         d.dstKind == MemoryKind::Array;
      d.srcDevice =
          m.peer || srcOnDevice ? static_cast<int32_t>(m.peer ? m.srcDeviceId : m.deviceId) : -1;
      d.dstDevice =
          m.peer || dstOnDevice ? static_cast<int32_t>(m.peer ? m.dstDeviceId : m.deviceId) : -1;
      // Peer-to-peer only between two devices: a peer record within one device is a DtoD copy.
      if (m.peer) d.copyKind = m.srcDeviceId != m.dstDeviceId ? CopyKind::PtoP : CopyKind::DtoD;
      d.async = m.async;
      d.correlation = m.runtimeCorrelationId ? m.runtimeCorrelationId : m.correlationId;
      d.context = contextId(b_.device(rank_, static_cast<int32_t>(m.deviceId)), m.contextId);
      std::string label = "Memcpy " + std::string(toString(d.copyKind)) + " (" +
                          std::string(memoryWord(d.srcKind)) + " -> " +
                          std::string(memoryWord(d.dstKind)) + ")";
      live_.addMemcpy(stream(m.deviceId, m.contextId, m.streamId), m.start, m.end, b_.intern(label),
                      d);
      live_.sawTime(m.end);
    }
  }

  void addMemsets(Connection& c) {
    for (const MemsetFrame& m : take(c.memsets)) {
      if (m.end < from()) {
        ++beforeWindow_;  // --delay
        continue;
      }
      MemsetDetail d;
      d.bytes = m.bytes;
      d.value = m.value;
      d.memKind = memoryKindOf(m.memoryKind);
      d.correlation = m.correlationId;
      d.context = contextId(b_.device(rank_, static_cast<int32_t>(m.deviceId)), m.contextId);
      std::string label = "Memset (" + std::string(memoryWord(d.memKind)) + ")";
      live_.addMemset(stream(m.deviceId, m.contextId, m.streamId), m.start, m.end, b_.intern(label),
                      d);
      live_.sawTime(m.end);
    }
  }

  void addApis(Connection& c) {
    for (const auto& [a, n] : take(c.apis)) {
      if (a.end < from()) {
        ++beforeWindow_;  // --delay
        continue;
      }
      ApiDetail d;
      d.correlation = a.correlationId;
      d.returnCode = a.returnValue;
      d.domain = a.driver ? ApiDomain::Driver : ApiDomain::Runtime;
      live_.addApi(thread(a.processId, a.threadId), a.start, a.end, name(n), d);
      live_.sawTime(a.end);
    }
  }

  // Synchronisation: a range on the stream it waited for (context-wide ones on the device-wide
  // row), named as Kineto names its cuda_sync events.
  void addSyncs(Connection& c) {
    static const char* kSyncNames[] = {"Unknown synchronize", "Event Sync", "Wait Event",
                                       "Stream Sync", "Context Sync"};
    std::vector<SyncFrame> syncs = take(state_->syncs);
    for (const SyncFrame& x : take(c.syncs)) syncs.push_back(x);
    for (const SyncFrame& x : syncs) {
      live_.sawTime(x.end);
      auto device = state_->contextDevice.find(x.contextId);
      if (device == state_->contextDevice.end()) {
        state_->syncs.push_back(x);  // its context may come later
        continue;
      }
      if (x.end < from()) {
        ++beforeWindow_;  // --delay
        continue;
      }
      // A context-wide wait (cudaDeviceSynchronize, cudaCtxSynchronize) names no stream
      // (CUPTI_SYNCHRONIZATION_INVALID_VALUE): drawn on the context's default stream rather
      // than on a row of its own for a stream that does not exist.
      uint32_t streamId = x.streamId;
      if (streamId == kNoSyncStream) {
        auto null = state_->nullStream.find(x.contextId);
        if (null == state_->nullStream.end()) continue;
        streamId = null->second;
      }
      const char* label = x.type < 5 ? kSyncNames[x.type] : kSyncNames[0];
      live_.addStreamRange(stream(device->second, x.contextId, streamId), x.start, x.end,
                           b_.intern(label), {b_.intern("cuda_sync"), b_.intern("")});
    }
  }

  // NVTX: START and END records pair by id, whichever arrived first (CUPTI keeps a buffer per
  // thread, so a range's END can be delivered before its START); a range whose END has not come
  // reaches the latest record seen, and keeps that end if it never comes.
  void addMarkers(Connection& c) {
    std::vector<Connection::Marker> markers = take(c.markers);
    for (const Connection::Marker& m : markers) {
      live_.sawTime(m.frame.timestamp);
      if (!(m.frame.flags & kMarkerEnd) || (m.frame.flags & (kMarkerStart | kMarkerInstant)))
        continue;
      auto open = state_->open.find(m.frame.id);
      auto early = state_->early.find(m.frame.id);
      if (open != state_->open.end()) {
        live_.closeNvtx(open->second, m.frame.timestamp);
        state_->open.erase(open);
      } else if (early != state_->early.end()) {
        const State::Early& e = early->second;
        if (m.frame.timestamp >= from())
          live_.addNvtx(e.thread, e.start, std::max(m.frame.timestamp, e.start), e.name, e.detail);
        else
          ++beforeWindow_;
        state_->early.erase(early);
      } else {
        state_->ends.emplace(m.frame.id, m.frame.timestamp);
      }
    }
    for (const Connection::Marker& m : markers) {
      const bool instant = m.frame.flags & kMarkerInstant;
      if (!instant && !(m.frame.flags & kMarkerStart)) continue;
      const uint32_t t = thread(m.frame.processId, m.frame.threadId);
      const NvtxDetail d{name(m.domain), 0, static_cast<uint8_t>(instant ? 1 : 0)};
      auto end = state_->ends.find(m.frame.id);
      if (!instant && end == state_->ends.end()) {
        if (m.frame.timestamp < from())
          state_->early[m.frame.id] = {t, m.frame.timestamp, name(m.name), d};
        else
          state_->open[m.frame.id] = live_.openNvtx(t, m.frame.timestamp, name(m.name), d);
        continue;
      }
      const TimeNs until = instant ? m.frame.timestamp : end->second;
      if (!instant) state_->ends.erase(end);
      if (until < from()) {
        ++beforeWindow_;
        continue;
      }
      live_.addNvtx(t, m.frame.timestamp, std::max(until, m.frame.timestamp), name(m.name), d);
    }
    // A range begun before the window and still open once the records reach past it (by the
    // holdback that orders them; a final snapshot: now) ends inside it: opened as any other. Till
    // then it waits, since one that ends before the window is left out like every other record,
    // and a range in the session cannot be taken out of it again.
    if (!state_->early.empty() && (holdback_ <= 0 || live_.latestTime() >= from() + holdback_)) {
      for (const auto& [id, e] : state_->early)
        state_->open[id] = live_.openNvtx(e.thread, e.start, e.name, e.detail);
      state_->early.clear();
    }
  }

  uint32_t thread(uint64_t processId, uint64_t threadId) {
    return b_.thread(b_.process(rank_, static_cast<int64_t>(processId)),
                     static_cast<int64_t>(threadId));
  }
  TimeNs from() const { return sink_.windowStart_; }

  RecordSink& sink_;
  LiveSession live_;
  SessionBuilder& b_;  // live_'s entities
  AllocationCounters allocations_;
  uint32_t rank_ = 0;
  bool rankNamed_ = false;
  TimeNs holdback_ = 0;        // of the snapshot being taken
  uint64_t beforeWindow_ = 0;  // records --delay left out
  uint32_t process_ = 0;       // the connection being added
  std::vector<State> states_;
  State* state_ = nullptr;  // the connection being added
  std::vector<StringId> ids_;
  std::unordered_map<uint32_t, StringId> demangled_;  // mangled index → demangled name
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, uint32_t> contextIds_;  // (device, CUPTI
                                                                             // id, process)
  std::set<std::pair<uint32_t, uint32_t>> usedContexts_;  // (device, session context id)
  std::map<std::pair<uint32_t, uint32_t>, std::set<uint32_t>> streamOwners_;  // processes
  std::vector<MadeStream> madeStreams_;
};

RecordSink::RecordSink() : translator_(std::make_unique<Translator>(*this)) {}
RecordSink::~RecordSink() = default;

Result<SessionPtr> RecordSink::snapshot(const Provenance& provenance, TimeNs holdback) {
  return translator_->snapshot(provenance, holdback);
}

size_t RecordSink::events() const {
  return events_ - std::min<uint64_t>(events_, live().rejected() + translator_->beforeWindow());
}

const LiveSession& RecordSink::live() const {
  return translator_->live();
}

}  // namespace ts::capture
