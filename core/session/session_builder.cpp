#include "session/session_builder.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <functional>
#include <numeric>
#include <queue>

#include "util/version.h"

namespace ts {

std::string utcNowIso() {
  std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

namespace {

enum KeyType : uint64_t {
  kRank = 1,
  kDevice,
  kProcess,
  kThread,
  kContext,
  kStream,
  kTrack,
  kCounter
};

uint64_t tag(KeyType type, uint64_t parent) {
  return (static_cast<uint64_t>(type) << 56) | parent;
}

// Applies `order` (new position → old position) to every column of a table.
template <class Columns>
void permute(Columns& columns, const std::vector<uint32_t>& order) {
  columns.visit([&](const char*, auto& values) {
    if (values.empty()) return;
    std::remove_reference_t<decltype(values)> sorted(values.size());
    auto* out = sorted.data();
    for (size_t i = 0; i < order.size(); ++i) out[i] = values[order[i]];
    values.swap(sorted);
  });
}

// Sorts a track by (start ascending, end descending: enclosing ranges before what they enclose)
// and returns the permutation applied (empty when the track was already in order).
std::vector<uint32_t> sortTrack(Track& t) {
  const auto& start = t.hot.start;
  const auto& end = t.hot.end;
  auto before = [&](uint32_t a, uint32_t b) {
    return start[a] != start[b] ? start[a] < start[b] : end[a] > end[b];
  };
  bool sorted = true;
  for (uint32_t i = 1; i < t.size() && sorted; ++i) sorted = !before(i, i - 1);
  if (sorted) {
    t.kernels.renumber();  // in order already: this drops the index kept while pushing
    return {};
  }
  std::vector<uint32_t> order(t.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), before);
  permute(t.hot, order);
  permute(t.kernels, order);
  t.kernels.renumber();  // configurations numbered by first use again, as a file reads them
  permute(t.memcpys, order);
  permute(t.memsets, order);
  permute(t.apis, order);
  permute(t.nvtx, order);
  permute(t.ranges, order);
  return order;
}

// Greedy lowest-free-lane assignment: properly nested ranges get their nesting depth, overlapping
// stream work gets as few lanes as the overlap needs.
Status assignLanes(Track& t) {
  using Busy = std::pair<TimeNs, uint32_t>;  // (effective end, lane)
  std::priority_queue<Busy, std::vector<Busy>, std::greater<>> busy;
  std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<>> free;
  uint32_t lanes = 0;
  uint16_t* lane16 = t.hot.lane.data();
  for (uint32_t i = 0; i < t.size(); ++i) {
    while (!busy.empty() && busy.top().first <= t.hot.start[i]) {
      free.push(busy.top().second);
      busy.pop();
    }
    uint32_t lane;
    if (!free.empty()) {
      lane = free.top();
      free.pop();
    } else {
      lane = lanes++;
      if (lanes > 0xFFFF) return Error{"more than 65535 overlapping events on one track"};
    }
    lane16[i] = static_cast<uint16_t>(lane);
    busy.emplace(t.effectiveEnd(i), lane);
  }
  return {};
}

// build()'s steps, in order.

// Each rank's clock offset, applied once to every timestamp of the rank: events, counter
// samples and the ends of flows known by time.
// Every event and counter time, and every rank's clock offset, within ±2^62 ns (kMaxTimeNs):
// checked before the offsets are added and again after, so neither that sum nor what the build
// computes from times (an end plus one) can overflow, whatever a file held.
Status checkTimes(
    const Session& s, bool offsets,
    const std::vector<std::pair<SessionBuilder::FlowEnd, SessionBuilder::FlowEnd>>& timedFlows) {
  auto bad = [](const std::string& where) {
    return Error{where + ": a time past ±2^62 ns (the file holds an impossible timestamp)"};
  };
  if (offsets) {
    for (const Rank& r : s.ranks)
      if (!timeInRange(r.clockOffsetNs)) return bad("rank " + std::to_string(r.rank) + "'s clock");
  }
  for (const Track& t : s.tracks) {
    for (size_t i = 0; i < t.size(); ++i) {
      if (!timeInRange(t.hot.start[i]) || !timeInRange(t.hot.end[i]))
        return bad("event " + std::to_string(i) + " of a track");
    }
  }
  for (const CounterTrack& c : s.counters) {
    for (TimeNs v : c.samples.time)
      if (!timeInRange(v)) return bad("counter '" + c.name + "'");
  }
  for (const auto& [from, to] : timedFlows)
    if (!timeInRange(from.time) || !timeInRange(to.time)) return bad("a flow");
  return Status::success();
}

void applyClockOffsets(
    Session& s,
    std::vector<std::pair<SessionBuilder::FlowEnd, SessionBuilder::FlowEnd>>& timedFlows) {
  auto rankOfTrack = [&](const Track& t) {
    if (t.device != kNone) return s.devices[t.device].rank;
    return s.processes[s.threads[t.thread].process].rank;
  };
  for (Track& t : s.tracks) {
    TimeNs offset = s.ranks.empty() ? 0 : s.ranks[rankOfTrack(t)].clockOffsetNs;
    if (offset == 0) continue;
    for (TimeNs& v : t.hot.start.values()) v += offset;
    for (TimeNs& v : t.hot.end.values()) v += offset;
  }
  for (CounterTrack& c : s.counters) {
    uint32_t rank = c.device != kNone    ? s.devices[c.device].rank
                    : c.process != kNone ? s.processes[c.process].rank
                                         : 0;
    TimeNs offset = rank < s.ranks.size() ? s.ranks[rank].clockOffsetNs : 0;
    for (TimeNs& v : c.samples.time.values()) v += offset;
  }
  auto timedRank = [&](const SessionBuilder::FlowEnd& e) {
    return e.stream != kNone ? s.devices[s.streams[e.stream].device].rank
                             : s.processes[s.threads[e.thread].process].rank;
  };
  for (auto& [from, to] : timedFlows) {
    from.time += s.ranks[timedRank(from)].clockOffsetNs;
    to.time += s.ranks[timedRank(to)].clockOffsetNs;
  }
}

// Sorts every track and assigns its lanes; `finalIndex[track][arrival]` is where each event
// went (empty for a track that was in order). Binding flows by time needs the lane index at once
// (`finalizeNow`).
Status sortTracks(Session& s, bool finalizeNow, const Progress& progress,
                  std::vector<std::vector<uint32_t>>& finalIndex) {
  const size_t trackCount = s.tracks.size();
  finalIndex.assign(trackCount, {});
  for (size_t ti = 0; ti < trackCount; ++ti) {
    if (progress.cancelled()) return Error::cancelled();
    Track& t = s.tracks[ti];
    std::vector<uint32_t> order = sortTrack(t);
    if (!order.empty()) {
      finalIndex[ti].resize(order.size());
      for (uint32_t pos = 0; pos < order.size(); ++pos) finalIndex[ti][order[pos]] = pos;
    }
    if (Status st = assignLanes(t); !st)
      return st.failure().prefixed(s.streamLabel(t.stream) + ": ");
    if (finalizeNow) TS_RETURN_IF_ERROR(t.finalize());
    progress.update(0.8 * static_cast<double>(ti + 1) / static_cast<double>(trackCount));
  }
  return {};
}

void sortCounters(Session& s) {
  for (CounterTrack& c : s.counters) {
    std::vector<uint32_t> order(c.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t a, uint32_t b) { return c.samples.time[a] < c.samples.time[b]; });
    permute(c.samples, order);
  }
}

struct FlowRow {
  uint32_t srcTrack, srcEvent, dstTrack, dstEvent;
  auto operator<=>(const FlowRow&) const = default;
};

// Flows added by reference, at the events' final positions.
std::vector<FlowRow> explicitFlows(const Session& s,
                                   const std::vector<std::pair<EventRef, EventRef>>& added,
                                   const std::vector<std::vector<uint32_t>>& finalIndex) {
  const size_t trackCount = s.tracks.size();
  auto resolve = [&](EventRef r) {
    return finalIndex[r.track].empty() ? r.index : finalIndex[r.track][r.index];
  };
  std::vector<FlowRow> flows;
  for (const auto& [from, to] : added) {
    if (from.track >= trackCount || to.track >= trackCount) continue;
    flows.push_back({from.track, resolve(from), to.track, resolve(to)});
  }
  return flows;
}

// Flows known by owner (thread or stream) and time: each end binds to the innermost event that
// encloses its time, or (not `enclosing`) the first event that starts at or after it.
void bindTimedFlows(
    const Session& s,
    const std::vector<std::pair<SessionBuilder::FlowEnd, SessionBuilder::FlowEnd>>& timed,
    std::vector<FlowRow>& flows) {
  if (timed.empty()) return;
  std::unordered_map<uint64_t, std::vector<uint32_t>> ownerTracks;  // (is stream, owner) → tracks
  auto ownerKey = [](bool stream, uint32_t owner) { return (uint64_t{stream} << 32) | owner; };
  for (uint32_t ti = 0; ti < s.tracks.size(); ++ti) {
    const Track& t = s.tracks[ti];
    if (t.thread != kNone)
      ownerTracks[ownerKey(false, t.thread)].push_back(ti);
    else if (t.stream != kNone)
      ownerTracks[ownerKey(true, t.stream)].push_back(ti);
  }
  auto bind = [&](const SessionBuilder::FlowEnd& e, uint32_t& track, uint32_t& event) {
    int bestLane = -1;
    TimeNs bestStart = INT64_MAX;
    bool onStream = e.stream != kNone;
    auto it = ownerTracks.find(ownerKey(onStream, onStream ? e.stream : e.thread));
    if (it == ownerTracks.end()) return false;
    for (uint32_t ti : it->second) {
      const Track& t = s.tracks[ti];
      for (uint32_t lane = 0; lane < t.laneCount(); ++lane) {
        if (e.enclosing) {
          uint32_t at = t.eventAt(lane, e.time);
          if (at != kNone && static_cast<int>(lane) > bestLane) {
            bestLane = static_cast<int>(lane), track = ti, event = at;
          }
        } else {
          LaneSpan span = t.laneRange(lane, e.time, INT64_MAX);
          for (uint32_t p = span.begin; p < span.end; ++p) {
            uint32_t i = t.laneEvent(lane, p);
            if (t.hot.start[i] < e.time) continue;  // covers the time but started before it
            if (t.hot.start[i] < bestStart) bestStart = t.hot.start[i], track = ti, event = i;
            break;
          }
        }
      }
    }
    return bestLane >= 0 || bestStart != INT64_MAX;
  };
  for (const auto& [from, to] : timed) {
    FlowRow row{};
    if (bind(from, row.srcTrack, row.srcEvent) && bind(to, row.dstTrack, row.dstEvent)) {
      flows.push_back(row);
    }
  }
}

// API call → the GPU work it launched, by correlation id: within the GPU work's process when its
// context names one (`processOfContext`), else within the rank when the id is unique there.
void correlationFlows(
    const Session& s,
    const std::function<uint32_t(uint32_t device, uint32_t context)>& processOfContext,
    std::vector<FlowRow>& flows) {
  struct ApiKey {
    uint64_t rankCorrelation;  // rank << 32 | correlation
    uint32_t process, track, event;
  };
  const size_t trackCount = s.tracks.size();
  std::vector<ApiKey> apiKeys;
  for (uint32_t ti = 0; ti < trackCount; ++ti) {
    const Track& t = s.tracks[ti];
    if (t.kind != EventKind::Api || t.thread == kNone) continue;
    uint32_t process = s.threads[t.thread].process;
    uint64_t rankBits = static_cast<uint64_t>(s.processes[process].rank) << 32;
    for (uint32_t i = 0; i < t.size(); ++i) {
      if (t.apis.correlation[i] != 0)
        apiKeys.push_back({rankBits | t.apis.correlation[i], process, ti, i});
    }
  }
  std::sort(apiKeys.begin(), apiKeys.end(),
            [](const ApiKey& a, const ApiKey& b) { return a.rankCorrelation < b.rankCorrelation; });
  for (uint32_t ti = 0; ti < trackCount && !apiKeys.empty(); ++ti) {
    const Track& t = s.tracks[ti];
    const auto [correlation, context] = launchLinks(t);
    if (!correlation) continue;
    const Device& dev = s.devices[t.device];
    uint64_t rankBits = static_cast<uint64_t>(dev.rank) << 32;
    // A stream's work mostly comes in launch order, its correlation ids rising: each search
    // gallops forward from the last one's place (a binary search over all the calls missed the
    // cache at every step), from the start when an id goes back.
    size_t at = 0;
    uint64_t lastKey = 0;
    const size_t n = apiKeys.size();
    for (uint32_t i = 0; i < t.size(); ++i) {
      if ((*correlation)[i] == 0) continue;
      uint64_t key = rankBits | (*correlation)[i];
      const size_t from = key >= lastKey ? at : 0;  // every key before `from` is below `key`
      size_t below = from, bound = from;
      for (size_t step = 1; bound < n && apiKeys[bound].rankCorrelation < key; step <<= 1) {
        below = bound + 1;
        bound = from + step;
      }
      bound = std::min(bound, n);
      auto lo = std::lower_bound(apiKeys.begin() + static_cast<std::ptrdiff_t>(below),
                                 apiKeys.begin() + static_cast<std::ptrdiff_t>(bound), key,
                                 [](const ApiKey& a, uint64_t k) { return a.rankCorrelation < k; });
      at = static_cast<size_t>(lo - apiKeys.begin());
      lastKey = key;
      auto hi = lo;
      while (hi != apiKeys.end() && hi->rankCorrelation == key) ++hi;
      if (lo == hi) continue;
      // The GPU work's process, when its context says which.
      const uint32_t process = processOfContext(t.device, (*context)[i]);
      const ApiKey* match = nullptr;
      if (process != kNone) {
        for (auto it = lo; it != hi; ++it) {
          if (it->process == process) match = &*it;
        }
      } else if (hi - lo == 1) {
        match = &*lo;
      }
      if (match) flows.push_back({match->track, match->event, ti, i});
    }
  }
}

}  // namespace

