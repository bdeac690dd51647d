// ONNX models: the zoo's parameter counts against the published ones, VGG-16's layer table,
// shape inference at two batch sizes, FLOPs by hand, bad files, the training-step expansion of a
// small model by hand, and ASTRA-sim text for ResNet-50.
#include <gtest/gtest.h>
#include <onnx/checker.h>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>

#include "model/astra_workload.h"
#include "model/chakra_workload.h"
#include "model/layer_table.h"
#include "model/measured_times.h"
#include "model/model_zoo.h"
#include "model/onnx_loader.h"
#include "model/onnx_strip.h"
#include "model/training_step.h"
#include "session/session_builder.h"
#include "session_fixture.h"

namespace ts::model {

namespace fs = std::filesystem;

namespace {

ModelGraph zoo(const std::string& name, int64_t batch = 1) {
  auto bytes = zooModelBytes(name);
  EXPECT_TRUE(bytes.ok()) << (bytes.ok() ? "" : bytes.error());
  LoadOptions o;
  o.batch = batch;
  auto g = loadOnnxBytes(*bytes, name, o);
  EXPECT_TRUE(g.ok()) << (g.ok() ? "" : g.error());
  return g.ok() ? *g : ModelGraph{};
}

}  // namespace

TEST(Model, ZooParameterCountsArePublishedOnes) {
  // torchvision and Hugging Face definitions (BERT-base with its pooler).
  const std::map<std::string, int64_t> published = {
      {"alexnet", 61'100'840},  {"vgg16", 138'357'544},       {"vgg19", 143'667'240},
      {"resnet50", 25'557'032}, {"resnet152", 60'192'808},    {"bert-base", 109'482'240},
      {"vit-b16", 86'567'656},  {"inception_v3", 27'161'264},  // auxiliary classifier included, as
                                                               // torchvision defines it
  };
  for (const auto& [name, count] : published) {
    ModelGraph g = zoo(name);
    EXPECT_EQ(g.parameters(), count) << name;
    EXPECT_TRUE(g.warnings.empty())
        << name << ": " << (g.warnings.empty() ? "" : g.warnings.front());
  }
}

TEST(Model, StepWeightsAndParameterBytesAgree) {
  // ResNet-50's step holds its 25.6 M parameters plus the BatchNorm running statistics: the note
  // says both, and the trainable part is the summary's "parameter bytes".
  ModelGraph g = zoo("resnet50");
  StatsTable summary = modelSummary(g);
  std::string parameterBytes;
  for (const auto& row : summary.rows) {
    if (std::get<std::string>(row[0]) == "parameter bytes")
      parameterBytes = std::get<std::string>(row[1]);
  }
  const std::string trainable = formatCell(g.parameterBytes(), StatsUnit::Bytes);
  EXPECT_EQ(parameterBytes, trainable + " (trainable weights)");
  StatsTable step = stepTable(expandTrainingStep(g));
  ASSERT_FALSE(step.notes.empty());
  EXPECT_NE(step.notes.back().find("(" + trainable + " trainable, the rest BatchNorm"),
            std::string::npos)
      << step.notes.back();
}

TEST(Model, Vgg16LayerTable) {
  // Published VGG-16 (configuration D) weights per layer: 13 convolutions, 3 fully connected.
  const int64_t expected[] = {1'792,     36'928,      73'856,     147'584,   295'168,   590'080,
                              590'080,   1'180'160,   2'359'808,  2'359'808, 2'359'808, 2'359'808,
                              2'359'808, 102'764'544, 16'781'312, 4'097'000};
  ModelGraph g = zoo("vgg16");
  std::vector<int64_t> layers;
  for (const Op& op : g.ops) {
    if (op.parameters(g.tensors) > 0) layers.push_back(op.parameters(g.tensors));
  }
  ASSERT_EQ(layers.size(), std::size(expected));
  for (size_t i = 0; i < layers.size(); ++i) EXPECT_EQ(layers[i], expected[i]) << "layer " << i;
}

TEST(Model, ShapesFollowTheBatch) {
  for (int64_t batch : {1, 32}) {
    ModelGraph g = zoo("resnet50", batch);
    for (const Tensor& t : g.tensors) {
      if (t.producer >= 0) {
        EXPECT_TRUE(t.shapeKnown) << t.name << " at batch " << batch;
      }
    }
    const Tensor& out = g.tensors[static_cast<size_t>(g.outputs[0])];
    EXPECT_EQ(out.shape, (std::vector<int64_t>{batch, 1000}));
    // Conv1's output: batch × 64 × 112 × 112.
    int conv1 = -1;
    for (size_t i = 0; i < g.ops.size(); ++i) {
      if (g.ops[i].name == "conv1") conv1 = static_cast<int>(i);
    }
    ASSERT_GE(conv1, 0);
    EXPECT_EQ(g.tensors[static_cast<size_t>(g.ops[static_cast<size_t>(conv1)].outputs[0])].shape,
              (std::vector<int64_t>{batch, 64, 112, 112}));
    // 2 × MACs: 64 × 112 × 112 outputs per image, each 3 × 7 × 7 multiply-adds.
    EXPECT_EQ(g.ops[static_cast<size_t>(conv1)].flops, 2 * batch * 64 * 112 * 112 * 3 * 7 * 7);
  }
  ModelGraph bert = zoo("bert-base", 8);
  EXPECT_EQ(bert.tensors[static_cast<size_t>(bert.outputs[0])].shape,
            (std::vector<int64_t>{8, 768}));
  ModelGraph inception = zoo("inception_v3", 2);
  ASSERT_EQ(inception.outputs.size(), 2u);  // the auxiliary classifier's logits too
  for (int o : inception.outputs)
    EXPECT_EQ(inception.tensors[static_cast<size_t>(o)].shape, (std::vector<int64_t>{2, 1000}));
  ModelGraph vit = zoo("vit-b16", 4);
  EXPECT_EQ(vit.tensors[static_cast<size_t>(vit.outputs[0])].shape,
            (std::vector<int64_t>{4, 1000}));
}

TEST(Model, BadFilesAreClearErrors) {
  fs::path dir = fs::temp_directory_path() / ("tscope-model-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  auto write = [&](const std::string& name, const std::string& bytes) {
    std::ofstream((dir / name).string(), std::ios::binary) << bytes;
    return (dir / name).string();
  };
  auto bytes = zooModelBytes("alexnet");
  ASSERT_TRUE(bytes.ok());
  auto cut = loadOnnxModel(write("cut.onnx", bytes->substr(0, bytes->size() / 2)));
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.error().find("cut.onnx"), std::string::npos) << cut.error();
  auto text = loadOnnxModel(write("text.onnx", "hello, this is not a model"));
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.error().find("not an ONNX model"), std::string::npos) << text.error();
  auto empty = loadOnnxModel(write("empty.onnx", ""));
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.error().find("empty"), std::string::npos) << empty.error();
  EXPECT_FALSE(loadOnnxModel((dir / "missing.onnx").string()).ok());
  EXPECT_FALSE(zooModelBytes("lenet").ok());
  fs::remove_all(dir);
}

}  // namespace ts::model

