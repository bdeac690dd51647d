#include "session/live_session.h"

#include <algorithm>
#include <numeric>
#include <tuple>

#include "util/version.h"

namespace ts {

namespace {

// Every column of a track made chunked: what a live track appends to (Column::makeChunked).
void makeChunked(Track& t) {
  auto chunk = [](const char*, auto& column) { column.makeChunked(); };
  t.hot.visit(chunk);
  t.kernels.visit(chunk);
  t.memcpys.visit(chunk);
  t.memsets.visit(chunk);
  t.apis.visit(chunk);
  t.nvtx.visit(chunk);
  t.ranges.visit(chunk);
}

TimeNs effectiveEnd(TimeNs start, TimeNs end) {
  return end > start ? end : start + 1;
}

template <class Columns>
size_t columnBytes(const Columns& columns) {
  size_t bytes = 0;
  columns.visit([&](const char*, const auto& c) { bytes += c.allocatedBytes(); });
  return bytes;
}

}  // namespace

uint32_t LiveSession::track(EventKind kind, uint32_t stream, uint32_t thread) {
  // Records come in runs of one kind on one owner: the last track asked for is asked for again.
  if (last_.track != kNone && last_.kind == kind && last_.stream == stream &&
      last_.thread == thread)
    return last_.track;
  const uint32_t t = b_.track(kind, stream, thread);
  last_ = {kind, stream, thread, t};
  if (t >= growth_.size()) {
    growth_.resize(t + 1);
    makeChunked(b_.draft().tracks[t]);
  }
  return t;
}

LiveSession::Pending& LiveSession::pendingOf(EventKind kind, uint32_t stream, uint32_t thread,
                                             TimeNs start, TimeNs end, StringId name,
                                             OpenRange open) {
  Pending& p = growth_[track(kind, stream, thread)].pending;
  p.hot.push_back({start, std::max(start, end), name, 0});
  p.open.push_back(open);
  return p;
}

bool LiveSession::accept(TimeNs start, TimeNs end) {
  if (timeInRange(start) && timeInRange(end)) return true;
  ++rejected_;
  return false;
}

void LiveSession::sawTime(TimeNs t) {
  if (timeInRange(t)) latest_ = std::max(latest_, t);
}

void LiveSession::addKernel(uint32_t stream, TimeNs start, TimeNs end, StringId name,
                            const KernelDetail& d) {
  if (!accept(start, end)) return;
  pendingOf(EventKind::Kernel, stream, kNone, start, end, name).kernels.push_back(d);
}
void LiveSession::addMemcpy(uint32_t stream, TimeNs start, TimeNs end, StringId name,
                            const MemcpyDetail& d) {
  if (!accept(start, end)) return;
  pendingOf(EventKind::Memcpy, stream, kNone, start, end, name).memcpys.push_back(d);
}
void LiveSession::addMemset(uint32_t stream, TimeNs start, TimeNs end, StringId name,
                            const MemsetDetail& d) {
  if (!accept(start, end)) return;
  pendingOf(EventKind::Memset, stream, kNone, start, end, name).memsets.push_back(d);
}
void LiveSession::addApi(uint32_t thread, TimeNs start, TimeNs end, StringId name,
                         const ApiDetail& d) {
  if (!accept(start, end)) return;
  pendingOf(EventKind::Api, kNone, thread, start, end, name).apis.push_back(d);
}
void LiveSession::addNvtx(uint32_t thread, TimeNs start, TimeNs end, StringId name,
                          const NvtxDetail& d) {
  if (!accept(start, end)) return;
  pendingOf(EventKind::Nvtx, kNone, thread, start, end, name).nvtx.push_back(d);
}
void LiveSession::addStreamRange(uint32_t stream, TimeNs start, TimeNs end, StringId name,
                                 const RangeDetail& d) {
  if (!accept(start, end)) return;
  pendingOf(EventKind::Range, stream, kNone, start, end, name).ranges.push_back(d);
}

LiveSession::OpenRange LiveSession::openNvtx(uint32_t thread, TimeNs start, StringId name,
                                             const NvtxDetail& d) {
  if (!accept(start, start)) return 0;
  const OpenRange h = nextOpen_++;
  Pending& p = pendingOf(EventKind::Nvtx, kNone, thread, start, start, name, h);
  p.nvtx.push_back(d);
  OpenAt at;
  at.track = b_.track(EventKind::Nvtx, kNone, thread);
  at.event = static_cast<uint32_t>(p.size() - 1);
  open_.emplace(h, at);
  return h;
}

void LiveSession::closeNvtx(OpenRange range, TimeNs end) {
  auto it = open_.find(range);
  if (it == open_.end() || !timeInRange(end)) return;  // an impossible end: open it stays
  const OpenAt at = it->second;
  open_.erase(it);
  if (!at.published) {
    HotRow& row = growth_[at.track].pending.hot[at.event];
    row.end = std::max(row.start, end);
    growth_[at.track].pending.open[at.event] = 0;
    return;
  }
  Track& t = b_.draft().tracks[at.track];
  const TimeNs start = t.hot.start[at.event];
  t.setEnd(at.event, std::max(start, end));
  growth_[at.track].laneEnd[t.hot.lane[at.event]] = t.effectiveEnd(at.event);
}

size_t LiveSession::waiting() const {
  size_t n = 0;
  for (const Growth& g : growth_) n += g.pending.size();
  return n;
}

size_t LiveSession::heldBytes() const {
  size_t bytes = 0;
  const Session& s = const_cast<SessionBuilder&>(b_).draft();
  for (const Track& t : s.tracks) {
    bytes += columnBytes(t.hot) + columnBytes(t.kernels) + t.kernels.sharedBytes() +
             columnBytes(t.memcpys) + columnBytes(t.memsets) + columnBytes(t.apis) +
             columnBytes(t.nvtx) + columnBytes(t.ranges) + t.laneIndexBytes();
  }
  bytes += columnBytes(s.flows);
  for (const Growth& g : growth_) {
    const Pending& p = g.pending;
    bytes += p.hot.capacity() * sizeof(HotRow) + p.open.capacity() * sizeof(OpenRange) +
             p.kernels.capacity() * sizeof(KernelDetail) +
             p.memcpys.capacity() * sizeof(MemcpyDetail) +
             p.memsets.capacity() * sizeof(MemsetDetail) + p.apis.capacity() * sizeof(ApiDetail) +
             p.nvtx.capacity() * sizeof(NvtxDetail) + p.ranges.capacity() * sizeof(RangeDetail);
  }
  bytes += calls_.bytes() + (callOrder_.size() + unlinked_.size()) * sizeof(Launch);
  return bytes;
}

namespace {

// Row `r` of a Pending's details into the track's columns, by the track's kind.
template <class P>
void pushDetail(Track& t, const P& p, uint32_t r) {
  switch (t.kind) {
    case EventKind::Kernel:
      return t.kernels.push(p.kernels[r]);
    case EventKind::Memcpy:
      return t.memcpys.push(p.memcpys[r]);
    case EventKind::Memset:
      return t.memsets.push(p.memsets[r]);
    case EventKind::Api:
      return t.apis.push(p.apis[r]);
    case EventKind::Nvtx:
      return t.nvtx.push(p.nvtx[r]);
    case EventKind::Range:
      return t.ranges.push(p.ranges[r]);
  }
}

// The lowest lane free at `start` (SessionBuilder's assignment), made when none is.
Result<uint16_t> freeLane(std::vector<TimeNs>& laneEnd, TimeNs start) {
  for (size_t l = 0; l < laneEnd.size(); ++l) {
    if (laneEnd[l] <= start) return static_cast<uint16_t>(l);
  }
  if (laneEnd.size() >= 0xFFFF) return Error{"more than 65535 overlapping events on one track"};
  laneEnd.push_back(INT64_MIN);
  return static_cast<uint16_t>(laneEnd.size() - 1);
}

}  // namespace

void LiveSession::appendRows(uint32_t ti, const std::vector<uint32_t>& order) {
  Track& t = b_.draft().tracks[ti];
  Growth& g = growth_[ti];
  Pending& p = g.pending;
  for (uint32_t r : order) {
    HotRow row = p.hot[r];
    const bool open = p.open[r] != 0;
    if (open) row.end = std::max(row.start, latest_);
    Result<uint16_t> lane = freeLane(g.laneEnd, row.start);
    row.lane = lane ? *lane : 0;  // past 65535 lanes the track's check reports the overlap
    g.laneEnd[row.lane] = open ? INT64_MAX : effectiveEnd(row.start, row.end);
    t.hot.push(row);
    pushDetail(t, p, r);
    if (open) {
      OpenAt& at = open_[p.open[r]];
      at.published = true;
      at.event = static_cast<uint32_t>(t.size() - 1);
      g.hadOpen = true;
    }
  }
}

void LiveSession::relane(uint32_t ti) {
  Track& t = b_.draft().tracks[ti];
  std::unordered_map<uint32_t, bool> open;
  for (const auto& [h, at] : open_) {
    if (at.published && at.track == ti) open.emplace(at.event, true);
  }
  std::vector<TimeNs> laneEnd;
  Column<uint16_t> lanes;
  lanes.makeChunked();
  bool same = true;
  for (uint32_t i = 0; i < t.size(); ++i) {
    Result<uint16_t> lane = freeLane(laneEnd, t.hot.start[i]);
    const uint16_t l = lane ? *lane : 0;
    laneEnd[l] = open.count(i) ? INT64_MAX : t.effectiveEnd(i);
    lanes.append(l);
    same = same && l == t.hot.lane[i];
  }
  if (same) return;
  t.hot.lane = std::move(lanes);
  growth_[ti].laneEnd = std::move(laneEnd);
}

void LiveSession::rebuild(uint32_t ti, const std::vector<uint32_t>& order,
                          std::vector<uint32_t>& placed) {
  Session& s = b_.draft();
  Track& old = s.tracks[ti];
  Growth& g = growth_[ti];
  const uint32_t n = static_cast<uint32_t>(old.size());
  // Published events that are open ranges still.
  std::unordered_map<uint32_t, OpenRange> openEvents;
  for (const auto& [h, at] : open_) {
    if (at.published && at.track == ti) openEvents.emplace(at.event, h);
  }
  // Every event: published ones (i < n) and the released waiting rows (n + position in order),
  // sorted as SessionBuilder sorts them (start, then the longer first; earlier arrivals first).
  auto startOf = [&](uint32_t k) {
    return k < n ? old.hot.start[k] : g.pending.hot[order[k - n]].start;
  };
  auto endOf = [&](uint32_t k) -> TimeNs {
    if (k < n) return openEvents.count(k) ? INT64_MAX : old.hot.end[k];
    const uint32_t r = order[k - n];
    return g.pending.open[r] ? INT64_MAX : g.pending.hot[r].end;
  };
  std::vector<uint32_t> all(n + order.size());
  std::iota(all.begin(), all.end(), 0u);
  std::stable_sort(all.begin(), all.end(), [&](uint32_t a, uint32_t b) {
    return startOf(a) != startOf(b) ? startOf(a) < startOf(b) : endOf(a) > endOf(b);
  });

  Track fresh;
  fresh.kind = old.kind, fresh.device = old.device, fresh.stream = old.stream;
  fresh.thread = old.thread;
  makeChunked(fresh);
  std::vector<TimeNs> laneEnd;
  std::vector<uint32_t> newIndex(n);
  for (uint32_t k : all) {
    HotRow row;
    OpenRange open = 0;
    if (k < n) {
      row = {old.hot.start[k], old.hot.end[k], old.hot.name[k], 0};
      auto o = openEvents.find(k);
      if (o != openEvents.end()) open = o->second;
    } else {
      row = g.pending.hot[order[k - n]];
      open = g.pending.open[order[k - n]];
      if (open) row.end = std::max(row.start, latest_);
    }
    Result<uint16_t> lane = freeLane(laneEnd, row.start);
    row.lane = lane ? *lane : 0;
    laneEnd[row.lane] = open ? INT64_MAX : effectiveEnd(row.start, row.end);
    const auto at = static_cast<uint32_t>(fresh.size());
    fresh.hot.push(row);
    if (k < n) {
      newIndex[k] = at;
      switch (old.kind) {
        case EventKind::Kernel:
          fresh.kernels.push(old.kernels.row(k));
          break;
        case EventKind::Memcpy:
          fresh.memcpys.push(old.memcpys.row(k));
          break;
        case EventKind::Memset:
          fresh.memsets.push(old.memsets.row(k));
          break;
        case EventKind::Api:
          fresh.apis.push(old.apis.row(k));
          break;
        case EventKind::Nvtx:
          fresh.nvtx.push(old.nvtx.row(k));
          break;
        case EventKind::Range:
          fresh.ranges.push(old.ranges.row(k));
          break;
      }
    } else {
      pushDetail(fresh, g.pending, order[k - n]);
      placed.push_back(at);
      if (open) {
        OpenAt& o = open_[open];
        o.published = true;
        o.event = at;
        g.hadOpen = true;
      }
    }
  }
  for (auto& [event, h] : openEvents) open_[h].event = newIndex[event];
  s.tracks[ti] = std::move(fresh);
  g.laneEnd = std::move(laneEnd);
  remapTrack(ti, newIndex);
  ++lateRebuilds_;
}

void LiveSession::remapTrack(uint32_t ti, const std::vector<uint32_t>& newIndex) {
  FlowColumns& f = b_.draft().flows;
  FlowColumns moved;
  moved.visit([](const char*, auto& c) { c.makeChunked(); });
  for (size_t i = 0; i < f.srcTrack.size(); ++i) {
    Flow row = f.row(i);
    if (row.srcTrack == ti) row.srcEvent = newIndex[row.srcEvent];
    if (row.dstTrack == ti) row.dstEvent = newIndex[row.dstEvent];
    moved.push(row);
  }
  f = std::move(moved);
  auto fix = [&](Launch& l) {
    if (l.track == ti && l.event < newIndex.size()) l.event = newIndex[l.event];
  };
  calls_.forEach(fix);
  for (Launch& l : callOrder_) fix(l);
  for (Launch& l : unlinked_) fix(l);
}

void LiveSession::link(size_t tracksBefore, const std::vector<size_t>& from,
                       const std::unordered_map<uint32_t, std::vector<uint32_t>>& placed) {
  Session& s = b_.draft();
  FlowColumns& flows = s.flows;
  // Calls f(event) for each event of track ti new in this publish.
  auto forNew = [&](uint32_t ti, auto&& f) {
    auto p = placed.find(ti);
    if (p != placed.end()) {
      for (uint32_t i : p->second) f(i);
      return;
    }
    const size_t n = s.tracks[ti].size();
    for (size_t i = ti < tracksBefore ? from[ti] : 0; i < n; ++i) f(static_cast<uint32_t>(i));
  };
  // Calls first, so that work published with its call finds it.
  for (uint32_t ti = 0; ti < s.tracks.size(); ++ti) {
    const Track& t = s.tracks[ti];
    if (t.kind != EventKind::Api || t.thread == kNone) continue;
    const uint64_t process = s.threads[t.thread].process;
    forNew(ti, [&](uint32_t i) {
      if (t.apis.correlation[i] == 0) return;
      Launch call{process << 32 | t.apis.correlation[i], ti, i, t.hot.start[i]};
      calls_.put(call);
      callOrder_.push_back(call);
    });
  }
  // Times of one track rise, and calls are forgotten from the oldest published on.
  auto tooOld = [&](const Launch& l) {
    return latest_ != INT64_MIN && latest_ - l.time > kLinkWindow;  // both within ±2^62
  };
  auto linkTo = [&](const Launch& work) {
    const Launch* call = calls_.find(work.key);
    if (!call) return false;
    flows.push({call->track, call->event, work.track, work.event});
    return true;
  };
  std::vector<Launch> still;
  for (const Launch& work : unlinked_) {
    if (!linkTo(work) && !tooOld(work)) still.push_back(work);
  }
  for (uint32_t ti = 0; ti < s.tracks.size(); ++ti) {
    const Track& t = s.tracks[ti];
    const auto [correlation, context] = launchLinks(t);
    if (!correlation) continue;
    forNew(ti, [&](uint32_t i) {
      if ((*correlation)[i] == 0) return;
      const uint64_t process = b_.processOfContext(t.device, (*context)[i]);
      if (process == kNone) return;
      Launch work{process << 32 | (*correlation)[i], ti, i, t.hot.start[i]};
      if (!linkTo(work)) still.push_back(work);
    });
  }
  unlinked_ = std::move(still);
  // Calls too old to be waited for are forgotten (unless a later call took their key).
  while (!callOrder_.empty() && tooOld(callOrder_.front())) {
    calls_.eraseIf(callOrder_.front());
    callOrder_.pop_front();
  }
}

Result<SessionPtr> LiveSession::publish(const Provenance& provenance, TimeNs holdback, bool final) {
  if (!broken_.empty()) return Error{broken_};
  ++publishes_;
  Session& s = b_.draft();
  if (publishes_ == 1) {
    s.flows.visit([](const char*, auto& c) { c.makeChunked(); });
    s.setUnsortedFlows();
  }
  const TimeNs until = holdback <= 0 || latest_ == INT64_MIN ? INT64_MAX : latest_ - holdback;
  const size_t tracksBefore = s.tracks.size();
  std::vector<size_t> from(tracksBefore);
  for (size_t ti = 0; ti < tracksBefore; ++ti) from[ti] = s.tracks[ti].size();
  const size_t flowsBefore = s.flows.srcTrack.size();
  bool rebuilt = false;
  std::unordered_map<uint32_t, std::vector<uint32_t>> placed;  // new events of rebuilt tracks

  for (uint32_t ti = 0; ti < s.tracks.size(); ++ti) {
    Pending& p = growth_[ti].pending;
    if (p.size() == 0) continue;
    std::vector<uint32_t> order, keep;
    for (uint32_t r = 0; r < p.size(); ++r)
      (r < p.waited || p.hot[r].start <= until ? order : keep).push_back(r);
    if (order.empty()) {
      p.waited = p.size();
      continue;
    }
    auto endOf = [&](uint32_t r) { return p.open[r] ? INT64_MAX : p.hot[r].end; };
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      return p.hot[a].start != p.hot[b].start ? p.hot[a].start < p.hot[b].start
                                              : endOf(a) > endOf(b);
    });
    Track& t = s.tracks[ti];
    const HotRow& first = p.hot[order[0]];
    bool late = false;
    if (t.size() > 0) {
      const TimeNs lastStart = t.hot.start.back(), lastEnd = t.hot.end.back();
      late = first.start < lastStart || (first.start == lastStart && endOf(order[0]) > lastEnd);
    }
    if (late) {
      rebuild(ti, order, placed[ti]);
      if (ti < tracksBefore) from[ti] = 0;
      rebuilt = true;
    } else {
      appendRows(ti, order);
    }
    // What waits stays, in arrival order (moved down in place: the vectors keep their room for
    // the next second's records); open ranges among it move with their rows.
    auto compact = [&](auto& rows) {
      if (rows.empty()) return;
      for (size_t k = 0; k < keep.size(); ++k) rows[k] = rows[keep[k]];
      rows.resize(keep.size());
    };
    for (size_t k = 0; k < keep.size(); ++k) {
      if (p.open[keep[k]]) open_[p.open[keep[k]]].event = static_cast<uint32_t>(k);
    }
    compact(p.hot);
    compact(p.open);
    compact(p.kernels);
    compact(p.memcpys);
    compact(p.memsets);
    compact(p.apis);
    compact(p.nvtx);
    compact(p.ranges);
    p.waited = keep.size();
  }
  // Open ranges reach the latest time seen.
  for (const auto& [h, at] : open_) {
    if (!at.published) continue;
    Track& t = s.tracks[at.track];
    const TimeNs end = std::max(t.hot.start[at.event], latest_);
    if (t.hot.end[at.event] != end) t.setEnd(at.event, end);
  }
  link(tracksBefore, from, placed);
  if (final) {
    for (uint32_t ti = 0; ti < s.tracks.size(); ++ti) {
      if (!growth_[ti].hadOpen) continue;
      relane(ti);
      if (ti < tracksBefore) from[ti] = 0;  // indexed afresh
    }
    sortFlowsBySource(s.flows);
  }

  s.provenance = provenance;
  if (s.provenance.toolVersion.empty()) s.provenance.toolVersion = kVersion;
  if (s.provenance.createdUtc.empty()) s.provenance.createdUtc = utcNowIso();
  // A failed check leaves events appended but not indexed: no later snapshot could be trusted.
  // Sorted or remapped flows are checked whole; else only those linked now.
  if (Status st = s.extend(from, rebuilt || final ? 0 : flowsBefore); !st) {
    broken_ = "the live session cannot grow: " + st.error();
    return Error{broken_};
  }
  std::shared_ptr<Session> snapshot = s.share();
  if (final) snapshot->setSortedFlows();
  published_ = snapshot->eventCount();
  return SessionPtr(std::move(snapshot));
}

}  // namespace ts