SessionBuilder::SessionBuilder() : s_(std::make_unique<Session>()) {}

uint32_t SessionBuilder::lookup(const Key& key, size_t next) {
  auto [it, inserted] = index_.try_emplace(key, static_cast<uint32_t>(next));
  return inserted ? kNone : it->second;
}

uint32_t SessionBuilder::rank(int32_t rank) {
  uint32_t found = lookup({tag(kRank, 0), static_cast<uint32_t>(rank)}, s_->ranks.size());
  if (found != kNone) return found;
  s_->ranks.push_back({rank, {}, "rank " + std::to_string(rank), 0});
  return static_cast<uint32_t>(s_->ranks.size() - 1);
}

uint32_t SessionBuilder::device(uint32_t rank, int32_t ordinal) {
  uint32_t found = lookup({tag(kDevice, rank), static_cast<uint32_t>(ordinal)}, s_->devices.size());
  if (found != kNone) return found;
  Device d;
  d.rank = rank;
  d.ordinal = ordinal;
  s_->devices.push_back(std::move(d));
  return static_cast<uint32_t>(s_->devices.size() - 1);
}

uint32_t SessionBuilder::process(uint32_t rank, int64_t pid) {
  uint32_t found = lookup({tag(kProcess, rank), static_cast<uint64_t>(pid)}, s_->processes.size());
  if (found != kNone) return found;
  s_->processes.push_back({rank, pid, {}, 0});
  return static_cast<uint32_t>(s_->processes.size() - 1);
}

