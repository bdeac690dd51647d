#include "advisor/hetero.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace ts::advisor {

const char* toString(SpeedSource source) {
  switch (source) {
    case SpeedSource::Given:
      return "given";
    case SpeedSource::Estimated:
      return "estimated";
    case SpeedSource::Measured:
      return "measured";
  }
  return "given";
}

int64_t ringAllReduceNs(int64_t bytes, int devices, const Interconnect& link) {
  if (devices <= 1 || bytes <= 0) return 0;
  const double n = devices;
  const double transfer = 2 * (n - 1) / n * static_cast<double>(bytes) / link.bytesPerSecond;
  return static_cast<int64_t>(std::llround(transfer * 1e9 + 2 * (n - 1) * link.latencyNs));
}

namespace {

int64_t computeNs(int64_t batch, double samplesPerSecond) {
  return static_cast<int64_t>(std::llround(static_cast<double>(batch) / samplesPerSecond * 1e9));
}

DataSplit timed(std::vector<int64_t> batch, const std::vector<HeteroDevice>& devices,
                int64_t gradientBytes, const Interconnect& link) {
  DataSplit s;
  s.batch = std::move(batch);
  int64_t slowest = 0;
  for (size_t i = 0; i < devices.size(); ++i) {
    s.computeNs.push_back(computeNs(s.batch[i], devices[i].samplesPerSecond));
    slowest = std::max(slowest, s.computeNs.back());
    s.updateNs = std::max(s.updateNs, devices[i].updateNs);
  }
  s.allReduceNs = ringAllReduceNs(gradientBytes, static_cast<int>(devices.size()), link);
  s.stepNs = slowest + s.allReduceNs + s.updateNs;
  return s;
}

// `total` shared among `weights` in proportion, as integers (largest remainders), each at least
// `atLeast`.
std::vector<int64_t> apportion(int64_t total, const std::vector<double>& weights, int64_t atLeast) {
  const double sum = std::accumulate(weights.begin(), weights.end(), 0.0);
  std::vector<int64_t> out(weights.size(), atLeast);
  int64_t left = total - atLeast * static_cast<int64_t>(weights.size());
  if (left <= 0 || sum <= 0) return out;
  std::vector<std::pair<double, size_t>> remainders;
  int64_t given = 0;
  for (size_t i = 0; i < weights.size(); ++i) {
    // The share of the whole, less what every device gets anyway.
    const double ideal =
        static_cast<double>(total) * weights[i] / sum - static_cast<double>(atLeast);
    const int64_t whole = std::max<int64_t>(0, static_cast<int64_t>(std::floor(ideal)));
    out[i] += whole;
    given += whole;
    remainders.emplace_back(ideal - static_cast<double>(whole), i);
  }
  // Rounding down can overshoot only when the minimum took more than a share: trim the largest.
  while (given > left) {
    auto most = std::max_element(out.begin(), out.end());
    --*most, --given;
  }
  std::stable_sort(remainders.begin(), remainders.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t k = 0; given < left; k = (k + 1) % remainders.size()) {
    ++out[remainders[k].second];
    ++given;
  }
  return out;
}

}  // namespace

Result<DataParallelPlan> planDataParallel(const std::vector<HeteroDevice>& devices,
                                          int64_t globalBatch, int64_t gradientBytes,
                                          const Interconnect& link) {
  const size_t n = devices.size();
  if (n == 0) return Error{"no devices to split the job across"};
  if (globalBatch < static_cast<int64_t>(n))
    return Error{"a batch of " + std::to_string(globalBatch) + " cannot be split across " +
                 std::to_string(n) + " devices (each needs at least one sample)"};
  for (const HeteroDevice& d : devices) {
    if (!(d.samplesPerSecond > 0)) return Error{"device " + d.type + " has no positive throughput"};
  }
  int64_t room = 0;  // the samples the devices hold together, when each says
  bool unlimited = false;
  for (const HeteroDevice& d : devices) {
    if (d.maxBatch)
      room += *d.maxBatch;
    else
      unlimited = true;
  }
  if (!unlimited && room < globalBatch)
    return Error{"a batch of " + std::to_string(globalBatch) +
                 " does not fit: the devices hold at most " + std::to_string(room) +
                 " samples together"};
  for (const HeteroDevice& d : devices) {
    if (d.maxBatch && *d.maxBatch < 1)
      return Error{"device " + d.type + " cannot hold even one sample of this model"};
  }

  // Water-filling: shares in proportion to speed; a device whose share exceeds what fits keeps
  // what fits and the rest is shared again among the others.
  DataParallelPlan plan;
  plan.globalBatch = globalBatch;
  std::vector<int64_t> batch(n, 0);
  std::vector<bool> fixed(n, false);
  int64_t left = globalBatch;
  for (;;) {
    std::vector<double> weights;
    std::vector<size_t> open;
    for (size_t i = 0; i < n; ++i) {
      if (fixed[i]) continue;
      open.push_back(i);
      weights.push_back(devices[i].samplesPerSecond);
    }
    std::vector<int64_t> shares = apportion(left, weights, 1);
    bool cut = false;
    for (size_t k = 0; k < open.size(); ++k) {
      const HeteroDevice& d = devices[open[k]];
      if (d.maxBatch && shares[k] > *d.maxBatch) {
        batch[open[k]] = *d.maxBatch;
        fixed[open[k]] = true;
        left -= *d.maxBatch;
        cut = plan.capped = true;
      }
    }
    if (cut) continue;
    for (size_t k = 0; k < open.size(); ++k) batch[open[k]] = shares[k];
    break;
  }
  plan.balanced = timed(batch, devices, gradientBytes, link);
  std::vector<int64_t> even(n, globalBatch / static_cast<int64_t>(n));
  for (int64_t i = 0; i < globalBatch % static_cast<int64_t>(n); ++i)
    ++even[static_cast<size_t>(i)];
  plan.even = timed(even, devices, gradientBytes, link);
  plan.speedup = plan.balanced.stepNs > 0 ? static_cast<double>(plan.even.stepNs) /
                                                static_cast<double>(plan.balanced.stepNs)
                                          : 1;
  return plan;
}

