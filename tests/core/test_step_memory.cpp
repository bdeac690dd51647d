// The memory model held to PyTorch's own allocator: for torchvision models trained one step on
// Debian's python3-torch (CPU, fp32, SGD with momentum, batch 8), the live bytes PyTorch's
// allocator reported (tests/memory/record_pytorch_step.py) against the model's step memory from
// the same model exported to ONNX. Models are split into those the model was calibrated on and
// those held out. The target is 10 % at the peak; these hold 5 % (every model came within
// 2.3 %), the forward curve within 10 % and the backward within 25 % at each module PyTorch ran
// once (the backward's order of gradient sums differs more), and lower bounds above a quarter.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cmath>
#include <map>
#include <string>

#include "memsim/engine/step_memory.h"
#include "memsim/formats/from_model.h"
#include "model/onnx_loader.h"
#include "model/training_step.h"

namespace ts::memsim {

namespace {

std::string fixture(const std::string& name) {
  return std::string(TSCOPE_TEST_DATA) + "/pytorch_memory/" + name;
}

struct PyTorchStep {
  int64_t batch = 0;
  int64_t peak = 0;
  int64_t parameters = 0;
  // Live bytes at the end of each leaf module's forward and backward pass, in order.
  std::vector<std::pair<std::string, int64_t>> forwardEnds, backwardEnds;
};

PyTorchStep readPyTorch(const std::string& model) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.load(fixture(model + ".memory.json"));
  PyTorchStep p;
  p.batch = int64_t(doc["batch"].get_int64());
  p.peak = int64_t(doc["peak"].get_int64());
  p.parameters = int64_t(doc["parameters"].get_int64());
  for (simdjson::dom::element l : doc["layers"].get_array()) {
    const std::string_view phase = l["phase"].get_string();
    auto& ends = phase == "forward" ? p.forwardEnds : p.backwardEnds;
    if (phase == "forward" || phase == "backward")
      ends.emplace_back(std::string(std::string_view(l["layer"].get_string())),
                        int64_t(l["end"].get_int64()));
  }
  return p;
}

struct Simulated {
  StepMemory memory;
  SimWorkload workload;
  model::ModelGraph graph;
  model::TrainingStep step;
};

Simulated simulate(const std::string& model, int64_t batch) {
  model::LoadOptions load;
  load.batch = batch;
  auto g = model::loadOnnxModel(fixture(model + ".onnx"), load);
  EXPECT_TRUE(g.ok()) << model << ": " << g.error();
  Simulated s;
  if (!g.ok()) return s;
  s.graph = std::move(*g);
  s.step = model::expandTrainingStep(s.graph);
  s.workload = workloadFromModel(s.graph, s.step);
  s.memory = stepMemory(s.workload);
  return s;
}

// The module an ONNX node belongs to. torch.onnx names a node "/<scope>/…/<scope>/<OpType>", a
// scope being a module's attribute name ("conv1", "relu_1" for its second call) or, under a
// container, its path from the nearest named ancestor ("layer1.0", "conv.0.0"):
// "/features/features.1/conv/conv.0/conv.0.0/Conv" is module "features.1.conv.0.0".
std::string moduleOfNode(const std::string& node) {
  std::vector<std::string> path, scopes;
  for (size_t at = 1; at < node.size();) {
    size_t slash = node.find('/', at);
    if (slash == std::string::npos) break;  // the last part is the op
    scopes.push_back(node.substr(at, slash - at));
    at = slash + 1;
  }
  for (std::string scope : scopes) {
    if (size_t u = scope.rfind('_');
        u != std::string::npos && u + 1 < scope.size() &&
        scope.find_first_not_of("0123456789", u + 1) == std::string::npos)
      scope.resize(u);  // a module called again
    std::vector<std::string> parts;
    for (size_t at = 0;;) {
      size_t dot = scope.find('.', at);
      parts.push_back(scope.substr(at, dot - at));
      if (dot == std::string::npos) break;
      at = dot + 1;
    }
    if (parts.size() > 1) {
      for (size_t i = path.size(); i-- > 0;) {
        if (path[i] == parts[0]) {
          path.resize(i);
          break;
        }
      }
    }
    path.insert(path.end(), parts.begin(), parts.end());
  }
  std::string out;
  for (const std::string& p : path) out += (out.empty() ? "" : ".") + p;
  return out;
}

double relative(int64_t simulated, int64_t measured) {
  return (static_cast<double>(simulated) - static_cast<double>(measured)) /
         static_cast<double>(measured);
}

// How far the simulated curve strays from PyTorch's: bytes allocated at the end of each module's
// pass (forward or backward), for the modules PyTorch ran once in that pass.
struct CurveFit {
  size_t compared = 0, modules = 0;
  double worst = 0;
  std::string worstAt;
};

CurveFit compareCurve(const Simulated& s, const std::vector<std::pair<std::string, int64_t>>& ends,
                      bool forward) {
  std::map<std::string, int> calls;  // a module PyTorch ran twice in a pass has no single end
  for (const auto& [module, bytes] : ends) ++calls[module];
  // The module's last kernel in this pass, and after it the ops of no leaf module (a Concat, a
  // residual Add): the recorder counts those with the module before them, so the end does too.
  std::vector<int> pass;
  std::vector<std::string> moduleOf;
  for (size_t k = 0; k < s.step.kernels.size(); ++k) {
    const model::StepKernel& kernel = s.step.kernels[k];
    const bool isForward = kernel.phase == model::KernelPhase::Forward;
    if (isForward != forward || kernel.phase == model::KernelPhase::Update || kernel.op < 0)
      continue;
    pass.push_back(static_cast<int>(k));
    moduleOf.push_back(moduleOfNode(s.graph.ops[static_cast<size_t>(kernel.op)].name));
  }
  std::map<std::string, int> endOfModule;
  for (size_t i = 0; i < pass.size(); ++i) {
    if (!calls.count(moduleOf[i])) continue;
    size_t last = i;
    while (last + 1 < pass.size() && !calls.count(moduleOf[last + 1])) ++last;
    endOfModule[moduleOf[i]] = pass[last];
  }
  CurveFit fit;
  fit.modules = ends.size();
  for (const auto& [module, bytes] : ends) {
    auto found = endOfModule.find(module);
    if (found == endOfModule.end() || calls[module] > 1) continue;
    ++fit.compared;
    const double e = std::abs(relative(s.memory.after[static_cast<size_t>(found->second)], bytes));
    if (e > fit.worst) fit.worst = e, fit.worstAt = module;
  }
  return fit;
}

void expectHeldToPyTorch(const std::string& model) {
  const PyTorchStep p = readPyTorch(model);
  const Simulated s = simulate(model, p.batch);
  ASSERT_FALSE(s.workload.kernels.empty()) << model;
  EXPECT_EQ(s.graph.parameters(), p.parameters) << model;
  const double peakError = relative(s.memory.peak, p.peak);
  const CurveFit forward = compareCurve(s, p.forwardEnds, true);
  const CurveFit backward = compareCurve(s, p.backwardEnds, false);
  std::printf(
      "%-19s PyTorch %7.1f MiB, simulated %7.1f MiB, %+5.1f %%; forward curve %zu of %zu "
      "modules, worst %.1f %% (%s); backward %zu of %zu, worst %.1f %% (%s)\n",
      model.c_str(), static_cast<double>(p.peak) / (1 << 20),
      static_cast<double>(s.memory.peak) / (1 << 20), 100 * peakError, forward.compared,
      forward.modules, 100 * forward.worst, forward.worstAt.c_str(), backward.compared,
      backward.modules, 100 * backward.worst, backward.worstAt.c_str());
  if (s.workload.unsizedTensors > 0) {
    // Shapes the loader could not infer (data-dependent reshapes): the figure says it is a lower
    // bound, and it must be one.
    std::printf("%-19s %zu tensors of unknown size: a lower bound\n", model.c_str(),
                s.workload.unsizedTensors);
    EXPECT_LE(s.memory.peak, p.peak) << model;
    EXPECT_GT(s.memory.peak, p.peak / 4) << model;  // not a bound so low it says nothing
    return;
  }
  EXPECT_LT(std::abs(peakError), 0.05) << model;  // all within 2.3 % when recorded
  EXPECT_GT(forward.compared, forward.modules / 2) << model << ": modules not found in the ONNX";
  EXPECT_LT(forward.worst, 0.10) << model << " at " << forward.worstAt;
  EXPECT_GT(backward.compared, backward.modules / 3) << model;
  EXPECT_LT(backward.worst, 0.25) << model << " at " << backward.worstAt;
}

}  // namespace

