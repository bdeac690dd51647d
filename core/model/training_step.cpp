#include "model/training_step.h"

#include <algorithm>

#include "model/autograd_saves.h"

namespace ts::model {

const char* toString(TensorRole r) {
  switch (r) {
    case TensorRole::Input:
      return "input";
    case TensorRole::Activation:
      return "activation";
    case TensorRole::Weight:
      return "weight";
    case TensorRole::WeightGradient:
      return "weight_gradient";
    case TensorRole::ActivationGradient:
      return "activation_gradient";
    case TensorRole::OptimizerState:
      return "optimizer_state";
    case TensorRole::Workspace:
      return "workspace";
  }
  return "activation";
}

const char* toString(KernelPhase p) {
  switch (p) {
    case KernelPhase::Forward:
      return "forward";
    case KernelPhase::BackwardInput:
      return "backward_input";
    case KernelPhase::BackwardWeight:
      return "backward_weight";
    case KernelPhase::Update:
      return "update";
  }
  return "forward";
}

const char* toString(Optimizer o) {
  return o == Optimizer::Adam ? "adam" : "sgd-momentum";
}

std::optional<Optimizer> optimizerFromName(std::string_view name) {
  if (name == "sgd") return Optimizer::SgdMomentum;
  if (name == "adam") return Optimizer::Adam;
  return std::nullopt;
}

int64_t TrainingStep::bytes(TensorRole role) const {
  int64_t n = 0;
  for (const StepTensor& t : tensors) {
    if (t.role == role) n += t.bytes;
  }
  return n;
}

int64_t TrainingStep::totalNs() const {
  int64_t n = 0;
  for (const StepKernel& k : kernels) n += k.durationNs;
  return n;
}

namespace {

// Builds a training step in the order PyTorch runs it, with the tensors its allocator holds:
// views and in-place activations share their input's memory, each op's backward reads what
// autograd saved for it (so an activation lives until then, and no longer when nothing saved
// it), gradients exist only where something requires them.
class StepBuilder {
 public:
  StepBuilder(const ModelGraph& g, const StepOptions& o)
      : g_(g),
        o_(o),
        consumers_(g.tensors.size(), 0),
        readers_(g.tensors.size()),
        storage_(g.tensors.size(), -1),
        gradient_(g.tensors.size(), -1),
        requiresGrad_(g.tensors.size(), 0),
        extra_(g.ops.size(), -1) {
    s_.model = g.name;
    s_.batch = g.batch;
    s_.optimizer = o.optimizer;
    s_.device = o.device.name;
    for (size_t i = 0; i < g.ops.size(); ++i) {
      for (int t : g.ops[i].inputs) {
        if (!valid(t)) continue;
        ++consumers_[static_cast<size_t>(t)];
        auto& r = readers_[static_cast<size_t>(t)];
        if (r.empty() || r.back() != static_cast<int>(i)) r.push_back(static_cast<int>(i));
      }
    }
    for (int t : g.outputs) {
      if (valid(t)) ++consumers_[static_cast<size_t>(t)];
    }
    layerNorm_ = decomposedLayerNorms(g, readers_);
  }

  TrainingStep build() {
    // About a forward, two backward kernels and an update per op; a tensor, its gradient and
    // optimizer state per graph tensor: reserved so a large model is not copied as it grows.
    s_.kernels.reserve(3 * g_.ops.size() + g_.tensors.size());
    s_.tensors.reserve(3 * g_.tensors.size() + 2 * g_.ops.size());
    leafTensors();
    for (size_t i = 0; i < g_.ops.size(); ++i) forward(static_cast<int>(i));
    for (size_t r = g_.ops.size(); r-- > 0;) backward(static_cast<int>(r));
    updates();
    return std::move(s_);
  }

 private:
  bool valid(int t) const { return t >= 0 && static_cast<size_t>(t) < g_.tensors.size(); }
  OpContext context() const { return {g_, readers_, requiresGrad_, layerNorm_}; }
  const Tensor& tensor(int t) const { return g_.tensors[static_cast<size_t>(t)]; }

  int add(const std::string& name, TensorRole role, int64_t bytes, int source) {
    s_.tensors.push_back({name, role, std::max<int64_t>(bytes, 0), source});
    return static_cast<int>(s_.tensors.size()) - 1;
  }

  // Weights and data inputs: allocated before the step.
  void leafTensors() {
    for (size_t i = 0; i < g_.tensors.size(); ++i) {
      const Tensor& t = g_.tensors[i];
      bool data =
          std::find(g_.inputs.begin(), g_.inputs.end(), static_cast<int>(i)) != g_.inputs.end();
      if (t.producer >= 0 || (!t.weight && !data)) continue;
      storage_[i] = add(t.name, t.weight ? TensorRole::Weight : TensorRole::Input, t.bytes(),
                        static_cast<int>(i));
      requiresGrad_[i] = t.trainable;
    }
  }