uint32_t SessionBuilder::thread(uint32_t process, int64_t tid) {
  uint32_t found = lookup({tag(kThread, process), static_cast<uint64_t>(tid)}, s_->threads.size());
  if (found != kNone) return found;
  s_->threads.push_back({process, tid, {}, 0});
  return static_cast<uint32_t>(s_->threads.size() - 1);
}

uint32_t SessionBuilder::context(uint32_t device, uint32_t contextId) {
  uint32_t found = lookup({tag(kContext, device), contextId}, s_->contexts.size());
  if (found != kNone) return found;
  s_->contexts.push_back({device, contextId, kNone});
  return static_cast<uint32_t>(s_->contexts.size() - 1);
}

uint32_t SessionBuilder::stream(uint32_t device, uint32_t streamId) {
  return stream(device, streamId, kNone);
}

uint32_t SessionBuilder::stream(uint32_t device, uint32_t streamId, uint32_t process) {
  // kNone + 1 wraps to 0: the key of a stream given without a process.
  const uint64_t owner = static_cast<uint32_t>(process + 1);
  uint32_t found = lookup({tag(kStream, device), (owner << 32) | streamId}, s_->streams.size());
  if (found != kNone) return found;
  Stream st;
  st.device = device;
  st.streamId = streamId;
  s_->streams.push_back(std::move(st));
  return static_cast<uint32_t>(s_->streams.size() - 1);
}

