// dataloader: steps that spent more than 5 % of their time in data loading
// (enumerate(DataLoader)… ranges on the CPU): the GPU waits for the next batch.
#include <string>

#include "analysis/rules/rules.h"
#include "util/format.h"

namespace ts {

void ruleDataLoader(const RuleInput& in, RuleOutput& out) {
  auto j = windowsAbove(in, "dataloader", in.options.dataLoaderShare,
                        [](const Step& w) { return w.dataLoader.value_or(0); });
  for (size_t r = 0; r < j.builders.size(); ++r) {
    if (j.builders[r].empty()) continue;
    out.findings.push_back(j.builders[r].finish(
        "Data loading took " + formatDuration(j.builders[r].cost()) + " " + j.where(in, r) + " (" +
            j.share(r) + " of their time; above " + percentOf(in.options.dataLoaderShare) +
            " each).",
        "Load batches in parallel with the step: DataLoader(num_workers=N) with N up to the CPU "
        "cores per GPU, pin_memory=True, persistent_workers=True and a prefetch_factor of 2 or "
        "more; move decoding and augmentation to the GPU (DALI) when the CPU cannot keep up."));
  }
}

}  // namespace ts