  void forward(int index) {
    const Op& op = g_.ops[static_cast<size_t>(index)];
    StepKernel k{op.name, KernelPhase::Forward, index, {}, {}, static_cast<double>(op.flops), 0, 0};
    bool anyRequiresGrad = false;
    for (int t : op.inputs) {
      if (!valid(t) || storage_[static_cast<size_t>(t)] < 0) continue;
      k.inputs.push_back(storage_[static_cast<size_t>(t)]);
      anyRequiresGrad |= requiresGrad_[static_cast<size_t>(t)] != 0;
    }
    const OutputMemory memory = outputMemory(context(), op);
    for (size_t i = 0; i < op.outputs.size(); ++i) {
      const int t = op.outputs[i];
      if (!valid(t)) continue;
      requiresGrad_[static_cast<size_t>(t)] = anyRequiresGrad && isFloating(tensor(t).type);
      const int shared = op.inputs.empty() || !valid(op.inputs[0])
                             ? -1
                             : storage_[static_cast<size_t>(op.inputs[0])];
      if (memory != OutputMemory::Own && shared >= 0 && (i == 0 || op.type == "Split"))
        storage_[static_cast<size_t>(t)] = shared;
      else
        storage_[static_cast<size_t>(t)] =
            add(tensor(t).name, TensorRole::Activation, tensor(t).bytes(), t);
      k.outputs.push_back(storage_[static_cast<size_t>(t)]);
    }
    if (anyRequiresGrad) {
      const AutogradSaves saves = autogradSaves(context(), op);
      if (saves.extraBytes > 0) {
        extra_[static_cast<size_t>(index)] =
            add(op.name + saves.extraName, TensorRole::Activation, saves.extraBytes, -1);
        k.outputs.push_back(extra_[static_cast<size_t>(index)]);
      }
    }
    finish(k);
  }

  int gradientOf(int t) {
    int& g = gradient_[static_cast<size_t>(t)];
    if (g < 0) {
      const Tensor& x = tensor(t);
      g = add("grad." + x.name,
              x.trainable ? TensorRole::WeightGradient : TensorRole::ActivationGradient, x.bytes(),
              t);
    }
    return g;
  }

  void backward(int index) {
    const Op& op = g_.ops[static_cast<size_t>(index)];
    std::vector<int> outGrads, activations, weights;
    for (int t : op.outputs) {
      // A gradient flows back only through outputs that are used and require one.
      if (valid(t) && requiresGrad_[static_cast<size_t>(t)] && consumers_[static_cast<size_t>(t)])
        outGrads.push_back(gradientOf(t));
    }
    if (outGrads.empty()) return;
    for (int t : op.inputs) {
      if (!valid(t) || !requiresGrad_[static_cast<size_t>(t)]) continue;
      (tensor(t).trainable ? weights : activations).push_back(t);
    }
    std::vector<int> saved;
    for (int t : autogradSaves(context(), op).tensors) {
      if (storage_[static_cast<size_t>(t)] >= 0) saved.push_back(storage_[static_cast<size_t>(t)]);
    }
    if (extra_[static_cast<size_t>(index)] >= 0)
      saved.push_back(extra_[static_cast<size_t>(index)]);
    const double flops = static_cast<double>(op.flops);  // each gradient costs about the forward
    const bool contraction = isContraction(op.type) && !weights.empty();
    if (!activations.empty()) {
      StepKernel k{op.name + ".backward_input",
                   KernelPhase::BackwardInput,
                   index,
                   outGrads,
                   {},
                   flops,
                   0,
                   0};
      if (contraction) {
        for (int t : weights) k.inputs.push_back(storage_[static_cast<size_t>(t)]);
      } else {
        k.inputs.insert(k.inputs.end(), saved.begin(), saved.end());
      }
      // A view's gradient is a view of its output's gradient: no memory of its own.
      const bool view = gradientIsView(op.type);
      for (int t : activations) {
        if (view && gradient_[static_cast<size_t>(t)] < 0)
          gradient_[static_cast<size_t>(t)] = outGrads.front();
        k.outputs.push_back(gradientOf(t));
      }
      finish(k);
    }
    if (!weights.empty()) {
      StepKernel k{op.name + ".backward_weight",
                   KernelPhase::BackwardWeight,
                   index,
                   outGrads,
                   {},
                   flops,
                   0,
                   0};
      k.inputs.insert(k.inputs.end(), saved.begin(), saved.end());
      for (int t : weights) k.outputs.push_back(gradientOf(t));
      finish(k);
    }
  }

