#include "model/layer_table.h"

#include <map>

namespace ts::model {

namespace {

std::string shapeText(const Tensor& t) {
  std::string s = "[";
  for (size_t i = 0; i < t.shape.size(); ++i)
    s += (i ? "×" : "") + (t.shape[i] < 0 ? std::string("?") : std::to_string(t.shape[i]));
  return s + "]";
}

}  // namespace

StatsTable layerTable(const ModelGraph& g, bool layersOnly) {
  StatsTable t;
  t.report = "layers";
  t.title = "Layers of " + g.name + " at batch " + std::to_string(g.batch);
  t.columns = {{"layer", "Layer", StatsUnit::Text},
               {"op", "Op", StatsUnit::Text},
               {"parameters", "Parameters", StatsUnit::Count},
               {"dtype", "Type", StatsUnit::Text},
               {"parameter_bytes", "Weights", StatsUnit::Bytes},
               {"activation_bytes", "Activations", StatsUnit::Bytes},
               {"flops", "FLOPs", StatsUnit::Count},
               {"output_shape", "Output", StatsUnit::Text}};
  int64_t activations = 0;
  for (const Op& op : g.ops) {
    int64_t params = op.parameters(g.tensors), weightBytes = 0, outBytes = 0;
    std::string dtype;
    for (int w : op.weights(g.tensors)) {
      const Tensor& x = g.tensors[static_cast<size_t>(w)];
      if (!x.trainable) continue;
      weightBytes += std::max<int64_t>(x.bytes(), 0);
      if (dtype.empty()) dtype = toString(x.type);
    }
    std::string shape;
    for (int o : op.outputs) {
      if (o < 0) continue;
      outBytes += std::max<int64_t>(g.tensors[static_cast<size_t>(o)].bytes(), 0);
      if (shape.empty()) shape = shapeText(g.tensors[static_cast<size_t>(o)]);
    }
    activations += outBytes;
    if (layersOnly && params == 0) continue;
    t.rows.push_back({op.name, op.type, params, dtype, weightBytes, outBytes,
                      op.flopsKnown ? StatsCell{op.flops} : StatsCell{}, shape});
  }
  t.rows.push_back({std::string("total"), std::string(std::to_string(g.ops.size()) + " ops"),
                    g.parameters(), std::string(), g.parameterBytes(), activations, g.flops(),
                    std::string()});
  t.notes.push_back(
      "FLOPs count a multiply-add as 2; Activations = bytes of each op's outputs at this batch "
      "size; "
      "Parameters = trainable weight elements (BatchNorm running statistics excluded).");
  for (const std::string& w : g.warnings) t.notes.push_back("Warning: " + w);
  return t;
}

StatsTable stepTable(const TrainingStep& s) {
  StatsTable t;
  t.report = "step";
  t.title = "Training step of " + s.model + " at batch " + std::to_string(s.batch) + " (" +
            toString(s.optimizer) + ", roofline on " + s.device + ")";
  t.columns = {{"kernel", "Kernel", StatsUnit::Text},        {"phase", "Phase", StatsUnit::Text},
               {"duration_ns", "Time", StatsUnit::Duration}, {"flops", "FLOPs", StatsUnit::Count},
               {"bytes", "Traffic", StatsUnit::Bytes},       {"reads", "Reads", StatsUnit::Text},
               {"writes", "Writes", StatsUnit::Text}};
  auto names = [&](const std::vector<int>& ids) {
    std::string out;
    for (int i : ids) out += (out.empty() ? "" : " ") + s.tensors[static_cast<size_t>(i)].name;
    return out;
  };
  for (const StepKernel& k : s.kernels) {
    t.rows.push_back({k.name, std::string(toString(k.phase)), k.durationNs,
                      static_cast<int64_t>(k.flops), static_cast<int64_t>(k.bytes), names(k.inputs),
                      names(k.outputs)});
  }
  // The weights the step holds include constants training does not update (BatchNorm running
  // statistics): say how much is trainable, the model summary's "parameter bytes" — each
  // trainable weight has a gradient of its size.
  const int64_t weights = s.bytes(TensorRole::Weight);
  const int64_t trainable = s.bytes(TensorRole::WeightGradient);
  std::string weightText = formatCell(weights, StatsUnit::Bytes);
  if (trainable != weights)
    weightText += " (" + formatCell(trainable, StatsUnit::Bytes) +
                  " trainable, the rest BatchNorm running statistics and other constants)";
  t.notes.push_back(
      std::to_string(s.kernels.size()) + " kernels, " + std::to_string(s.tensors.size()) +
      " tensors; step time " + formatCell(s.totalNs(), StatsUnit::Duration) + "; weights " +
      weightText + ", activations " +
      formatCell(s.bytes(TensorRole::Activation), StatsUnit::Bytes) + ", gradients " +
      formatCell(s.bytes(TensorRole::WeightGradient) + s.bytes(TensorRole::ActivationGradient),
                 StatsUnit::Bytes) +
      ", optimizer state " + formatCell(s.bytes(TensorRole::OptimizerState), StatsUnit::Bytes) +
      ".");
  return t;
}

StatsTable modelSummary(const ModelGraph& g) {
  StatsTable t;
  t.report = "model";
  t.title = g.name;
  t.columns = {{"property", "Property", StatsUnit::Text}, {"value", "Value", StatsUnit::Text}};
  std::map<std::string, int> types;
  for (const Op& op : g.ops) ++types[op.type];
  std::string opTypes;
  for (const auto& [type, n] : types)
    opTypes += (opTypes.empty() ? "" : ", ") + type + " " + std::to_string(n);
  auto add = [&](const std::string& what, const std::string& value) {
    t.rows.push_back({what, value});
  };
  add("file", g.path);
  add("opset", std::to_string(g.opsetVersion));
  add("batch", std::to_string(g.batch));
  add("ops", std::to_string(g.ops.size()) + " (" + opTypes + ")");
  add("parameters", formatCell(g.parameters(), StatsUnit::Count));
  add("parameter bytes", formatCell(g.parameterBytes(), StatsUnit::Bytes) + " (trainable weights)");
  add("FLOPs (forward)", formatCell(g.flops(), StatsUnit::Count));
  for (int i : g.inputs)
    add("input", g.tensors[static_cast<size_t>(i)].name + " " +
                     shapeText(g.tensors[static_cast<size_t>(i)]) + " " +
                     toString(g.tensors[static_cast<size_t>(i)].type));
  for (int o : g.outputs)
    add("output", g.tensors[static_cast<size_t>(o)].name + " " +
                      shapeText(g.tensors[static_cast<size_t>(o)]));
  for (const std::string& w : g.warnings) add("warning", w);
  return t;
}

}  // namespace ts::model
