// The memory model and measured lifetimes at scale: a model of 250, 1,000 and 4,000 layers (a
// convolution, BatchNorm and ReLU each) expanded into its training step and its step memory,
// beside the expansion alone (the peer: what every model command already pays); and a run of
// 25,000 and 100,000 allocations paired into tensor lifetimes, each tied to its op, beside a scan
// of the same counter for its peak. Both should grow linearly (4× the size, about 4× the time).
// Run: build/default/tests/bench/bench_memory --benchmark_repetitions=3
#include <benchmark/benchmark.h>

#include "analysis/measured_tensors.h"
#include "memsim/engine/simulation.h"
#include "memsim/engine/step_memory.h"
#include "memsim/engine/tier_config.h"
#include "memsim/formats/from_model.h"
#include "model/training_step.h"
#include "session/memory_counter.h"
#include "session/session_builder.h"

namespace {

using ts::model::ModelGraph;

// conv → bn → relu, `layers` times, at batch 32 on 56 × 56 × 64 activations.
ModelGraph chainModel(int layers) {
  ModelGraph g;
  g.name = "chain";
  g.batch = 32;
  auto tensor = [&](const std::string& name, std::vector<int64_t> shape, bool weight) {
    ts::model::Tensor t;
    t.name = name;
    t.type = ts::model::ElemType::Float;
    t.shape = std::move(shape);
    t.shapeKnown = true;
    t.weight = t.trainable = weight;
    g.tensors.push_back(t);
    return static_cast<int>(g.tensors.size()) - 1;
  };
  auto op = [&](const std::string& name, const char* type, std::vector<int> in) {
    const int out = tensor(name + ".out", {32, 64, 56, 56}, false);
    g.tensors[static_cast<size_t>(out)].producer = static_cast<int>(g.ops.size());
    ts::model::Op o;
    o.name = name;
    o.type = type;
    o.inputs = std::move(in);
    o.outputs = {out};
    o.flops = 1'000'000;
    g.ops.push_back(o);
    return out;
  };
  int x = tensor("input", {32, 64, 56, 56}, false);
  g.inputs.push_back(x);
  for (int l = 0; l < layers; ++l) {
    const std::string p = "l" + std::to_string(l);
    x = op(p + ".conv", "Conv", {x, tensor(p + ".w", {64, 64, 3, 3}, true)});
    x = op(p + ".bn", "BatchNormalization",
           {x, tensor(p + ".scale", {64}, true), tensor(p + ".bias", {64}, true)});
    x = op(p + ".relu", "Relu", {x});
  }
  g.outputs.push_back(x);
  return g;
}

void BM_TrainingStepExpansion(benchmark::State& state) {
  const ModelGraph g = chainModel(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(ts::model::expandTrainingStep(g));
}
BENCHMARK(BM_TrainingStepExpansion)->Arg(250)->Arg(1000)->Arg(4000)->Unit(benchmark::kMillisecond);

void BM_StepMemory(benchmark::State& state) {
  const ModelGraph g = chainModel(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    const ts::memsim::SimWorkload w =
        ts::memsim::workloadFromModel(g, ts::model::expandTrainingStep(g));
    benchmark::DoNotOptimize(ts::memsim::stepMemory(w).peak);
  }
}
BENCHMARK(BM_StepMemory)->Arg(250)->Arg(1000)->Arg(4000)->Unit(benchmark::kMillisecond);

// Its two parts on their own, the step expanded once: the workload made from it, and the sweep.
void BM_WorkloadFromModel(benchmark::State& state) {
  const ModelGraph g = chainModel(static_cast<int>(state.range(0)));
  const ts::model::TrainingStep step = ts::model::expandTrainingStep(g);
  for (auto _ : state) benchmark::DoNotOptimize(ts::memsim::workloadFromModel(g, step));
}
BENCHMARK(BM_WorkloadFromModel)->Arg(250)->Arg(1000)->Arg(4000)->Unit(benchmark::kMillisecond);

void BM_StepMemorySweep(benchmark::State& state) {
  const ModelGraph g = chainModel(static_cast<int>(state.range(0)));
  const ts::memsim::SimWorkload w =
      ts::memsim::workloadFromModel(g, ts::model::expandTrainingStep(g));
  for (auto _ : state) benchmark::DoNotOptimize(ts::memsim::stepMemory(w).peak);
}
BENCHMARK(BM_StepMemorySweep)->Arg(250)->Arg(1000)->Arg(4000)->Unit(benchmark::kMillisecond);

// Each policy planned and simulated on the chain model with GPU memory at half its step's peak
// (host memory ample): the planners' cost on a model workload, where every tensor moves.
void BM_PlanUnderHalfMemory(benchmark::State& state, ts::memsim::Policy policy) {
  const ModelGraph g = chainModel(static_cast<int>(state.range(0)));
  const ts::memsim::SimWorkload w =
      ts::memsim::workloadFromModel(g, ts::model::expandTrainingStep(g));
  ts::memsim::TierConfig tiers = *ts::memsim::tierPreset("g10-default");
  tiers.gpuBytes = ts::memsim::stepMemory(w).peak / 2;
  tiers.hostBytes = int64_t{1} << 40;
  for (auto _ : state) {
    auto runs = ts::memsim::runPolicies(w, {policy}, tiers);
    if (!runs) state.SkipWithError(runs.error().c_str());
    benchmark::DoNotOptimize(runs);
  }
}
// G10's planner grows faster than linearly (every round sorts and re-weighs every interval, as
// G10's code does): 4,000 layers took 253 s, so it stops at 2,000.
BENCHMARK_CAPTURE(BM_PlanUnderHalfMemory, g10, ts::memsim::Policy::G10)
    ->Arg(250)
    ->Arg(500)
    ->Arg(1000)
    ->Arg(2000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PlanUnderHalfMemory, lru, ts::memsim::Policy::Lru)
    ->Arg(250)
    ->Arg(1000)
    ->Arg(4000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PlanUnderHalfMemory, deepum, ts::memsim::Policy::DeepUm)
    ->Arg(250)
    ->Arg(1000)
    ->Arg(4000)
    ->Unit(benchmark::kMillisecond);

// `allocations` tensors, each allocated inside an op of a forward, backward or optimizer range
// on one of two threads, freed a few allocations later, as a training step's records come.
ts::SessionPtr allocationRun(int allocations) {
  ts::SessionBuilder b;
  const uint32_t rank = b.rank(0);
  const uint32_t device = b.device(rank, 0);
  const uint32_t process = b.process(rank, 1);
  const uint32_t threads[] = {b.thread(process, 1), b.thread(process, 2)};
  const ts::StringId names[] = {b.intern("aten::conv2d"),
                                b.intern("autograd::engine::evaluate_function: XBackward0"),
                                b.intern("Optimizer.step#SGD.step")};
  int64_t total = 0;
  for (int i = 0; i < allocations; ++i) {
    const ts::TimeNs t = 1000 * static_cast<ts::TimeNs>(i);
    b.addNvtx(threads[i % 2], t, t + 900, names[i % 3], {b.intern("cpu_op"), 0, 0});
    const int64_t bytes = 4096 + 512 * (i % 7);
    total += bytes;
    b.addCounterSample("Memory allocated", "bytes", device, ts::kNone,
                       {t + 10, static_cast<double>(total), bytes, 0x1000 + uint64_t(i) * 0x10000});
    if (i >= 4) {  // the one made four allocations ago goes
      const int j = i - 4;
      const int64_t freed = 4096 + 512 * (j % 7);
      total -= freed;
      b.addCounterSample(
          "Memory allocated", "bytes", device, ts::kNone,
          {t + 20, static_cast<double>(total), -freed, 0x1000 + uint64_t(j) * 0x10000});
    }
  }
  auto s = b.build();
  return s.ok() ? *s : nullptr;
}

void BM_MeasuredLifetimes(benchmark::State& state) {
  const ts::SessionPtr s = allocationRun(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(ts::measureTensorLifetimes(*s));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_MeasuredLifetimes)->Arg(25'000)->Arg(100'000)->Unit(benchmark::kMillisecond);

void BM_CounterPeakScan(benchmark::State& state) {
  const ts::SessionPtr s = allocationRun(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(ts::gpuMemoryPeak(*s, 0));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_CounterPeakScan)->Arg(25'000)->Arg(100'000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
