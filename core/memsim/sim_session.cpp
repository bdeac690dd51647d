#include "memsim/sim_session.h"

#include <stdexcept>

#include "session/session_builder.h"

namespace ts::memsim {

SessionPtr simulationSession(const SimWorkload& w, const std::vector<PolicyRun>& runs, const TierConfig& tiers) {
  SessionBuilder b;
  b.provenance().sources.push_back({w.name, "simulation"});
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
    for (size_t k = 0; k < r.kernels.size(); ++k) {
      const SimKernelTime& t = r.kernels[k];
      if (t.stall > 0) b.addStreamRange(compute, t.start - t.stall, t.start, stallName, {category, {}});
      b.addKernel(compute, t.start, t.end, kernelNames[k], {});
    }
    uint32_t linkStream[kLinkCount];
    for (int l = 0; l < kLinkCount; ++l) {
      linkStream[l] = b.stream(device, static_cast<uint32_t>(10 + l));
      b.streamInfo(linkStream[l]).name = toString(static_cast<Link>(l));
    }
    for (const Migration& m : r.migrations) {
      MemcpyDetail d;
      d.bytes = static_cast<uint64_t>(m.bytes);
      d.copyKind = m.to == Tier::Gpu ? CopyKind::HtoD : CopyKind::DtoH;
      d.srcKind = m.from == Tier::Gpu ? MemoryKind::Device : m.from == Tier::Host ? MemoryKind::Pinned : MemoryKind::Unknown;
      d.dstKind = m.to == Tier::Gpu ? MemoryKind::Device : m.to == Tier::Host ? MemoryKind::Pinned : MemoryKind::Unknown;
      d.srcDevice = m.from == Tier::Gpu ? 0 : -1;
      d.dstDevice = m.to == Tier::Gpu ? 0 : -1;
      d.async = m.demand ? 0 : 1;
      b.addMemcpy(linkStream[static_cast<int>(m.link)], m.start, m.end, tensorNames[static_cast<size_t>(m.tensor)], d);
    }
    uint32_t process = b.process(rank, 1);
    b.processInfo(process).name = "tensors (" + std::string(toString(r.policy)) + ")";
    uint32_t onHost = b.thread(process, 1), onSsd = b.thread(process, 2);
    b.threadInfo(onHost).name = "in host memory";
    b.threadInfo(onSsd).name = "on the SSD";
    StringId hostCategory = b.intern("host"), ssdCategory = b.intern("ssd");
    for (const Residency& s : r.residency) {
      if (s.tier == Tier::Host) b.addRange(onHost, s.start, s.end, tensorNames[static_cast<size_t>(s.tensor)], {hostCategory, {}});
      if (s.tier == Tier::Ssd) b.addRange(onSsd, s.start, s.end, tensorNames[static_cast<size_t>(s.tensor)], {ssdCategory, {}});
    }
    for (const TierUsage& u : r.usage) {
      b.addCounterSample("GPU memory used", "bytes", device, kNone, u.time, static_cast<double>(u.gpu));
      b.addCounterSample("host memory used", "bytes", device, kNone, u.time, static_cast<double>(u.host));
      b.addCounterSample("SSD used", "bytes", device, kNone, u.time, static_cast<double>(u.ssd));
    }
  }
  auto built = b.build();
  // Everything above is well formed by construction; a failure here is a bug worth surfacing.
  if (!built) throw std::logic_error("simulated session: " + built.error());
  return *built;
}

}  // namespace ts::memsim
