// exposed_comm: steps whose communication kernels (nccl*) ran without a computation kernel
// beside them for more than 10 % of the step: time the GPU spends only moving gradients.
#include <string>

#include "analysis/rules/rules.h"
#include "util/format.h"

namespace ts {

void ruleExposedComm(const RuleInput& in, RuleOutput& out) {
  auto j = windowsAbove(in, "exposed_comm", in.options.exposedCommShare,
                        [](const Step& w) { return w.exposedCommunication; });
  for (size_t r = 0; r < j.builders.size(); ++r) {
    if (j.builders[r].empty()) continue;
    out.findings.push_back(j.builders[r].finish(
        "Communication ran with no computation beside it for " +
            formatDuration(j.builders[r].cost()) + " " + j.where(in, r) + " (" + j.share(r) +
            " of their time; above " + percentOf(in.options.exposedCommShare) + " each).",
        "Overlap communication with the backward pass: in DDP tune bucket_cap_mb, let gradient "
        "accumulation skip the all-reduce (no_sync), in FSDP enable backward_prefetch and "
        "forward_prefetch; check the interconnect (NCCL_DEBUG=INFO) and whether one rank "
        "arrives late (the straggler finding)."));
  }
}

}  // namespace ts