namespace ts::model {

namespace {

// x [2, 4] → Gemm (W [3, 4], b [3]) → y [2, 3] → Relu → z: weights as initializers with data.
std::string smallModel() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* g = m.mutable_graph();
  g->set_name("small");
  auto value = [](onnx::ValueInfoProto* v, const char* name, std::vector<int64_t> dims) {
    v->set_name(name);
    auto* tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
  };
  value(g->add_input(), "x", {2, 4});
  value(g->add_output(), "z", {2, 3});
  auto init = [&](const char* name, std::vector<int64_t> dims) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    int64_t n = 1;
    for (int64_t d : dims) t->add_dims(d), n *= d;
    for (int64_t i = 0; i < n; ++i) t->add_float_data(0.5f);
  };
  init("W", {3, 4});
  init("b", {3});
  auto* fc = g->add_node();
  fc->set_op_type("Gemm");
  fc->set_name("fc");
  fc->add_input("x"), fc->add_input("W"), fc->add_input("b"), fc->add_output("y");
  auto* t = fc->add_attribute();
  t->set_name("transB"), t->set_type(onnx::AttributeProto::INT), t->set_i(1);
  auto* relu = g->add_node();
  relu->set_op_type("Relu");
  relu->set_name("relu");
  relu->add_input("y"), relu->add_output("z");
  return m.SerializeAsString();
}

}  // namespace

