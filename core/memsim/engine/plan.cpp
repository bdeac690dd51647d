#include "memsim/engine/plan.h"

#include <algorithm>

#include "memsim/engine/planners.h"

namespace ts::memsim {

const char* toString(Policy p) {
  switch (p) {
    case Policy::G10:
      return "g10";
    case Policy::Lru:
      return "lru";
    case Policy::DeepUm:
      return "deepum";
    case Policy::FlashNeuron:
      return "flashneuron";
    case Policy::G10Gds:
      return "g10-gds";
    case Policy::G10Host:
      return "g10-host";
    case Policy::Ideal:
      return "ideal";
  }
  return "?";
}

std::vector<Policy> allPolicies() {
  return {Policy::G10,    Policy::Lru,     Policy::DeepUm, Policy::FlashNeuron,
          Policy::G10Gds, Policy::G10Host, Policy::Ideal};
}

std::optional<Policy> parsePolicy(std::string_view name) {
  for (Policy p : allPolicies()) {
    if (name == toString(p)) return p;
  }
  return std::nullopt;
}

const char* toString(Tier t) {
  switch (t) {
    case Tier::None:
      return "none";
    case Tier::Gpu:
      return "gpu";
    case Tier::Host:
      return "host";
    case Tier::Ssd:
      return "ssd";
  }
  return "?";
}

const char* toString(Action::Kind k) {
  switch (k) {
    case Action::Allocate:
      return "allocate";
    case Action::Free:
      return "free";
    case Action::EvictToHost:
      return "evict-to-host";
    case Action::EvictToSsd:
      return "evict-to-ssd";
    case Action::Prefetch:
      return "prefetch";
  }
  return "?";
}

void sortActions(std::vector<Action>& actions) {
  auto rank = [](Action::Kind k) {
    switch (k) {
      case Action::Free:
        return 0;
      case Action::EvictToHost:
      case Action::EvictToSsd:
        return 1;
      default:
        return 2;
    }
  };
  std::stable_sort(actions.begin(), actions.end(), [&](const Action& a, const Action& b) {
    return a.kernel != b.kernel ? a.kernel < b.kernel : rank(a.kind) < rank(b.kind);
  });
}

void addFrees(const SimWorkload& w, const std::vector<TensorLife>& lives,
              std::vector<Action>& actions) {
  const int n = static_cast<int>(w.kernels.size());
  for (const TensorLife& life : lives) {
    if (life.global || life.uses.empty()) continue;
    // A weight gradient lives until the next iteration begins (the memory model's lifetime).
    const bool untilEnd = w.tensors[static_cast<size_t>(life.tensor)].untilIterationEnd;
    actions.push_back({untilEnd ? 0 : life.death % n, life.tensor, Action::Free});
  }
}

}  // namespace ts::memsim
