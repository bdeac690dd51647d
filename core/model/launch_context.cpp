#include "model/launch_context.h"

#include <algorithm>
#include <tuple>

namespace ts::model {

std::vector<LaunchedKernel> launchedKernels(const Session& s, uint32_t device) {
  std::unordered_map<uint64_t, size_t> launchOf;  // kernel (track << 32 | event) → flow
  for (size_t f = 0; f < s.flows.srcTrack.size(); ++f) {
    if (s.tracks[s.flows.srcTrack[f]].kind != EventKind::Api) continue;
    launchOf[(uint64_t{s.flows.dstTrack[f]} << 32) | s.flows.dstEvent[f]] = f;
  }
  std::vector<LaunchedKernel> all;
  for (uint32_t ti = 0; ti < s.tracks.size(); ++ti) {
    const Track& t = s.tracks[ti];
    if (t.kind != EventKind::Kernel || t.device != device) continue;
    for (uint32_t e = 0; e < t.size(); ++e) {
      LaunchedKernel k{ti, e, t.hot.start[e], t.hot.end[e], t.hot.name[e], kNone, t.hot.start[e]};
      if (auto it = launchOf.find((uint64_t{ti} << 32) | e); it != launchOf.end()) {
        const Track& api = s.tracks[s.flows.srcTrack[it->second]];
        k.thread = api.thread;
        k.launch = api.hot.start[s.flows.srcEvent[it->second]];
      }
      all.push_back(k);
    }
  }
  std::sort(all.begin(), all.end(), [](const LaunchedKernel& a, const LaunchedKernel& b) {
    return std::tie(a.start, a.track, a.event) < std::tie(b.start, b.track, b.event);
  });
  return all;
}

EnclosingRanges::EnclosingRanges(const Session& s) : s_(s) {
  for (uint32_t i = 0; i < s.tracks.size(); ++i) {
    const Track& t = s.tracks[i];
    if ((t.kind == EventKind::Nvtx || t.kind == EventKind::Range) && t.thread != kNone)
      byThread_[t.thread].push_back(i);
  }
}

std::vector<EnclosingRanges::Hit> EnclosingRanges::at(uint32_t thread, TimeNs time) const {
  std::vector<Hit> hits;
  auto it = byThread_.find(thread);
  if (it == byThread_.end()) return hits;
  for (uint32_t ti : it->second) {
    const Track& t = s_.tracks[ti];
    for (uint32_t lane = 0; lane < t.laneCount(); ++lane) {
      uint32_t e = t.eventAt(lane, time);
      if (e == kNone) continue;
      std::string_view inputs = t.kind == EventKind::Nvtx ? s_.str(t.nvtx.inputs[e]) : "";
      hits.push_back({ti, e, s_.str(t.hot.name[e]), inputs});
    }
  }
  std::sort(hits.begin(), hits.end(), [&](const Hit& a, const Hit& b) {
    const Track& ta = s_.tracks[a.track];
    const Track& tb = s_.tracks[b.track];
    if (ta.hot.start[a.event] != tb.hot.start[b.event])
      return ta.hot.start[a.event] < tb.hot.start[b.event];
    return ta.hot.end[a.event] > tb.hot.end[b.event];
  });
  return hits;
}

}  // namespace ts::model
