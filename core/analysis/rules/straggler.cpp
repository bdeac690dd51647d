// straggler (multi-rank): the rank whose collectives start last. A collective cannot finish
// before every rank has joined it, so the others wait in their communication kernels for the
// last one to arrive. The k-th communication kernel (nccl*) of one name on each rank is taken
// as one collective; for each, the rank that started it last is noted with how long after the
// first rank it started. A rank that is last far more often than chance is the straggler.
#include <algorithm>
#include <map>
#include <string>

#include "analysis/rules/rules.h"
#include "util/format.h"

namespace ts {

namespace {

struct CommKernel {
  TimeNs start;
  uint32_t track, event;
};

}  // namespace

void ruleStraggler(const RuleInput& in, RuleOutput& out) {
  const Session& s = in.session;
  const size_t ranks = std::max<size_t>(s.ranks.size(), 1);
  if (ranks < 2) return;
  // Per rank and kernel name, its communication kernels in start order.
  std::vector<std::map<StringId, std::vector<CommKernel>>> byRank(ranks);
  for (uint32_t t = 0; t < s.tracks.size(); ++t) {
    const Track& track = s.tracks[t];
    if (track.kind != EventKind::Kernel) continue;
    auto& names = byRank[std::min<size_t>(rankOfTrack(s, track), ranks - 1)];
    for (uint32_t i = 0; i < track.size(); ++i) {
      TimeNs a = track.hot.start[i];
      if (a < in.range.start || a >= in.range.end) continue;
      if (opTypeOf(track.kind, s.str(track.hot.name[i])) != OpType::Communication) continue;
      names[track.hot.name[i]].push_back({a, t, i});
    }
  }
  std::vector<size_t> last(ranks);
  std::vector<TimeNs> lag(ranks);
  std::vector<std::vector<std::pair<Interval, CommKernel>>> late(ranks);
  size_t collectives = 0;
  for (auto& [name, kernels] : byRank[0]) {
    std::vector<const std::vector<CommKernel>*> each(ranks);
    size_t common = kernels.size();
    for (size_t r = 0; r < ranks; ++r) {
      auto it = byRank[r].find(name);
      if (it == byRank[r].end()) {
        common = 0;
        break;
      }
      std::sort(it->second.begin(), it->second.end(),
                [](const CommKernel& a, const CommKernel& b) { return a.start < b.start; });
      each[r] = &it->second;
      common = std::min(common, it->second.size());
    }
    for (size_t k = 0; k < common; ++k) {
      size_t latest = 0;
      TimeNs first = (*each[0])[k].start;
      for (size_t r = 1; r < ranks; ++r) {
        TimeNs at = (*each[r])[k].start;
        if (at > (*each[latest])[k].start) latest = r;
        first = std::min(first, at);
      }
      const CommKernel& c = (*each[latest])[k];
      ++collectives;
      ++last[latest];
      lag[latest] += c.start - first;
      late[latest].push_back({{first, c.start}, c});
    }
  }
  if (collectives < 3) return;
  size_t worst = static_cast<size_t>(std::max_element(last.begin(), last.end()) - last.begin());
  // Last by chance in 1/ranks of the collectives; a straggler is last in more than half the way
  // from chance to always (75 % of them with two ranks).
  double chance = 1.0 / static_cast<double>(ranks);
  double share = static_cast<double>(last[worst]) / static_cast<double>(collectives);
  if (share <= chance + (1 - chance) / 2) return;
  FindingBuilder b("straggler", rankNumberOf(s, static_cast<uint32_t>(worst)));
  b.setOccurrence("wait for the last rank");
  for (const auto& [wait, kernel] : late[worst])
    b.add(wait.start, wait.end, wait.length(), kernel.track, kernel.event);
  out.findings.push_back(b.finish(
      (worst < s.ranks.size() ? s.ranks[worst].label : std::string("rank 0")) +
          " started last in " + std::to_string(last[worst]) + " of " +
          countOf(collectives, "collective") + " (" + percentOf(share) +
          "); the first rank to arrive waited " + formatDuration(b.cost()) +
          " for it in all. Clocks as the traces give them: ranks on different hosts are only "
          "as aligned as their clocks.",
      "Find what delays this rank before its collectives (zoom to one): a slower GPU or host, "
      "uneven data (sequence lengths, batch sizes), extra work only this rank does (logging, "
      "checkpointing, evaluation on rank 0) or data loading. Balance the work or move the extra "
      "work off the critical path."));
}

}  // namespace ts
