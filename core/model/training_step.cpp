#include "model/training_step.h"

#include <map>

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

// Ops whose gradient is a product like the forward pass (as many FLOPs for each gradient).
bool isContraction(const std::string& type) {
  return type == "Conv" || type == "ConvTranspose" || type == "Gemm" || type == "MatMul";
}

}  // namespace

TrainingStep expandTrainingStep(const ModelGraph& g, const StepOptions& o) {
  TrainingStep s;
  s.model = g.name;
  s.batch = g.batch;
  s.optimizer = o.optimizer;
  s.device = o.device.name;
  std::vector<int> forward(g.tensors.size(), -1), gradient(g.tensors.size(), -1);
  auto add = [&](const std::string& name, TensorRole role, int64_t bytes, int source) {
    s.tensors.push_back({name, role, std::max<int64_t>(bytes, 0), source});
    return static_cast<int>(s.tensors.size()) - 1;
  };
  for (size_t i = 0; i < g.tensors.size(); ++i) {
    const Tensor& t = g.tensors[i];
    bool used = t.producer >= 0 || t.weight;
    for (int in : g.inputs) used |= in == static_cast<int>(i);
    if (!used) continue;
    TensorRole role = t.weight          ? TensorRole::Weight
                      : t.producer >= 0 ? TensorRole::Activation
                                        : TensorRole::Input;
    forward[i] = add(t.name, role, t.bytes(), static_cast<int>(i));
  }
  // Does a tensor need a gradient? Produced by an op (activations), not constants or the data.
  auto needsGradient = [&](int t) {
    return t >= 0 && g.tensors[static_cast<size_t>(t)].producer >= 0;
  };
  auto gradientOf = [&](int t) {
    if (gradient[static_cast<size_t>(t)] < 0) {
      const Tensor& x = g.tensors[static_cast<size_t>(t)];
      bool weight = x.trainable;
      gradient[static_cast<size_t>(t)] =
          add("grad." + x.name,
              weight ? TensorRole::WeightGradient : TensorRole::ActivationGradient, x.bytes(), t);
    }
    return gradient[static_cast<size_t>(t)];
  };
  // Convolutions get a scratch buffer for the kernel's life: the im2col matrix that the GEMM-based
  // algorithms build (Cin/group · kernel × output positions), an estimate of what cuDNN asks for.
  auto workspace = [&](StepKernel& k) {
    const Op& op = g.ops[static_cast<size_t>(k.op)];
    if (op.type != "Conv" || op.inputs.size() < 2 || op.inputs[1] < 0 || op.outputs.empty() ||
        op.outputs[0] < 0)
      return;
    const Tensor& w = g.tensors[static_cast<size_t>(op.inputs[1])];
    const Tensor& out = g.tensors[static_cast<size_t>(op.outputs[0])];
    if (!w.shapeKnown || !out.shapeKnown || w.shape.size() < 3 || out.shape.size() < 3) return;
    // Shapes from the file: each tensor fits 64 bits (the loader checks), their im2col product
    // may not — then the model is absurd and gets no workspace rather than a wrapped size.
    int64_t kernelArea = 1, positions = out.shape[0], bytes = 0;
    bool overflow = false;
    for (size_t i = 2; i < w.shape.size(); ++i)
      overflow |= __builtin_mul_overflow(kernelArea, w.shape[i], &kernelArea);
    if (overflow || kernelArea <= 1) return;  // a 1 × 1 convolution is a plain GEMM
    for (size_t i = 2; i < out.shape.size(); ++i)
      overflow |= __builtin_mul_overflow(positions, out.shape[i], &positions);
    overflow |= __builtin_mul_overflow(w.shape[1], kernelArea, &kernelArea);  // per position
    overflow |= __builtin_mul_overflow(kernelArea, positions, &bytes);
    overflow |= __builtin_mul_overflow(bytes, int64_t{elemSize(w.type)}, &bytes);
    if (overflow) return;
    int ws = add(k.name + ".workspace", TensorRole::Workspace, bytes, -1);
    k.inputs.push_back(ws);
    k.outputs.push_back(ws);
  };
  auto finish = [&](StepKernel& k) {
    if (k.op >= 0 && k.phase != KernelPhase::Update) workspace(k);
    for (int t : k.inputs) k.bytes += static_cast<double>(s.tensors[static_cast<size_t>(t)].bytes);
    for (int t : k.outputs) k.bytes += static_cast<double>(s.tensors[static_cast<size_t>(t)].bytes);
    k.durationNs = rooflineNs(o.device, k.flops, k.bytes, o.tensorCores);
    s.kernels.push_back(std::move(k));
  };
  // Forward.
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const Op& op = g.ops[i];
    StepKernel k{op.name,
                 KernelPhase::Forward,
                 static_cast<int>(i),
                 {},
                 {},
                 static_cast<double>(op.flops),
                 0,
                 0};
    for (int t : op.inputs) {
      if (t >= 0 && forward[static_cast<size_t>(t)] >= 0)
        k.inputs.push_back(forward[static_cast<size_t>(t)]);
    }
    for (int t : op.outputs) {
      if (t >= 0) k.outputs.push_back(forward[static_cast<size_t>(t)]);
    }
    finish(k);
  }
  // Backward, in reverse: the gradient of the inputs, then of the weights.
  for (size_t r = g.ops.size(); r-- > 0;) {
    const Op& op = g.ops[r];
    std::vector<int> outGrads, activations, weights, inputGrads;
    for (int t : op.outputs) {
      if (t >= 0) outGrads.push_back(gradientOf(t));
    }
    for (int t : op.inputs) {
      if (t < 0) continue;
      if (g.tensors[static_cast<size_t>(t)].trainable)
        weights.push_back(t);
      else if (forward[static_cast<size_t>(t)] >= 0 && !g.tensors[static_cast<size_t>(t)].weight)
        activations.push_back(t);
    }
    bool anyInputGradient = false;
    for (int t : activations) anyInputGradient |= needsGradient(t);
    // Each gradient costs about what the forward op did (exactly so for contractions).
    const double flops = static_cast<double>(op.flops);
    if (anyInputGradient) {
      StepKernel k{op.name + ".backward_input",
                   KernelPhase::BackwardInput,
                   static_cast<int>(r),
                   outGrads,
                   {},
                   flops,
                   0,
                   0};
      // Reads what the derivative needs: the weights of a contraction, else the saved inputs.
      for (int t : isContraction(op.type) ? weights : activations)
        k.inputs.push_back(forward[static_cast<size_t>(t)]);
      for (int t : activations) {
        if (needsGradient(t)) k.outputs.push_back(gradientOf(t));
      }
      finish(k);
    }
    if (!weights.empty()) {
      StepKernel k{op.name + ".backward_weight",
                   KernelPhase::BackwardWeight,
                   static_cast<int>(r),
                   outGrads,
                   {},
                   flops,
                   0,
                   0};
      for (int t : activations) k.inputs.push_back(forward[static_cast<size_t>(t)]);
      for (int t : weights) k.outputs.push_back(gradientOf(t));
      finish(k);
    }
  }
  // Optimizer: one update per trainable weight, with its state (momentum; or Adam's two moments).
  std::vector<int> consumer(g.tensors.size(), -1);  // the first op that reads each weight
  for (size_t i = 0; i < g.ops.size(); ++i) {
    for (int t : g.ops[i].inputs) {
      if (t >= 0 && consumer[static_cast<size_t>(t)] < 0)
        consumer[static_cast<size_t>(t)] = static_cast<int>(i);
    }
  }
  const int states = o.optimizer == Optimizer::Adam ? 2 : 1;
  const double flopsPerElement = o.optimizer == Optimizer::Adam ? 10 : 3;
  for (size_t i = 0; i < g.tensors.size(); ++i) {
    const Tensor& t = g.tensors[i];
    if (!t.trainable) continue;
    StepKernel k{t.name + ".update",
                 KernelPhase::Update,
                 consumer[i],
                 {forward[i], gradientOf(static_cast<int>(i))},
                 {forward[i]},
                 flopsPerElement * static_cast<double>(std::max<int64_t>(t.elements(), 0)),
                 0,
                 0};
    for (int st = 0; st < states; ++st) {
      int state =
          add(t.name + (o.optimizer == Optimizer::Adam ? (st == 0 ? ".exp_avg" : ".exp_avg_sq")
                                                       : ".momentum"),
              TensorRole::OptimizerState, t.bytes(), static_cast<int>(i));
      k.inputs.push_back(state);
      k.outputs.push_back(state);
    }
    finish(k);
  }
  return s;
}

}  // namespace ts::model