uint32_t SessionBuilder::trackFor(EventKind kind, uint32_t stream, uint32_t thread) {
  Key key{tag(kTrack, static_cast<uint64_t>(kind)), (static_cast<uint64_t>(stream) << 32) | thread};
  uint32_t found = lookup(key, s_->tracks.size());
  if (found != kNone) return found;
  Track t;
  t.kind = kind;
  t.stream = stream;
  t.thread = thread;
  if (stream != kNone) t.device = s_->streams[stream].device;
  s_->tracks.push_back(std::move(t));
  return static_cast<uint32_t>(s_->tracks.size() - 1);
}

Track& SessionBuilder::push(uint32_t track, TimeNs start, TimeNs end, StringId name) {
  Track& t = s_->tracks[track];
  t.hot.push({start, std::max(start, end), name, 0});
  ++events_;
  return t;
}

namespace {
// The detail table of a track that rows of type Detail go to.
KernelColumns& detailsOf(Track& t, const KernelDetail&) {
  return t.kernels;
}
MemcpyColumns& detailsOf(Track& t, const MemcpyDetail&) {
  return t.memcpys;
}
MemsetColumns& detailsOf(Track& t, const MemsetDetail&) {
  return t.memsets;
}
ApiColumns& detailsOf(Track& t, const ApiDetail&) {
  return t.apis;
}
NvtxColumns& detailsOf(Track& t, const NvtxDetail&) {
  return t.nvtx;
}
RangeColumns& detailsOf(Track& t, const RangeDetail&) {
  return t.ranges;
}
}  // namespace

