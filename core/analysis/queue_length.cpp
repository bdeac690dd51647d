#include "analysis/queue_length.h"

#include <algorithm>

namespace ts {

namespace {

// +1 at each launch's start, −1 at each operation's end, for one stream, in time order (at one
// time the departures first: an operation that ends as the next is launched leaves room for it).
struct Change {
  TimeNs time;
  int32_t delta;
};

std::vector<std::vector<Change>> changesByStream(const Session& s, const LaunchIndex& launches) {
  std::vector<std::vector<Change>> out(s.streams.size());
  for (uint32_t t = 0; t < s.tracks.size(); ++t) {
    const Track& track = s.tracks[t];
    if (!isGpuOp(track.kind) || track.stream >= s.streams.size()) continue;
    auto& changes = out[track.stream];
    for (uint32_t i = 0; i < track.size(); ++i) {
      LaunchRef l = launches.launchOf(t, i);
      if (!l.known()) continue;
      TimeNs enqueued = std::min(s.tracks[l.track].hot.start[l.event], track.hot.end[i]);
      changes.push_back({enqueued, +1});
      changes.push_back({track.hot.end[i], -1});
    }
  }
  for (auto& c : out) {
    std::sort(c.begin(), c.end(), [](const Change& a, const Change& b) {
      return a.time != b.time ? a.time < b.time : a.delta < b.delta;
    });
  }
  return out;
}

}  // namespace

std::vector<StreamQueue> queueLengths(const Session& s, const LaunchIndex& launches,
                                      const AnalysisRange& range, uint32_t capacity) {
  auto changes = changesByStream(s, launches);
  std::vector<StreamQueue> out;
  for (uint32_t st = 0; st < changes.size(); ++st) {
    const auto& c = changes[st];
    if (c.empty()) continue;
    StreamQueue q;
    q.stream = st;
    q.streamId = s.streams[st].streamId;
    uint32_t device = s.streams[st].device;
    uint32_t rank = device < s.devices.size() ? s.devices[device].rank : 0;
    q.rank = rank < s.ranks.size() ? s.ranks[rank].rank : 0;
    q.ops = c.size() / 2;
    int64_t length = 0;
    double weighted = 0;
    TimeNs busy = 0;
    for (size_t i = 0; i < c.size(); ++i) {
      length += c[i].delta;
      TimeNs from = std::max(c[i].time, range.start);
      TimeNs to = std::min(i + 1 < c.size() ? c[i + 1].time : c[i].time, range.end);
      if (c[i].time >= range.start && c[i].time < range.end)
        q.maxLength = std::max(q.maxLength, static_cast<uint32_t>(length));
      if (to <= from || length <= 0) continue;
      q.maxLength = std::max(q.maxLength, static_cast<uint32_t>(length));
      weighted += static_cast<double>(length) * static_cast<double>(to - from);
      busy += to - from;
      if (static_cast<uint64_t>(length) >= capacity) q.fullTime += to - from;
    }
    if (busy == 0 && q.maxLength == 0) continue;  // nothing queued inside the range
    q.meanLength = busy > 0 ? weighted / static_cast<double>(busy) : 0;
    out.push_back(q);
  }
  // Stable: two ranks of one number (files that do not say theirs) keep the session's order.
  std::stable_sort(out.begin(), out.end(), [](const StreamQueue& a, const StreamQueue& b) {
    return a.rank != b.rank ? a.rank < b.rank : a.streamId < b.streamId;
  });
  return out;
}

std::vector<std::vector<QueueSample>> queueSeriesByStream(const Session& s,
                                                          const LaunchIndex& launches) {
  auto changes = changesByStream(s, launches);
  std::vector<std::vector<QueueSample>> out(changes.size());
  for (size_t st = 0; st < changes.size(); ++st) {
    int64_t length = 0;
    for (const Change& c : changes[st]) {
      length += c.delta;
      uint32_t now = static_cast<uint32_t>(std::max<int64_t>(length, 0));
      if (!out[st].empty() && out[st].back().time == c.time)
        out[st].back().length = now;
      else if (out[st].empty() || out[st].back().length != now)
        out[st].push_back({c.time, now});
    }
    // A change at one time that cancels (a departure and an arrival) leaves a sample that says
    // what the one before it said.
    auto& v = out[st];
    v.erase(std::unique(
                v.begin(), v.end(),
                [](const QueueSample& a, const QueueSample& b) { return a.length == b.length; }),
            v.end());
  }
  return out;
}

std::vector<QueueSample> queueSeries(const Session& s, const LaunchIndex& launches,
                                     uint32_t stream) {
  auto all = queueSeriesByStream(s, launches);
  return stream < all.size() ? std::move(all[stream]) : std::vector<QueueSample>{};
}

std::vector<QueueSample> sumQueueSeries(
    const std::vector<const std::vector<QueueSample>*>& series) {
  std::vector<Change> changes;
  for (const auto* one : series) {
    uint32_t before = 0;
    for (const QueueSample& q : *one) {
      changes.push_back({q.time, static_cast<int32_t>(q.length) - static_cast<int32_t>(before)});
      before = q.length;
    }
  }
  std::stable_sort(changes.begin(), changes.end(),
                   [](const Change& a, const Change& b) { return a.time < b.time; });
  std::vector<QueueSample> out;
  int64_t length = 0;
  for (const Change& c : changes) {
    length += c.delta;
    uint32_t now = static_cast<uint32_t>(std::max<int64_t>(length, 0));
    if (!out.empty() && out.back().time == c.time)
      out.back().length = now;
    else
      out.push_back({c.time, now});
  }
  out.erase(
      std::unique(out.begin(), out.end(),
                  [](const QueueSample& a, const QueueSample& b) { return a.length == b.length; }),
      out.end());
  return out;
}

}  // namespace ts
