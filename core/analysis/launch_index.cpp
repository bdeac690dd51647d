#include "analysis/launch_index.h"

namespace ts {

LaunchIndex::LaunchIndex(const Session& s) : byTrack_(s.tracks.size()) {
  const FlowColumns& f = s.flows;
  for (size_t i = 0; i < f.srcTrack.size(); ++i) {
    uint32_t src = f.srcTrack[i], dst = f.dstTrack[i];
    if (src >= s.tracks.size() || dst >= s.tracks.size()) continue;
    if (s.tracks[src].kind != EventKind::Api) continue;
    std::vector<LaunchRef>& refs = byTrack_[dst];
    if (refs.empty()) refs.resize(s.tracks[dst].size());
    if (f.dstEvent[i] >= refs.size() || refs[f.dstEvent[i]].known()) continue;  // first flow wins
    refs[f.dstEvent[i]] = {src, f.srcEvent[i]};
    ++known_;
  }
}

LaunchRef LaunchIndex::launchOf(uint32_t track, uint32_t event) const {
  if (track >= byTrack_.size() || event >= byTrack_[track].size()) return {};
  return byTrack_[track][event];
}

}  // namespace ts
