#include "memsim/engine/simulation.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "memsim/engine/planners.h"

namespace ts::memsim {

Result<std::vector<PolicyRun>> runPolicies(const SimWorkload& w,
                                           const std::vector<Policy>& policies,
                                           const TierConfig& tiers) {
  if (Status s = tiers.validate(); !s.ok()) return s.failure().prefixed("tier configuration: ");
  if (w.kernels.empty()) return Error{w.name + ": the workload has no kernels"};
  if (Status s = checkWorkingSets(w, tiers); !s.ok()) return s.failure().prefixed(w.name + ": ");
  const std::vector<TensorLife> lives = analyzeVitality(w);
  // Policies are independent (each plans and simulates on its own copy of nothing shared but the
  // workload, read-only): each core takes the next one.
  std::vector<PolicyRun> runs(policies.size());
  using Clock = std::chrono::steady_clock;
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < policies.size();) {
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
    }
  };
  const size_t helpers =
      std::min<size_t>(policies.size(), std::max(1u, std::thread::hardware_concurrency())) - 1;
  std::vector<std::thread> threads;
  for (size_t i = 0; i < helpers; ++i) threads.emplace_back(work);
  work();
  for (std::thread& t : threads) t.join();
  return runs;
}

}  // namespace ts::memsim