template <class Detail>
EventRef SessionBuilder::add(EventKind kind, uint32_t stream, uint32_t thread, TimeNs start,
                             TimeNs end, StringId name, const Detail& d) {
  uint32_t track = trackFor(kind, stream, thread);
  Track& t = push(track, start, end, name);
  detailsOf(t, d).push(d);
  return {track, static_cast<uint32_t>(t.size() - 1)};
}

EventRef SessionBuilder::addKernel(uint32_t stream, TimeNs start, TimeNs end, StringId name,
                                   const KernelDetail& d) {
  return add(EventKind::Kernel, stream, kNone, start, end, name, d);
}

EventRef SessionBuilder::addMemcpy(uint32_t stream, TimeNs start, TimeNs end, StringId name,
                                   const MemcpyDetail& d) {
  return add(EventKind::Memcpy, stream, kNone, start, end, name, d);
}

EventRef SessionBuilder::addMemset(uint32_t stream, TimeNs start, TimeNs end, StringId name,
                                   const MemsetDetail& d) {
  return add(EventKind::Memset, stream, kNone, start, end, name, d);
}

EventRef SessionBuilder::addApi(uint32_t thread, TimeNs start, TimeNs end, StringId name,
                                const ApiDetail& d) {
  return add(EventKind::Api, kNone, thread, start, end, name, d);
}

