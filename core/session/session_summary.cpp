#include "session/session_summary.h"

#include <algorithm>
#include <numeric>

#include "util/format.h"

namespace ts {

size_t SessionSummary::memcpys() const {
  return std::accumulate(memcpyCount.begin(), memcpyCount.end(), size_t{0});
}

size_t SessionSummary::migrations() const {
  return std::accumulate(migrationCount.begin(), migrationCount.end(), size_t{0});
}

SessionSummary summarize(const Session& s) {
  SessionSummary r;
  for (const Track& t : s.tracks) {
    r.events += t.size();
    switch (t.kind) {
      case EventKind::Kernel:
        r.kernels += t.size();
        break;
      case EventKind::Memcpy:
        for (size_t i = 0; i < t.size(); ++i) {
          auto k = static_cast<size_t>(t.memcpys.copyKind[i]);
          const bool migration = t.memcpys.migration[i];
          ++(migration ? r.migrationCount : r.memcpyCount)[k];
          (migration ? r.migrationBytes : r.memcpyBytes)[k] += t.memcpys.bytes[i];
        }
        break;
      case EventKind::Memset:
        r.memsets += t.size();
        for (uint64_t bytes : t.memsets.bytes) r.memsetBytes += bytes;
        break;
      case EventKind::Api:
        r.apiCalls += t.size();
        break;
      case EventKind::Nvtx:
        for (uint8_t mark : t.nvtx.isMark) (mark ? r.nvtxMarks : r.nvtxRanges) += 1;
        break;
      case EventKind::Range:
        r.otherRanges += t.size();
        break;
    }
  }
  for (const CounterTrack& c : s.counters) {
    r.counterSamples += c.size();
    uint64_t* faults = c.name == kGpuPageFaultCounter   ? &r.gpuPageFaults
                       : c.name == kCpuPageFaultCounter ? &r.cpuPageFaults
                                                        : nullptr;
    if (faults) {
      for (int64_t n : c.samples.change) *faults += static_cast<uint64_t>(std::max<int64_t>(n, 0));
    }
  }
  r.flows = s.flows.srcTrack.size();
  // The program's streams: not the row Tensorscope gives a GPU's unified-memory migrations.
  r.streams =
      static_cast<size_t>(std::count_if(s.streams.begin(), s.streams.end(), [](const Stream& st) {
        return st.streamId != kUnifiedMemoryStream;
      }));
  r.threads = s.threads.size();
  r.start = s.startTime();
  r.end = s.endTime();
  for (const Device& d : s.devices) r.devices.push_back(d.name);
  return r;
}

MemoryUse memoryUse(const Session& s) {
  MemoryUse m;
  for (const Track& t : s.tracks) {
    m.hot += t.size() * HotColumns::kRowBytes;
    m.laneIndex += t.laneIndexBytes();
    m.details += t.size() * detailBytesPerEvent(t.kind) + t.kernels.sharedBytes();
  }
  return m;
}

std::string describeCount(size_t count, EventKind kind) {
  const char* noun = "events";
  switch (kind) {
    case EventKind::Kernel:
      noun = count == 1 ? "kernel" : "kernels";
      break;
    case EventKind::Memcpy:
      noun = count == 1 ? "copy" : "copies";
      break;
    case EventKind::Memset:
      noun = count == 1 ? "memset" : "memsets";
      break;
    case EventKind::Api:
      noun = count == 1 ? "API call" : "API calls";
      break;
    case EventKind::Nvtx:
      noun = count == 1 ? "NVTX range" : "NVTX ranges";
      break;
    case EventKind::Range:
      noun = count == 1 ? "range" : "ranges";
      break;
  }
  return formatCount(count) + " " + noun;
}

std::vector<DeviceKernelTime> devicesByKernelTime(const Session& s) {
  std::vector<TimeNs> busy(s.devices.size(), 0);
  std::vector<bool> ran(s.devices.size(), false);
  for (const Track& t : s.tracks) {
    if (t.kind != EventKind::Kernel || t.device >= busy.size() || t.size() == 0) continue;
    ran[t.device] = true;
    for (uint32_t e = 0; e < t.size(); ++e) busy[t.device] += t.hot.end[e] - t.hot.start[e];
  }
  std::vector<DeviceKernelTime> out;
  for (uint32_t d = 0; d < busy.size(); ++d)
    if (ran[d]) out.push_back({d, busy[d]});
  std::stable_sort(
      out.begin(), out.end(),
      [](const DeviceKernelTime& a, const DeviceKernelTime& b) { return a.ns > b.ns; });
  return out;
}

}  // namespace ts
