#include "analysis/gpu_ops.h"

#include <algorithm>

namespace ts {

std::string_view toString(OpType type) {
  switch (type) {
    case OpType::Computation:
      return "COMPUTATION";
    case OpType::Communication:
      return "COMMUNICATION";
    case OpType::Memory:
      return "MEMORY";
  }
  return "COMPUTATION";
}

bool isGpuOp(EventKind kind) {
  return kind == EventKind::Kernel || kind == EventKind::Memcpy || kind == EventKind::Memset;
}

OpType opTypeOf(EventKind kind, std::string_view name) {
  // By kind first: a copy is memory traffic whatever a converter named it. HTA goes by the
  // "Memcpy …" / "Memset …" names Kineto gives them, which says the same for PyTorch traces.
  if (kind == EventKind::Memcpy || kind == EventKind::Memset) return OpType::Memory;
  if (name.starts_with("nccl")) return OpType::Communication;
  if (name.starts_with("Memcpy") || name.starts_with("Memset")) return OpType::Memory;
  return OpType::Computation;
}

uint32_t rankOfTrack(const Session& session, const Track& track) {
  if (track.device < session.devices.size()) return session.devices[track.device].rank;
  return 0;
}

uint32_t rankOfThread(const Session& s, uint32_t thread) {
  if (thread >= s.threads.size()) return 0;
  uint32_t p = s.threads[thread].process;
  return p < s.processes.size() ? s.processes[p].rank : 0;
}

int32_t rankNumberOf(const Session& s, uint32_t rank) {
  return rank < s.ranks.size() ? s.ranks[rank].rank : 0;
}

std::vector<Interval> rankSpans(const Session& s) {
  const size_t n = std::max<size_t>(s.ranks.size(), 1);
  std::vector<Interval> spans(n);
  std::vector<bool> any(n, false);
  auto rankOfDevice = [&](uint32_t d) { return d < s.devices.size() ? s.devices[d].rank : 0; };
  auto widen = [&](uint32_t rank, TimeNs start, TimeNs end) {
    const size_t r = std::min<size_t>(rank, n - 1);
    spans[r] = any[r] ? Interval{std::min(spans[r].start, start), std::max(spans[r].end, end)}
                      : Interval{start, end};
    any[r] = true;
  };
  for (const Track& t : s.tracks) {
    if (t.size() == 0) continue;
    const uint32_t rank = t.device < s.devices.size() ? rankOfDevice(t.device)
                          : t.thread != kNone         ? rankOfThread(s, t.thread)
                                                      : 0;
    widen(rank, t.minStart(), t.maxEnd());
  }
  for (const CounterTrack& c : s.counters) {
    if (c.size() == 0) continue;
    uint32_t rank = 0;
    if (c.device < s.devices.size())
      rank = rankOfDevice(c.device);
    else if (c.process < s.processes.size())
      rank = s.processes[c.process].rank;
    widen(rank, c.samples.time.front(), c.samples.time.back());
  }
  return spans;
}

std::vector<RankOps> collectRankOps(const Session& session, const AnalysisRange& range) {
  std::vector<RankOps> ranks(std::max<size_t>(session.ranks.size(), 1));
  for (uint32_t r = 0; r < ranks.size(); ++r) {
    ranks[r].rank = r;
    ranks[r].rankNumber = r < session.ranks.size() ? session.ranks[r].rank : 0;
  }
  // A kernel's type depends on its name only: looked up once per name, not per launch.
  std::vector<int8_t> typeOfName(session.strings.size(), -1);
  for (const Track& t : session.tracks) {
    if (!isGpuOp(t.kind) || t.size() == 0) continue;
    RankOps& out = ranks[std::min<size_t>(rankOfTrack(session, t), ranks.size() - 1)];
    for (uint32_t i = 0; i < t.size(); ++i) {
      TimeNs s = std::max(t.hot.start[i], range.start), e = std::min(t.hot.end[i], range.end);
      // Inside the range, or a zero-length op at a time inside it.
      if (e < s || s >= range.end || e <= range.start) continue;
      OpType op = OpType::Memory;
      if (t.kind == EventKind::Kernel) {
        StringId name = t.hot.name[i];
        int8_t& type = typeOfName[name < typeOfName.size() ? name : 0];
        if (type < 0) type = static_cast<int8_t>(opTypeOf(t.kind, session.str(name)));
        op = static_cast<OpType>(type);
      }
      if (out.count == 0 || s < out.first) out.first = s;
      if (out.count == 0 || e > out.last) out.last = e;
      ++out.count;
      out.busy.push_back({s, e});
      out.byType[static_cast<int>(op)].push_back({s, e});
    }
  }
  std::vector<RankOps> present;
  for (RankOps& r : ranks) {
    if (r.count == 0) continue;
    mergeIntervals(r.busy);
    for (auto& v : r.byType) mergeIntervals(v);
    present.push_back(std::move(r));
  }
  return present;
}

}  // namespace ts
