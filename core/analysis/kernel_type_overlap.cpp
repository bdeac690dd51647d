#include "analysis/kernel_type_overlap.h"

#include <algorithm>
#include <array>

namespace ts {

std::string typeSetLabel(uint8_t mask) {
  std::string label;
  for (int t = 0; t < kOpTypeCount; ++t) {
    if (!(mask & (1u << t))) continue;
    if (!label.empty()) label += " overlapping ";
    label += toString(static_cast<OpType>(t));
  }
  return label;
}

std::vector<TypeSetTime> kernelTypeOverlap(const RankOps& ops) {
  // A sweep over the boundaries of the three merged sets: between two consecutive boundaries the
  // set of running types is constant.
  struct Edge {
    TimeNs at;
    int type;
    bool opens;
  };
  std::vector<Edge> edges;
  for (int t = 0; t < kOpTypeCount; ++t) {
    for (const Interval& x : ops.byType[t]) {
      edges.push_back({x.start, t, true});
      edges.push_back({x.end, t, false});
    }
  }
  std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) { return a.at < b.at; });
  std::array<TimeNs, 8> time{};
  uint8_t mask = 0;
  TimeNs previous = 0;
  for (const Edge& e : edges) {
    if (mask) time[mask] += e.at - previous;
    previous = e.at;
    // Each type's set is merged, so its own intervals never overlap: one bit per type is enough.
    if (e.opens)
      mask |= static_cast<uint8_t>(1u << e.type);
    else
      mask &= static_cast<uint8_t>(~(1u << e.type));
  }
  std::vector<TypeSetTime> out;
  for (uint8_t m = 1; m < 8; ++m) {
    if (time[m] > 0) out.push_back({ops.rankNumber, m, time[m]});
  }
  return out;
}

}  // namespace ts