namespace {

// A stage's figures: layers [first, end) on device d.
PipelineStage stageOf(const std::vector<PipelineLayer>& layers, size_t d, size_t first, size_t end,
                      const Interconnect& link) {
  PipelineStage s;
  s.device = d, s.firstLayer = first, s.endLayer = end;
  for (size_t l = first; l < end; ++l) {
    s.computeNs += layers[l].nsOnDevice[d];
    s.memoryBytes += layers[l].memoryBytes;
  }
  if (first > 0 && layers[first - 1].activationBytes > 0) {
    // The activation in, its gradient back out.
    const double bytes = 2.0 * static_cast<double>(layers[first - 1].activationBytes);
    s.transferNs =
        static_cast<int64_t>(std::llround(bytes / link.bytesPerSecond * 1e9 + 2 * link.latencyNs));
  }
  return s;
}

PipelineSplit splitOf(std::vector<PipelineStage> stages) {
  PipelineSplit p;
  for (const PipelineStage& s : stages) p.stepNs = std::max(p.stepNs, s.stageNs());
  p.stages = std::move(stages);
  return p;
}

}  // namespace

Result<PipelinePlan> planPipeline(const std::vector<PipelineLayer>& layers,
                                  const std::vector<HeteroDevice>& devices,
                                  const std::vector<int64_t>& deviceMemory,
                                  const Interconnect& link) {
  const size_t L = layers.size(), D = devices.size();
  if (D == 0) return Error{"no devices to split the model across"};
  if (L < D)
    return Error{"the model has " + std::to_string(L) + " layers: too few for " +
                 std::to_string(D) + " pipeline stages (one layer each at least)"};
  for (const PipelineLayer& l : layers) {
    if (l.nsOnDevice.size() != D) return Error{"layer " + l.name + " has no time on some device"};
  }
  auto fits = [&](size_t d, const PipelineStage& s) {
    return d >= deviceMemory.size() || deviceMemory[d] <= 0 || s.memoryBytes <= deviceMemory[d];
  };
  constexpr int64_t kNever = std::numeric_limits<int64_t>::max();
  // best[d][j]: the slowest stage of the best split of layers [0, j) over devices [0, d].
  std::vector<std::vector<int64_t>> best(D, std::vector<int64_t>(L + 1, kNever));
  std::vector<std::vector<size_t>> from(D, std::vector<size_t>(L + 1, 0));
  for (size_t j = 1; j + (D - 1) <= L; ++j) {
    PipelineStage s = stageOf(layers, 0, 0, j, link);
    if (fits(0, s)) best[0][j] = s.stageNs();
  }
  for (size_t d = 1; d < D; ++d) {
    for (size_t j = d + 1; j + (D - 1 - d) <= L; ++j) {
      for (size_t i = d; i < j; ++i) {
        if (best[d - 1][i] == kNever) continue;
        PipelineStage s = stageOf(layers, d, i, j, link);
        if (!fits(d, s)) continue;
        const int64_t worst = std::max(best[d - 1][i], s.stageNs());
        if (worst < best[d][j]) best[d][j] = worst, from[d][j] = i;
      }
    }
  }
  if (best[D - 1][L] == kNever)
    return Error{"no split of the model's layers fits the devices' memory"};
  std::vector<PipelineStage> stages(D);
  for (size_t d = D, end = L; d-- > 0;) {
    const size_t first = d == 0 ? 0 : from[d][end];
    stages[d] = stageOf(layers, d, first, end, link);
    end = first;
  }
  PipelinePlan plan;
  plan.balanced = splitOf(std::move(stages));
  std::vector<PipelineStage> even;
  for (size_t d = 0, first = 0; d < D; ++d) {
    const size_t count = L / D + (d < L % D ? 1 : 0);
    even.push_back(stageOf(layers, d, first, first + count, link));
    first += count;
  }
  plan.even = splitOf(std::move(even));
  plan.speedup = plan.balanced.stepNs > 0 ? static_cast<double>(plan.even.stepNs) /
                                                static_cast<double>(plan.balanced.stepNs)
                                          : 1;
  return plan;
}

std::string dataParallelAdvice(const DataParallelPlan& plan) {
  char speedup[32];
  std::snprintf(speedup, sizeof speedup, "%.2f", plan.speedup);
  std::string text = plan.speedup > 1.005
                         ? std::string("split the batch in proportion to throughput: ") + speedup +
                               "× faster per step than the even split"
                         : "the even split is as fast: keep it";
  if (plan.capped) text += " (a device's share was cut to what its memory holds)";
  return text;
}

std::string pipelineAdvice(const PipelinePlan& plan) {
  char speedup[32];
  std::snprintf(speedup, sizeof speedup, "%.2f", plan.speedup);
  return plan.speedup > 1.005 ? std::string("place the layers as above: ") + speedup +
                                    "× faster per step than the even split"
                              : "the even split is as fast: keep it";
}

}  // namespace ts::advisor
