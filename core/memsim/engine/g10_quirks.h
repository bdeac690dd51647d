// G10's own special cases: places where G10's code (github.com/platformxlab/G10 @ de2c8c6) treats
// a model, batch or bandwidth differently from the rest, reproduced so that our g10 gives what
// G10 published for those configurations. Each is listed in docs/g10-fidelity.md with where in
// G10 it comes from; a workload that is not one of G10's models has none.
#pragma once

#include <string>

#include "memsim/engine/plan.h"
#include "memsim/engine/tier_config.h"
#include "memsim/engine/workload.h"

namespace ts::memsim {

struct G10Quirks {
  // G10's "loosen" factor: its planner aims at this multiple of the GPU's memory, so it plans
  // fewer evictions than the memory needs and the rest fault at run time.
  double targetScale = 1.0;
  // FlashNeuron's memory for activations starts from this share of the GPU's memory.
  double flashNeuronGpuScale = 1.0;
  std::string note;  // for the report, empty when there is none
};

G10Quirks g10Quirks(const SimWorkload& workload, const TierConfig& tiers, Policy policy);

}  // namespace ts::memsim
