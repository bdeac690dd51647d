// The advisor's heterogeneous-training splits, on cases worked out by hand: the text's K80/V100
// example (data and pipeline parallel), memory caps, the ring all-reduce, activation transfers;
// and the model-based estimate on a built-in model.
#include <gtest/gtest.h>

#include <cmath>

#include "advisor/consolidate.h"
#include "advisor/hetero.h"
#include "advisor/hetero_inputs.h"
#include "advisor/hetero_timeline.h"
#include "advisor/model_estimate.h"
#include "advisor/multiplex.h"
#include "advisor/multiplex_advice.h"
#include "io/open_session.h"
#include "model/model_zoo.h"
#include "model/onnx_loader.h"
#include "session/session_builder.h"

namespace ts::advisor {
namespace {

HeteroDevice given(const char* type, double speed, std::optional<int64_t> maxBatch = {}) {
  HeteroDevice d;
  d.type = type;
  d.samplesPerSecond = speed;
  d.maxBatch = maxBatch;
  return d;
}

TEST(Hetero, TheTextsDataParallelExample) {
  // "with a V100 twice as fast as a K80, batch N on the K80 and 2N on the V100": N = 32.
  auto plan = planDataParallel({given("K80", 1), given("V100", 2)}, 96, 0, {});
  ASSERT_TRUE(plan.ok()) << plan.error();
  EXPECT_EQ(plan->balanced.batch, (std::vector<int64_t>{32, 64}));
  // 32 samples at 1 per second on each: 32 s; the even split leaves the K80 48 s.
  EXPECT_EQ(plan->balanced.stepNs, 32'000'000'000);
  EXPECT_EQ(plan->even.batch, (std::vector<int64_t>{48, 48}));
  EXPECT_EQ(plan->even.stepNs, 48'000'000'000);
  EXPECT_DOUBLE_EQ(plan->speedup, 1.5);
  EXPECT_FALSE(plan->capped);
}

TEST(Hetero, SharesAreIntegersThatAddUp) {
  // 100 over speeds 1, 1, 1: 34, 33, 33 (the largest remainder first, in order).
  auto plan = planDataParallel({given("a", 1), given("b", 1), given("c", 1)}, 100, 0, {});
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->balanced.batch, (std::vector<int64_t>{34, 33, 33}));
  // A slow device still gets a sample: speeds 1 and 1000 over 10 → 1 and 9.
  auto skewed = planDataParallel({given("slow", 1), given("fast", 1000)}, 10, 0, {});
  ASSERT_TRUE(skewed.ok());
  EXPECT_EQ(skewed->balanced.batch, (std::vector<int64_t>{1, 9}));
}

TEST(Hetero, MemoryCapsMoveTheExcessToTheOthers) {
  // The K80 holds 20 samples: it takes 20 and the V100 the other 76.
  auto plan = planDataParallel({given("K80", 1, 20), given("V100", 2)}, 96, 0, {});
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->balanced.batch, (std::vector<int64_t>{20, 76}));
  EXPECT_TRUE(plan->capped);
  EXPECT_EQ(plan->balanced.stepNs, 38'000'000'000);  // 76 / 2
}

TEST(Hetero, DevicesByCommasOrBlanks) {
  auto blanks = parseDevices({"K80 V100"});
  ASSERT_TRUE(blanks.ok()) << blanks.error();
  EXPECT_EQ(*blanks, (std::vector<std::string>{"K80", "V100"}));
  auto counted = parseDevices({"K80:2, V100"});
  ASSERT_TRUE(counted.ok());
  EXPECT_EQ(counted->size(), 3u);
}

TEST(Hetero, ImpossibleSplitsAreErrors) {
  auto tooSmall = planDataParallel({given("K80", 1), given("V100", 2)}, 1, 0, {});
  ASSERT_FALSE(tooSmall.ok());
  EXPECT_NE(tooSmall.error().find("cannot be split across 2 devices"), std::string::npos);
  auto tooBig = planDataParallel({given("K80", 1, 10), given("V100", 2, 20)}, 96, 0, {});
  ASSERT_FALSE(tooBig.ok());
  EXPECT_NE(tooBig.error().find("at most 30 samples"), std::string::npos) << tooBig.error();
  EXPECT_FALSE(planDataParallel({given("K80", 0), given("V100", 2)}, 96, 0, {}).ok());
  EXPECT_FALSE(planDataParallel({}, 96, 0, {}).ok());
}

TEST(Hetero, RingAllReduceByHand) {
  // 100 MB over 2 devices at 25 GB/s: 2·1/2·1e8 / 25e9 s = 4 ms, plus 2 latencies of 10 µs.
  Interconnect link;
  link.bytesPerSecond = 25e9;
  link.latencyNs = 10'000;
  EXPECT_EQ(ringAllReduceNs(100'000'000, 2, link), 4'020'000);
  // 4 devices: 2·3/4 of the bytes, 6 latencies: 6 ms + 60 µs.
  EXPECT_EQ(ringAllReduceNs(100'000'000, 4, link), 6'060'000);
  EXPECT_EQ(ringAllReduceNs(100'000'000, 1, link), 0);
  auto plan = planDataParallel({given("K80", 1), given("V100", 2)}, 96, 100'000'000, link);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->balanced.allReduceNs, 4'020'000);
  EXPECT_EQ(plan->balanced.stepNs, 32'000'000'000 + 4'020'000);
}

// A link without latency: the cases below count compute (and, where set, activation bytes) only.
Interconnect instant() {
  Interconnect link;
  link.latencyNs = 0;
  return link;
}

std::vector<PipelineLayer> equalLayers(size_t n, int64_t k80Ns, int64_t v100Ns) {
  std::vector<PipelineLayer> layers;
  for (size_t i = 0; i < n; ++i) {
    PipelineLayer layer;
    layer.name = "layer" + std::to_string(i);
    layer.nsOnDevice = {k80Ns, v100Ns};
    layer.memoryBytes = 100;
    layers.push_back(layer);
  }
  return layers;
}

TEST(Hetero, TheTextsPipelineExample) {
  // "1/3 of the layers on the K80 and 2/3 on the V100": six equal layers, 2 and 4, each stage
  // 2 µs; the even split (3 and 3) leaves the K80 3 µs.
  auto plan =
      planPipeline(equalLayers(6, 1000, 500), {given("K80", 1), given("V100", 2)}, {}, instant());
  ASSERT_TRUE(plan.ok()) << plan.error();
  ASSERT_EQ(plan->balanced.stages.size(), 2u);
  EXPECT_EQ(plan->balanced.stages[0].endLayer, 2u);
  EXPECT_EQ(plan->balanced.stages[1].firstLayer, 2u);
  EXPECT_EQ(plan->balanced.stages[1].endLayer, 6u);
  EXPECT_EQ(plan->balanced.stepNs, 2000);
  EXPECT_EQ(plan->even.stepNs, 3000);
  EXPECT_DOUBLE_EQ(plan->speedup, 1.5);
  // Drawn in steady state: 4 batches through 2 stages span (4 + 2 − 1) periods of 2 µs.
  const auto layers = equalLayers(6, 1000, 500);
  auto s = pipelineTimeline({given("K80", 1), given("V100", 2)}, plan->balanced, layers, 4, "t");
  ASSERT_TRUE(s.ok()) << s.error();
  EXPECT_EQ((*s)->duration(), 5 * 2000);
  EXPECT_EQ((*s)->devices[1].name, "V100");
}

TEST(Hetero, PipelineCutsWhereTheActivationIsSmall) {
  // Four layers of 1 µs on two equal devices; the activation after layer 1 is 10 MB (800 µs to
  // send and return at 25 GB/s), after layer 0 and 2 nothing: the even cut (2 | 2) would pay for
  // it, cutting 1 | 3 or 3 | 1 costs 3 µs.
  std::vector<PipelineLayer> layers = equalLayers(4, 1000, 1000);
  layers[1].activationBytes = 10'000'000;
  auto plan = planPipeline(layers, {given("a", 1), given("b", 1)}, {}, instant());
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->balanced.stepNs, 3000);
  EXPECT_NE(plan->balanced.stages[0].endLayer, 2u);
  EXPECT_EQ(plan->even.stages[1].transferNs, 800'000);
  EXPECT_EQ(plan->even.stepNs, 802'000);
}

TEST(Hetero, PipelineStagesFitTheirMemory) {
  // Each layer needs 100 bytes; the K80 has 150: one layer there, five on the V100.
  auto plan = planPipeline(equalLayers(6, 1000, 500), {given("K80", 1), given("V100", 2)}, {150, 0},
                           instant());
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->balanced.stages[0].endLayer, 1u);
  EXPECT_EQ(plan->balanced.stepNs, 2500);
  EXPECT_FALSE(
      planPipeline(equalLayers(6, 1000, 500), {given("K80", 1), given("V100", 2)}, {50, 0}, {})
          .ok());
  EXPECT_FALSE(
      planPipeline(equalLayers(1, 1000, 500), {given("K80", 1), given("V100", 2)}, {}, {}).ok());
}

TEST(Hetero, ThePredictedStepAsASession) {
  // K80 (1 sample/s) and V100 (2), batch 96, a 100 MB all-reduce at 25 GB/s and an update of
  // 1 s on the K80, 0.5 s on the V100: both compute 32 s, reduce [32 s, 32.00402 s), update.
  std::vector<HeteroDevice> devices = {given("K80", 1), given("V100", 2)};
  devices[0].updateNs = 1'000'000'000, devices[1].updateNs = 500'000'000;
  Interconnect link;
  auto plan = planDataParallel(devices, 96, 100'000'000, link);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->balanced.stepNs, 32'000'000'000 + 4'020'000 + 1'000'000'000);
  auto s = dataParallelTimeline(devices, plan->balanced, 96, {}, 100'000'000, "test");
  ASSERT_TRUE(s.ok()) << s.error();
  const Session& session = **s;
  ASSERT_EQ(session.devices.size(), 2u);
  EXPECT_EQ(session.devices[1].name, "V100");
  EXPECT_EQ(session.duration(), plan->balanced.stepNs);  // the drawn step is the predicted one
  size_t reduces = 0;
  for (const Track& t : session.tracks) {
    for (uint32_t e = 0; e < t.size(); ++e) {
      if (!session.str(t.hot.name[e]).starts_with("ncclAllReduce")) continue;
      ++reduces;
      EXPECT_EQ(t.hot.start[e], 32'000'000'000);
      EXPECT_EQ(t.hot.end[e] - t.hot.start[e], 4'020'000);
    }
  }
  EXPECT_EQ(reduces, 2u);
  EXPECT_TRUE(session.provenance.simulation.has_value());
}

TEST(Hetero, EstimatesFromABuiltInModel) {
  auto load = [](int64_t batch) {
    auto bytes = model::zooModelBytes("resnet50", batch);
    EXPECT_TRUE(bytes.ok());
    model::LoadOptions o;
    o.batch = batch;
    return model::loadOnnxBytes(*bytes, "resnet50", o).value();
  };
  const model::ModelGraph at32 = load(32), at1 = load(1), at2 = load(2);
  auto e = estimateFromModel(at32, at1, at2, {"K80", "V100"}, model::Optimizer::SgdMomentum);
  ASSERT_TRUE(e.ok()) << e.error();
  ASSERT_EQ(e->devices.size(), 2u);
  // The V100 has 3.6× the K80's FP32 rate and 3.75× its bandwidth: between those.
  const double ratio = e->devices[1].samplesPerSecond / e->devices[0].samplesPerSecond;
  EXPECT_GT(ratio, 3.5);
  EXPECT_LT(ratio, 3.8);
  EXPECT_EQ(e->devices[0].source, SpeedSource::Estimated);
  // ResNet-50's 25.56 M parameters: 102.2 MB of fp32 gradients.
  EXPECT_NEAR(static_cast<double>(e->gradientBytes), 4 * 25.557e6, 0.01 * 4 * 25.557e6);
  // The 12 GB K80 holds fewer samples than the 32 GB V100: (12 GB − fixed) / per sample.
  ASSERT_TRUE(e->devices[0].maxBatch && e->devices[1].maxBatch);
  EXPECT_LT(*e->devices[0].maxBatch, *e->devices[1].maxBatch);
  EXPECT_GT(*e->devices[0].maxBatch, 0);
  EXPECT_GT(e->bytesPerSample, 0);
  EXPECT_FALSE(e->layers.empty());
  // The first layer keeps conv1's output for backward (32 × 64 × 112 × 112 fp32 = 102.8 MB), more
  // than the activation it hands on (after the pooling: a quarter of that).
  EXPECT_GE(e->layers[0].memoryBytes, int64_t{32} * 64 * 112 * 112 * 4);
  EXPECT_GT(e->layers[0].memoryBytes, 2 * e->layers[0].activationBytes);
  // The split follows the estimate: the V100 takes about 3.6× the K80's share.
  auto plan = planDataParallel(e->devices, 32, e->gradientBytes, {});
  ASSERT_TRUE(plan.ok()) << plan.error();
  EXPECT_EQ(plan->balanced.batch[0] + plan->balanced.batch[1], 32);
  EXPECT_GE(plan->balanced.batch[1], 3 * plan->balanced.batch[0]);
  // Drawn per layer, the predicted step is the plan's (within rounding of each kernel).
  auto drawn =
      dataParallelTimeline(e->devices, plan->balanced, 32, e->layers, e->gradientBytes, "resnet50");
  ASSERT_TRUE(drawn.ok()) << drawn.error();
  EXPECT_NEAR(static_cast<double>((*drawn)->duration()), static_cast<double>(plan->balanced.stepNs),
              2.0 * 3 * e->layers.size());
  auto unknown = estimateFromModel(at32, at1, at2, {"GTX9000"}, model::Optimizer::SgdMomentum);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().find("device presets: V100"), std::string::npos);
}

}  // namespace
}  // namespace ts::advisor