namespace {

// x, w (graph inputs with the given shapes) → OP → y of shape yDims: no data, only shapes.
std::string shapesOnlyModel(const char* op, std::vector<int64_t> xDims, std::vector<int64_t> wDims,
                            std::vector<int64_t> yDims) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* g = m.mutable_graph();
  g->set_name("crafted");
  auto value = [](onnx::ValueInfoProto* v, const char* name, const std::vector<int64_t>& dims) {
    v->set_name(name);
    auto* tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
  };
  value(g->add_input(), "x", xDims);
  if (!wDims.empty()) value(g->add_input(), "w", wDims);
  value(g->add_output(), "y", yDims);
  auto* node = g->add_node();
  node->set_op_type(op);
  node->set_name("crafted_op");
  node->add_input("x");
  if (!wDims.empty()) node->add_input("w");
  node->add_output("y");
  return m.SerializeAsString();
}

}  // namespace

// A scalar operand of MatMul or Gemm (found by the ONNX fuzzer: the inner dimension was read
// from an empty shape): the op's FLOPs are unknown, not read past the shape.
TEST(Model, AScalarMatMulOperandLeavesItsFlopsUnknown) {
  for (const char* op : {"MatMul", "Gemm"}) {
    onnx::ModelProto m;
    ASSERT_TRUE(m.ParseFromString(shapesOnlyModel(op, {4, 3}, {3, 2}, {4, 2})));
    m.mutable_graph()
        ->mutable_input(0)
        ->mutable_type()
        ->mutable_tensor_type()
        ->mutable_shape()
        ->clear_dim();  // x: a shape of rank 0
    auto g = loadOnnxBytes(m.SerializeAsString(), "scalar.onnx");
    ASSERT_TRUE(g.ok()) << g.error();
    ASSERT_EQ(g->ops.size(), 1u);
    EXPECT_FALSE(g->ops[0].flopsKnown) << op;
    EXPECT_EQ(g->ops[0].flops, 0) << op;
  }
}

TEST(Model, SizesThatOverflow64BitsAreErrorsNamingTheFileAndTheValue) {
  // Was signed overflow (UBSan) in Tensor::elements: 68182605697 × 268435455.
  auto big = loadOnnxBytes(
      shapesOnlyModel("Relu", {68182605697, 268435455}, {}, {68182605697, 268435455}), "big.onnx");
  ASSERT_FALSE(big.ok());
  EXPECT_NE(
      big.error().find(
          "big.onnx: tensor 'x' of shape [68182605697, 268435455] has more elements or bytes"),
      std::string::npos)
      << big.error();
  // Every tensor fits (2^48 elements), the FLOPs do not: 2 · 2^48 · 2^24.
  const int64_t n = int64_t{1} << 24;
  auto flops = loadOnnxBytes(shapesOnlyModel("MatMul", {n, n}, {n, n}, {n, n}), "flops.onnx");
  ASSERT_FALSE(flops.ok());
  EXPECT_NE(flops.error().find("flops.onnx: op crafted_op (MatMul): its FLOPs overflow 64 bits"),
            std::string::npos)
      << flops.error();
  // Just below the limit it still loads, with the exact count: 2 · 2^20 · 2^20 · 2^20.
  const int64_t m = int64_t{1} << 20;
  auto fits = loadOnnxBytes(shapesOnlyModel("MatMul", {m, m}, {m, m}, {m, m}), "fits.onnx");
  ASSERT_TRUE(fits.ok()) << fits.error();
  EXPECT_EQ(fits->ops[0].flops, int64_t{1} << 61);
}

