#include "memsim/formats/run_tiers.h"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "session/session_summary.h"
#include "util/format.h"

namespace ts::memsim {

namespace {

std::string gibText(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f GiB", bytes / double(int64_t{1} << 30));
  return text;
}

}  // namespace

double measuredLinkBandwidth(const Session& run, uint32_t device) {
  std::vector<double> rates;
  for (const Track& t : run.tracks) {
    if (t.kind != EventKind::Memcpy || t.device != device) continue;
    for (uint32_t e = 0; e < t.size(); ++e) {
      const CopyKind kind = t.memcpys.copyKind[e];
      const bool pinned = (kind == CopyKind::HtoD && t.memcpys.srcKind[e] == MemoryKind::Pinned) ||
                          (kind == CopyKind::DtoH && t.memcpys.dstKind[e] == MemoryKind::Pinned);
      const TimeNs ns = t.hot.end[e] - t.hot.start[e];
      if (!pinned || t.memcpys.bytes[e] < (uint64_t{1} << 20) || ns <= 0) continue;
      rates.push_back(static_cast<double>(t.memcpys.bytes[e]) * 1e9 / static_cast<double>(ns));
    }
  }
  if (rates.empty()) return 0;
  std::nth_element(rates.begin(), rates.begin() + static_cast<std::ptrdiff_t>(rates.size() / 2),
                   rates.end());
  return rates[rates.size() / 2];
}

RunTiers tiersForRun(const TierConfig& base, const Session& run, uint32_t device) {
  RunTiers r{base, false, false, {}};
  if (device == kNone || device >= run.devices.size()) {
    const std::vector<DeviceKernelTime> busy = devicesByKernelTime(run);
    device = !busy.empty() ? busy.front().device : run.devices.empty() ? kNone : 0;
  }
  if (device == kNone || device >= run.devices.size()) {
    r.note = "tiers " + base.name + ": the run names no GPU";
    return r;
  }
  const Device& d = run.devices[device];
  const std::string gpu = d.name.empty() ? "GPU " + std::to_string(d.ordinal) : d.name;
  if (d.memoryBytes > 0) {
    r.tiers.gpuBytes = static_cast<int64_t>(d.memoryBytes);
    r.gpuFromRun = true;
    r.note = "GPU memory " + gibText(static_cast<double>(d.memoryBytes)) + ": the run's " + gpu;
  } else {
    r.note = "GPU memory " + gibText(static_cast<double>(base.gpuBytes)) + " (" + base.name +
             "): the run does not say how much " + gpu + " has";
  }
  if (double bw = measuredLinkBandwidth(run, device); bw > 0) {
    r.tiers.gpuHostBandwidth = bw;
    r.linkFromRun = true;
    r.note +=
        "; GPU ↔ host " + gibText(bw) + "/s, the median of its pinned copies of 1 MiB or more";
  } else {
    r.note += "; GPU ↔ host " + gibText(base.gpuHostBandwidth) + "/s (" + base.name +
              "): no pinned copy of 1 MiB or more to measure";
  }
  if (r.gpuFromRun || r.linkFromRun) r.tiers.name = base.name + " with the run's " + gpu;
  return r;
}

}  // namespace ts::memsim
