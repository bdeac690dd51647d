#include "memsim/engine/vitality.h"

#include <algorithm>

namespace ts::memsim {

const char* toString(TensorClass r) {
  switch (r) {
    case TensorClass::Weight:
      return "weight";
    case TensorClass::Activation:
      return "activation";
    case TensorClass::Gradient:
      return "gradient";
    case TensorClass::OptimizerState:
      return "optimizer state";
    case TensorClass::Workspace:
      return "workspace";
    case TensorClass::Other:
      break;
  }
  return "other";
}

std::vector<TensorClass> allTensorClasses() {
  std::vector<TensorClass> all;
  for (int r = 0; r <= static_cast<int>(TensorClass::Workspace); ++r)
    all.push_back(static_cast<TensorClass>(r));
  return all;
}

TimeNs SimWorkload::idealTime() const {
  TimeNs t = 0;
  for (const SimKernel& k : kernels) t += k.duration;
  return t;
}

std::vector<TensorLife> analyzeVitality(const SimWorkload& w) {
  const int n = static_cast<int>(w.kernels.size());
  std::vector<TensorLife> lives(w.tensors.size());
  for (size_t t = 0; t < lives.size(); ++t) {
    lives[t].tensor = static_cast<int>(t);
    lives[t].global = w.tensors[t].global;
  }
  for (int k = 0; k < n; ++k) {
    for (const auto* list :
         {&w.kernels[static_cast<size_t>(k)].inputs, &w.kernels[static_cast<size_t>(k)].outputs}) {
      for (int t : *list) {
        auto& uses = lives[static_cast<size_t>(t)].uses;
        if (uses.empty() || uses.back() != k) uses.push_back(k);  // kernels arrive in order
      }
    }
  }
  // Prefix sums of kernel time: an interval's duration in O(1).
  std::vector<TimeNs> prefix(static_cast<size_t>(n) + 1, 0);
  for (int k = 0; k < n; ++k)
    prefix[static_cast<size_t>(k) + 1] =
        prefix[static_cast<size_t>(k)] + w.kernels[static_cast<size_t>(k)].duration;
  auto span = [&](int from, int to) {
    return prefix[static_cast<size_t>(to)] - prefix[static_cast<size_t>(from)];
  };
  for (TensorLife& life : lives) {
    if (life.uses.empty()) continue;
    life.birth = life.uses.front();
    life.death = life.uses.back() + 1;
    for (size_t i = 1; i < life.uses.size(); ++i) {
      int from = life.uses[i - 1] + 1, to = life.uses[i];
      if (to > from) life.inactive.push_back({from, to, false, span(from, to)});
    }
    if (life.global) {
      // From after the last use round the end of the iteration to the first use of the next one
      // (G10 writes a start at the iteration's end as kernel 0).
      int from = (life.uses.back() + 1) % n, to = life.uses.front();
      if (from > to)
        life.inactive.push_back({from, to, true, span(from, n) + span(0, to)});
      else if (from < to)
        life.inactive.push_back({from, to, false, span(from, to)});
    }
  }
  return lives;
}

}  // namespace ts::memsim
