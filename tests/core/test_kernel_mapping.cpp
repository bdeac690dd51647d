// Measured kernels mapped to model layers: by NVTX layer ranges, by aten:: op ranges, by order,
// with the user's corrections; iterations from layer ranges, repeated structure or a range.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#include "io/open_session.h"
#include "model/kernel_mapping.h"
#include "model/model_zoo.h"
#include "model/onnx_loader.h"
#include "session_fixture.h"

namespace ts::model {
namespace {

struct Alexnet {
  ModelGraph graph;
  TrainingStep step;
};

Alexnet alexnet() {
  auto bytes = zooModelBytes("alexnet", 4);
  EXPECT_TRUE(bytes.ok());
  auto graph = loadOnnxBytes(*bytes, "alexnet.onnx");
  EXPECT_TRUE(graph.ok()) << graph.error();
  TrainingStep step = expandTrainingStep(*graph);
  return {std::move(*graph), std::move(step)};
}

std::vector<std::string> groupsOf(const KernelMapping& m) {
  std::vector<std::string> g;
  for (const MappedKernel& k : m.kernels) g.push_back(k.group);
  return g;
}

TEST(KernelMapping, NvtxLayerRangesAndTheirIterations) {
  Alexnet a = alexnet();
  // Two iterations: features.0 forward starts each one.
  SessionPtr run = testing::makeLayerRun({{"forward/features.0", 0, 1000, 100},
                                          {"forward/features.3", 1000, 2000, 200},
                                          {"forward/features.0", 10000, 11000, 110},
                                          {"forward/features.3", 11000, 12000, 220},
                                          {"backward/features.3", 12000, 13000, 400},
                                          {"", 13000, 14000, 50, "stray"}});
  ASSERT_TRUE(run);
  KernelMapping m = mapKernels(*run, a.graph, a.step);
  EXPECT_EQ(m.method, MappingMethod::Nvtx);
  EXPECT_EQ(m.iterationSource, "NVTX layer ranges");
  ASSERT_EQ(m.iterations.size(), 2u);
  EXPECT_EQ(m.iteration, 1u);
  EXPECT_EQ(m.origin(), 10020);  // the first kernel of the last iteration
  EXPECT_EQ(groupsOf(m), (std::vector<std::string>{"forward/features.0", "forward/features.3",
                                                   "backward/features.3", ""}));
  EXPECT_EQ(m.kernels[0].by, MappingMethod::Nvtx);
  EXPECT_EQ(m.totalNs, 110 + 220 + 400 + 50);
  EXPECT_EQ(m.mappedNs, 110 + 220 + 400);
  EXPECT_NEAR(m.coverage(), 730.0 / 780.0, 1e-12);
  ASSERT_EQ(m.unmapped.size(), 1u);
  EXPECT_EQ(m.unmapped[0].name, "stray");
  EXPECT_EQ(m.unmapped[0].count, 1u);
  EXPECT_EQ(m.times.forwardNs.at("features.0"), 110);
  EXPECT_EQ(m.times.forwardNs.at("features.3"), 220);
  EXPECT_EQ(m.times.backwardNs.at("features.3"), 400);

  // The user's range picks the first iteration instead; a correction maps the stray kernel.
  MappingOptions options;
  options.iteration = TimeRange{0, 5000};
  options.corrections["stray"] = "forward/classifier.1";
  m = mapKernels(*run, a.graph, a.step, options);
  EXPECT_EQ(m.iterationSource, "your range");
  EXPECT_EQ(groupsOf(m), (std::vector<std::string>{"forward/features.0", "forward/features.3"}));
  options.iteration.reset();
  m = mapKernels(*run, a.graph, a.step, options);
  EXPECT_EQ(m.kernels.back().group, "forward/classifier.1");
  EXPECT_EQ(m.kernels.back().by, MappingMethod::User);
  EXPECT_DOUBLE_EQ(m.coverage(), 1.0);
  EXPECT_TRUE(m.unmapped.empty());
  EXPECT_EQ(m.times.forwardNs.at("classifier.1"), 50);
  // A range without kernels maps nothing (and says so) rather than guessing.
  options.iteration = TimeRange{5000, 6000};
  KernelMapping empty = mapKernels(*run, a.graph, a.step, options);
  EXPECT_EQ(empty.method, MappingMethod::None);
  EXPECT_EQ(empty.iterationSource, "your range");
  EXPECT_TRUE(empty.kernels.empty());
  options.iteration.reset();
  // A correction to "" takes a kernel out.
  options.corrections["k"] = "";
  m = mapKernels(*run, a.graph, a.step, options);
  EXPECT_EQ(m.mappedNs, 50);
}

// PyTorch's op ranges: the k-th conv2d is the model's k-th Conv; backward nodes count from the end.
TEST(KernelMapping, AtenOpRangesByFamilyAndOccurrence) {
  Alexnet a = alexnet();
  std::vector<testing::LayerRange> ranges;
  TimeNs t = 0;
  auto add = [&](const std::string& name, const std::string& kernel, TimeNs ns) {
    ranges.push_back({name, t, t + 1000, ns, kernel});
    t += 1000;
  };
  add("", "copy_kernel", 5);  // an input copy outside any op
  for (int i = 0; i < 5; ++i) add("aten::conv2d", "conv_kernel", 100 + i);
  add("aten::relu_", "relu_kernel", 7);
  for (int i = 0; i < 3; ++i) add("aten::linear", "gemm_kernel", 300 + i);
  add("autograd::engine::evaluate_function: AddmmBackward0", "gemm_dgrad", 600);
  add("autograd::engine::evaluate_function: ConvolutionBackward0", "conv_dgrad", 700);
  SessionPtr run = testing::makeLayerRun(ranges);
  ASSERT_TRUE(run);
  KernelMapping m = mapKernels(*run, a.graph, a.step);
  EXPECT_EQ(m.method, MappingMethod::Aten);
  EXPECT_EQ(m.iterationSource, "whole session");
  EXPECT_EQ(groupsOf(m), (std::vector<std::string>{
                             "", "forward/features.0", "forward/features.3", "forward/features.6",
                             "forward/features.8", "forward/features.10", "forward/features.0",
                             "forward/classifier.1", "forward/classifier.4", "forward/classifier.6",
                             "backward/classifier.6", "backward/features.10"}));
  EXPECT_EQ(m.kernels[1].by, MappingMethod::Aten);
  ASSERT_EQ(m.unmapped.size(), 1u);
  EXPECT_EQ(m.unmapped[0].name, "copy_kernel");
  EXPECT_EQ(m.times.forwardNs.at("features.0"), 100 + 7);  // its conv and the first relu
  EXPECT_EQ(m.times.backwardNs.at("classifier.6"), 600);
  // The times feed the step: the layer's forward kernels now sum to the measured time.
  TrainingStep step = a.step;
  MappingReport report = applyMeasuredTimes(a.graph, m.times, step);
  EXPECT_EQ(report.layersMapped, 8u);  // every layer: five convolutions, three linears
  std::vector<std::string> groups = stepKernelGroups(a.graph, step);
  int64_t features0 = 0;
  for (size_t k = 0; k < step.kernels.size(); ++k) {
    if (groups[k] == "forward/features.0") features0 += step.kernels[k].durationNs;
  }
  EXPECT_EQ(features0, 107);
}

// Without annotations: repeated kernel-name structure gives the iterations, the last one maps
// one to one onto the step's forward kernels when the counts agree.
TEST(KernelMapping, RepeatedStructureAndOrder) {
  Alexnet a = alexnet();
  size_t forward = 0;
  for (const StepKernel& k : a.step.kernels) forward += k.phase == KernelPhase::Forward;
  std::vector<testing::LayerRange> ranges;
  TimeNs t = 0;
  ranges.push_back({"", t, t + 100, 10, "init"});
  t += 100;
  for (int it = 0; it < 3; ++it) {
    for (size_t k = 0; k < forward; ++k) {
      ranges.push_back(
          {"", t, t + 100, static_cast<TimeNs>(10 + k + 1000 * it), "kernel" + std::to_string(k)});
      t += 100;
    }
  }
  SessionPtr run = testing::makeLayerRun(ranges);
  ASSERT_TRUE(run);
  KernelMapping m = mapKernels(*run, a.graph, a.step);
  EXPECT_EQ(m.iterationSource, "repeated kernels");
  ASSERT_EQ(m.iterations.size(), 3u);
  EXPECT_EQ(m.iterations[0].start, 100 + 20);
  EXPECT_EQ(m.iterations[2].start, static_cast<TimeNs>(100 + 2 * forward * 100 + 20));
  EXPECT_EQ(m.method, MappingMethod::Order);
  ASSERT_EQ(m.kernels.size(), forward);
  std::vector<std::string> groups = stepKernelGroups(a.graph, a.step);
  for (size_t k = 0; k < forward; ++k) EXPECT_EQ(m.kernels[k].group, groups[k]) << k;
  EXPECT_DOUBLE_EQ(m.coverage(), 1.0);
  ASSERT_EQ(m.times.kernelNs.size(), forward);  // the order path keeps each kernel's own time
  EXPECT_EQ(m.times.kernelNs[0], 2010);
  TrainingStep step = a.step;
  EXPECT_EQ(applyMeasuredTimes(a.graph, m.times, step).method, MappingMethod::Order);
  EXPECT_EQ(step.kernels[0].durationNs, 2010);

  // PyTorch's profiler steps, when present, are the iterations.
  SessionPtr steps = testing::makeLayerRun({{"ProfilerStep#1", 0, 1000, 10, "a"},
                                            {"ProfilerStep#2", 1000, 2000, 10, "b"},
                                            {"ProfilerStep#3", 2000, 3000, 10, "c"}});
  m = mapKernels(*steps, a.graph, a.step);
  EXPECT_EQ(m.iterationSource, "profiler steps");
  ASSERT_EQ(m.iterations.size(), 3u);
  EXPECT_EQ(m.iterations[2].start, 2020);
  ASSERT_EQ(m.kernels.size(), 1u);

  // A run that is not a step of this model: nothing maps, every kernel is listed.
  SessionPtr other = testing::makeLayerRun({{"", 0, 100, 10, "x"}, {"", 100, 200, 10, "y"}});
  m = mapKernels(*other, a.graph, a.step);
  EXPECT_EQ(m.method, MappingMethod::None);
  EXPECT_EQ(m.unmapped.size(), 2u);
  EXPECT_EQ(m.coverage(), 0.0);
}

// A real PyTorch training trace (TensorBoard plugin's ResNet-50 sample, batch 32, recorded with
// shapes): six ProfilerStep ranges; forward and backward kernels mapped through aten:: ops and
// autograd nodes and checked against the model's shapes, SGD's updates per parameter.
TEST(KernelMapping, RealResNet50TrainingTrace) {
  auto run = openSessionFile(
      std::string(TSCOPE_SHARED_DATA) +
      "/kineto/kineto-tb_plugin--resnet50_num_workers_0--worker0.1623143089861.pt.trace.json.gz");
  ASSERT_TRUE(run.ok()) << run.error();
  const Session& s = **run;
  auto bytes = zooModelBytes("resnet50", 32);
  ASSERT_TRUE(bytes.ok());
  auto graph = loadOnnxBytes(*bytes, "resnet50.onnx");
  ASSERT_TRUE(graph.ok()) << graph.error();
  TrainingStep step = expandTrainingStep(*graph);
  KernelMapping m = mapKernels(s, *graph, step);
  EXPECT_EQ(m.method, MappingMethod::Aten);
  EXPECT_EQ(m.iterationSource, "profiler steps");
  EXPECT_EQ(m.iterations.size(), 6u);
  EXPECT_GT(m.coverage(), 0.95);
  EXPECT_GT(m.checkedShare(), 0.95);  // the recorded shapes agree with the model's
  EXPECT_LT(m.guessedShare(), 0.05);
  EXPECT_TRUE(m.unmapped.empty());

  auto kernelName = [&](const MappedKernel& k) {
    return std::string(s.str(s.tracks[k.track].hot.name[k.event]));
  };
  size_t counters = 0, updates = 0, residualAdds = 0;
  std::set<std::string> updatedLayers;
  for (size_t j = 0; j < m.kernels.size(); ++j) {
    const MappedKernel& k = m.kernels[j];
    const std::string name = kernelName(k);
    auto group = LayerGroup::parse(k.group);
    ASSERT_TRUE(group) << j << " " << name;
    // BatchNorm's num_batches_tracked += 1 (a long counter) is no residual add: it goes, as a
    // guess, with the convolution before its BatchNorm, in the same layer.
    if (name.find("AddFunctor<long>") != std::string::npos) {
      ++counters;
      EXPECT_EQ(k.certainty, Certainty::Guess) << j;
      ASSERT_LT(j + 1, m.kernels.size());
      EXPECT_EQ(k.group, m.kernels[j + 1].group) << j;  // the BatchNorm kernel after it
      EXPECT_NE(kernelName(m.kernels[j + 1]).find("bn_fw"), std::string::npos);
    }
    if (group->phase == Phase::Update) {
      ++updates;
      updatedLayers.insert(group->layer);
      EXPECT_EQ(k.certainty, Certainty::Checked) << j;
    }
    // The residual add of a bottleneck (float tensors, in the forward): the block's last layer.
    if (group->phase == Phase::Forward && name.find("AddFunctor<float>") != std::string::npos &&
        k.certainty == Certainty::Checked) {
      ++residualAdds;
      EXPECT_TRUE(group->layer.ends_with(".conv3") || group->layer.ends_with(".downsample.0"))
          << group->layer;
    }
  }
  EXPECT_EQ(counters, 53u);      // one per BatchNorm
  EXPECT_EQ(residualAdds, 16u);  // one per bottleneck
  // SGD with momentum: three kernels per parameter (161), and zero_grad's fill of each gradient.
  EXPECT_EQ(updates, 4u * 161u);
  EXPECT_EQ(updatedLayers.size(), 54u);
  EXPECT_FALSE(updatedLayers.count(kOptimizerLayer));

  EXPECT_TRUE(m.times.forwardNs.count("conv1") && m.times.backwardNs.count("conv1"));
  EXPECT_TRUE(m.times.forwardNs.count("fc") && m.times.backwardNs.count("fc"));
  EXPECT_GT(m.times.backwardNs.at("conv1"),
            m.times.forwardNs.at("conv1"));  // weight and input gradients
  MappingReport report = applyMeasuredTimes(*graph, m.times, step);
  EXPECT_EQ(report.layersMapped, report.layers);
  EXPECT_EQ(report.forwardTimed, 54u);
  EXPECT_EQ(report.backwardTimed, 54u);
  EXPECT_EQ(report.updateTimed, 54u);
  EXPECT_TRUE(report.unknown.empty());
}

TEST(KernelMapping, CorrectionsFile) {
  auto path = std::filesystem::temp_directory_path() / "tensorscope-corrections.tsv";
  {
    std::ofstream f(path);
    f << "# kernel\tgroup\nvoid gemm<float>(int, int)\tforward/classifier.1\nstray\t\n";
  }
  auto c = loadCorrections(path.string());
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_EQ(c->at("void gemm<float>(int, int)"), "forward/classifier.1");
  EXPECT_EQ(c->at("stray"), "");
  {
    std::ofstream f(path);
    f << "ok\tforward/a\nno tab here\n";
  }
  c = loadCorrections(path.string());
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().find(path.string() + ":2"), std::string::npos) << c.error();
  {
    std::ofstream f(path);
    f << "k\tsideways/a\n";
  }
  c = loadCorrections(path.string());
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().find("sideways/a"), std::string::npos);
  std::filesystem::remove(path);
  EXPECT_FALSE(loadCorrections(path.string()).ok());
}

}  // namespace
}  // namespace ts::model
