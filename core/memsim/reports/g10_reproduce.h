// G10's evaluation, re-run on G10's own inputs: the experiments its scripts run
// (src/resources/genconfigs.py and the figure scripts beside it), each as one table of our
// results, with G10's published value and the difference beside ours when a file of G10's
// results is given.
//   batch    every traced batch of each model: lru, FlashNeuron, deepUM, G10, ideal
//   ssd-bw   SSD 6.4 / 12.8 / 19.2 / 25.6 / 32 GiB/s (PCIe 32 GiB/s), each model at its
//            figure's batch (BERT 512, ViT 1280, Inception 1536, ResNet 1280, SENet 1024): the
//            same policies
//   host-mem host memory 0 / 16 / 32 / 64 / 128 / 256 GiB (and 96 for SENet, 192 for ResNet),
//            four batches per model as G10's figure: G10 only
//   fig11    the five configurations of G10's Figure 11, all seven policies
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/stats_table.h"
#include "memsim/engine/plan.h"
#include "memsim/formats/sweep_table.h"
#include "util/result.h"

namespace ts::memsim {

enum class G10Experiment { Batch, SsdBandwidth, HostMemory, Figure11 };
std::optional<G10Experiment> parseG10Experiment(std::string_view name);  // "batch", "ssd-bw", ...
const char* toString(G10Experiment e);

struct ReproducePoint {
  std::string model;  // G10's experiment name
  int64_t batch = 0;
  double setting = 0;  // SSD GiB/s (ssd-bw) or host GiB (host-mem); 0 otherwise
  Policy policy = Policy::G10;
  bool feasible = false;
  int64_t cycles = 0;       // ours, GPU cycles at 1.2 GHz as G10 counts (0 where infeasible)
  int64_t idealCycles = 0;  // the configuration's ideal
  TimeNs stall = 0;         // ours: time kernels waited for data (0 where infeasible)
  std::optional<int64_t> published;  // G10's; -1 = G10 found it infeasible
};

struct ReproduceRun {
  G10Experiment experiment = G10Experiment::Batch;
  std::vector<ReproducePoint> points;
  std::vector<std::string> notes;  // configurations that could not run, and why
  int simulations = 0;
  double seconds = 0;
};

// Runs the experiment on the G10 folder `root` (g10_inputs.h) for `model` (empty: every model G10
// traced that the folder holds). Its simulations run on every core; `cancelled` is polled
// before each, from any of them (it must be safe to call from any thread).
Result<ReproduceRun> reproduceG10(const std::string& root, G10Experiment experiment,
                                  const std::string& model,
                                  const std::function<bool()>& cancelled = {});

// G10's results in the format its figure scripts write (example_results/.../<model>.txt): a header
// "lru | FlashNeuron | deepUM | prefetch_lru | ideal" (or batch sizes, for host memory), then per
// row its key (a batch, a bandwidth, a memory size) and one number per column, "inf" where
// infeasible. Figure 11 files (all.base.txt, ../shared/data/g10/published.txt) are read by
// g10_published.h. Fills each point's `published`; errors name the file and line.
Status attachPublished(ReproduceRun& run, const std::string& path, const std::string& model);

// One row per simulation: model, batch, setting, policy, feasible, our cycles, G10's, Δ %.
StatsTable reproduceTable(const ReproduceRun& run);
// Per model, the experiment as a sweep (simulate --sweep's table) for `export --sweep` to chart:
// key batch, ssd-bw (bytes/s) or host-mem (bytes). None for fig11.
std::vector<std::pair<std::string, SweepTable>> reproduceSweeps(const ReproduceRun& run);

}  // namespace ts::memsim
