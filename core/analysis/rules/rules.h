// The expert rules: each reads the session and its diagnosis and reports what costs time, with
// where and what to do. The first six are named and defined as `nsys analyze` names them; the
// rest go beyond it (steps, communication, data loading, ranks).
#pragma once

#include <map>
#include <optional>
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

// Runs the named rules (all when `names` is empty); findings ranked by cost, largest first
// (`byCost` false: in the order the rules found them, rule by rule).
RuleOutput runRules(const RuleInput& input, const std::vector<std::string>& names = {},
                    bool byCost = true);
// Findings ranked by cost, largest first; equal costs keep their order.
void rankByCost(std::vector<Finding>& findings);
// The rule's position in expertRules() (its size for an unknown name).
size_t ruleIndex(std::string_view name);
// "launch_bound: 12 operations without a known launching call are not counted."
std::string ruleNoteText(const RuleNote& note);
// A GPU's name in a finding: Session::deviceLabel, with the job's rank label when the session is
// one rank diagnosed alone (RuleOptions::jobRankLabel).
std::string findingDeviceLabel(const RuleInput& in, uint32_t device);

// The straggler rule's reading of one rank: its communication kernels (nccl*) by name, each
// name's starts in time order (track and event kNone when not from a session at hand).
struct CommStart {
  TimeNs start = 0;
  uint32_t track = kNone, event = 0;
};
using RankCollectives = std::map<std::string, std::vector<CommStart>, std::less<>>;
std::vector<RankCollectives> collectivesByRank(const Session& session, const AnalysisRange& range);
// The straggler finding over the ranks' collectives (labels and numbers indexed like them), if
// one rank is last far more often than chance.
std::optional<Finding> stragglerFinding(const std::vector<RankCollectives>& ranks,
                                        const std::vector<std::string>& labels,
                                        const std::vector<int32_t>& rankNumbers);

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
