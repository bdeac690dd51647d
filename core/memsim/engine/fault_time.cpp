#include "memsim/engine/fault_time.h"

#include <algorithm>
#include <cmath>

namespace ts::memsim {

namespace {

constexpr double kSsdLatencyUs = 20;  // SSD_latency_us, as G10's planner
constexpr double kMallocUsPerByte = 0.000000814;

// G10's stand-in for "no measurable extra time" when two traces agree: about 1 TB/s.
constexpr double kUnmeasuredRate = 1063004400;  // bytes per ms

double ratio(int64_t part, int64_t whole) {
  return whole != 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0;
}

}  // namespace

double g10FaultDelayMs(const FaultTimeInputs& in, const KernelFaults& f) {
  const int64_t inFaults = f.inputHost + f.inputSsd + f.inputNew;
  const int64_t outFaults = f.outputHost + f.outputSsd + f.outputNew;
  const double rIn = ratio(inFaults, f.inputPages), rOut = ratio(outFaults, f.outputPages);
  const double rInSsd = ratio(f.inputSsd, inFaults), rOutSsd = ratio(f.outputSsd, outFaults);
  const double sIn = static_cast<double>(f.inputPages * in.pageBytes);
  const double sOut = static_cast<double>(f.outputPages * in.pageBytes);

  // The traces ordered as G10 orders them: plain ≤ outputs faulting ≤ all faulting.
  const double t11 = in.plainMs;
  const double t00 = std::max(in.allPfMs, t11);
  const double t10 = std::min(std::max(in.outputsPfMs, t11), t00);
  double hostIn = t00 == t10 ? kUnmeasuredRate : sIn / (t00 - t10);
  double hostOut = t10 == t11 ? kUnmeasuredRate : sOut / (t10 - t11);

  const double ssdShare = in.systemLatencyUs / (in.systemLatencyUs + in.ssdLatencyUs);
  double ssdIn = rInSsd == 0 ? 0 : std::min(hostIn * ssdShare, in.ssdBytesPerMs);
  double ssdOut = rOutSsd == 0 ? 0 : std::min(hostOut * ssdShare, in.ssdBytesPerMs);
  const double pcieLeft = in.pcieBytesPerMs - std::max(ssdIn, ssdOut);
  hostIn = std::min(hostIn, pcieLeft);
  hostOut = std::min(hostOut, pcieLeft);

  const double ssdTime = (rInSsd == 0 ? 0 : rIn * rInSsd * sIn / ssdIn) +
                         (rOutSsd == 0 ? 0 : rOut * rOutSsd * sOut / ssdOut);
  // A kernel without inputs (or outputs) has a 0/0 term here in G10, which its max() then
  // ignores along with the rest of the host term; kept, so that the same kernels cost the same.
  const double hostTime = rIn * (1 - rInSsd) * sIn / hostIn + rOut * (1 - rOutSsd) * sOut / hostOut;
  return std::max(ssdTime, hostTime);
}

G10UnifiedSettings g10UnifiedSettings(const TierConfig& tiers, bool hostAllowed) {
  G10UnifiedSettings s;
  s.hz = tiers.gpuClockHz;
  // G10's simulator reads its bandwidths as 10^9 bytes per GB (its planner as 2^30): the same
  // number in the configuration, so ours (in GiB, as the planner means it) is scaled back.
  const double decimal = 1e9 / static_cast<double>(int64_t{1} << 30);
  const double pcieGB = tiers.gpuHostBandwidth * decimal / 1e9;
  const double ssdGB = tiers.ssdGpuBandwidth * decimal / 1e9;
  s.pcieBytesPerCycle = tiers.gpuHostBandwidth * decimal / s.hz;
  s.ssdBytesPerCycle = tiers.ssdGpuBandwidth * decimal / s.hz;
  const double pageBytes = static_cast<double>(tiers.pageBytes);
  s.batchCycles = static_cast<int64_t>(kG10BatchPages * pageBytes / s.pcieBytesPerCycle);
  s.hostBatch = static_cast<int>(kG10BatchPages / pcieGB * pcieGB);
  s.ssdBatch = static_cast<int>(kG10BatchPages / pcieGB * ssdGB);
  const auto mallocCycles =
      static_cast<int64_t>(std::llround(kMallocUsPerByte * pageBytes / 1e6 * s.hz));
  s.allocBatch = static_cast<int>(mallocCycles > 0 ? s.batchCycles / mallocCycles : 1 << 30);
  s.gpuPages = static_cast<int64_t>(std::llround(static_cast<double>(tiers.gpuBytes) / pageBytes));
  s.hostLine = hostAllowed ? tiers.hostBytes / tiers.pageBytes : 0;
  return s;
}

int64_t g10FaultedCycles(const SimWorkload& w, int kernel, const KernelFaults& f,
                         const G10UnifiedSettings& s, const TierConfig& tiers) {
  const auto i = static_cast<size_t>(kernel);
  // G10 divides the kernel's cycles by its clock in whole numbers (both are longs there): the
  // times reach the model in whole seconds, 0 for every kernel shorter than one. The model then
  // serves faults at its "unmeasured" rate, capped by PCIe (and the SSD): faulted bytes over
  // the bandwidth. Reproduced as G10 computes it.
  const auto wholeHz = std::max<int64_t>(1, static_cast<int64_t>(s.hz));
  auto ms = [&](int64_t cycles) { return static_cast<double>(cycles / wholeHz * 1000); };
  FaultTimeInputs in;
  in.plainMs = ms(w.g10Cycles[i]);
  in.outputsPfMs = ms(w.g10InputPfCycles[i]);
  in.allPfMs = ms(w.g10PfCycles[i]);
  in.pcieBytesPerMs = s.pcieBytesPerCycle * s.hz / 1000;
  in.ssdBytesPerMs = s.ssdBytesPerCycle * s.hz / 1000;
  in.systemLatencyUs = static_cast<double>(tiers.systemLatencyNs / 1000);
  in.ssdLatencyUs = kSsdLatencyUs;
  in.pageBytes = tiers.pageBytes;
  const double delay = g10FaultDelayMs(in, f);
  return static_cast<int64_t>(delay / 1000 * s.hz) + w.g10Cycles[i];
}

}  // namespace ts::memsim
