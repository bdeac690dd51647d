#include "session/session.h"

#include <algorithm>
#include <limits>
#include <tuple>

namespace ts {

Status CounterTrack::finalize() const {
  if (samples.time.size() != samples.value.size()) return Error{"counter columns differ in length"};
  for (size_t i = 1; i < samples.time.size(); ++i) {
    if (samples.time[i] < samples.time[i - 1]) {
      return Error{"counter samples not sorted by time at sample " + std::to_string(i)};
    }
  }
  return {};
}

std::shared_ptr<Session> copySession(const Session& s) {
  auto c = std::make_shared<Session>();
  c->strings.reserve(s.strings.size());
  for (StringId id = 1; id < s.strings.size(); ++id)
    c->strings.intern(s.strings.get(id));  // same ids: no duplicates
  c->ranks = s.ranks;
  c->devices = s.devices;
  c->processes = s.processes;
  c->threads = s.threads;
  c->contexts = s.contexts;
  c->streams = s.streams;
  c->tracks = s.tracks;
  c->counters = s.counters;
  c->flows = s.flows;
  if (!s.sortedFlows()) c->setUnsortedFlows();
  c->provenance = s.provenance;
  return c;
}

std::vector<uint32_t> flowOrderBySource(const FlowColumns& f) {
  std::vector<uint32_t> order(f.srcTrack.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return std::tie(f.srcTrack[a], f.srcEvent[a], f.dstTrack[a], f.dstEvent[a]) <
           std::tie(f.srcTrack[b], f.srcEvent[b], f.dstTrack[b], f.dstEvent[b]);
  });
  return order;
}

namespace {
template <class T>
Column<T> permuted(const Column<T>& c, const std::vector<uint32_t>& order) {
  std::vector<T> values(order.size());
  for (size_t i = 0; i < order.size(); ++i) values[i] = c[order[i]];
  return Column<T>(std::move(values));
}
}  // namespace

FlowColumns flowsBySource(const Session& s) {
  if (s.sortedFlows()) return s.flows;  // shares the columns
  const std::vector<uint32_t> order = flowOrderBySource(s.flows);
  FlowColumns sorted;
  sorted.srcTrack = permuted(s.flows.srcTrack, order);
  sorted.srcEvent = permuted(s.flows.srcEvent, order);
  sorted.dstTrack = permuted(s.flows.dstTrack, order);
  sorted.dstEvent = permuted(s.flows.dstEvent, order);
  return sorted;
}

void sortFlowsBySource(FlowColumns& flows) {
  const std::vector<uint32_t> order = flowOrderBySource(flows);
  // In place, cycle by cycle (position i takes the value at order[i]): a long capture's flows
  // (8 bytes an event) are never held twice. A sorted copy would be worse than twice: the old
  // chunked columns' blocks, once freed, stay with malloc rather than going back to the system.
  std::vector<bool> done;
  flows.visit([&](const char*, auto& column) {
    done.assign(order.size(), false);
    for (size_t start = 0; start < order.size(); ++start) {
      if (done[start]) continue;
      const auto first = column[start];
      for (size_t at = start;;) {
        done[at] = true;
        const size_t from = order[at];
        if (from == start) {
          column.set(at, first);
          break;
        }
        const auto value = column[from];
        column.set(at, value);
        at = from;
      }
    }
  });
}

size_t Session::eventCount() const {
  size_t n = 0;
  for (const Track& t : tracks) n += t.size();
  return n;
}

std::vector<bool> Session::activeDevices() const {
  std::vector<bool> active(devices.size(), false);
  for (const Track& t : tracks) {
    if (t.device < devices.size() && t.size()) active[t.device] = true;
  }
  for (const CounterTrack& c : counters) {
    if (c.device < devices.size() && !c.samples.time.empty()) active[c.device] = true;
  }
  return active;
}

std::string Session::deviceLabel(uint32_t device) const {
  if (device >= devices.size()) return "GPU ?";
  const Device& d = devices[device];
  std::string label = "GPU " + std::to_string(d.ordinal);
  if (!d.name.empty()) label += ": " + d.name;
  if (multiRank() && d.rank < ranks.size()) label = ranks[d.rank].label + " · " + label;
  return label;
}

std::string Session::streamLabel(uint32_t stream) const {
  if (stream >= streams.size()) return "Stream ?";
  const Stream& s = streams[stream];
  if (s.streamId == kDeviceWideStream) return "Device-wide";
  if (s.streamId == kUnifiedMemoryStream) return "Unified memory";
  std::string label = "Stream " + std::to_string(s.streamId);
  if (!s.name.empty()) label += ": " + s.name;
  return label;
}

std::string Session::processLabel(uint32_t process) const {
  if (process >= processes.size()) return "Process ?";
  const Process& p = processes[process];
  std::string label = p.name.empty() ? "Process" : p.name;
  if (p.pid >= 0) label += " (" + std::to_string(p.pid) + ")";
  if (multiRank() && p.rank < ranks.size()) label = ranks[p.rank].label + " · " + label;
  return label;
}