TEST(StepMemory, ByHand) {
  // A weight (global, 100) throughout; activation a (10) from kernel 0 to 1, b (20) at 1 to 2,
  // kernel 1's workspace 5: the peak is at kernel 1, 100 + 10 + 20 + 5.
  SimWorkload w;
  w.tensors = {{"w", 100, true, TensorClass::Weight},
               {"a", 10, false, TensorClass::Activation},
               {"b", 20, false, TensorClass::Activation}};
  w.kernels = {{"k0", 1, {0}, {1}, 0, ""}, {"k1", 1, {1}, {2}, 5, ""}, {"k2", 1, {2}, {}, 0, ""}};
  StepMemory m = stepMemory(w);
  EXPECT_EQ(m.live, (std::vector<int64_t>{110, 135, 120}));
  EXPECT_EQ(m.after, (std::vector<int64_t>{110, 120, 100}));
  EXPECT_EQ(m.peak, 135);
  EXPECT_EQ(m.peakKernel, 1);
  EXPECT_EQ(m.atPeak(TensorClass::Weight), 100);
  EXPECT_EQ(m.atPeak(TensorClass::Activation), 30);
  EXPECT_EQ(m.atPeak(TensorClass::Workspace), 5);
  // A weight gradient made at kernel 0 and last read there stays until the iteration ends.
  w.tensors.push_back({"grad.w", 40, false, TensorClass::Gradient});
  w.tensors.back().untilIterationEnd = true;
  w.kernels[0].outputs.push_back(3);
  m = stepMemory(w);
  EXPECT_EQ(m.live, (std::vector<int64_t>{150, 175, 160}));
  EXPECT_EQ(m.after, (std::vector<int64_t>{150, 160, 100}));
  const std::vector<TensorLifetime> lives = tensorLifetimes(w);
  EXPECT_EQ(lives[3].from, 0);
  EXPECT_EQ(lives[3].to, 3);
  EXPECT_TRUE(lives[0].global);
  EXPECT_EQ(lives[1].to, 2);
}

