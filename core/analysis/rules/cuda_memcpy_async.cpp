// cuda_memcpy_async (nsys): an asynchronous copy from or to pageable host memory cannot be done
// by DMA straight away; the driver stages it through a pinned buffer and the call returns only
// when the copy is done, so the CPU waits as if it were synchronous.
#include <algorithm>
#include <string>

#include "analysis/rules/rules.h"
#include "util/format.h"

namespace ts {

void ruleCudaMemcpyAsync(const RuleInput& in, RuleOutput& out) {
  const Session& s = in.session;
  auto builders = buildersPerRank(s, "cuda_memcpy_async");
  for (FindingBuilder& b : builders) b.setOccurrence("copy call");
  std::vector<uint64_t> bytes(builders.size());
  size_t unknown = forEachLaunched(
      in, EventKind::Memcpy,
      [&](uint32_t t, uint32_t i, uint32_t at, uint32_t ae, std::string_view api) {
        if (api.find("Async") == std::string_view::npos) return;
        const MemcpyColumns& m = s.tracks[t].memcpys;
        if (m.srcKind[i] != MemoryKind::Pageable && m.dstKind[i] != MemoryKind::Pageable) return;
        size_t r = addBlockingCall(in, builders, t, i, at, ae);
        bytes[r] += m.bytes[i];
      });
  for (size_t r = 0; r < builders.size(); ++r) {
    if (builders[r].empty()) continue;
    out.findings.push_back(builders[r].finish(
        countOf(builders[r].count(), "asynchronous copy") + " (" + formatBytes(bytes[r]) +
            ") had pageable host memory on one side, so each ran synchronously: the CPU waited " +
            formatDuration(builders[r].cost()) + " in those calls.",
        "Use pinned host memory for the buffers (cudaMallocHost / cudaHostAlloc; in PyTorch "
        "tensor.pin_memory() or DataLoader(pin_memory=True)) so the copies overlap with the "
        "CPU's work. Scalars read back each step (.item(), .cpu()) show up here too."));
  }
  if (unknown) out.notes.push_back({"cuda_memcpy_async", unknown});
}

}  // namespace ts