std::string Session::threadLabel(uint32_t thread) const {
  if (thread >= threads.size()) return "Thread ?";
  const Thread& t = threads[thread];
  if (t.tid < 0) return t.name.empty() ? "Thread" : t.name;
  const std::string tid = std::to_string(t.tid);
  // A name that already holds the id ("thread 25738 (python)", as Kineto names threads) is the
  // label itself, not "Thread 25738: thread 25738 (python)".
  if (t.name.find(tid) != std::string::npos) {
    std::string label = t.name;
    if (label.rfind("thread ", 0) == 0) label[0] = 'T';
    return label;
  }
  std::string label = "Thread " + tid;
  if (!t.name.empty()) label += ": " + t.name;
  return label;
}

namespace {
Error rowError(const char* table, size_t row, const std::string& what) {
  return Error{std::string(table) + " row " + std::to_string(row) + ": " + what};
}
bool badRef(uint32_t ref, size_t size) {
  return ref != kNone && ref >= size;
}
}  // namespace

Status Session::finalize() {
  return check(nullptr, 0);
}

Status Session::extend(const std::vector<size_t>& trackFrom, size_t flowsFrom) {
  return check(&trackFrom, flowsFrom);
}

std::shared_ptr<Session> Session::share() const {
  std::shared_ptr<Session> c = copySession(*this);
  c->sortedFlows_ = sortedFlows_;
  c->start_ = start_;
  c->end_ = end_;
  return c;
}

Status Session::check(const std::vector<size_t>* trackFrom, size_t flowsFrom) {
  if (ranks.empty()) ranks.push_back({0, {}, "rank 0", 0});
  for (size_t i = 0; i < devices.size(); ++i) {
    if (devices[i].rank >= ranks.size()) return rowError("devices", i, "unknown rank");
  }
  for (size_t i = 0; i < processes.size(); ++i) {
    if (processes[i].rank >= ranks.size()) return rowError("processes", i, "unknown rank");
  }
  for (size_t i = 0; i < threads.size(); ++i) {
    if (threads[i].process >= processes.size()) return rowError("threads", i, "unknown process");
  }
  for (size_t i = 0; i < contexts.size(); ++i) {
    if (contexts[i].device >= devices.size() || badRef(contexts[i].process, processes.size())) {
      return rowError("contexts", i, "unknown device or process");
    }
  }
  for (size_t i = 0; i < streams.size(); ++i) {
    if (streams[i].device >= devices.size() || badRef(streams[i].context, contexts.size())) {
      return rowError("streams", i, "unknown device or context");
    }
  }
  start_ = std::numeric_limits<TimeNs>::max();
  end_ = std::numeric_limits<TimeNs>::min();
  for (size_t i = 0; i < tracks.size(); ++i) {
    Track& t = tracks[i];
    bool gpu =
        t.kind == EventKind::Kernel || t.kind == EventKind::Memcpy || t.kind == EventKind::Memset;
    if (static_cast<int>(t.kind) >= kEventKindCount) return rowError("tracks", i, "unknown kind");
    if (badRef(t.device, devices.size()) || badRef(t.stream, streams.size()) ||
        badRef(t.thread, threads.size())) {
      return rowError("tracks", i, "unknown device, stream or thread");
    }
    if (gpu && t.device == kNone) return rowError("tracks", i, "GPU track without a device");
    if (!gpu && t.thread == kNone && t.stream == kNone) {
      return rowError("tracks", i, "CPU track without a thread");
    }
    const size_t from = !trackFrom ? 0 : i < trackFrom->size() ? (*trackFrom)[i] : 0;
    if (Status s = trackFrom ? t.extend(from) : t.finalize(); !s)
      return rowError("tracks", i, s.error());
    const size_t nStrings = strings.size();
    bool namesOk =
        std::all_of(t.hot.name.begin() + static_cast<std::ptrdiff_t>(std::min(from, t.size())),
                    t.hot.name.end(), [nStrings](StringId id) { return id < nStrings; });
    if (!namesOk) return rowError("tracks", i, "event name outside the string table");
    if (t.size() > 0) {
      start_ = std::min(start_, t.minStart());
      end_ = std::max(end_, t.maxEnd());
    }
  }
  for (size_t i = 0; i < counters.size(); ++i) {
    const CounterTrack& c = counters[i];
    if (badRef(c.device, devices.size()) || badRef(c.process, processes.size())) {
      return rowError("counters", i, "unknown device or process");
    }
    if (Status s = c.finalize(); !s) return rowError("counters", i, s.error());
    if (c.size() > 0) {
      start_ = std::min(start_, c.samples.time.front());
      end_ = std::max(end_, c.samples.time.back());
    }
  }
  const size_t flowCount = flows.srcTrack.size();
  if (flows.srcEvent.size() != flowCount || flows.dstTrack.size() != flowCount ||
      flows.dstEvent.size() != flowCount) {
    return Error{"flows: columns differ in length"};
  }
  for (size_t i = trackFrom ? flowsFrom : 0; i < flowCount; ++i) {
    if (flows.srcTrack[i] >= tracks.size() || flows.dstTrack[i] >= tracks.size() ||
        flows.srcEvent[i] >= tracks[flows.srcTrack[i]].size() ||
        flows.dstEvent[i] >= tracks[flows.dstTrack[i]].size()) {
      return rowError("flows", i, "refers to a missing event");
    }
  }
  if (start_ > end_) start_ = end_ = 0;
  return {};
}

}  // namespace ts
