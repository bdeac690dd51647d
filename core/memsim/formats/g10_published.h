// G10's published iteration times (its artifact's Figure 11 table,
// ../shared/data/g10/published.txt): per model and batch, GPU cycles per policy. Used to check our
// planners against G10's.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "memsim/engine/plan.h"
#include "util/result.h"

namespace ts::memsim {

struct PublishedRow {
  std::string model;  // "BERT", "ResNet152"
  int batch = 0;
  std::map<Policy, int64_t>
      cycles;  // G10's names mapped: prefetch_lru → g10, G10GDSSSD → g10-gds, ...
};

// G10's policy names: lru, FlashNeuron, deepUM, G10GDSSSD, G10GDSFULL, prefetch_lru (= g10), ideal.
std::optional<Policy> policyFromG10Name(std::string_view name);

// Reads the "## Figure 11" section, or the whole file when it has no sections (G10's own
// all.base.txt); "inf" (infeasible) reads as -1. Errors name the file and line.
Result<std::vector<PublishedRow>> loadG10Published(const std::string& path);

// The row for a G10 workload directory named "<Model>-<Batch>" (e.g. "BERT-256"), or nullptr.
const PublishedRow* findPublished(const std::vector<PublishedRow>& rows,
                                  const std::string& workloadName);

}  // namespace ts::memsim
