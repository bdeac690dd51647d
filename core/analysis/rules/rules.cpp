#include "analysis/rules/rules.h"

#include <algorithm>

namespace ts {

const std::vector<RuleInfo>& expertRules() {
  static const std::vector<RuleInfo> rules = {
      {"cuda_memcpy_async",
       "asynchronous copies with pageable host memory (they run synchronously)",
       ruleCudaMemcpyAsync},
      {"cuda_memcpy_sync", "synchronous copies (host-to-device copies of 64 KiB or less ignored)",
       ruleCudaMemcpySync},
      {"cuda_memset_sync", "synchronous memsets on pinned host or unified memory",
       ruleCudaMemsetSync},
      {"cuda_api_sync", "device, stream and event synchronisation calls", ruleCudaApiSync},
      {"gpu_gaps", "GPU idle longer than the gap threshold (500 ms)", ruleGpuGaps},
      {"gpu_time_util", "stretches of the GPU's span under 50 % busy", ruleGpuTimeUtil},
      {"host_bound", "steps whose GPU waits for the CPU's launches (host wait above 10 %)",
       ruleHostBound},
      {"launch_bound", "most operations end sooner than the CPU takes to launch them",
       ruleLaunchBound},
      {"exposed_comm", "communication not overlapped by computation above 10 % of a step",
       ruleExposedComm},
      {"dataloader", "data loading above 5 % of a step", ruleDataLoader},
      {"straggler", "the rank whose collectives start last", ruleStraggler},
      {"unified_memory", "unified-memory page migrations inside the steps", ruleUnifiedMemory},
  };
  return rules;
}

Result<std::vector<std::string>> parseRuleList(std::string_view text) {
  std::vector<std::string> out;
  while (!text.empty()) {
    size_t comma = text.find(',');
    std::string_view name = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    if (name.empty()) continue;
    bool known = std::any_of(expertRules().begin(), expertRules().end(),
                             [&](const RuleInfo& r) { return r.name == name; });
    if (!known) {
      std::string list;
      for (const RuleInfo& r : expertRules())
        list += (list.empty() ? "" : ", ") + std::string(r.name);
      return Error{"unknown rule '" + std::string(name) + "' (the rules: " + list + ")"};
    }
    out.emplace_back(name);
  }
  if (out.empty()) return Error{"no rule named"};
  return out;
}

RuleOutput runRules(const RuleInput& input, const std::vector<std::string>& names, bool byCost) {
  RuleOutput out;
  for (const RuleInfo& r : expertRules()) {
    if (!names.empty() && std::find(names.begin(), names.end(), r.name) == names.end()) continue;
    r.run(input, out);
  }
  if (byCost) rankByCost(out.findings);
  return out;
}

void rankByCost(std::vector<Finding>& findings) {
  std::stable_sort(findings.begin(), findings.end(),
                   [](const Finding& a, const Finding& b) { return a.cost > b.cost; });
}

size_t ruleIndex(std::string_view name) {
  const auto& rules = expertRules();
  for (size_t i = 0; i < rules.size(); ++i) {
    if (rules[i].name == name) return i;
  }
  return rules.size();
}

std::string ruleNoteText(const RuleNote& note) {
  const std::string& r = note.rule;
  const size_t n = note.count;
  if (r == "launch_bound")
    return r + ": " + countOf(n, "operation") + " without a known launching call are not counted.";
  if (r == "cuda_memcpy_async")
    return r + ": " + countOf(n, "copy") +
           " without a known launching call (no flow or correlation id) could not be judged.";
  if (r == "cuda_memcpy_sync")
    return r + ": " + countOf(n, "copy") + " without a known launching call could not be judged.";
  if (r == "cuda_memset_sync")
    return r + ": " + countOf(n, "memset") + " without a known launching call could not be judged.";
  if (r == "host_bound")
    return r +
           ": some idle gaps have an unknown cause (their operations' launching calls are not in "
           "the trace), so host wait may be more than shown.";
  return r + ": " + countOf(n, "event") + " could not be judged.";
}

std::string findingDeviceLabel(const RuleInput& in, uint32_t device) {
  const std::string& rank = in.options.jobRankLabel;
  return rank.empty() ? in.session.deviceLabel(device)
                      : rank + " · " + in.session.deviceLabel(device);
}

}  // namespace ts
