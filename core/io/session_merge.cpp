#include "io/session_merge.h"

#include <vector>

namespace ts {

Status appendSession(const std::string& path, const Session& src, SessionBuilder& b, uint32_t rank,
                     ImportInfo& info) {
  if (src.ranks.size() > 1) {
    return Error{path + ": already holds " + std::to_string(src.ranks.size()) +
                 " ranks; open it alone, or combine single-rank files"};
  }
  // The source's strings first, in its order: the session gets the string table reading the
  // file itself would have given it (a rank read on a thread of its own, then added, is the same
  // session as one read in place).
  for (StringId id = 1; id < src.strings.size(); ++id) b.intern(src.str(id));
  auto str = [&](StringId id) { return b.intern(src.str(id)); };
  std::vector<uint32_t> devices(src.devices.size()), processes(src.processes.size()),
      threads(src.threads.size());
  std::vector<uint32_t> contexts(src.contexts.size()), streams(src.streams.size());
  for (size_t d = 0; d < src.devices.size(); ++d) {
    devices[d] = b.device(rank, src.devices[d].ordinal);
    Device copy = src.devices[d];
    copy.rank = rank;
    b.deviceInfo(devices[d]) = copy;
  }
  for (size_t p = 0; p < src.processes.size(); ++p) {
    processes[p] = b.process(rank, src.processes[p].pid);
    Process& to = b.processInfo(processes[p]);
    to.name = src.processes[p].name;
    to.sortIndex = src.processes[p].sortIndex;
  }
  for (size_t t = 0; t < src.threads.size(); ++t) {
    threads[t] = b.thread(processes[src.threads[t].process], src.threads[t].tid);
    Thread& to = b.threadInfo(threads[t]);
    to.name = src.threads[t].name;
    to.sortIndex = src.threads[t].sortIndex;
  }
  for (size_t c = 0; c < src.contexts.size(); ++c) {
    contexts[c] = b.context(devices[src.contexts[c].device], src.contexts[c].contextId);
    if (src.contexts[c].process != kNone)
      b.contextInfo(contexts[c]).process = processes[src.contexts[c].process];
  }
  for (size_t s = 0; s < src.streams.size(); ++s) {
    const Stream& from = src.streams[s];
    streams[s] = b.stream(devices[from.device], from.streamId);
    Stream& to = b.streamInfo(streams[s]);
    if (from.context != kNone) to.context = contexts[from.context];
    to.priority = from.priority;
    to.name = from.name;
  }
  // Events, remembering where each went so that flows can follow.
  std::vector<std::vector<EventRef>> refs(src.tracks.size());
  for (size_t ti = 0; ti < src.tracks.size(); ++ti) {
    const Track& t = src.tracks[ti];
    const uint32_t stream = t.stream != kNone ? streams[t.stream] : kNone;
    const uint32_t thread = t.thread != kNone ? threads[t.thread] : kNone;
    refs[ti].reserve(t.size());
    for (uint32_t e = 0; e < t.size(); ++e) {
      TimeNs a = t.hot.start[e], z = t.hot.end[e];
      StringId name = str(t.hot.name[e]);
      EventRef ref;
      switch (t.kind) {
        case EventKind::Kernel: {
          KernelDetail d = t.kernels.row(e);
          d.mangled = str(d.mangled);
          ref = b.addKernel(stream, a, z, name, d);
          break;
        }
        case EventKind::Memcpy:
          ref = b.addMemcpy(stream, a, z, name, t.memcpys.row(e));
          break;
        case EventKind::Memset:
          ref = b.addMemset(stream, a, z, name, t.memsets.row(e));
          break;
        case EventKind::Api:
          ref = b.addApi(thread, a, z, name, t.apis.row(e));
          break;
        case EventKind::Nvtx: {
          NvtxDetail d = t.nvtx.row(e);
          d.domain = str(d.domain);
          d.inputs = str(d.inputs);
          ref = stream != kNone ? b.addStreamNvtx(stream, a, z, name, d)
                                : b.addNvtx(thread, a, z, name, d);
          break;
        }
        case EventKind::Range: {
          RangeDetail d = t.ranges.row(e);
          d.category = str(d.category);
          d.args = str(d.args);
          ref = stream != kNone ? b.addStreamRange(stream, a, z, name, d)
                                : b.addRange(thread, a, z, name, d);
          break;
        }
      }
      refs[ti].push_back(ref);
    }
  }
  for (size_t f = 0; f < src.flows.srcTrack.size(); ++f) {
    b.addFlow(refs[src.flows.srcTrack[f]][src.flows.srcEvent[f]],
              refs[src.flows.dstTrack[f]][src.flows.dstEvent[f]]);
  }
  for (const CounterTrack& c : src.counters) {
    uint32_t device = c.device != kNone ? devices[c.device] : kNone;
    uint32_t process = c.process != kNone ? processes[c.process] : kNone;
    for (size_t i = 0; i < c.size(); ++i)
      b.addCounterSample(c.name, c.unit, device, process, c.samples.row(i));
  }
  for (const SourceFile& s : src.provenance.sources) b.provenance().sources.push_back(s);
  for (const auto& [what, n] : src.provenance.skipped) b.provenance().skipped[what] += n;
  b.provenance().droppedRecords += src.provenance.droppedRecords;
  for (const auto& [why, n] : src.provenance.lost) b.provenance().lost[why] += n;
  if (src.provenance.incomplete) {
    Provenance& p = b.provenance();
    p.incomplete = true;
    if (!src.provenance.incompleteReason.empty())
      p.incompleteReason +=
          (p.incompleteReason.empty() ? "" : "\n") + src.provenance.incompleteReason;
  }
  info = sessionImportInfo(src);
  return {};
}

ImportInfo sessionImportInfo(const Session& src) {
  ImportInfo info;
  info.events = src.eventCount();
  info.firstTimestamp = src.startTime();
  // Captures and epoch-based traces hold wall-clock times (after 2001 in ns).
  info.absoluteClock = src.startTime() > 1'000'000'000'000'000'000;
  if (src.provenance.worldSize > 0) info.worldSize = src.provenance.worldSize;
  if (!src.ranks.empty()) {
    const Rank& r = src.ranks[0];
    if (r.label.rfind("rank ", 0) == 0) info.distributedRank = r.rank;
    info.host = r.host;
  }
  return info;
}

}  // namespace ts
