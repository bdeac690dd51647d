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

std::vector<RankCollectives> collectivesByRank(const Session& s, const AnalysisRange& range) {
  const size_t ranks = std::max<size_t>(s.ranks.size(), 1);
  std::vector<RankCollectives> byRank(ranks);
  for (uint32_t t = 0; t < s.tracks.size(); ++t) {
    const Track& track = s.tracks[t];
    if (track.kind != EventKind::Kernel) continue;
    auto& names = byRank[std::min<size_t>(rankOfTrack(s, track), ranks - 1)];
    for (uint32_t i = 0; i < track.size(); ++i) {
      TimeNs a = track.hot.start[i];
      if (a < range.start || a >= range.end) continue;
      std::string_view name = s.str(track.hot.name[i]);
      if (opTypeOf(track.kind, name) != OpType::Communication) continue;
      auto it = names.find(name);
      if (it == names.end()) it = names.emplace(std::string(name), std::vector<CommStart>{}).first;
      it->second.push_back({a, t, i});
    }
  }
  for (RankCollectives& names : byRank) {
    for (auto& [name, starts] : names)
      std::stable_sort(starts.begin(), starts.end(),
                       [](const CommStart& a, const CommStart& b) { return a.start < b.start; });
  }
  return byRank;
}

std::optional<Finding> stragglerFinding(const std::vector<RankCollectives>& byRank,
                                        const std::vector<std::string>& labels,
                                        const std::vector<int32_t>& rankNumbers) {
  const size_t ranks = byRank.size();
  if (ranks < 2) return std::nullopt;
  std::vector<size_t> last(ranks);
  std::vector<std::vector<std::pair<Interval, CommStart>>> late(ranks);
  size_t collectives = 0;
  for (const auto& [name, kernels] : byRank[0]) {
    std::vector<const std::vector<CommStart>*> each(ranks);
    size_t common = kernels.size();
    for (size_t r = 0; r < ranks; ++r) {
      auto it = byRank[r].find(name);
      if (it == byRank[r].end()) {
        common = 0;
        break;
      }
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
      // All at once (a file given twice, clocks aligned on this very kernel): nobody was last.
      if ((*each[latest])[k].start == first) continue;
      const CommStart& c = (*each[latest])[k];
      ++collectives;
      ++last[latest];
      late[latest].push_back({{first, c.start}, c});
    }
  }
  if (collectives < 3) return std::nullopt;
  size_t worst = static_cast<size_t>(std::max_element(last.begin(), last.end()) - last.begin());
  // Last by chance in 1/ranks of the collectives; a straggler is last in more than half the way
  // from chance to always (75 % of them with two ranks).
  double chance = 1.0 / static_cast<double>(ranks);
  double share = static_cast<double>(last[worst]) / static_cast<double>(collectives);
  if (share <= chance + (1 - chance) / 2) return std::nullopt;
  FindingBuilder b("straggler", worst < rankNumbers.size() ? rankNumbers[worst] : 0);
  b.setOccurrence("wait for the last rank");
  for (const auto& [wait, kernel] : late[worst])
    b.add(wait.start, wait.end, wait.length(), kernel.track, kernel.event);
  return b.finish(
      (worst < labels.size() ? labels[worst] : std::string("rank 0")) + " started last in " +
          std::to_string(last[worst]) + " of " + countOf(collectives, "collective") + " (" +
          percentOf(share) + "); the first rank to arrive waited " + formatDuration(b.cost()) +
          " for it in all. Clocks as the traces give them: ranks on different hosts are only "
          "as aligned as their clocks.",
      "Find what delays this rank before its collectives (zoom to one): a slower GPU or host, "
      "uneven data (sequence lengths, batch sizes), extra work only this rank does (logging, "
      "checkpointing, evaluation on rank 0) or data loading. Balance the work or move the extra "
      "work off the critical path.");
}

void ruleStraggler(const RuleInput& in, RuleOutput& out) {
  const Session& s = in.session;
  if (s.ranks.size() < 2) return;
  std::vector<std::string> labels;
  std::vector<int32_t> numbers;
  for (uint32_t r = 0; r < s.ranks.size(); ++r) {
    labels.push_back(s.ranks[r].label);
    numbers.push_back(rankNumberOf(s, r));
  }
  if (auto f = stragglerFinding(collectivesByRank(s, in.range), labels, numbers))
    out.findings.push_back(std::move(*f));
}

}  // namespace ts
