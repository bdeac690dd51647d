#include "session/session_summary.h"

#include <numeric>

#include "util/format.h"

namespace ts {

size_t SessionSummary::memcpys() const {
  return std::accumulate(memcpyCount.begin(), memcpyCount.end(), size_t{0});
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
          ++r.memcpyCount[k];
          r.memcpyBytes[k] += t.memcpys.bytes[i];
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
  for (const CounterTrack& c : s.counters) r.counterSamples += c.size();
  r.flows = s.flows.srcTrack.size();
  r.streams = s.streams.size();
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
    m.details += t.size() * detailBytesPerEvent(t.kind);
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

}  // namespace ts
