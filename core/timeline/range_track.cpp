#include "timeline/range_track.h"

#include <algorithm>

namespace ts {

namespace {

StringId nameOf(Session& s, const RangeSpan& r) {
  return s.strings.intern(r.name);
}
StringId nameOf(Session&, const RangeSpanIds& r) {
  return r.name;
}
std::pair<StringId, StringId> detailOf(Session& s, const RangeSpan& r) {
  return {s.strings.intern(r.category), s.strings.intern(r.args)};
}
std::pair<StringId, StringId> detailOf(Session&, const RangeSpanIds& r) {
  return {r.category, r.args};
}

template <class Span>
uint32_t addTrack(Session& s, TrackOwner owner, std::vector<Span>& spans,
                  std::vector<uint32_t>* eventOf) {
  std::vector<uint32_t> order(spans.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return spans[a].start < spans[b].start; });
  Track t;
  t.kind = EventKind::Range;
  t.device = owner.device;
  t.stream = owner.stream;
  t.thread = owner.thread;
  std::vector<TimeNs> laneEnd;
  if (eventOf) eventOf->assign(spans.size(), kNone);
  for (uint32_t e = 0; e < order.size(); ++e) {
    Span& sp = spans[order[e]];
    sp.end = std::max(sp.end, sp.start);
    uint16_t lane = 0;
    while (lane < laneEnd.size() && laneEnd[lane] > sp.start) ++lane;
    if (lane == laneEnd.size()) laneEnd.push_back(0);
    laneEnd[lane] = std::max(sp.end, sp.start + 1);
    t.hot.push({sp.start, sp.end, nameOf(s, sp), lane});
    const auto [category, args] = detailOf(s, sp);
    t.ranges.push({category, args});
    if (eventOf) (*eventOf)[order[e]] = e;
  }
  s.tracks.push_back(std::move(t));
  return static_cast<uint32_t>(s.tracks.size() - 1);
}

}  // namespace

uint32_t addRangeTrack(Session& s, TrackOwner owner, std::vector<RangeSpan> spans,
                       std::vector<uint32_t>* eventOf) {
  return addTrack(s, owner, spans, eventOf);
}

uint32_t addRangeTrack(Session& s, TrackOwner owner, std::vector<RangeSpanIds> spans) {
  return addTrack(s, owner, spans, nullptr);
}

}  // namespace ts
