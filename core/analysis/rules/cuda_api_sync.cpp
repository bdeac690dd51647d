// cuda_api_sync (nsys): calls that make the CPU wait for the GPU — device, stream, event and
// context synchronisation, runtime and driver API alike. While one runs the CPU launches
// nothing, so the GPU drains and then idles until the CPU catches up.
#include <algorithm>
#include <array>
#include <string>

#include "analysis/rules/rules.h"
#include "util/format.h"

namespace ts {

namespace {

bool isSyncCall(std::string_view api) {
  // CUDA's runtime and driver calls, and HIP's (AMD traces) that do the same.
  static constexpr std::array<std::string_view, 9> names = {
      "cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize",
      "cuCtxSynchronize",      "cuStreamSynchronize",   "cuEventSynchronize",
      "hipDeviceSynchronize",  "hipStreamSynchronize",  "hipEventSynchronize"};
  for (std::string_view n : names) {
    if (api == n) return true;
  }
  return false;
}

}  // namespace

void ruleCudaApiSync(const RuleInput& in, RuleOutput& out) {
  const Session& s = in.session;
  auto builders = buildersPerRank(s, "cuda_api_sync");
  for (FindingBuilder& b : builders) b.setOccurrence("synchronising call");
  std::vector<TimeNs> waitedFor(builders.size());
  std::vector<uint8_t> isSync(s.strings.size(), 2);  // 2 unknown, 1 yes, 0 no: once per name
  for (uint32_t t = 0; t < s.tracks.size(); ++t) {
    const Track& track = s.tracks[t];
    if (track.kind != EventKind::Api) continue;
    uint32_t r = std::min<size_t>(rankOfThread(s, track.thread), builders.size() - 1);
    for (uint32_t i = 0; i < track.size(); ++i) {
      TimeNs a = track.hot.start[i], b = track.hot.end[i];
      if (a < in.range.start || a >= in.range.end) continue;
      StringId name = track.hot.name[i];
      uint8_t& known = isSync[name < isSync.size() ? name : 0];
      if (known == 2) known = isSyncCall(baseApiName(s.str(name))) ? 1 : 0;
      if (!known) continue;
      builders[r].add(a, b, b - a, t, i);
      waitedFor[r] += coveredWithin(in.busy.byRank[r], a, b);
    }
  }
  for (size_t r = 0; r < builders.size(); ++r) {
    if (builders[r].empty()) continue;
    TimeNs cost = builders[r].cost();
    out.findings.push_back(builders[r].finish(
        countOf(builders[r].count(), "synchronisation call") + " held the CPU for " +
            formatDuration(cost) + "; the GPU ran the work they waited for during " +
            formatDuration(waitedFor[r]) + " of it and sat idle for the other " +
            formatDuration(cost - waitedFor[r]) + ".",
        "Synchronise only where a result is needed, with events on the streams concerned rather "
        "than the whole device. In PyTorch, .item(), .cpu(), .tolist(), printing a CUDA tensor "
        "and torch.cuda.synchronize() synchronise; keep them out of the step."));
  }
}

}  // namespace ts
