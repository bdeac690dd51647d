#include "memsim/engine/simulation.h"

#include <chrono>

#include "memsim/engine/planners.h"
#include "util/on_every_core.h"

namespace ts::memsim {

Result<std::vector<PolicyRun>> runPolicies(const SimWorkload& w,
                                           const std::vector<Policy>& policies,
                                           const TierConfig& tiers) {
  if (Status s = tiers.validate(); !s.ok()) return s.failure().prefixed("tier configuration: ");
  if (w.kernels.empty()) return Error{w.name + ": the workload has no kernels"};
  if (Status s = checkWorkingSets(w, tiers); !s.ok()) return s.failure().prefixed(w.name + ": ");
  const std::vector<TensorLife> lives = analyzeVitality(w);
  // Each policy plans and simulates on its own, reading the workload, lives and tiers: one per
  // core.
  std::vector<PolicyRun> runs(policies.size());
  using Clock = std::chrono::steady_clock;
  onEveryCore(policies.size(), [&](size_t i) {
    const Policy p = policies[i];
    PolicyRun& run = runs[i];
    auto t0 = Clock::now();
    run.plan = makePlan(p, w, lives, tiers);
    auto t1 = Clock::now();
    if (run.plan.feasible) {
      run.result = simulate(w, run.plan, tiers);
    } else {
      run.result.policy = p;
      run.result.feasible = false;
      run.result.problem = run.plan.problem;
      run.result.summary.ideal = w.idealTime();
    }
    auto t2 = Clock::now();
    run.planSeconds = std::chrono::duration<double>(t1 - t0).count();
    run.simulateSeconds = std::chrono::duration<double>(t2 - t1).count();
  });
  return runs;
}

}  // namespace ts::memsim
