// cuda_memset_sync (nsys): cudaMemset and the other memset calls without "Async" on pinned host
// or unified memory return only when the memset is done.
#include <algorithm>
#include <string>

#include "analysis/rules/rules.h"
#include "util/format.h"

namespace ts {

void ruleCudaMemsetSync(const RuleInput& in, RuleOutput& out) {
  const Session& s = in.session;
  auto builders = buildersPerRank(s, "cuda_memset_sync");
  for (FindingBuilder& b : builders) b.setOccurrence("memset call");
  size_t unknown = forEachLaunched(
      in, EventKind::Memset,
      [&](uint32_t t, uint32_t i, uint32_t at, uint32_t ae, std::string_view api) {
        bool setCall = api.starts_with("cudaMemset") || api.starts_with("cuMemset") ||
                       api.starts_with("hipMemset");
        if (!setCall || api.find("Async") != std::string_view::npos) return;
        MemoryKind k = s.tracks[t].memsets.memKind[i];
        if (k != MemoryKind::Pinned && k != MemoryKind::Managed && k != MemoryKind::ManagedStatic)
          return;
        addBlockingCall(in, builders, t, i, at, ae);
      });
  for (size_t r = 0; r < builders.size(); ++r) {
    if (builders[r].empty()) continue;
    out.findings.push_back(builders[r].finish(
        countOf(builders[r].count(), "synchronous memset") +
            " on pinned host or unified memory blocked the CPU for " +
            formatDuration(builders[r].cost()) + ".",
        "Use cudaMemsetAsync on a stream of your own, or set device memory instead."));
  }
  if (unknown) out.notes.push_back({"cuda_memset_sync", unknown});
}

}  // namespace ts
