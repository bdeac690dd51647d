#include "model/astra_workload.h"

#include <algorithm>
#include <cctype>

namespace ts::model {

namespace {

bool startsLayer(const ModelGraph& g, const Op& op) {
  auto weightAt = [&](size_t i) {
    return i < op.inputs.size() && op.inputs[i] >= 0 &&
           g.tensors[static_cast<size_t>(op.inputs[i])].trainable;
  };
  if (op.type == "Conv" || op.type == "ConvTranspose" || op.type == "Gemm") return weightAt(1);
  if (op.type == "MatMul") return weightAt(0) || weightAt(1);
  if (op.type == "Gather") return weightAt(0);  // an embedding table
  return false;
}

std::string sanitized(std::string name) {
  for (char& c : name) {
    if (std::isspace(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

}  // namespace

std::optional<Parallelism> parallelismFromString(std::string_view s) {
  if (s == "DATA") return Parallelism::Data;
  if (s == "MODEL") return Parallelism::Model;
  if (s == "HYBRID_DATA_MODEL") return Parallelism::HybridDataModel;
  if (s == "HYBRID_MODEL_DATA") return Parallelism::HybridModelData;
  return std::nullopt;
}

const char* toString(Parallelism p) {
  switch (p) {
    case Parallelism::Data:
      return "DATA";
    case Parallelism::Model:
      return "MODEL";
    case Parallelism::HybridDataModel:
      return "HYBRID_DATA_MODEL";
    case Parallelism::HybridModelData:
      return "HYBRID_MODEL_DATA";
  }
  return "DATA";
}

std::vector<Layer> modelLayers(const ModelGraph& g, const TrainingStep& step) {
  std::vector<Layer> layers;
  std::vector<int> layerOf(g.ops.size(), -1);
  for (size_t i = 0; i < g.ops.size(); ++i) {
    if (startsLayer(g, g.ops[i])) {
      Layer l;
      l.name = sanitized(g.ops[i].name);
      l.firstOp = static_cast<int>(i);
      layers.push_back(l);
    }
    if (layers.empty()) continue;  // ops before the first layer join it, below
    layers.back().lastOp = static_cast<int>(i);
    layerOf[i] = static_cast<int>(layers.size()) - 1;
  }
  if (layers.empty()) return layers;
  for (size_t i = 0; i < g.ops.size() && layerOf[i] < 0; ++i) layerOf[i] = 0;
  for (size_t i = 0; i < g.ops.size(); ++i)
    layers[static_cast<size_t>(layerOf[i])].parameters += g.ops[i].parameters(g.tensors);
  for (Layer& l : layers) {
    const Op& first = g.ops[static_cast<size_t>(l.firstOp)];
    for (int t : first.inputs) {
      if (t < 0) continue;
      const Tensor& x = g.tensors[static_cast<size_t>(t)];
      if (x.trainable && l.mainWeight == 0 && startsLayer(g, first)) l.mainWeight = x.elements();
      if (!x.weight && l.inputElements == 0) l.inputElements = std::max<int64_t>(x.elements(), 0);
    }
    const Op& last = g.ops[static_cast<size_t>(l.lastOp)];
    if (!last.outputs.empty() && last.outputs[0] >= 0) {
      l.outputElements =
          std::max<int64_t>(g.tensors[static_cast<size_t>(last.outputs[0])].elements(), 0);
    }
  }
  // Shared weights (tied embeddings) count once: with the first layer that uses them.
  for (const StepKernel& k : step.kernels) {
    if (k.op < 0 || static_cast<size_t>(k.op) >= layerOf.size()) continue;
    Layer& l = layers[static_cast<size_t>(layerOf[static_cast<size_t>(k.op)])];
    switch (k.phase) {
      case KernelPhase::Forward:
        l.forwardNs += k.durationNs, l.forwardFlops += k.flops;
        break;
      case KernelPhase::BackwardInput:
        l.inputGradNs += k.durationNs, l.inputGradFlops += k.flops;
        break;
      case KernelPhase::BackwardWeight:
        l.weightGradNs += k.durationNs, l.weightGradFlops += k.flops;
        break;
      case KernelPhase::Update:
        l.updateNs += k.durationNs;
        break;
    }
  }
  return layers;
}

Result<std::string> astraText(const ModelGraph& g, const TrainingStep& step,
                              const AstraOptions& o) {
  if (o.npus < 1) return Error{"--npus must be at least 1"};
  std::vector<Layer> layers = modelLayers(g, step);
  if (layers.empty())
    return Error{g.path + ": no layer with weights (nothing for ASTRA-sim to synchronise)"};
  const bool hybrid = o.parallelism == Parallelism::HybridDataModel ||
                      o.parallelism == Parallelism::HybridModelData;
  int split = 1;  // ways the model (its compute and weights) is divided
  if (o.parallelism == Parallelism::Model) split = o.npus;
  if (hybrid) {
    split = o.modelDim > 0 ? o.modelDim : 2;
    if (o.npus % split != 0) {
      return Error{"--model-dim " + std::to_string(split) + " does not divide --npus " +
                   std::to_string(o.npus)};
    }
  }
  std::string out =
      std::string(toString(o.parallelism)) + "\n" + std::to_string(layers.size()) + "\n";
  for (size_t i = 0; i < layers.size(); ++i) {
    const Layer& l = layers[i];
    auto compute = [&](int64_t ns) { return std::to_string(std::max<int64_t>(1, ns / split)); };
    const int64_t weightBytes = 4 * (o.weightsOnly ? l.mainWeight : l.parameters);
    std::string fwd = "NONE 0", ig = "NONE 0", wg = "NONE 0";
    if (o.parallelism == Parallelism::Data) {
      wg = "ALLREDUCE " + std::to_string(weightBytes);
    } else {
      fwd = "ALLGATHER " + std::to_string(4 * l.outputElements);
      ig = "ALLREDUCE " + std::to_string(4 * l.inputElements);
      if (hybrid) wg = "ALLREDUCE " + std::to_string(weightBytes / split);
    }
    out += l.name + " -1 " + compute(l.forwardNs) + " " + fwd + " " + compute(l.inputGradNs) + " " +
           ig + " " + compute(l.weightGradNs) + " " + wg + " " + compute(l.updateNs);
    if (i + 1 < layers.size()) out += "\n";
  }
  return out;
}

}  // namespace ts::model
