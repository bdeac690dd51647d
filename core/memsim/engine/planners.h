// The planners: G10's smart migration (and its GPUDirect-Storage variants) and the baselines it
// is compared with. Each turns a workload and the tiers into a Plan for the simulator.
#pragma once

#include "memsim/engine/plan.h"
#include "memsim/engine/tier_config.h"
#include "memsim/engine/vitality.h"
#include "memsim/engine/workload.h"
#include "util/result.h"

namespace ts::memsim {

// The largest working set (the tensors one kernel reads and writes) must fit in GPU memory under
// every policy; the error names the kernel, its working set and the capacity.
Status checkWorkingSets(const SimWorkload& workload, const TierConfig& tiers);

Plan makePlan(Policy policy, const SimWorkload& workload, const std::vector<TensorLife>& lives,
              const TierConfig& tiers);

// Individual planners (makePlan dispatches to these).

// G10's own planner, step for step as its code plans (g10_reference_planner.cpp): g10, and its
// GPUDirect variants g10-gds and g10-host.
Plan planG10Reference(Policy variant, const SimWorkload& workload, const TierConfig& tiers);
Plan planFlashNeuron(const SimWorkload& workload, const std::vector<TensorLife>& lives,
                     const TierConfig& tiers);
Plan planDemandPaging(Policy policy, const SimWorkload& workload,
                      const std::vector<TensorLife>& lives);  // lru, deepum

// Frees at each non-global tensor's death (after its last use; weight gradients as the next
// iteration begins), in kernel order.
void addFrees(const SimWorkload& workload, const std::vector<TensorLife>& lives,
              std::vector<Action>& actions);
// Sorts by kernel; within a kernel frees, then evictions, then allocations and prefetches.
void sortActions(std::vector<Action>& actions);

}  // namespace ts::memsim
