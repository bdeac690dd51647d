// The baselines G10 is compared with: plain UVM demand paging with LRU eviction, DeepUM-style
// prefetching, FlashNeuron-style SSD offloading of forward activations, and the ideal.
#include <algorithm>
#include <unordered_set>

#include "memsim/engine/g10_quirks.h"
#include "memsim/engine/planners.h"
#include "util/format.h"

namespace ts::memsim {

namespace {

int64_t workingSet(const SimWorkload& w, const SimKernel& k) {
  int64_t bytes = k.workspaceBytes;
  std::unordered_set<int> seen;
  for (const auto* list : {&k.inputs, &k.outputs}) {
    for (int t : *list) {
      if (seen.insert(t).second) bytes += w.tensors[static_cast<size_t>(t)].bytes;
    }
  }
  return bytes;
}

}  // namespace

Status checkWorkingSets(const SimWorkload& w, const TierConfig& tiers) {
  for (size_t k = 0; k < w.kernels.size(); ++k) {
    int64_t ws = workingSet(w, w.kernels[k]);
    if (ws > tiers.gpuBytes) {
      return Error{"kernel " + std::to_string(k) + " (" + w.kernels[k].name + ") needs " +
                   formatBytes(ws) + " at once, more than the GPU memory of " +
                   formatBytes(tiers.gpuBytes)};
    }
  }
  return {};
}

Plan planDemandPaging(Policy policy, const SimWorkload& w, const std::vector<TensorLife>& lives) {
  Plan plan;
  plan.policy = policy;
  plan.unifiedMemory = true;
  if (policy == Policy::Lru) {
    // Plain UVM knows nothing of the program: in G10's workloads dead tensors keep their pages
    // until evicted, and are written back then. A model's training step runs under a framework
    // whose caching allocator hands a freed tensor's pages to the next allocation: freed at death.
    if (!w.fromG10()) {
      addFrees(w, lives, plan.actions);
      sortActions(plan.actions);
    }
    return plan;
  }
  // DeepUM: prefetch what the kernel k ahead will use, and keep it from LRU eviction. In G10's
  // workloads freed tensors keep their pages until LRU reaches them, which are then invalidated,
  // not written back; a model's training step frees them at death (as for LRU).
  constexpr int kDepth = 8;
  plan.protectNext = kDepth;
  plan.discardDead = true;
  const int n = static_cast<int>(w.kernels.size());
  for (int k = 0; k < n; ++k) {
    const SimKernel& ahead = w.kernels[static_cast<size_t>((k + kDepth) % n)];
    for (const auto* list : {&ahead.inputs, &ahead.outputs}) {
      for (int t : *list) plan.actions.push_back({k, t, Action::Prefetch});
    }
  }
  if (!w.fromG10()) addFrees(w, lives, plan.actions);  // as for LRU above
  sortActions(plan.actions);
  return plan;
}

Plan planFlashNeuron(const SimWorkload& w, const std::vector<TensorLife>& lives,
                     const TierConfig& tiers) {
  Plan plan;
  plan.policy = Policy::FlashNeuron;
  plan.unifiedMemory = false;
  plan.hostAllowed = false;  // FlashNeuron moves data between GPU and SSD only (GPUDirect)
  plan.evictFarthestFirst = true;
  const int n = static_cast<int>(w.kernels.size());
  addFrees(w, lives, plan.actions);
  if (w.lossKernel < 0) {
    plan.feasible = false;
    plan.problem =
        "FlashNeuron needs to know the loss kernel (forward/backward boundary), and this workload "
        "does not mark one";
    return plan;
  }
  const int loss = w.lossKernel;
  int64_t globals = 0, maxWorkingSet = 0;
  for (const SimTensor& t : w.tensors) {
    if (t.global) globals += t.bytes;
  }
  for (const SimKernel& k : w.kernels) maxWorkingSet = std::max(maxWorkingSet, workingSet(w, k));
  // What is left for activations kept across the loss once the weights and one kernel's working
  // set are reserved.
  const G10Quirks quirks = g10Quirks(w, tiers, Policy::FlashNeuron);
  const int64_t line =
      static_cast<int64_t>(static_cast<double>(tiers.gpuBytes) * quirks.flashNeuronGpuScale) -
      globals - maxWorkingSet;
  plan.note = quirks.note;
  plan.g10Copies = true;  // G10 runs FlashNeuron in its simulator of explicit copies
  if (line <= 0) {
    plan.feasible = false;
    plan.problem = "weights (" + formatBytes(globals) + ") and the largest working set (" +
                   formatBytes(maxWorkingSet) + ") leave no GPU memory for activations";
    return plan;
  }
  // Forward tensors still needed after the loss, in order of first use.
  std::vector<int> candidates;
  int64_t kept = 0;
  std::vector<char> seen(w.tensors.size(), 0);
  for (int k = 0; k < loss; ++k) {
    const SimKernel& kern = w.kernels[static_cast<size_t>(k)];
    for (const auto* list : {&kern.inputs, &kern.outputs}) {
      for (int t : *list) {
        const TensorLife& life = lives[static_cast<size_t>(t)];
        if (seen[static_cast<size_t>(t)] || life.global || life.death <= loss) continue;
        seen[static_cast<size_t>(t)] = 1;
        candidates.push_back(t);
        kept += w.tensors[static_cast<size_t>(t)].bytes;
      }
    }
  }
  const double ssdBw = tiers.ssdGpuBandwidth;
  for (int t : candidates) {
    if (kept < line) break;
    const TensorLife& life = lives[static_cast<size_t>(t)];
    // Offload at the start of its last idle window that begins in the forward pass.
    const InactiveInterval* window = nullptr;
    for (const InactiveInterval& iv : life.inactive) {
      if (!iv.wraps && iv.from <= loss) window = &iv;
    }
    if (!window) continue;
    plan.actions.push_back({window->from, t, Action::EvictToSsd});
    // Fetch it back early enough by the kernels' ideal times; the link decides the rest.
    const auto bytes = static_cast<double>(w.tensors[static_cast<size_t>(t)].bytes);
    const TimeNs need = tiers.ssdReadLatencyNs + static_cast<TimeNs>(bytes * 1e9 / ssdBw);
    int issue = window->to;
    TimeNs covered = 0;
    while (issue > window->from + 1 && covered < need)
      covered += w.kernels[static_cast<size_t>(--issue)].duration;
    plan.actions.push_back({issue, t, Action::Prefetch});
    kept -= w.tensors[static_cast<size_t>(t)].bytes;
  }
  if (kept > line) {
    plan.feasible = false;
    plan.problem = "offloading every forward activation still leaves " + formatBytes(kept) +
                   " for " + formatBytes(line) + " of GPU memory";
  }
  (void)n;
  sortActions(plan.actions);
  return plan;
}

Plan makePlan(Policy policy, const SimWorkload& w, const std::vector<TensorLife>& lives,
              const TierConfig& tiers) {
  switch (policy) {
    case Policy::Ideal: {
      Plan plan;
      plan.policy = Policy::Ideal;
      plan.infiniteGpu = true;
      addFrees(w, lives, plan.actions);
      sortActions(plan.actions);
      return plan;
    }
    case Policy::Lru:
    case Policy::DeepUm:
      return planDemandPaging(policy, w, lives);
    case Policy::FlashNeuron:
      return planFlashNeuron(w, lives, tiers);
    case Policy::G10:
    case Policy::G10Gds:
    case Policy::G10Host:
      return planG10Reference(policy, w, tiers);
  }
  return {};
}

}  // namespace ts::memsim
