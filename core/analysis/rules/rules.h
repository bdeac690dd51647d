// The expert rules: each reads the session and its diagnosis and reports what costs time, with
// where and what to do. The first six are named and defined as `nsys analyze` names them; the
// rest go beyond it (steps, communication, data loading, ranks).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analysis/rules/finding.h"
#include "util/result.h"

namespace ts {

using RuleFunction = void (*)(const RuleInput&, RuleOutput&);

struct RuleInfo {
  std::string_view name;
  std::string_view summary;  // one line, for --help and the GUI's tooltips
  RuleFunction run;
};

// Every rule, in the order `nsys analyze` lists its own, then ours.
const std::vector<RuleInfo>& expertRules();

// "cuda_api_sync,gpu_gaps" → those names; an unknown name is an error that lists the known ones.
Result<std::vector<std::string>> parseRuleList(std::string_view text);

// Runs the named rules (all when `names` is empty); findings ranked by cost, largest first.
RuleOutput runRules(const RuleInput& input, const std::vector<std::string>& names = {});

void ruleCudaMemcpyAsync(const RuleInput&, RuleOutput&);
void ruleCudaMemcpySync(const RuleInput&, RuleOutput&);
void ruleCudaMemsetSync(const RuleInput&, RuleOutput&);
void ruleCudaApiSync(const RuleInput&, RuleOutput&);
void ruleGpuGaps(const RuleInput&, RuleOutput&);
void ruleGpuTimeUtil(const RuleInput&, RuleOutput&);
void ruleHostBound(const RuleInput&, RuleOutput&);
void ruleLaunchBound(const RuleInput&, RuleOutput&);
void ruleExposedComm(const RuleInput&, RuleOutput&);
void ruleDataLoader(const RuleInput&, RuleOutput&);
void ruleStraggler(const RuleInput&, RuleOutput&);
void ruleUnifiedMemory(const RuleInput&, RuleOutput&);

}  // namespace ts