// Calibrated on: what the memory model's rules were checked and adjusted against. EfficientNet
// (SiLU as x · sigmoid(x)) and ConvNeXt (LayerNorm and GELU written out as elementwise ops) were
// held out at first and failed there (+26.3 %, +52.1 %); they are calibration models since.
TEST(StepMemoryAgainstPyTorch, CalibrationModels) {
  for (const char* model :
       {"resnet18", "resnet50", "vgg11", "mobilenet_v2", "efficientnet_b0", "convnext_tiny"})
    expectHeldToPyTorch(model);
}

// Held out: recorded before the model was tuned and not looked at while tuning it. ShuffleNet and
// ViT reshape by shapes computed in the graph, which the loader cannot infer yet: their figure
// is a stated lower bound.
TEST(StepMemoryAgainstPyTorch, ValidationModels) {
  for (const char* model :
       {"resnet34", "resnet101", "vgg16", "densenet121", "squeezenet1_1", "mobilenet_v3_large",
        "alexnet", "googlenet", "resnext50_32x4d", "shufflenet_v2_x1_0", "mnasnet1_0",
        "regnet_y_400mf", "wide_resnet50_2", "vit_b_16"})
    expectHeldToPyTorch(model);
}

// Adam (foreach, as PyTorch 2.x runs it on GPUs: all second moments' square roots at once in the
// update) in place of SGD, never tuned against: its two moments and step counters held as
// optimizer state, the recorder's `--optimizer adam` run of two calibration models.
TEST(StepMemoryAgainstPyTorch, AdamHeldOut) {
  for (const char* model : {"resnet18", "mobilenet_v2"}) {
    simdjson::dom::parser parser;
    simdjson::dom::element doc = parser.load(fixture(std::string(model) + ".adam.memory.json"));
    ASSERT_EQ(std::string_view(doc["optimizer"].get_string()), "adam-foreach");
    const int64_t pytorch = int64_t(doc["peak"].get_int64());
    model::LoadOptions load;
    load.batch = int64_t(doc["batch"].get_int64());
    auto g = model::loadOnnxModel(fixture(std::string(model) + ".onnx"), load);
    ASSERT_TRUE(g.ok()) << g.error();
    model::StepOptions options;
    options.optimizer = model::Optimizer::Adam;
    const SimWorkload w = workloadFromModel(*g, model::expandTrainingStep(*g, options));
    const StepMemory m = stepMemory(w);
    const double error = static_cast<double>(m.peak - pytorch) / static_cast<double>(pytorch);
    EXPECT_LT(std::abs(error), 0.05) << model << ": " << m.peak << " against " << pytorch;
    // Adam holds twice SGD's state: both moments of every parameter.
    EXPECT_GT(m.atPeak(TensorClass::OptimizerState), int64_t(doc["baseline"]["weights"]) * 19 / 10)
        << model;
  }
}

}  // namespace ts::memsim
