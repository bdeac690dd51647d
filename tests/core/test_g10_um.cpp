// G10's unified-memory simulator held to its page-by-page reference: the run-based engine
// (g10_um_simulator.cpp), which repeats what repeats instead of deciding page by page, gives
// exactly the result of the reference (g10_um_pages.cpp) — every kernel's start and end, the
// traffic on every link, faults and memory use — for g10, lru and deepum on G10's own inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "g10_um_pages.h"
#include "memsim/engine/planners.h"
#include "memsim/engine/simulator.h"
#include "memsim/engine/tier_config.h"
#include "memsim/engine/vitality.h"
#include "memsim/formats/g10_inputs.h"

namespace ts::memsim {
namespace {

const std::string kInputs = std::string(TSCOPE_SHARED_DATA) + "/g10-inputs";

void expectSame(const SimResult& runs, const SimResult& pages, const std::string& what) {
  ASSERT_EQ(runs.feasible, pages.feasible) << what;
  ASSERT_EQ(runs.kernels.size(), pages.kernels.size()) << what;
  size_t differ = 0;
  for (size_t k = 0; k < runs.kernels.size(); ++k) {
    if (runs.kernels[k].start == pages.kernels[k].start &&
        runs.kernels[k].end == pages.kernels[k].end)
      continue;
    if (differ++ < 3)
      ADD_FAILURE() << what << ": kernel " << k << " runs " << runs.kernels[k].start << "-"
                    << runs.kernels[k].end << " pages " << pages.kernels[k].start << "-"
                    << pages.kernels[k].end;
  }
  EXPECT_EQ(differ, 0u) << what;
  EXPECT_EQ(runs.summary.iteration, pages.summary.iteration) << what;
  EXPECT_EQ(runs.summary.faults, pages.summary.faults) << what;
  EXPECT_EQ(runs.summary.demandBytes, pages.summary.demandBytes) << what;
  for (int l = 0; l < kLinkCount; ++l)
    EXPECT_EQ(runs.summary.linkBytes[static_cast<size_t>(l)],
              pages.summary.linkBytes[static_cast<size_t>(l)])
        << what << " link " << l;
  ASSERT_EQ(runs.usage.size(), pages.usage.size()) << what;
  for (size_t i = 0; i < runs.usage.size(); ++i) {
    EXPECT_EQ(runs.usage[i].gpu, pages.usage[i].gpu) << what << " usage " << i;
    EXPECT_EQ(runs.usage[i].host, pages.usage[i].host) << what << " usage " << i;
    EXPECT_EQ(runs.usage[i].ssd, pages.usage[i].ssd) << what << " usage " << i;
    if (::testing::Test::HasFailure()) return;
  }
}

struct Config {
  const char* model;
  int batch;
  double hostGiB = -1;  // < 0: G10's default
  double ssdGiBps = -1, pcieGiBps = -1;
};

void compare(const Config& c) {
  auto g = loadG10Inputs(kInputs, c.model, c.batch);
  ASSERT_TRUE(g.ok()) << g.error();
  const SimWorkload& w = g->workload;
  TierConfig tiers = *tierPreset("g10-default");
  constexpr double kGiB = 1073741824.0;
  if (c.hostGiB >= 0) tiers.hostBytes = static_cast<int64_t>(c.hostGiB * kGiB);
  if (c.ssdGiBps > 0) tiers.ssdGpuBandwidth = tiers.ssdHostBandwidth = c.ssdGiBps * kGiB;
  if (c.pcieGiBps > 0) tiers.gpuHostBandwidth = c.pcieGiBps * kGiB;
  const auto lives = analyzeVitality(w);
  for (Policy p : {Policy::G10, Policy::Lru, Policy::DeepUm}) {
    const Plan plan = makePlan(p, w, lives, tiers);
    const std::string what = std::string(c.model) + "-" + std::to_string(c.batch) + " " +
                             toString(p) + " host " + std::to_string(c.hostGiB) + " ssd " +
                             std::to_string(c.ssdGiBps) + " pcie " + std::to_string(c.pcieGiBps);
    expectSame(simulateG10Unified(w, plan, tiers), simulateG10UnifiedPages(w, plan, tiers), what);
  }
}

TEST(G10UnifiedMemory, RunsEqualPagesOnBert) {
  compare({"BERT", 128});
}
TEST(G10UnifiedMemory, RunsEqualPagesWithLittleHostMemory) {
  compare({"BERT", 256, 16});
}
TEST(G10UnifiedMemory, RunsEqualPagesWithoutHostMemory) {
  compare({"BERT", 256, 0});
}
// G10's SSD figure: PCIe at 32, the SSD's share of a batch from 10 to 50 pages.
TEST(G10UnifiedMemory, RunsEqualPagesWithOtherBandwidths) {
  compare({"VIT", 256, -1, 6.4, 32});
  compare({"BERT", 128, -1, 32, 32});
}

// G10's simulator counts whole pages: a kernel whose tensors fit the GPU in bytes but not in
// pages would evict its own pages for ever there. Ours says so instead, with the counts.
TEST(G10UnifiedMemory, AKernelNeedingMorePagesThanTheGpuIsInfeasible) {
  SimWorkload w;
  w.tensors = {{"a", 6144}, {"b", 6144}};  // 1.5 pages each: 12 KiB in bytes, 4 pages
  w.kernels = {{"k", 1000, {0}, {1}, 0, {}}};
  w.g10Cycles = w.g10InputPfCycles = w.g10PfCycles = {1200};
  TierConfig tiers = *tierPreset("g10-default");
  tiers.gpuBytes = 3 * 4096;
  const Plan plan = makePlan(Policy::Lru, w, analyzeVitality(w), tiers);
  const SimResult r = simulateG10Unified(w, plan, tiers);
  EXPECT_FALSE(r.feasible);
  EXPECT_NE(r.problem.find("kernel k needs 4 pages at once"), std::string::npos) << r.problem;
  EXPECT_NE(r.problem.find("the GPU's 3"), std::string::npos) << r.problem;
  tiers.gpuBytes = 4 * 4096;
  EXPECT_TRUE(
      simulateG10Unified(w, makePlan(Policy::Lru, w, analyzeVitality(w), tiers), tiers).feasible);
}

// Small random workloads that thrash: tensors of up to a few hundred batches, a GPU a little
// larger than the largest kernel, little or no host memory, bandwidths that split a batch
// unevenly between host and SSD. They reach the repetitions G10's own configurations reach
// rarely or late (a kernel faulting its own evicted pages back in, queues that drain over a few
// batches, several queues placing pages in one batch); each must give the page-by-page result.
TEST(G10UnifiedMemory, RunsEqualPagesOnRandomWorkloads) {
  std::mt19937_64 rng(20261205);
  auto uniform = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  constexpr int64_t kPage = 4096;
  for (int round = 0; round < 400; ++round) {
    SimWorkload w;
    const int tensors = static_cast<int>(uniform(4, 16));
    for (int t = 0; t < tensors; ++t) {
      SimTensor x;
      x.name = "t" + std::to_string(t);
      x.bytes = uniform(1, uniform(0, 1) ? 60 : 2000) * kPage - uniform(0, kPage - 1);
      x.global = uniform(0, 3) == 0;
      w.tensors.push_back(x);
    }
    const int kernels = static_cast<int>(uniform(3, 30));
    int64_t mostPages = 0;
    for (int k = 0; k < kernels; ++k) {
      SimKernel kern;
      kern.name = "k" + std::to_string(k);
      int64_t pages = 0;
      std::vector<int> used;
      auto pick = [&](std::vector<int>& list, int64_t n) {
        for (int64_t i = 0; i < n; ++i) {
          const int t = static_cast<int>(uniform(0, tensors - 1));
          if (std::find(used.begin(), used.end(), t) != used.end()) continue;
          used.push_back(t);
          list.push_back(t);
          pages += (w.tensors[static_cast<size_t>(t)].bytes + kPage - 1) / kPage;
        }
      };
      pick(kern.inputs, uniform(1, 3));
      pick(kern.outputs, uniform(1, 2));
      mostPages = std::max(mostPages, pages);
      const int64_t cycles = uniform(1, 400) * 5000;
      w.g10Cycles.push_back(cycles);
      w.g10PfCycles.push_back(cycles * uniform(10, 30) / 10);
      w.g10InputPfCycles.push_back(w.g10PfCycles.back() * uniform(10, 20) / 10);
      kern.duration = static_cast<TimeNs>(cycles / 1.2);
      w.kernels.push_back(kern);
    }
    TierConfig tiers = *tierPreset("g10-default");
    tiers.gpuBytes = (mostPages + uniform(0, mostPages)) * kPage;
    const int64_t hostChoice = uniform(0, 2);
    tiers.hostBytes = hostChoice == 0 ? 0 : hostChoice == 1 ? uniform(1, 3000) * kPage : 1 << 30;
    tiers.ssdGpuBandwidth = tiers.ssdHostBandwidth = static_cast<double>(uniform(2, 32)) * 1e9;
    tiers.gpuHostBandwidth = static_cast<double>(uniform(8, 32)) * 1e9;
    // TS_G10UM_ROUND=N runs round N alone (to look into a failure).
    const char* only = std::getenv("TS_G10UM_ROUND");
    if (only && round != std::atoi(only)) continue;
    const auto lives = analyzeVitality(w);
    for (Policy p : {Policy::G10, Policy::Lru, Policy::DeepUm}) {
      const Plan plan = makePlan(p, w, lives, tiers);
      expectSame(simulateG10Unified(w, plan, tiers), simulateG10UnifiedPages(w, plan, tiers),
                 "round " + std::to_string(round) + " " + toString(p));
      if (::testing::Test::HasFailure()) return;
    }
  }
}

// TS_G10UM_COMPARE="Model:batch[:hostGiB[:ssdGiBps:pcieGiBps]] ..." compares other
// configurations (slow: the reference takes seconds and gigabytes for the large ones).
TEST(G10UnifiedMemory, RunsEqualPagesOnRequest) {
  const char* list = std::getenv("TS_G10UM_COMPARE");
  if (!list) GTEST_SKIP() << "set TS_G10UM_COMPARE to compare more configurations";
  std::string s = list;
  size_t at = 0;
  while (at < s.size()) {
    size_t end = s.find(' ', at);
    if (end == std::string::npos) end = s.size();
    const std::string item = s.substr(at, end - at);
    at = end + 1;
    if (item.empty()) continue;
    std::vector<std::string> f;
    for (size_t from = 0;;) {
      const size_t colon = item.find(':', from);
      f.push_back(item.substr(from, colon - from));
      if (colon == std::string::npos) break;
      from = colon + 1;
    }
    ASSERT_GE(f.size(), 2u) << item;
    auto number = [&](size_t i) { return i < f.size() ? std::stod(f[i]) : -1.0; };
    compare({f[0].c_str(), std::stoi(f[1]), number(2), number(3), number(4)});
  }
}

}  // namespace
}  // namespace ts::memsim
