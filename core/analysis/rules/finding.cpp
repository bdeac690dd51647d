#include "analysis/rules/finding.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>

#include "util/format.h"
#include "util/saturate.h"

namespace ts {

void FindingBuilder::add(TimeNs start, TimeNs end, TimeNs cost, uint32_t track, uint32_t event) {
  if (f_.count == 0 || start < f_.start) f_.start = start;
  if (f_.count == 0 || end > f_.end) f_.end = end;
  ++f_.count;
  f_.cost = saturatingAdd(f_.cost, cost);  // waits read from part files may claim anything
  f_.where.push_back({start, end});
  f_.whereCost.push_back(cost);
  if (track != kNone) highlight(track, event);
}

void FindingBuilder::highlight(uint32_t track, uint32_t event) {
  if (f_.events.size() < 100) f_.events.emplace_back(track, event);
}

Finding FindingBuilder::finish(std::string message, std::string advice) {
  std::vector<size_t> order(f_.where.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return f_.whereCost[a] != f_.whereCost[b] ? f_.whereCost[a] > f_.whereCost[b]
                                              : f_.where[a].start < f_.where[b].start;
  });
  if (order.size() > 100) order.resize(100);
  std::vector<Interval> where;
  std::vector<TimeNs> cost;
  for (size_t i : order) where.push_back(f_.where[i]), cost.push_back(f_.whereCost[i]);
  f_.where = std::move(where);
  f_.whereCost = std::move(cost);
  f_.message = std::move(message);
  f_.advice = std::move(advice);
  return std::move(f_);
}

GpuBusy gpuBusy(const Session& s, const AnalysisRange& range) {
  GpuBusy b;
  b.byDevice.resize(s.devices.size());
  b.byRank.resize(std::max<size_t>(s.ranks.size(), 1));
  for (const Track& t : s.tracks) {
    if (!isGpuOp(t.kind) || t.device >= s.devices.size()) continue;
    auto& dev = b.byDevice[t.device];
    for (uint32_t i = 0; i < t.size(); ++i) {
      TimeNs a = std::max(t.hot.start[i], range.start), e = std::min(t.hot.end[i], range.end);
      if (e > a) dev.push_back({a, e});
    }
  }
  for (uint32_t d = 0; d < b.byDevice.size(); ++d) {
    mergeIntervals(b.byDevice[d]);
    auto& rank = b.byRank[std::min<size_t>(s.devices[d].rank, b.byRank.size() - 1)];
    rank.insert(rank.end(), b.byDevice[d].begin(), b.byDevice[d].end());
  }
  for (auto& r : b.byRank) mergeIntervals(r);
  return b;
}

std::vector<FindingBuilder> buildersPerRank(const Session& s, std::string_view rule) {
  std::vector<FindingBuilder> out;
  for (uint32_t r = 0; r < std::max<size_t>(s.ranks.size(), 1); ++r)
    out.emplace_back(std::string(rule), rankNumberOf(s, r));
  return out;
}

size_t addBlockingCall(const RuleInput& in, std::vector<FindingBuilder>& builders, uint32_t track,
                       uint32_t event, uint32_t apiTrack, uint32_t apiEvent) {
  const Session& s = in.session;
  const Track& op = s.tracks[track];
  const Track& call = s.tracks[apiTrack];
  size_t r = std::min<size_t>(rankOfTrack(s, op), builders.size() - 1);
  builders[r].add(call.hot.start[apiEvent], std::max(call.hot.end[apiEvent], op.hot.end[event]),
                  call.hot.end[apiEvent] - call.hot.start[apiEvent], apiTrack, apiEvent);
  builders[r].highlight(track, event);
  return r;
}

std::string_view baseApiName(std::string_view name) {
  size_t v = name.rfind("_v");
  if (v == std::string_view::npos || v + 2 >= name.size()) return name;
  for (size_t i = v + 2; i < name.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(name[i]))) return name;
  }
  return name.substr(0, v);
}

std::string countOf(size_t n, std::string_view noun) {
  std::string out = formatCount(n) + " " + std::string(noun);
  if (n == 1) return out;
  for (std::string_view end : {"s", "sh", "ch", "x"}) {
    if (noun.ends_with(end)) return out + "es";
  }
  if (noun.size() >= 2 && noun.back() == 'y' && !std::strchr("aeiou", noun[noun.size() - 2])) {
    out.pop_back();
    return out + "ies";
  }
  return out + "s";
}

std::string percentOf(double share) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %%", 100.0 * share);
  return buf;
}

WindowJudgement windowsAbove(const RuleInput& in, std::string_view rule, double share,
                             const std::function<TimeNs(const Step&)>& value) {
  WindowJudgement j{buildersPerRank(in.session, rule), {}, {}};
  for (FindingBuilder& b : j.builders) b.setOccurrence(in.windowsAreSteps ? "step" : "window");
  j.judged.assign(j.builders.size(), 0);
  j.flaggedTime.assign(j.builders.size(), 0);
  for (const Step& w : in.windows) {
    if (w.ops == 0 || w.duration() <= 0) continue;
    size_t r = std::min<size_t>(w.rank, j.builders.size() - 1);
    ++j.judged[r];
    TimeNs v = value(w);
    if (static_cast<double>(v) <= share * static_cast<double>(w.duration())) continue;
    j.builders[r].add(w.start, w.end, std::min(v, w.duration()));
    j.flaggedTime[r] += w.duration();
  }
  return j;
}

std::string WindowJudgement::where(const RuleInput& in, size_t r) const {
  if (!in.windowsAreSteps) return "over the range (the trace marks no steps)";
  return "in " + std::to_string(builders[r].count()) + " of " + countOf(judged[r], "step");
}

std::string WindowJudgement::share(size_t r) const {
  return percentOf(flaggedTime[r] > 0 ? static_cast<double>(builders[r].cost()) /
                                            static_cast<double>(flaggedTime[r])
                                      : 0);
}

}  // namespace ts
