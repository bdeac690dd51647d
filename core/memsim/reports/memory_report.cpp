#include "memsim/reports/memory_report.h"

#include <algorithm>

#include "session/kernel_name.h"
#include "util/format.h"

namespace ts::memsim {

namespace {

// Classes in the order reports list them; "other" (G10 workloads' unnamed tensors) last.
constexpr TensorClass kOrder[] = {TensorClass::Weight,         TensorClass::Gradient,
                                  TensorClass::OptimizerState, TensorClass::Activation,
                                  TensorClass::Workspace,      TensorClass::Other};

}  // namespace

std::string stepMemorySentence(const SimWorkload& w, const StepMemory& m) {
  if (m.peakKernel < 0) return "no kernels, no memory";
  std::string kinds;
  for (TensorClass c : kOrder) {
    if (m.atPeak(c) == 0) continue;
    kinds += (kinds.empty() ? "" : ", ") + std::string(toString(c)) + " " +
             formatBytes(static_cast<uint64_t>(m.atPeak(c)));
  }
  return "peak " + formatBytes(static_cast<uint64_t>(m.peak)) + " at kernel #" +
         std::to_string(m.peakKernel) + " " +
         std::string(shortKernelName(w.kernels[static_cast<size_t>(m.peakKernel)].name)) +
         (kinds.empty() ? "" : " (" + kinds + ")") +
         (w.unsizedTensors == 0
              ? ""
              : "; a lower bound: " + std::to_string(w.unsizedTensors) +
                    " tensors of unknown size (shape inference could not follow the model) count "
                    "as 0 bytes");
}

StatsTable stepMemoryTable(const SimWorkload& w, const StepMemory& m) {
  StatsTable t;
  t.report = "step_memory";
  t.title = "Memory allocated through the step, layer by layer — " + w.name;
  t.columns = {{"group", "Layer (phase)", StatsUnit::Text},
               {"first_kernel", "First kernel", StatsUnit::Count},
               {"last_kernel", "Last kernel", StatsUnit::Count},
               {"end_bytes", "At its end", StatsUnit::Bytes},
               {"max_bytes", "Most while it runs", StatsUnit::Bytes}};
  const size_t n = std::min(w.kernels.size(), m.live.size());
  for (size_t k = 0; k < n;) {
    const std::string& group = w.kernels[k].group;
    size_t last = k;
    while (!group.empty() && last + 1 < n && w.kernels[last + 1].group == group) ++last;
    int64_t most = 0;
    for (size_t i = k; i <= last; ++i) most = std::max(most, m.live[i]);
    t.rows.push_back({group.empty() ? w.kernels[k].name : group, static_cast<int64_t>(k),
                      static_cast<int64_t>(last), m.after[last], most});
    k = last + 1;
  }
  t.notes.push_back("Step memory with unlimited GPU memory: " + stepMemorySentence(w, m) + ".");
  for (const std::string& a : stepMemoryAssumptions()) t.notes.push_back("Assumed: " + a + ".");
  return t;
}

}  // namespace ts::memsim
