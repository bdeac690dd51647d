// cuda_memcpy_sync (nsys): cudaMemcpy and the other copy calls without "Async" return only when
// the copy is done, stalling the CPU (and, on the legacy default stream, every other stream).
// Host-to-device copies of 64 KiB or less are ignored, as nsys does: the driver stages them and
// returns before the copy.
#include <algorithm>
#include <string>

#include "analysis/rules/rules.h"
#include "util/format.h"

namespace ts {

void ruleCudaMemcpySync(const RuleInput& in, RuleOutput& out) {
  const Session& s = in.session;
  auto builders = buildersPerRank(s, "cuda_memcpy_sync");
  for (FindingBuilder& b : builders) b.setOccurrence("copy call");
  std::vector<uint64_t> bytes(builders.size());
  size_t unknown = forEachLaunched(
      in, EventKind::Memcpy,
      [&](uint32_t t, uint32_t i, uint32_t at, uint32_t ae, std::string_view api) {
        bool copyCall = api.starts_with("cudaMemcpy") || api.starts_with("cuMemcpy") ||
                        api.starts_with("hipMemcpy");
        if (!copyCall || api.find("Async") != std::string_view::npos) return;
        const MemcpyColumns& m = s.tracks[t].memcpys;
        if (m.copyKind[i] == CopyKind::HtoD && m.bytes[i] <= in.options.syncCopyMinHtoD) return;
        size_t r = addBlockingCall(in, builders, t, i, at, ae);
        bytes[r] += m.bytes[i];
      });
  for (size_t r = 0; r < builders.size(); ++r) {
    if (builders[r].empty()) continue;
    out.findings.push_back(builders[r].finish(
        countOf(builders[r].count(), "synchronous copy") + " (" + formatBytes(bytes[r]) +
            ") blocked the CPU for " + formatDuration(builders[r].cost()) +
            " until each copy was done.",
        "Use cudaMemcpyAsync on a stream of your own with pinned host memory and synchronise "
        "only where the result is needed (in PyTorch: tensor.to(device, non_blocking=True) "
        "from pinned memory)."));
  }
  if (unknown) out.notes.push_back({"cuda_memcpy_sync", unknown});
}

}  // namespace ts