  // One update per trainable weight, with its state (momentum; or Adam's two moments).
  void updates() {
    std::vector<int> consumer(g_.tensors.size(), -1);  // the first op that reads each weight
    for (size_t i = 0; i < g_.ops.size(); ++i) {
      for (int t : g_.ops[i].inputs) {
        if (valid(t) && consumer[static_cast<size_t>(t)] < 0)
          consumer[static_cast<size_t>(t)] = static_cast<int>(i);
      }
    }
    const bool adam = o_.optimizer == Optimizer::Adam;
    const double flopsPerElement = adam ? 10 : 3;
    // Adam as PyTorch runs it on GPUs (foreach, the default since 2.0) takes the square roots of
    // every second moment at once: a buffer as large as all the weights, through the updates.
    int denominators = -1;
    if (adam) {
      int64_t bytes = 0;
      for (size_t i = 0; i < g_.tensors.size(); ++i) {
        if (g_.tensors[i].trainable && storage_[i] >= 0)
          bytes += std::max<int64_t>(g_.tensors[i].bytes(), 0);
      }
      if (bytes > 0) denominators = add("adam.denominators", TensorRole::Workspace, bytes, -1);
    }
    for (size_t i = 0; i < g_.tensors.size(); ++i) {
      const Tensor& t = g_.tensors[i];
      if (!t.trainable || storage_[i] < 0) continue;
      StepKernel k{t.name + ".update",
                   KernelPhase::Update,
                   consumer[i],
                   {storage_[i], gradientOf(static_cast<int>(i))},
                   {storage_[i]},
                   flopsPerElement * static_cast<double>(std::max<int64_t>(t.elements(), 0)),
                   0,
                   0};
      for (const char* state : adam ? std::vector<const char*>{".exp_avg", ".exp_avg_sq"}
                                    : std::vector<const char*>{".momentum"}) {
        int id = add(t.name + state, TensorRole::OptimizerState, t.bytes(), static_cast<int>(i));
        k.inputs.push_back(id);
        k.outputs.push_back(id);
      }
      finish(k);
      // Held across the updates, not traffic of each one (the roofline has counted its share).
      if (denominators >= 0) s_.kernels.back().outputs.push_back(denominators);
    }
  }

  // A convolution's scratch for the kernel's life: the smaller of the im2col matrix (Cin/group ·
  // kernel × output positions) and the output. PyTorch's convolutions take about the output's
  // size (measured on its CPU path); cuDNN asks for what its algorithm needs, within the same.
  int64_t workspaceBytes(const StepKernel& k) const {
    const Op& op = g_.ops[static_cast<size_t>(k.op)];
    if (op.type != "Conv" || k.phase == KernelPhase::BackwardWeight || op.inputs.size() < 2 ||
        !valid(op.inputs[1]) || op.outputs.empty() || !valid(op.outputs[0]))
      return 0;
    const Tensor& w = tensor(op.inputs[1]);
    const Tensor& out = tensor(op.outputs[0]);
    if (!w.shapeKnown || !out.shapeKnown || w.shape.size() < 3 || out.shape.size() < 3) return 0;
    // Shapes from the file: each tensor fits 64 bits (the loader checks), their im2col product
    // may not — then the model is absurd and gets no workspace rather than a wrapped size.
    int64_t perPosition = w.shape[1], positions = out.shape[0], im2col = 0;
    bool overflow = false;
    for (size_t i = 2; i < w.shape.size(); ++i)
      overflow |= __builtin_mul_overflow(perPosition, w.shape[i], &perPosition);
    for (size_t i = 2; i < out.shape.size(); ++i)
      overflow |= __builtin_mul_overflow(positions, out.shape[i], &positions);
    overflow |= __builtin_mul_overflow(perPosition, positions, &im2col);
    overflow |= __builtin_mul_overflow(im2col, int64_t{elemSize(w.type)}, &im2col);
    if (overflow || out.bytes() < 0) return 0;
    return std::min(im2col, out.bytes());
  }

  void finish(StepKernel& k) {
    if (k.op >= 0 && k.phase != KernelPhase::Update) {
      if (const int64_t bytes = workspaceBytes(k); bytes > 0) {
        int ws = add(k.name + ".workspace", TensorRole::Workspace, bytes, -1);
        k.inputs.push_back(ws);
        k.outputs.push_back(ws);
      }
    }
    for (int t : k.inputs) k.bytes += static_cast<double>(s_.tensors[static_cast<size_t>(t)].bytes);
    for (int t : k.outputs)
      k.bytes += static_cast<double>(s_.tensors[static_cast<size_t>(t)].bytes);
    k.durationNs = rooflineNs(o_.device, k.flops, k.bytes, o_.tensorCores);
    s_.kernels.push_back(std::move(k));
  }

  const ModelGraph& g_;
  const StepOptions& o_;
  TrainingStep s_;
  std::vector<int> consumers_;             // per graph tensor: ops (and graph outputs) that read it
  std::vector<std::vector<int>> readers_;  // per graph tensor: the ops that read it
  std::vector<char> layerNorm_;            // per op: decomposedLayerNorms' marks
  std::vector<int> storage_;               // per graph tensor: the step tensor holding its value
  std::vector<int> gradient_;              // per graph tensor: the step tensor holding its gradient
  std::vector<char> requiresGrad_;         // per graph tensor
  std::vector<int> extra_;                 // per op: its indices / mask / statistics tensor, or -1
};

}  // namespace

TrainingStep expandTrainingStep(const ModelGraph& g, const StepOptions& o) {
  return StepBuilder(g, o).build();
}

}  // namespace ts::model