TEST(Model, TrainingStepOfASmallModelByHand) {
  auto g = loadOnnxBytes(smallModel(), "small.onnx");
  ASSERT_TRUE(g.ok()) << g.error();
  EXPECT_EQ(g->parameters(), 15);
  EXPECT_EQ(g->ops[0].flops, 2 * 2 * 3 * 4 + 2 * 3);  // multiply-adds, plus the bias
  TrainingStep s = expandTrainingStep(*g);
  std::vector<std::string> kernels;
  for (const StepKernel& k : s.kernels) kernels.push_back(k.name);
  // No gradient for the data input x: the Gemm has only a weight-gradient kernel.
  EXPECT_EQ(kernels, (std::vector<std::string>{"fc", "relu", "relu.backward_input",
                                               "fc.backward_weight", "W.update", "b.update"}));
  auto tensorNames = [&](const std::vector<int>& ids) {
    std::vector<std::string> out;
    for (int i : ids) out.push_back(s.tensors[static_cast<size_t>(i)].name);
    return out;
  };
  EXPECT_EQ(tensorNames(s.kernels[0].inputs), (std::vector<std::string>{"x", "W", "b"}));
  EXPECT_EQ(tensorNames(s.kernels[2].inputs), (std::vector<std::string>{"grad.z", "y"}));
  EXPECT_EQ(tensorNames(s.kernels[2].outputs), (std::vector<std::string>{"grad.y"}));
  EXPECT_EQ(tensorNames(s.kernels[3].inputs), (std::vector<std::string>{"grad.y", "x"}));
  EXPECT_EQ(tensorNames(s.kernels[3].outputs), (std::vector<std::string>{"grad.W", "grad.b"}));
  EXPECT_EQ(tensorNames(s.kernels[4].inputs),
            (std::vector<std::string>{"W", "grad.W", "W.momentum"}));
  EXPECT_EQ(s.bytes(TensorRole::Input), 2 * 4 * 4);
  EXPECT_EQ(s.bytes(TensorRole::Weight), 15 * 4);
  // y and z share memory: the ReLU runs in place over the Gemm's output, which nothing else reads.
  EXPECT_EQ(s.bytes(TensorRole::Activation), 2 * 3 * 4);
  EXPECT_EQ(s.bytes(TensorRole::WeightGradient), 15 * 4);
  EXPECT_EQ(s.bytes(TensorRole::ActivationGradient), 2 * 2 * 3 * 4);  // grad.y and grad.z
  EXPECT_EQ(s.bytes(TensorRole::OptimizerState), 15 * 4);
  StepOptions adam;
  adam.optimizer = Optimizer::Adam;
  EXPECT_EQ(expandTrainingStep(*g, adam).bytes(TensorRole::OptimizerState), 2 * 15 * 4);
  // Roofline: the Gemm moves x, W, b and y once (32 + 48 + 12 + 24 bytes) at 1,555 GB/s.
  EXPECT_EQ(s.kernels[0].bytes, 116);
  EXPECT_EQ(s.kernels[0].durationNs, 1);  // far below a nanosecond: the floor
}

TEST(Model, AstraTextForResNet50) {
  ModelGraph g = zoo("resnet50");
  TrainingStep step = expandTrainingStep(g);
  int64_t convAndFcWeights = 0;
  for (const Op& op : g.ops) {
    if (op.type == "Conv" || op.type == "Gemm")
      convAndFcWeights += g.tensors[static_cast<size_t>(op.inputs[1])].elements();
  }
  AstraOptions o;
  o.npus = 8;
  o.weightsOnly = true;
  auto text = astraText(g, step, o);
  ASSERT_TRUE(text.ok()) << text.error();
  std::istringstream in(*text);
  std::string parallel;
  int layers = 0;
  in >> parallel >> layers;
  EXPECT_EQ(parallel, "DATA");
  EXPECT_EQ(layers, 54);  // 53 convolutions and the classifier
  auto sumOfWeightGradients = [](const std::string& t) {
    std::istringstream s(t);
    std::string line;
    std::getline(s, line), std::getline(s, line);
    int64_t sum = 0;
    int lines = 0;
    while (std::getline(s, line)) {
      std::istringstream f(line);
      std::vector<std::string> fields((std::istream_iterator<std::string>(f)), {});
      EXPECT_EQ(fields.size(), 12u) << line;
      EXPECT_EQ(fields[1], "-1");
      EXPECT_EQ(fields[3], "NONE");
      EXPECT_EQ(fields[9], "ALLREDUCE");
      sum += std::stoll(fields[10]);
      ++lines;
    }
    return std::pair(sum, lines);
  };
  auto [weightsOnly, lines] = sumOfWeightGradients(*text);
  EXPECT_EQ(lines, 54);
  EXPECT_EQ(weightsOnly, 4 * convAndFcWeights);
  EXPECT_NE(text->back(), '\n');  // no trailing blank line
  o.weightsOnly = false;
  auto all = astraText(g, step, o);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(sumOfWeightGradients(*all).first, 4 * 25'557'032);
  o.parallelism = Parallelism::Model;
  auto model = astraText(g, step, o);
  ASSERT_TRUE(model.ok());
  EXPECT_NE(model->find("ALLGATHER"), std::string::npos);
  o.parallelism = Parallelism::HybridDataModel;
  o.modelDim = 3;
  EXPECT_FALSE(astraText(g, step, o).ok());  // 3 does not divide 8
}

}  // namespace ts::model

