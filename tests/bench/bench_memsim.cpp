// Memory-tier what-ifs on G10's workloads: vitality + plan + two simulated iterations. Targets
// (BENCHMARKS.md): BERT batch 256 with the g10 policy ≤ 1 s and ≤ 300 MB resident; all seven
// policies ≤ 5 s. G10's own simulator needs ~100 s and 3.6 GiB for the BERT run.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <string>

#include "memsim/engine/simulation.h"
#include "memsim/formats/g10_inputs.h"
#include "memsim/formats/g10_workload.h"
#include "memsim/reports/g10_reproduce.h"
#include "memsim/reports/what_if.h"

namespace {

using namespace ts::memsim;

const std::string kData = TSCOPE_SHARED_DATA "/g10/";

void run(benchmark::State& state, const char* dir, std::vector<Policy> policies) {
  auto g = loadG10Workload(kData + dir);
  if (!g) {
    state.SkipWithError(g.error().c_str());
    return;
  }
  const TierConfig tiers = *tierPreset("g10-default");
  for (auto _ : state) {
    auto runs = runPolicies(g->workload, policies, tiers);
    benchmark::DoNotOptimize(runs);
  }
  state.counters["kernels"] = static_cast<double>(g->workload.kernels.size());
  state.counters["tensors"] = static_cast<double>(g->workload.tensors.size());
}

void BM_BertG10(benchmark::State& s) {
  run(s, "BERT-256", {Policy::G10});
}
void BM_BertAllPolicies(benchmark::State& s) {
  run(s, "BERT-256", allPolicies());
}
void BM_ResNet152AllPolicies(benchmark::State& s) {
  run(s, "ResNet152-1280", allPolicies());
}
void BM_SENet154AllPolicies(benchmark::State& s) {
  run(s, "SENet154-1024", allPolicies());
}

// Cost follows kernels × tensors, not bytes: the same workload with every tensor and every
// capacity and bandwidth 1024 times larger must take the same time.
void BM_BertG10BytesTimes1024(benchmark::State& state) {
  auto g = loadG10Workload(kData + "BERT-256");
  if (!g) {
    state.SkipWithError(g.error().c_str());
    return;
  }
  for (SimTensor& t : g->workload.tensors) t.bytes *= 1024;
  TierConfig tiers = *tierPreset("g10-default");
  tiers.gpuBytes *= 1024;
  tiers.hostBytes *= 1024;
  tiers.ssdBytes *= 1024;
  tiers.gpuHostBandwidth *= 1024;
  tiers.ssdGpuBandwidth *= 1024;
  tiers.ssdHostBandwidth *= 1024;
  for (auto _ : state) benchmark::DoNotOptimize(runPolicies(g->workload, {Policy::G10}, tiers));
}

// The what-if tab's step after a slider move: plan, simulate, build the session and lay out its
// timeline rows (target ≤ 200 ms for BERT-256). At 24 GB G10 moves data and LRU thrashes.
void whatIf(benchmark::State& state, Policy policy) {
  auto g = loadG10Workload(kData + "BERT-256");
  if (!g) {
    state.SkipWithError(g.error().c_str());
    return;
  }
  TierConfig tiers = *tierPreset("g10-default");
  tiers.gpuBytes = 24'000'000'000;
  size_t events = 0;
  for (auto _ : state) {
    WhatIf w = runWhatIf(g->workload, policy, tiers);
    events = w.session ? w.session->eventCount() : 0;
    benchmark::DoNotOptimize(w);
  }
  state.counters["events"] = static_cast<double>(events);
}
void BM_WhatIfBertG10(benchmark::State& s) {
  whatIf(s, Policy::G10);
}
void BM_WhatIfBertLru(benchmark::State& s) {
  whatIf(s, Policy::Lru);
}

// Loading the text files is part of what a user waits for; measured apart.
void BM_LoadBert(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(loadG10Workload(kData + "BERT-256"));
}

// Building a workload from G10's own inputs (model file, traces) instead of its config files.
void BM_BuildBertFromG10Inputs(benchmark::State& state) {
  for (auto _ : state)
    benchmark::DoNotOptimize(loadG10Inputs(kData + "../g10-inputs", "BERT", 256));
}

// G10's whole evaluation (simulate --reproduce): every experiment its scripts run, about 440
// simulations. Target: under 60 s on the 2-core machine (G10's artifact: about 19.5 hours on 6
// parallel jobs).
void BM_ReproduceG10Evaluation(benchmark::State& state) {
  int simulations = 0;
  for (auto _ : state) {
    simulations = 0;
    for (G10Experiment e : {G10Experiment::Batch, G10Experiment::SsdBandwidth,
                            G10Experiment::HostMemory, G10Experiment::Figure11}) {
      auto run = reproduceG10(kData + "../g10-inputs", e, "");
      if (!run)
        state.SkipWithError(run.error().c_str());
      else
        simulations += run->simulations;
    }
  }
  state.counters["simulations"] = simulations;
}

}  // namespace

BENCHMARK(BM_BuildBertFromG10Inputs)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReproduceG10Evaluation)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(BM_LoadBert)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BertG10)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BertG10BytesTimes1024)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_WhatIfBertG10)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_WhatIfBertLru)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BertAllPolicies)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ResNet152AllPolicies)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SENet154AllPolicies)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