EventRef SessionBuilder::addNvtx(uint32_t thread, TimeNs start, TimeNs end, StringId text,
                                 const NvtxDetail& d) {
  return add(EventKind::Nvtx, kNone, thread, start, end, text, d);
}

EventRef SessionBuilder::addStreamNvtx(uint32_t stream, TimeNs start, TimeNs end, StringId text,
                                       const NvtxDetail& d) {
  return add(EventKind::Nvtx, stream, kNone, start, end, text, d);
}

EventRef SessionBuilder::addRange(uint32_t thread, TimeNs start, TimeNs end, StringId name,
                                  const RangeDetail& d) {
  return add(EventKind::Range, kNone, thread, start, end, name, d);
}

EventRef SessionBuilder::addStreamRange(uint32_t stream, TimeNs start, TimeNs end, StringId name,
                                        const RangeDetail& d) {
  return add(EventKind::Range, stream, kNone, start, end, name, d);
}

void SessionBuilder::addFlow(EventRef from, EventRef to) {
  flows_.emplace_back(from, to);
}

void SessionBuilder::addFlow(const FlowEnd& from, const FlowEnd& to) {
  timedFlows_.emplace_back(from, to);
}

void SessionBuilder::addCounterSample(std::string_view name, std::string_view unit, uint32_t device,
                                      uint32_t process, TimeNs time, double value) {
  addCounterSample(name, unit, device, process, CounterSample{time, value, 0, 0});
}

void SessionBuilder::addCounterSample(std::string_view name, std::string_view unit, uint32_t device,
                                      uint32_t process, const CounterSample& sample) {
  StringId nameId = intern(name);
  Key key{tag(kCounter, nameId), (static_cast<uint64_t>(device) << 32) | process};
  uint32_t found = lookup(key, s_->counters.size());
  if (found == kNone) {
    CounterTrack c;
    c.name = std::string(name);
    c.unit = std::string(unit);
    c.device = device;
    c.process = process;
    s_->counters.push_back(std::move(c));
    found = static_cast<uint32_t>(s_->counters.size() - 1);
  }
  s_->counters[found].samples.push(sample);
}

uint32_t SessionBuilder::processOfContext(uint32_t device, uint32_t context) const {
  auto it = index_.find(Key{tag(kContext, device), context});
  return it == index_.end() ? kNone : s_->contexts[it->second].process;
}

Result<SessionPtr> SessionBuilder::build(const Progress& progress) {
  Session& s = *s_;
  TS_RETURN_IF_ERROR(checkTimes(s, true, timedFlows_));
  applyClockOffsets(s, timedFlows_);
  TS_RETURN_IF_ERROR(checkTimes(s, false, timedFlows_));
  // Arrival index → final index, per track, for resolving flows added by reference.
  std::vector<std::vector<uint32_t>> finalIndex;
  TS_RETURN_IF_ERROR(sortTracks(s, !timedFlows_.empty(), progress, finalIndex));
  sortCounters(s);

  // Flows: explicit ones, then those known by owner and time, then API call → GPU work by
  // correlation id.
  std::vector<FlowRow> flows = explicitFlows(s, flows_, finalIndex);
  bindTimedFlows(s, timedFlows_, flows);
  correlationFlows(
      s, [this](uint32_t device, uint32_t context) { return processOfContext(device, context); },
      flows);
  std::sort(flows.begin(), flows.end());
  flows.erase(std::unique(flows.begin(), flows.end()), flows.end());
  for (const FlowRow& f : flows) s.flows.push({f.srcTrack, f.srcEvent, f.dstTrack, f.dstEvent});

  if (s.provenance.toolVersion.empty()) s.provenance.toolVersion = kVersion;
  if (s.provenance.createdUtc.empty()) s.provenance.createdUtc = utcNowIso();
  TS_RETURN_IF_ERROR(s.finalize());
  progress.update(1.0);
  index_.clear();
  flows_.clear();
  timedFlows_.clear();
  events_ = 0;
  SessionPtr published(s_.release());
  s_ = std::make_unique<Session>();
  return published;
}

}  // namespace ts