namespace ts::model {

TEST(Model, ChakraRoundTrip) {
  ModelGraph g = zoo("resnet50");
  std::vector<Layer> layers = modelLayers(g, expandTrainingStep(g));
  ASSERT_EQ(layers.size(), 54u);
  fs::path dir = fs::temp_directory_path() / ("tscope-chakra-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  auto written = writeChakra(chakraDataParallel(layers, false), (dir / "r50").string(), 4);
  ASSERT_TRUE(written.ok()) << written.error();
  ASSERT_EQ(written->size(), 4u);
  EXPECT_EQ(written->back(), (dir / "r50.3.et").string());
  for (const std::string& path : *written) {
    auto t = readChakra(path);
    ASSERT_TRUE(t.ok()) << t.error();
    ASSERT_EQ(t->nodes.size(),
              54u * 4);  // forward, then weight gradient, all-reduce, input gradient
    int64_t reduced = 0;
    for (size_t i = 0; i < t->nodes.size(); ++i) {
      const ChakraNode& n = t->nodes[i];
      EXPECT_EQ(n.id, i);
      for (uint64_t d : n.dataDeps) EXPECT_LT(d, n.id);  // dependencies point back
      if (n.type == 7) {
        EXPECT_EQ(n.commType, 0);  // ALL_REDUCE
        reduced += n.commSize;
      } else {
        EXPECT_EQ(n.type, 4);
        EXPECT_GE(n.durationMicros, 1u);
      }
    }
    EXPECT_TRUE(t->nodes[0].dataDeps.empty());
    EXPECT_EQ(t->nodes[0].name, "conv1.forward");
    EXPECT_EQ(t->nodes[54].name, "fc.weight_gradient");
    EXPECT_EQ(reduced, 4 * 25'557'032);
  }
  std::ofstream((dir / "broken.et").string(), std::ios::binary) << "\x05"
                                                                << "abc";
  EXPECT_FALSE(readChakra((dir / "broken.et").string()).ok());
  fs::remove_all(dir);
}

}  // namespace ts::model

namespace ts::model {

// The small model's layer "fc" (Gemm and the Relu after it), timed by NVTX ranges around the
// launches: forward/fc holds a 40 ns kernel (and a 20 ns one in a second iteration), backward/fc
// a 70 ns one.
TEST(Model, MeasuredLayerTimesReplaceTheRoofline) {
  SessionPtr session = testing::makeLayerRun({{"forward/fc", 0, 100, 40},
                                              {"backward/fc", 200, 300, 70},
                                              {"forward/fc", 1000, 1100, 20},
                                              {"forward/nothing_of_ours", 2000, 2100, 0}});
  ASSERT_TRUE(session);
  MeasuredTimes m = measureLayerTimes(*session);
  EXPECT_EQ(m.forwardNs.at("fc"), 30);  // (40 + 20) / 2 occurrences
  EXPECT_EQ(m.backwardNs.at("fc"), 70);

  auto g = loadOnnxBytes(smallModel(), "small.onnx");
  ASSERT_TRUE(g.ok());
  TrainingStep s = expandTrainingStep(*g);
  MappingReport report = applyMeasuredTimes(*g, m, s);
  EXPECT_EQ(report.method, MappingMethod::Nvtx);
  EXPECT_EQ(report.layersMapped, 1u);
  EXPECT_EQ(report.unknown, (std::vector<std::string>{"nothing_of_ours"}));
  int64_t forward = 0, backward = 0;
  for (const StepKernel& k : s.kernels) {
    if (k.phase == KernelPhase::Forward) forward += k.durationNs;
    if (k.phase == KernelPhase::BackwardInput || k.phase == KernelPhase::BackwardWeight)
      backward += k.durationNs;
  }
  EXPECT_EQ(forward, 30);  // fc and relu share the layer's measured time
  EXPECT_EQ(backward, 70);

  // Order: a session of exactly two kernels times the two forward kernels one to one.
  MeasuredTimes ordered;
  ordered.kernelNs = {111, 222};
  TrainingStep o = expandTrainingStep(*g);
  EXPECT_EQ(applyMeasuredTimes(*g, ordered, o).method, MappingMethod::Order);
  EXPECT_EQ(o.kernels[0].durationNs, 111);
  EXPECT_EQ(o.kernels[1].durationNs, 222);
  ordered.kernelNs = {1, 2, 3};
  EXPECT_EQ(applyMeasuredTimes(*g, ordered, o).method, MappingMethod::None);
}

}  // namespace ts::model

namespace ts::model {

TEST(Model, EveryZooModelInfersEveryShapeAtBatch1And32) {
  for (const std::string& name : zooModels()) {
    for (int64_t batch : {1, 32}) {
      ModelGraph g = zoo(name, batch);
      size_t unknown = 0;
      for (const Tensor& t : g.tensors) unknown += t.producer >= 0 && !t.shapeKnown;
      EXPECT_EQ(unknown, 0u) << name << " at batch " << batch;
      EXPECT_EQ(g.tensors[static_cast<size_t>(g.outputs[0])].shape[0], batch) << name;
      for (const Op& op : g.ops) EXPECT_TRUE(op.flopsKnown) << name << ": " << op.type;
    }
  }
}

TEST(Model, ConvolutionsGetAWorkspaceWhileTheyRun) {
  ModelGraph g = zoo("resnet50");
  TrainingStep s = expandTrainingStep(g);
  auto workspaceOf = [&](const StepKernel& k) -> int64_t {
    for (int t : k.outputs) {
      if (s.tensors[static_cast<size_t>(t)].role == TensorRole::Workspace)
        return s.tensors[static_cast<size_t>(t)].bytes;
    }
    return 0;
  };
  const StepKernel& conv1 = s.kernels[0];
  ASSERT_EQ(conv1.name, "conv1");
  // The smaller of the im2col matrix (3 · 7 × 7 per position) and the output (64 per position).
  EXPECT_EQ(workspaceOf(conv1), int64_t{64} * 112 * 112 * 4);
  for (const StepKernel& k : s.kernels) {
    if (k.name == "layer1.0.conv1") {  // 1 × 1, 64 → 64: as large as its input
      EXPECT_EQ(workspaceOf(k), int64_t{64} * 56 * 56 * 4);
    }
    if (k.op < 0 || k.phase == KernelPhase::BackwardWeight ||
        g.ops[static_cast<size_t>(k.op)].type != "Conv") {
      EXPECT_EQ(workspaceOf(k), 0) << k.name;
    }
  }
}

// What autograd keeps decides how long an activation lives: a ReLU in place over a BatchNorm's
// output shares its memory; BatchNorm keeps its input for the backward pass, the convolution its
// input; max pooling adds its int64 indices.
TEST(Model, TheTrainingStepKeepsWhatAutogradSaves) {
  ModelGraph g = zoo("resnet50", 2);
  TrainingStep s = expandTrainingStep(g);
  auto kernel = [&](const std::string& name) -> const StepKernel& {
    for (const StepKernel& k : s.kernels) {
      if (k.name == name) return k;
    }
    ADD_FAILURE() << "no kernel " << name;
    return s.kernels.front();
  };
  auto names = [&](const std::vector<int>& ids) {
    std::vector<std::string> out;
    for (int i : ids) out.push_back(s.tensors[static_cast<size_t>(i)].name);
    return out;
  };
  const StepKernel& bn = kernel("bn1");
  const StepKernel& relu = kernel("relu");
  ASSERT_FALSE(bn.outputs.empty());
  EXPECT_EQ(relu.outputs, (std::vector<int>{bn.outputs[0]}));  // in place
  const std::vector<std::string> maxpool = names(kernel("maxpool").outputs);
  ASSERT_EQ(maxpool.size(), 2u);
  EXPECT_EQ(maxpool[1], "maxpool.indices");
  EXPECT_EQ(s.tensors[static_cast<size_t>(kernel("maxpool").outputs[1])].bytes,
            int64_t{2} * 64 * 56 * 56 * 8);
  // The first convolution's input is the data (no gradient): only its weight gradient, which
  // reads the kept input.
  for (const StepKernel& k : s.kernels) EXPECT_NE(k.name, "conv1.backward_input");
  const std::vector<std::string> convBackward = names(kernel("conv1.backward_weight").inputs);
  EXPECT_NE(std::find(convBackward.begin(), convBackward.end(), "input"), convBackward.end());
}

}  // namespace ts::model

namespace ts::model {

// A model whose weights live in an external data file (as large exports do): the shapes come
// from the initializers, the data is never needed.
TEST(Model, ExternalDataModels) {
  onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(smallModel()));
  for (auto& init : *m.mutable_graph()->mutable_initializer()) {
    init.clear_float_data();
    init.set_data_location(onnx::TensorProto::EXTERNAL);
    auto* location = init.add_external_data();
    location->set_key("location");
    location->set_value("small.weights");
    auto* length = init.add_external_data();
    length->set_key("length");
    length->set_value(std::to_string(init.dims_size() == 2 ? 48 : 12));
  }
  fs::path dir = fs::temp_directory_path() / ("tscope-external-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream((dir / "small.onnx").string(), std::ios::binary) << m.SerializeAsString();
  std::ofstream((dir / "small.weights").string(), std::ios::binary) << std::string(60, '\0');
  auto g = loadOnnxModel((dir / "small.onnx").string());
  ASSERT_TRUE(g.ok()) << g.error();
  EXPECT_EQ(g->parameters(), 15);
  EXPECT_EQ(g->parameterBytes(), 60);
  // The checker looks for the data beside the model: a missing file is named.
  fs::remove(dir / "small.weights");
  auto missing = loadOnnxModel((dir / "small.onnx").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().find("small.weights"), std::string::npos) << missing.error();
  fs::remove_all(dir);
}

}  // namespace ts::model

namespace ts::model {

namespace {

// A float tensor of `dims` holding zeros in raw_data or, with `packed`, in float_data.
onnx::TensorProto floatTensor(const std::string& name, std::vector<int64_t> dims, bool packed) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(onnx::TensorProto::FLOAT);
  int64_t n = 1;
  for (int64_t d : dims) t.add_dims(d), n *= d;
  if (packed) {
    for (int64_t i = 0; i < n; ++i) t.add_float_data(static_cast<float>(i % 7));
  } else {
    t.set_raw_data(std::string(static_cast<size_t>(n) * 4, '\x01'));
  }
  return t;
}

// x [1, 4096] → MatMul W (raw_data, 64 KiB) → Add b (float_data, 16 KiB) → Reshape to the shape
// held by a small int64 initializer (kept: shape inference reads it) → Mul by a Constant node's
// large tensor.
onnx::ModelProto weightyModel() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  onnx::GraphProto& g = *m.mutable_graph();
  g.set_name("weighty");
  auto input = [&](onnx::ValueInfoProto* v, const std::string& name, std::vector<int64_t> dims) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) t->mutable_shape()->add_dim()->set_dim_value(d);
  };
  input(g.add_input(), "x", {1, 4096});
  *g.add_initializer() = floatTensor("W", {4096, 4}, false);
  *g.add_initializer() = floatTensor("b", {1, 4096}, true);
  onnx::TensorProto& shape = *g.add_initializer();
  shape.set_name("shape");
  shape.set_data_type(onnx::TensorProto::INT64);
  shape.add_dims(2);
  shape.add_int64_data(2), shape.add_int64_data(2);
  auto node = [&](const std::string& op, std::vector<std::string> in, const std::string& out) {
    onnx::NodeProto& n = *g.add_node();
    n.set_op_type(op);
    n.set_name(out);
    for (const auto& i : in) n.add_input(i);
    n.add_output(out);
    return &n;
  };
  node("Add", {"x", "b"}, "xb");
  node("MatMul", {"xb", "W"}, "y");
  node("Reshape", {"y", "shape"}, "r");
  onnx::NodeProto* constant = node("Constant", {}, "c");
  onnx::AttributeProto& value = *constant->add_attribute();
  value.set_name("value");
  value.set_type(onnx::AttributeProto::TENSOR);
  *value.mutable_t() = floatTensor("c", {1024, 2, 2}, false);
  node("Mul", {"r", "c"}, "z");
  input(g.add_output(), "z", {1024, 2, 2});
  return m;
}

