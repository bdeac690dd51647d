#include "memsim/formats/sim_session.h"

#include <algorithm>

#include "memsim/engine/step_memory.h"
#include "session/session_builder.h"
#include "util/format.h"

namespace ts::memsim {

namespace {

// What each stalled kernel waited for: "before KERNEL · last in: TENSOR (12 MiB, host → GPU, on
// demand)" — of the kernel's tensors, the one whose copy to the GPU ended last within the stall.
// Without such a copy (the kernel waited for memory to free) the kernel alone.
std::vector<std::string> stallReasons(const SimWorkload& w, const SimResult& r) {
  std::vector<std::vector<const Migration*>> arrivals(w.tensors.size());
  for (const Migration& m : r.migrations)
    if (m.to == Tier::Gpu) arrivals[static_cast<size_t>(m.tensor)].push_back(&m);
  std::vector<std::string> out(r.kernels.size());
  for (size_t k = 0; k < r.kernels.size(); ++k) {
    const SimKernelTime& t = r.kernels[k];
    if (t.stall <= 0) continue;
    const Migration* last = nullptr;
    for (const auto* list : {&w.kernels[k].inputs, &w.kernels[k].outputs}) {
      for (int tensor : *list) {
        for (const Migration* m : arrivals[static_cast<size_t>(tensor)]) {
          if (m->end > t.start - t.stall && m->end <= t.start && (!last || m->end > last->end))
            last = m;
        }
      }
    }
    out[k] = "before " + w.kernels[k].name;
    if (last)
      out[k] += " · last in: " + w.tensors[static_cast<size_t>(last->tensor)].name + " (" +
                formatBytes(last->bytes) + ", " + linkLabel(last->link) +
                (last->demand ? ", on demand)" : ", planned)");
  }
  return out;
}

}  // namespace

std::optional<bool> simulatedTransferPlanned(const Session& session, const Track& track,
                                             uint32_t event) {
  // The copy's own rank decides: a simulated run opened beside a measured one shares its session.
  if (track.kind != EventKind::Memcpy || event >= track.size() || track.device == kNone ||
      track.device >= session.devices.size() ||
      !simulatedPolicy(session, session.devices[track.device].rank))
    return std::nullopt;
  return track.memcpys.async[event] != 0;
}

Result<SessionPtr> simulationSession(const SimWorkload& w, const std::vector<PolicyRun>& runs,
                                     const TierConfig& tiers) {
  SessionBuilder b;
  StringId stallName = b.intern("stall (waiting for data)"), category = b.intern("memsim");
  std::vector<StringId> kernelNames, tensorNames;
  for (const SimKernel& k : w.kernels) kernelNames.push_back(b.intern(k.name));
  for (const SimTensor& t : w.tensors) tensorNames.push_back(b.intern(t.name));
  int32_t rankIndex = 0;
  for (const PolicyRun& run : runs) {
    const SimResult& r = run.result;
    if (!r.feasible) continue;
    uint32_t rank = b.rank(rankIndex++);
    b.rankInfo(rank).label = std::string(toString(r.policy)) + " (simulated)";
    uint32_t device = b.device(rank, 0);
    b.deviceInfo(device).name = "Simulated GPU — " + std::string(toString(r.policy));
    b.deviceInfo(device).memoryBytes = static_cast<uint64_t>(tiers.gpuBytes);
    uint32_t compute = b.stream(device, 1);
    b.streamInfo(compute).name = "compute";
    const std::vector<std::string> waits = stallReasons(w, r);
    for (size_t k = 0; k < r.kernels.size(); ++k) {
      const SimKernelTime& t = r.kernels[k];
      if (t.stall > 0)
        b.addStreamRange(compute, t.start - t.stall, t.start, stallName,
                         {category, b.intern(waits[k])});
      b.addKernel(compute, t.start, t.end, kernelNames[k], {});
    }
    // A stream per link that carried data, named for people ("host → GPU"). Only the host links
    // are copies between host and device (HtoD, DtoH); the SSD's are Other, so no "Memcpy HtoD"
    // row mixes PCIe copies with SSD reads.
    uint32_t linkStream[kLinkCount];
    bool used[kLinkCount] = {};
    for (const Migration& m : r.migrations) used[static_cast<int>(m.link)] = true;
    for (int l = 0; l < kLinkCount; ++l) {
      linkStream[l] = kNone;
      if (!used[l]) continue;
      linkStream[l] = b.stream(device, static_cast<uint32_t>(10 + l));
      b.streamInfo(linkStream[l]).name = linkLabel(static_cast<Link>(l));
    }
    for (const Migration& m : r.migrations) {
      MemcpyDetail d;
      d.bytes = static_cast<uint64_t>(m.bytes);
      d.copyKind = m.link == Link::HostToGpu   ? CopyKind::HtoD
                   : m.link == Link::GpuToHost ? CopyKind::DtoH
                                               : CopyKind::Other;
      d.srcKind = m.from == Tier::Gpu    ? MemoryKind::Device
                  : m.from == Tier::Host ? MemoryKind::Pinned
                                         : MemoryKind::Unknown;
      d.dstKind = m.to == Tier::Gpu    ? MemoryKind::Device
                  : m.to == Tier::Host ? MemoryKind::Pinned
                                       : MemoryKind::Unknown;
      d.srcDevice = m.from == Tier::Gpu ? 0 : -1;
      d.dstDevice = m.to == Tier::Gpu ? 0 : -1;
      d.async = m.demand ? 0 : 1;  // read back by simulatedTransferPlanned
      b.addMemcpy(linkStream[static_cast<int>(m.link)], m.start, m.end,
                  tensorNames[static_cast<size_t>(m.tensor)], d);
    }
    // No pid or tids: there is no process, and made-up ids would read as measured ones
    // ("Thread 1: in host memory"); negative ids are labelled by name alone.
    uint32_t process = b.process(rank, -1);
    b.processInfo(process).name = "simulation (" + std::string(toString(r.policy)) + ")";
    uint32_t onHost = b.thread(process, -1), onSsd = b.thread(process, -2);
    b.threadInfo(onHost).name = "in host memory";
    b.threadInfo(onSsd).name = "on the SSD";
    // Layers as NVTX ranges, named as measured runs are annotated (forward/<layer>, ...): a run of
    // consecutive kernels of one group, from the first one's wait to the last one's end.
    uint32_t layers = b.thread(process, -3);
    b.threadInfo(layers).name = "layers";
    for (size_t k = 0; k < r.kernels.size();) {
      const std::string& group = w.kernels[k].group;
      size_t last = k;
      while (last + 1 < r.kernels.size() && w.kernels[last + 1].group == group) ++last;
      if (!group.empty())
        b.addNvtx(layers, r.kernels[k].start - r.kernels[k].stall, r.kernels[last].end,
                  b.intern(group), {});
      k = last + 1;
    }
    StringId hostCategory = b.intern("host"), ssdCategory = b.intern("ssd");
    for (const Residency& s : r.residency) {
      if (s.tier == Tier::Host)
        b.addRange(onHost, s.start, s.end, tensorNames[static_cast<size_t>(s.tensor)],
                   {hostCategory, {}});
      if (s.tier == Tier::Ssd)
        b.addRange(onSsd, s.start, s.end, tensorNames[static_cast<size_t>(s.tensor)],
                   {ssdCategory, {}});
    }
    for (const TierUsage& u : allocatedOnGpu(w, r))
      b.addCounterSample(kGpuUsedCounter, "bytes", device, kNone, u.time,
                         static_cast<double>(u.gpu));
    const bool resident = keepsFreedPages(w, r);
    for (const TierUsage& u : r.usage) {
      if (resident)
        b.addCounterSample(kGpuResidentCounter, "bytes", device, kNone, u.time,
                           static_cast<double>(u.gpu));
      b.addCounterSample(kHostUsedCounter, "bytes", device, kNone, u.time,
                         static_cast<double>(u.host));
      b.addCounterSample(kSsdUsedCounter, "bytes", device, kNone, u.time,
                         static_cast<double>(u.ssd));
    }
  }
  b.provenance().sources.push_back({w.name, "simulation"});
  Provenance::Simulation mark{w.name, {}};
  for (const PolicyRun& run : runs)
    if (run.result.feasible) mark.policies.emplace_back(toString(run.result.policy));
  b.provenance().simulation = std::move(mark);
  // Everything above is well formed by construction; a failure here is a bug, reported as such.
  auto built = b.build();
  if (!built) return built.failure().prefixed("simulated session (a bug): ");
  return built;
}

namespace {

constexpr std::string_view kSimulated = " (simulated)";

std::vector<TierUsage> mergeTierSamples(const std::array<const CounterTrack*, 3>& tiers) {
  std::vector<TimeNs> times;
  for (const CounterTrack* c : tiers) {
    if (c) times.insert(times.end(), c->samples.time.begin(), c->samples.time.end());
  }
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  std::vector<TierUsage> usage(times.size());
  for (size_t which = 0; which < tiers.size(); ++which) {
    const CounterTrack* c = tiers[which];
    if (!c) continue;
    size_t next = 0;
    double value = 0;
    for (size_t i = 0; i < times.size(); ++i) {
      while (next < c->size() && c->samples.time[next] <= times[i])
        value = c->samples.value[next++];
      usage[i].time = times[i];
      (which == 0   ? usage[i].gpu
       : which == 1 ? usage[i].host
                    : usage[i].ssd) = static_cast<int64_t>(value);
    }
  }
  return usage;
}

}  // namespace

bool isSimulated(const Session& s) {
  if (s.provenance.simulation) return true;
  return std::any_of(s.provenance.sources.begin(), s.provenance.sources.end(),
                     [](const SourceFile& f) { return f.format == "simulation"; });
}

std::optional<std::string> simulatedPolicy(const Session& s, uint32_t rank) {
  if (rank >= s.ranks.size() || !isSimulated(s)) return std::nullopt;
  if (const auto& mark = s.provenance.simulation) {
    if (rank < mark->policies.size()) return mark->policies[rank];
    return std::nullopt;
  }
  // Written before the explicit mark: the rank label says "<policy> (simulated)".
  const std::string& label = s.ranks[rank].label;
  if (label.size() <= kSimulated.size() ||
      label.compare(label.size() - kSimulated.size(), kSimulated.size(), kSimulated) != 0)
    return std::nullopt;
  return label.substr(0, label.size() - kSimulated.size());
}

Result<std::vector<SimulatedRun>> readSimulatedSession(const Session& s) {
  if (!isSimulated(s))
    return Error{
        "not a simulated session (write one with tensorscope-cli simulate ... -o SIM.tscope)"};
  std::string workload;
  if (s.provenance.simulation) workload = s.provenance.simulation->workload;
  for (const SourceFile& f : s.provenance.sources) {
    if (workload.empty() && f.format == "simulation") workload = f.path;
  }
  std::vector<SimulatedRun> runs(s.ranks.size());
  for (size_t r = 0; r < s.ranks.size(); ++r) {
    auto policy = simulatedPolicy(s, static_cast<uint32_t>(r));
    if (!policy) return Error{"rank '" + s.ranks[r].label + "' is not a simulated policy"};
    runs[r].policy = *policy;
    runs[r].workload = workload;
  }
  for (const Device& d : s.devices) runs[d.rank].gpuCapacity = static_cast<int64_t>(d.memoryBytes);
  for (const Track& t : s.tracks) {
    if (t.device == kNone || t.stream == kNone) continue;
    SimulatedRun& run = runs[s.devices[t.device].rank];
    if (t.kind == EventKind::Kernel) {
      for (size_t i = 0; i < t.size(); ++i) {
        run.ideal += t.hot.end[i] - t.hot.start[i];
        run.iteration = std::max(run.iteration, t.hot.end[i]);
      }
    } else if (t.kind == EventKind::Memcpy) {
      const std::string& name = s.streams[t.stream].name;
      for (int l = 0; l < kLinkCount; ++l) {
        // Named for people ("host → GPU"); files written before that used the keys.
        const auto link = static_cast<Link>(l);
        if (name != linkLabel(link) && name != toString(link)) continue;
        for (uint64_t b : t.memcpys.bytes)
          run.linkBytes[static_cast<size_t>(l)] += static_cast<int64_t>(b);
      }
    } else if (t.kind == EventKind::Range) {
      for (size_t i = 0; i < t.size(); ++i) run.stall += t.hot.end[i] - t.hot.start[i];
    }
  }
  // Each tier's counter has samples of its own (the GPU's changes within kernels): merged into
  // one usage list per run, each tier's value held until its next sample.
  std::vector<std::array<const CounterTrack*, 3>> tiersOf(runs.size(), {nullptr, nullptr, nullptr});
  for (const CounterTrack& c : s.counters) {
    if (c.device == kNone) continue;
    // "host memory used": as sessions saved before 2026-12 name it.
    int which = c.name == kGpuUsedCounter                                    ? 0
                : c.name == kHostUsedCounter || c.name == "host memory used" ? 1
                : c.name == kSsdUsedCounter                                  ? 2
                                                                             : -1;
    if (which >= 0) tiersOf[s.devices[c.device].rank][static_cast<size_t>(which)] = &c;
  }
  for (size_t r = 0; r < runs.size(); ++r) runs[r].usage = mergeTierSamples(tiersOf[r]);
  return runs;
}

}  // namespace ts::memsim