namespace ts::advisor {
namespace {

// A job of `n` kernels of `ms` each, `gap` ms apart, each wanting `demand` of the SMs.
Job periodic(const char* name, int n, TimeNs ms, TimeNs gap, double demand) {
  Job j;
  j.name = name;
  for (int i = 0; i < n; ++i) {
    JobOp op;
    op.start = i * (ms + gap) * 1'000'000;
    op.duration = ms * 1'000'000;
    op.smDemand = demand;
    op.name = "k";
    j.ops.push_back(op);
  }
  j.span = (n * ms + (n - 1) * gap) * 1'000'000;
  j.busy = n * ms * 1'000'000;
  j.kernels = static_cast<size_t>(n);
  return j;
}

TEST(Multiplex, AJobAloneReplaysAsItRan) {
  // Two streams: kernels at 0 and 0.5 ms overlap; then a gap, then one more.
  Job j;
  j.name = "two streams";
  j.ops = {{0, 1'000'000, 0.3, OpClass::Kernel, "a"},
           {500'000, 1'000'000, 0.3, OpClass::Kernel, "b"},
           {3'000'000, 500'000, 1.0, OpClass::Kernel, "c"}};
  j.span = 3'500'000;
  for (Sharing s : {Sharing::Mps, Sharing::TimeSlicing}) {
    PackedRun run = packJobs({j}, s, {});
    ASSERT_GE(run.ops.size(), 3u);  // the job loops: its first pass is first
    EXPECT_EQ(run.ops[1].start, 500'000) << toString(s);
    EXPECT_EQ(run.ops[2].start, 3'000'000) << toString(s);
    EXPECT_EQ(run.span[0], 3'500'000) << toString(s);
    EXPECT_DOUBLE_EQ(run.normalisedThroughput, 1.0);
  }
}

TEST(Multiplex, TwoHalfBusyJobsPackWithoutSlowdownUnderMps) {
  // Each busy 50 % of its time with kernels wanting half the SMs: together they fit, both run
  // at full speed: Σ = 2.
  const std::vector<Job> jobs = {periodic("a", 10, 1, 1, 0.5), periodic("b", 10, 1, 1, 0.5)};
  EXPECT_DOUBLE_EQ(jobs[0].busyShare(), 10.0 / 19.0);
  PackedRun mps = packJobs(jobs, Sharing::Mps, {});
  EXPECT_EQ(mps.span[0], jobs[0].span);
  EXPECT_EQ(mps.span[1], jobs[1].span);
  EXPECT_DOUBLE_EQ(mps.normalisedThroughput, 2.0);
  // MIG: half the GPU each, the kernels want no more: Σ = 2 as well.
  SharingOptions o;
  o.migShare = {0.5, 0.5};
  EXPECT_DOUBLE_EQ(packJobs(jobs, Sharing::Mig, o).normalisedThroughput, 2.0);
  // Time-slicing interleaves them in each other's gaps, paying the switches: between 1 and 2.
  PackedRun sliced = packJobs(jobs, Sharing::TimeSlicing, {});
  EXPECT_GT(sliced.normalisedThroughput, 1.5);
  EXPECT_LT(sliced.normalisedThroughput, 2.0);
  for (size_t i = 1; i < sliced.ops.size(); ++i) {  // never two jobs at once
    if (sliced.ops[i].job != sliced.ops[i - 1].job) {
      EXPECT_GE(sliced.ops[i].start, sliced.ops[i - 1].end);
    }
  }
}

TEST(Multiplex, TwoSaturatingJobsGainNothing) {
  // Back-to-back kernels wanting the whole GPU: MPS stretches both to twice their time (Σ = 1);
  // time-slicing takes turns and pays the switches (Σ below 1).
  const std::vector<Job> jobs = {periodic("a", 10, 1, 0, 1.0), periodic("b", 10, 1, 0, 1.0)};
  PackedRun mps = packJobs(jobs, Sharing::Mps, {});
  EXPECT_EQ(mps.span[0], 2 * jobs[0].span);
  EXPECT_NEAR(mps.normalisedThroughput, 1.0, 1e-9);
  EXPECT_LT(packJobs(jobs, Sharing::TimeSlicing, {}).normalisedThroughput, 1.0);
  // MIG halves: each kernel on half the SMs takes twice as long.
  SharingOptions o;
  o.migShare = {0.5, 0.5};
  EXPECT_NEAR(packJobs(jobs, Sharing::Mig, o).normalisedThroughput, 1.0, 1e-9);
}

TEST(Multiplex, SmDemandFromTheLaunchConfiguration) {
  SessionBuilder b;
  const uint32_t rank = b.rank(0), dev = b.device(rank, 0);
  Device& d = b.deviceInfo(dev);
  d.smCount = 80, d.computeMajor = 7, d.maxWarpsPerSm = 64, d.maxBlocksPerSm = 32;
  d.maxThreadsPerBlock = 1024, d.maxRegistersPerSm = 65536, d.maxRegistersPerBlock = 65536;
  d.maxSharedMemoryPerSm = 98304, d.maxSharedMemoryPerBlock = 49152;
  const uint32_t st = b.stream(dev, 7);
  KernelDetail k;
  k.gridX = 40, k.gridY = 1, k.gridZ = 1, k.blockX = 256, k.blockY = 1, k.blockZ = 1;
  k.registersPerThread = 32;
  b.addKernel(st, 0, 1000, b.intern("small"), k);
  b.addKernel(st, 2000, 3000, b.intern("unknown"), {});
  auto s = b.build();
  ASSERT_TRUE(s.ok());
  auto job = jobFromSession(**s, "job");
  ASSERT_TRUE(job.ok()) << job.error();
  // 256 threads = 8 warps: 8 blocks per SM by warps; 40 blocks of 80 × 8 slots.
  EXPECT_NEAR(job->ops[0].smDemand, 40.0 / 640.0, 1e-9);
  EXPECT_EQ(job->ops[1].smDemand, 1.0);  // no configuration: the whole GPU
  EXPECT_EQ(job->demandKnown, 1u);
  EXPECT_EQ(job->span, 3000);
  EXPECT_EQ(job->busy, 2000);
  EXPECT_FALSE(job->peakMemory);
  EXPECT_NE(job->memorySource.find("unknown"), std::string::npos);
}

// A PyTorch trace with profile_memory=True: the job's peak is its GPU's allocated bytes, read
// from the [memory] events (a running sum here: the 2021 trace has no totals). Reference: the
// events' Bytes summed in time order by Python's json module, peak 2,791,636,480 on CUDA 0.
TEST(Multiplex, PeakMemoryFromPyTorchMemoryEvents) {
  auto s = openSessionFile(std::string(TSCOPE_SHARED_DATA) +
                           "/kineto/kineto-tb_plugin--resnet50_num_workers_0--worker0."
                           "1623143089861.pt.trace.json.gz");
  ASSERT_TRUE(s.ok()) << s.error();
  auto job = jobFromSession(**s, "resnet50");
  ASSERT_TRUE(job.ok()) << job.error();
  ASSERT_TRUE(job->peakMemory);
  EXPECT_EQ(*job->peakMemory, 2'791'636'480);
  EXPECT_NE(job->memorySource.find("Allocated since trace start"), std::string::npos)
      << job->memorySource;
}

// Where a session measured no memory, a model's simulated training step gives the peak; where it
// measured one, the measurement stays and the estimate is said beside it.
TEST(Multiplex, PeakMemoryFromAModelsSimulatedStep) {
  auto models = parseJobModels(" 1=resnet50:32, 2=/m/x:y.onnx:8 ", 2);
  ASSERT_TRUE(models.ok()) << models.error();
  ASSERT_EQ(models->size(), 2u);
  EXPECT_EQ((*models)[0].job, 1u);
  EXPECT_EQ((*models)[0].model, "resnet50");
  EXPECT_EQ((*models)[0].batch, 32);
  EXPECT_EQ((*models)[1].model, "/m/x:y.onnx");  // the last colon ends the model
  EXPECT_EQ((*models)[1].batch, 8);
  EXPECT_TRUE(parseJobModels("", 2)->empty());
  for (const char* bad : {"3=resnet50:32", "1=resnet50", "1=:4", "x=resnet50:1", "1=r:0"})
    EXPECT_FALSE(parseJobModels(bad, 2).ok()) << bad;
  EXPECT_NE(parseJobModels("3=resnet50:32", 2).error().find("no job 3 (jobs 1 to 2)"),
            std::string::npos);

  auto at = [](int64_t batch) {
    auto g = loadModelAt("resnet50", batch);
    EXPECT_TRUE(g.ok()) << g.error();
    return g.ok() ? stepPeakBytes(*g) : 0;
  };
  const int64_t at32 = at(32), at64 = at(64);
  auto graph = loadModelAt("resnet50", 32);
  ASSERT_TRUE(graph.ok());
  // Weights, their gradients and the momentum at least; more activations at a larger batch.
  EXPECT_GT(at32, 3 * graph->parameterBytes());
  EXPECT_GT(at64, at32);

  Job unknown;
  unknown.memorySource = "unknown: the session records no memory counter";
  estimatePeakFromModel(unknown, at32, "resnet50 at batch 32");
  ASSERT_TRUE(unknown.peakMemory);
  EXPECT_EQ(*unknown.peakMemory, at32);
  EXPECT_EQ(unknown.memorySource.rfind("estimated from the simulated training step of resnet50 at "
                                       "batch 32",
                                       0),
            0u)
      << unknown.memorySource;
  Job measured;
  measured.peakMemory = 2'791'636'480;
  measured.memorySource = "the session's counter \"Allocated since trace start\"";
  estimatePeakFromModel(measured, at32, "resnet50 at batch 32");
  EXPECT_EQ(*measured.peakMemory, 2'791'636'480);
  EXPECT_NE(measured.memorySource.find("; the simulated training step of resnet50"),
            std::string::npos);
}

TEST(Multiplex, SmallestMigProfilesThatFit) {
  const MigGpu* a100 = migGpu("a100-40gb");
  ASSERT_NE(a100, nullptr);
  Job small, medium;
  small.peakMemory = 4'000'000'000, medium.peakMemory = 8'000'000'000;
  // 4 GB fits 1g.5gb, 8 GB 2g.10gb (3 slices); grown in turn while 7 slices allow: 2g + 2g,
  // 2g + 3g, 3g + 3g, 3g + 4g.
  auto fit = migProfilesFor(*a100, {small, medium});
  ASSERT_TRUE(fit);
  EXPECT_EQ((*fit)[0].name, "3g.20gb");
  EXPECT_EQ((*fit)[1].name, "4g.20gb");
  // Seven jobs: one slice each, nothing to grow.
  auto seven = migProfilesFor(*a100, std::vector<Job>(7, small));
  ASSERT_TRUE(seven);
  EXPECT_EQ((*seven)[6].name, "1g.5gb");
  EXPECT_FALSE(migProfilesFor(*a100, std::vector<Job>(8, small)));
  Job big;
  big.peakMemory = 30'000'000'000;
  EXPECT_FALSE(migProfilesFor(*a100, {big, big}));  // 7g each: 14 slices
  EXPECT_EQ(migGpu("K80"), nullptr);
  // Why not, in words.
  EXPECT_NE(migUnfitReason(*a100, std::vector<Job>(8, small))
                .find("8 jobs are more than the 7 MIG instances"),
            std::string::npos);
  big.name = "big";
  big.peakMemory = 50'000'000'000;
  EXPECT_NE(migUnfitReason(*a100, {big, small}).find("big needs"), std::string::npos);
}

// MIG does not depend on the order the jobs are given in (the spare slices go where they help),
// nor does a job's rate on its slice depend on the job beside it (slices are isolated).
TEST(Multiplex, MigIsTheSameWhateverTheOrderOrTheNeighbour) {
  const MigGpu* a100 = migGpu("a100-40gb");
  ASSERT_NE(a100, nullptr);
  // A busy job whose kernels want the whole GPU, and a mostly idle one wanting little.
  Job busy = periodic("busy", 20, 2, 0, 1.0), idle = periodic("idle", 4, 1, 9, 0.1);
  busy.peakMemory = idle.peakMemory = 4'000'000'000;
  const MultiplexAdvice ab = adviseMultiplex({busy, idle}, a100, a100->memoryBytes, "", {});
  const MultiplexAdvice ba = adviseMultiplex({idle, busy}, a100, a100->memoryBytes, "", {});
  ASSERT_TRUE(ab.profiles && ba.profiles);
  EXPECT_NEAR(ab.runs.back().normalisedThroughput, ba.runs.back().normalisedThroughput, 1e-9);
  // 1g each, grown in turn: 4g + 3g, the 4g to the busy job whichever comes first.
  EXPECT_EQ((*ab.profiles)[0].name, "4g.20gb");
  EXPECT_EQ((*ba.profiles)[1].name, "4g.20gb");
  // On a 4g slice (56 of 98 SMs) the busy job runs at 56/98 whoever is on the other slice.
  SharingOptions o;
  o.migShare = {56.0 / 98, 42.0 / 98};
  const Job other = periodic("other", 3, 5, 20, 0.5);
  const double besideIdle = packJobs({busy, idle}, Sharing::Mig, o).rate[0];
  const double besideOther = packJobs({busy, other}, Sharing::Mig, o).rate[0];
  EXPECT_NEAR(besideIdle, 56.0 / 98, 1e-6);
  EXPECT_NEAR(besideOther, besideIdle, 1e-9);
  // The packed MIG run as a session names each job's slice.
  auto drawn = packedSession({busy, idle}, ab.runs.back(), "A100-40GB", ab.profiles);
  ASSERT_TRUE(drawn.ok()) << drawn.error();
  bool named = false;
  for (const Stream& st : (*drawn)->streams) named = named || st.name == "busy (MIG 4g.20gb)";
  EXPECT_TRUE(named);
  // A GPU without MIG chosen to share: the jobs' times are not rescaled to it, and that is said.
  const MultiplexAdvice k80 =
      adviseMultiplex({busy, idle}, nullptr, 12'000'000'000, "Tesla V100", {}, "K80");
  bool said = false;
  for (const std::string& c : k80.caveats)
    said = said || c.find("not rescaled to the K80") != std::string::npos;
  EXPECT_TRUE(said);
}

}  // namespace
}  // namespace ts::advisor

namespace ts::advisor {
namespace {

// Ranks 0 and 4 of an 8-rank job on two 4-GPU machines (a, b). Each step all-reduces 10, 50 and
// 100 MB; the kernels take exactly what a ring of 8 over 100 Gb/s with 10 µs a hop takes:
// 2·7·10 µs + 2·7/8 · bytes / 12.5 GB/s. No computation: all of it exposed. `traced`: the
// world size the traces state (0: none). `tree`: NCCL's TREE all-reduce kernels instead, taking
// what a binary tree of 8 over the same link takes: 2·3·10 µs + 2 · bytes / 12.5 GB/s.
// `sized`: the annotations carry the sizes (record_shapes).
SessionPtr twoMachines(bool gathers = false, int32_t traced = 0, bool tree = false,
                       bool sized = true) {
  SessionBuilder b;
  b.provenance().worldSize = traced;
  uint32_t corr = 0;
  for (int32_t number : {0, 4}) {
    const uint32_t rank = b.rank(number);
    b.rankInfo(rank).host = number < 4 ? "a" : "b";
    const uint32_t dev = b.device(rank, 0), st = b.stream(dev, 7);
    const uint32_t th = b.thread(b.process(rank, 100 + number), 1);
    TimeNs at = 0;
    // One collective: its annotation with the size, the launch, the kernel taking `t`.
    auto collective = [&](const char* kind, const char* kernel, int64_t bytes, TimeNs t) {
      NvtxDetail n;
      if (sized) n.inputs = b.intern("float[" + std::to_string(bytes / 4) + "]");
      b.addNvtx(th, at, at + 20, b.intern(std::string("nccl:") + kind), n);
      ApiDetail a;
      a.correlation = ++corr;
      b.addApi(th, at + 5, at + 10, b.intern("cudaLaunchKernel"), a);
      KernelDetail k;
      k.correlation = corr;
      b.addKernel(st, at + 100, at + 100 + t, b.intern(kernel), k);
      at += 100 + t + 1000;
    };
    for (int step = 1; step <= 3; ++step) {
      const TimeNs stepStart = at;
      for (int64_t mb : {10, 50, 100}) {
        const int64_t bytes = mb * 1'000'000;
        if (tree)
          collective("all_reduce", "ncclKernel_AllReduce_TREE_LL_Sum_float", bytes,
                     60'000 + static_cast<TimeNs>(std::llround(2.0 * bytes / 12.5e9 * 1e9)));
        else
          collective("all_reduce", "ncclKernel_AllReduce_RING_LL_Sum_float", bytes,
                     140'000 + static_cast<TimeNs>(std::llround(1.75 * bytes / 12.5e9 * 1e9)));
      }
      if (gathers)  // and a 40 MB all-gather: 7·10 µs + 7/8 · 40 MB / 12.5 GB/s
        collective("all_gather", "ncclKernel_AllGather_RING_LL_Sum_float", 40'000'000,
                   70'000 + static_cast<TimeNs>(std::llround(0.875 * 40e6 / 12.5e9 * 1e9)));
      b.addRange(th, stepStart, at, b.intern("ProfilerStep#" + std::to_string(step)),
                 {b.intern("user_annotation"), 0});
    }
  }
  return *b.build();
}

// The two machines' job onto one machine of 8 GPUs over NVLink 3; `world` ranks (0: not given).
ConsolidationInput ontoOneMachine(int world) {
  ConsolidationInput in;
  in.world = world, in.gpusPerNode = 8;
  in.hosts = {"a", "b"};
  in.intra = *intraNodeLink("nvlink3");
  return in;
}

TEST(Consolidate, FitsTheRunsCollectivesAndDropsTheInterNodeShare) {
  SessionPtr s = twoMachines();
  LaunchIndex launches(*s);
  const auto collectives = collectivesOf(*s, launches);
  ASSERT_EQ(collectives.size(), 18u);
  EXPECT_EQ(collectives[0].kind, "all_reduce");
  EXPECT_EQ(*collectives[0].bytes, 10'000'000);
  auto d = diagnose(*s, {});
  ASSERT_TRUE(d.ok());
  ConsolidationInput in = ontoOneMachine(8);
  auto p = planConsolidation(*s, *d, launches, in);
  ASSERT_TRUE(p.ok()) << p.error();
  // The fit reproduces the measured collectives (exact here) and reads back the ring's link.
  EXPECT_LT(p->fit.meanAbsErrorPct, 0.01);
  EXPECT_NEAR(p->ringBandwidthNow, 12.5e9, 12.5e9 * 1e-4);
  EXPECT_NEAR(p->ringLatencyNow, 10'000, 10);
  EXPECT_EQ(p->hostsNow, 2);
  EXPECT_EQ(p->hostsAfter, 1);
  // By hand: now 3·140 µs + 1.75·160 MB / 12.5 GB/s = 22.82 ms per step; on one machine over
  // NVLink 3 (300 GB/s, 5 µs): 3·70 µs + 1.75·160 MB / 300 GB/s = 1.1433 ms.
  EXPECT_NEAR(p->commRatio, 1.143333 / 22.82, 1e-4);
  EXPECT_EQ(p->exposedNow, 22'820'000);
  EXPECT_NEAR(static_cast<double>(p->exposedAfter), 1'143'333, 2);
  EXPECT_EQ(p->stepNow - p->stepAfter(), p->exposedNow - p->exposedAfter);
  ASSERT_EQ(p->moves.size(), 2u);
  EXPECT_EQ(p->moves[1], (std::pair<int32_t, int>{4, 0}));  // rank 4 joins machine 0
  // Four GPUs a machine: still two machines, nothing to gain.
  in.gpusPerNode = 4;
  auto same = planConsolidation(*s, *d, launches, in);
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same->hostsAfter, 2);
  EXPECT_DOUBLE_EQ(same->commRatio, 1.0);
  EXPECT_TRUE(same->moves.empty());
  // The same two machines over a 400 Gb/s link (50 GB/s, 10 µs a hop): 3·140 µs + 1.75·160 MB
  // / 50 GB/s = 6.02 ms instead of 22.82.
  in.gpusPerNode = 4;
  in.inter = interNodeLink("400g");
  auto faster = planConsolidation(*s, *d, launches, in);
  ASSERT_TRUE(faster.ok());
  EXPECT_NEAR(faster->commRatio, 6.02 / 22.82, 1e-4);
  in.inter.reset();
  // A layout that cannot hold the job: said.
  in.machinesAfter = 1;
  auto tooSmall = planConsolidation(*s, *d, launches, in);
  ASSERT_FALSE(tooSmall.ok());
  EXPECT_NE(tooSmall.error().find("cannot hold the job's 8 ranks"), std::string::npos);
  in.machinesAfter = 0;
  // Without hosts: an error that says what to give.
  in.hosts = {};
  auto none = planConsolidation(*s, *d, launches, in);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().find("name no machine"), std::string::npos) << none.error();
}

TEST(Consolidate, EachKindOfCollectiveFittedApart) {
  // With an all-gather beside the all-reduces: each kind fits exactly and moves as a ring of its
  // own kind. Now per step: 22.82 ms of all-reduce + 2.87 ms of all-gather; on one machine over
  // NVLink 3: 1.14333 ms + (7·5 µs + 7/8 · 40 MB / 300 GB/s = 151.67 µs).
  SessionPtr s = twoMachines(true);
  LaunchIndex launches(*s);
  auto d = diagnose(*s, {});
  ASSERT_TRUE(d.ok());
  ConsolidationInput in = ontoOneMachine(8);
  auto p = planConsolidation(*s, *d, launches, in);
  ASSERT_TRUE(p.ok()) << p.error();
  ASSERT_EQ(p->fitByKind.size(), 2u);
  EXPECT_EQ(p->fitKind, "all_reduce");  // the most sizes
  EXPECT_LT(p->fitByKind.at("all_gather").meanAbsErrorPct, 0.01);
  EXPECT_NEAR(p->commRatio, (1.143333 + 0.151667) / (22.82 + 2.87), 1e-4);
}

// Tree all-reduces are fitted as a tree and stay one after the move. Now per step: 3·60 µs +
// 2·160 MB / 12.5 GB/s = 25.78 ms; on one machine over NVLink 3 (300 GB/s, 5 µs): 3·6·5 µs +
// 2·160 MB / 300 GB/s = 1.156667 ms.
TEST(Consolidate, TreeAllReducesKeepTheirAlgorithm) {
  SessionPtr s = twoMachines(false, 0, true);
  LaunchIndex launches(*s);
  const auto collectives = collectivesOf(*s, launches);
  ASSERT_FALSE(collectives.empty());
  EXPECT_TRUE(collectives[0].tree);
  EXPECT_EQ(fitKey(collectives[0]), "all_reduce/tree");
  auto d = diagnose(*s, {});
  ASSERT_TRUE(d.ok());
  ConsolidationInput in = ontoOneMachine(8);
  auto p = planConsolidation(*s, *d, launches, in);
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(p->fitKind, "all_reduce/tree");
  EXPECT_LT(p->fit.meanAbsErrorPct, 0.01);
  EXPECT_NEAR(p->ringBandwidthNow, 12.5e9, 12.5e9 * 1e-4);
  EXPECT_NEAR(p->ringLatencyNow, 10'000, 10);
  EXPECT_NEAR(p->commRatio, 1.156667 / 25.78, 1e-4);
  EXPECT_TRUE(p->treeAllReduce);
  // The shapes by hand: a tree of 8 has 6 hops; a ring of 8, 14.
  EXPECT_DOUBLE_EQ(collectiveShape("all_reduce", true, 8).hops, 6);
  EXPECT_DOUBLE_EQ(collectiveShape("all_reduce", false, 8).hops, 14);
  EXPECT_DOUBLE_EQ(collectiveShape("all_gather", true, 8).bandwidthShare, 0.875);
}

// A trace without sizes: the fit has nothing to go on, unless a model's gradients size the
// all-reduces — each step's three share its 160 MB. The bytes a step moves are the same as in
// the sized run, so the collectives after the move take the same 1.14333 ms a step (3 · 14
// hops · 5 µs + 1.75 · 160 MB / 300 GB/s), against the 22.82 ms measured.
TEST(Consolidate, AModelsGradientsSizeTheAllReduces) {
  SessionPtr s = twoMachines(false, 0, false, false);
  LaunchIndex launches(*s);
  auto d = diagnose(*s, {});
  ASSERT_TRUE(d.ok());
  ConsolidationInput in = ontoOneMachine(8);
  auto none = planConsolidation(*s, *d, launches, in);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().find("a model's gradients can size"), std::string::npos) << none.error();
  auto collectives = collectivesOf(*s, launches);
  ASSERT_EQ(collectives.size(), 18u);
  EXPECT_EQ(sizeFromGradients(collectives, *d, 160'000'000), 18u);
  for (const Collective& c : collectives) EXPECT_EQ(*c.bytes, 53'333'333);
  in.gradientBytes = 160'000'000, in.gradientSource = "a 40 M-parameter model";
  auto p = planConsolidation(*s, *d, launches, in);
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_NEAR(p->commRatio, 1.143333 / 22.82, 1e-4);
  bool said = false;
  for (const std::string& a : p->assumptions)
    said = said || a.find("18 all-reduces sized from the gradients of a 40 M-parameter model") !=
                       std::string::npos;
  EXPECT_TRUE(said);
  // A trace with sizes keeps its own.
  SessionPtr sized = twoMachines();
  LaunchIndex sizedLaunches(*sized);
  auto sd = diagnose(*sized, {});
  ASSERT_TRUE(sd.ok());
  auto own = planConsolidation(*sized, *sd, sizedLaunches, in);
  ASSERT_TRUE(own.ok());
  EXPECT_NE(own->assumptions[0].find("were not needed"), std::string::npos) << own->assumptions[0];
}

// The job's size as its traces state it, when not given; the machines now bounded or asked for.
TEST(Consolidate, TheJobsSizeFromItsTraces) {
  SessionPtr s = twoMachines(false, 8);
  LaunchIndex launches(*s);
  auto d = diagnose(*s, {});
  ASSERT_TRUE(d.ok());
  ConsolidationInput in = ontoOneMachine(0);
  auto p = planConsolidation(*s, *d, launches, in);
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(p->world, 8);
  EXPECT_EQ(p->hostsAfter, 1);
  // As in the test above, where the 8 ranks were given: the same ring, the same saving.
  EXPECT_NEAR(p->commRatio, 1.143333 / 22.82, 1e-4);
  auto said = [](const ConsolidationPlan& plan, std::string_view text) {
    for (const std::string& a : plan.assumptions) {
      if (a.find(text) != std::string::npos) return true;
    }
    return false;
  };
  EXPECT_TRUE(said(*p, "a job of 8 ranks, as its traces say")) << p->assumptions[0];
  // Given, and differing from the traces: the given size, and the difference said.
  in.world = 16;
  p = planConsolidation(*s, *d, launches, in);
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(p->world, 16);
  EXPECT_TRUE(said(*p, "a job of 16 ranks, as given; its traces say 8"));
  // Two GPUs a machine: the 8 ranks need 4 machines, more than the 2 the ranks held name, and
  // where the other 6 run is unknown: asked for.
  in.world = 0, in.gpusPerNode = 2;
  p = planConsolidation(*s, *d, launches, in);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().find("need at least 4 machines of 2 GPUs, more than the 2"),
            std::string::npos)
      << p.error();
  in.nodesNow = 8;
  p = planConsolidation(*s, *d, launches, in);
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(p->hostsNow, 8);
  EXPECT_EQ(p->hostsAfter, 4);
}

TEST(Consolidate, AstraSimInputsForBothLayouts) {
  const Link intra = *intraNodeLink("nvlink3"), inter = *interNodeLink("100g");
  const std::string two = astraNetworkYaml(4, 2, intra, inter);
  EXPECT_NE(two.find("topology: [ Ring, Switch ]"), std::string::npos) << two;
  EXPECT_NE(two.find("npus_count: [ 4, 2 ]"), std::string::npos) << two;
  EXPECT_NE(two.find("bandwidth: [ 300.000, 12.500 ]"), std::string::npos) << two;
  const std::string one = astraNetworkYaml(8, 1, intra, inter);
  EXPECT_NE(one.find("npus_count: [ 8 ]"), std::string::npos) << one;
  EXPECT_NE(astraSystemJson(2, true).find("\"all-reduce-implementation\": [\"doubleBinaryTree\", "
                                          "\"doubleBinaryTree\"]"),
            std::string::npos);
  EXPECT_NE(astraSystemJson(2, true).find("\"all-gather-implementation\": [\"ring\", \"ring\"]"),
            std::string::npos);
  EXPECT_NE(astraSystemJson(2).find("\"all-reduce-implementation\": [\"ring\", \"ring\"]"),
            std::string::npos);
}

}  // namespace
}  // namespace ts::advisor