// What the strip must give: each large value field cut to one zero value, in its own field.
void cutValues(onnx::TensorProto& t) {
  if (t.raw_data().size() > kKeptValueBytes) t.set_raw_data(std::string(1, '\0'));
  if (t.float_data_size() * 4 > static_cast<int>(kKeptValueBytes)) {
    t.clear_float_data();
    t.add_float_data(0);
  }
}

}  // namespace

// The values of large tensors never reach the parser: the bytes are those of the model with each
// cut to one value (protobuf's own serialization of it), the layer table is the model's, the
// small shape tensor stays for shape inference, and the checker's verdict on a broken tensor is
// unchanged.
TEST(Model, WeightValuesAreDroppedBeforeParsing) {
  const onnx::ModelProto model = weightyModel();
  const std::string bytes = model.SerializeAsString();
  auto stripped = withoutWeightValues(bytes);
  ASSERT_TRUE(stripped.has_value());
  EXPECT_LT(stripped->size(), bytes.size() / 20);
  onnx::ModelProto expected = model;
  for (auto& init : *expected.mutable_graph()->mutable_initializer()) cutValues(init);
  cutValues(*expected.mutable_graph()->mutable_node(3)->mutable_attribute(0)->mutable_t());
  EXPECT_EQ(*stripped, expected.SerializeAsString());

  auto g = loadOnnxBytes(bytes, "weighty.onnx");
  ASSERT_TRUE(g.ok()) << g.error();
  EXPECT_EQ(g->parameters(), 4096 * 4 + 4096);  // from the dimensions
  const Tensor* r = nullptr;
  for (const Tensor& t : g->tensors)
    if (t.name == "r") r = &t;
  ASSERT_NE(r, nullptr);
  EXPECT_TRUE(r->shapeKnown);
  EXPECT_EQ(r->shape, (std::vector<int64_t>{2, 2}));

  // A tensor with values in two fields: refused before and after, for the same reason.
  onnx::ModelProto broken = model;
  onnx::TensorProto& w = *broken.mutable_graph()->mutable_initializer(0);
  for (int i = 0; i < 4096 * 4; ++i) w.add_float_data(1);
  const std::string brokenBytes = broken.SerializeAsString();
  auto reason = [](const std::string& b) {
    onnx::ModelProto m;
    EXPECT_TRUE(m.ParseFromString(b));
    try {
      onnx::checker::check_model(m);
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  const std::string before = reason(brokenBytes);
  EXPECT_NE(before, "accepted");
  EXPECT_EQ(reason(*withoutWeightValues(brokenBytes)), before);

  // Not protobuf as far as the walk goes: nothing, and the loader's error is the parser's.
  EXPECT_FALSE(withoutWeightValues(bytes.substr(0, bytes.size() / 2)).has_value());
  EXPECT_FALSE(withoutWeightValues("\xff\xff\xff").has_value());
  auto cut = loadOnnxBytes(bytes.substr(0, bytes.size() / 2), "cut.onnx");
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.error().find("cut.onnx: not an ONNX model"), std::string::npos) << cut.error();
}

}  // namespace ts::model
