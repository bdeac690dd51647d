#include "memsim/formats/g10_plan.h"

#include <regex>
#include <unordered_map>

#include "io/text_file.h"
#include "memsim/engine/planners.h"
#include "util/parse_number.h"
#include "util/text.h"

namespace ts::memsim {

Result<Plan> loadG10Plan(const std::string& path, const G10Workload& g) {
  auto text = readTextFile(path);
  if (!text) return text.failure();
  const SimWorkload& w = g.workload;
  const int n = static_cast<int>(w.kernels.size());
  std::unordered_map<int, int> index;  // G10 id → ours
  for (size_t i = 0; i < g.tensorIds.size(); ++i) index[g.tensorIds[i]] = static_cast<int>(i);
  std::vector<int> birth(w.tensors.size(), -1);
  for (int k = n - 1; k >= 0; --k)
    for (const auto* list :
         {&w.kernels[static_cast<size_t>(k)].inputs, &w.kernels[static_cast<size_t>(k)].outputs})
      for (int t : *list) birth[static_cast<size_t>(t)] = k;

  Plan plan;
  plan.policy = Policy::G10;
  plan.unifiedMemory = true;
  plan.note = "G10's own plan (" + path + ")";
  static const std::regex line(
      R"(^Issued Time: (\d+) Tensor: (\d+) G:[ox] From: \w+, To: (In_gpu|In_cpu|In_ssd|Not_present)\s*$)");
  const auto lines = splitLines(text->view());
  std::vector<char> atEnd;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string l(lines[i]);
    if (l.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::smatch m;
    // (A hint line is short; a long one is refused before the regex, whose matcher recurses
    // per character.)
    if (l.size() > 256 || !std::regex_match(l, m, line))
      return Error{atLine(path, i + 1) +
                   "not a G10 hint ('Issued Time: K Tensor: T G:x From: "
                   "Not_Known, To: In_gpu')"};
    auto kernel = parseInteger<int>(m[1].str());
    auto id = parseInteger<int>(m[2].str());
    if (!kernel || *kernel > n)
      return Error{atLine(path, i + 1) + "kernel " + m[1].str() + " is past the iteration's " +
                   std::to_string(n) + " kernels"};
    auto it = id ? index.find(*id) : index.end();
    if (it == index.end())
      return Error{atLine(path, i + 1) + "tensor" + m[2].str() + " is not in the workload"};
    const int t = it->second;
    const int k = *kernel % n;
    const std::string to = m[3].str();
    Action::Kind kind = Action::Free;
    if (to == "In_gpu")
      kind = !w.tensors[static_cast<size_t>(t)].global && *kernel <= birth[static_cast<size_t>(t)]
                 ? Action::Allocate
                 : Action::Prefetch;
    else if (to == "In_cpu")
      kind = Action::EvictToHost;
    else if (to == "In_ssd")
      kind = Action::EvictToSsd;
    plan.actions.push_back({k, t, kind});
    atEnd.push_back(*kernel == n);
  }
  // Hints issued at the iteration's end run before kernel 0's (as G10's planner orders its own).
  std::vector<Action> ordered;
  for (int pass = 0; pass < 2; ++pass)
    for (size_t i = 0; i < plan.actions.size(); ++i)
      if (atEnd[i] == (pass == 0)) ordered.push_back(plan.actions[i]);
  plan.actions = std::move(ordered);
  sortActions(plan.actions);
  return plan;
}

}  // namespace ts::memsim
