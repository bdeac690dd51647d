// FLOPs per operator. Convention: a multiply-add is 2 FLOPs (as in most published model tables);
// elementwise ops count their output elements once; normalisations a few per element. The
// numbers are estimates for rooflines and tables, not measured work.
#include <algorithm>
#include <set>

#include "model/model_graph.h"

namespace ts::model {

namespace {

// An int64 count that remembers overflow instead of wrapping (signed overflow is undefined, and
// crafted shapes reach it): every product and sum below goes through it.
struct Count {
  int64_t value = 0;
  bool overflow = false;
  Count(int64_t v = 0) : value(v) {}  // NOLINT(google-explicit-constructor)
  friend Count operator*(Count a, Count b) {
    Count r;
    r.overflow = a.overflow || b.overflow || __builtin_mul_overflow(a.value, b.value, &r.value);
    return r;
  }
  friend Count operator+(Count a, Count b) {
    Count r;
    r.overflow = a.overflow || b.overflow || __builtin_add_overflow(a.value, b.value, &r.value);
    return r;
  }
};

Count product(const std::vector<int64_t>& v, size_t from = 0) {
  Count n = 1;
  for (size_t i = from; i < v.size(); ++i) n = n * v[i];
  return n;
}

int64_t attr(const Op& op, const char* name, int64_t fallback) {
  auto it = op.ints.find(name);
  return it == op.ints.end() || it->second.empty() ? fallback : it->second[0];
}

const std::set<std::string> kElementwise = {
    "Relu",       "LeakyRelu", "PRelu", "Sigmoid",     "Tanh",      "Add", "Sub",  "Mul",
    "Div",        "Sqrt",      "Pow",   "Exp",         "Log",       "Neg", "Abs",  "Clip",
    "Max",        "Min",       "Erf",   "HardSigmoid", "HardSwish", "Elu", "Selu", "Softplus",
    "Reciprocal", "Where",     "Equal", "Less",        "Greater",   "Not", "And",  "Or",
    "Floor",      "Ceil",      "Cast",  "Dropout",     "Sum",       "Mean"};
// Ops that move or reshape data without arithmetic.
const std::set<std::string> kNoArithmetic = {
    "Reshape",        "Flatten",   "Transpose",    "Concat",          "Split",    "Slice",
    "Squeeze",        "Unsqueeze", "Gather",       "Shape",           "Constant", "Identity",
    "Expand",         "Pad",       "Tile",         "ConstantOfShape", "Range",    "ScatterND",
    "GatherElements", "GatherND",  "DepthToSpace", "SpaceToDepth",    "Resize",   "Upsample"};

}  // namespace

void estimateFlops(ModelGraph& g) {
  std::set<std::string> unknown;
  for (Op& op : g.ops) {
    auto in = [&](size_t i) -> const Tensor* {
      return i < op.inputs.size() && op.inputs[i] >= 0
                 ? &g.tensors[static_cast<size_t>(op.inputs[i])]
                 : nullptr;
    };
    const Tensor* out = op.outputs.empty() || op.outputs[0] < 0
                            ? nullptr
                            : &g.tensors[static_cast<size_t>(op.outputs[0])];
    const bool shapes = out && out->shapeKnown && in(0) && in(0)->shapeKnown;
    op.flops = 0;
    op.flopsKnown = true;
    Count f = 0;
    const std::string& t = op.type;
    if (!shapes && !kNoArithmetic.count(t)) {
      op.flopsKnown = false;
      continue;
    }
    if (t == "Conv" && in(1) && in(1)->shapeKnown) {
      // out N·Cout·spatial, each a dot product over Cin/group · kernel.
      const auto& w = in(1)->shape;
      Count perOutput = product(w, 1);
      f = Count(2) * out->elements() * perOutput;
      if (in(2)) f = f + out->elements();
    } else if (t == "ConvTranspose" && in(1) && in(1)->shapeKnown) {
      const auto& w = in(1)->shape;  // Cin × Cout/group × kernel
      f = Count(2) * in(0)->elements() * product(w, 1);
      if (in(2)) f = f + out->elements();
    } else if ((t == "Gemm" || t == "MatMul") && in(0)->shape.empty()) {
      // A scalar operand (a malformed model, or shape inference that gave up): no inner
      // dimension to count.
      op.flopsKnown = false;
      continue;
    } else if (t == "Gemm" && in(1) && in(1)->shapeKnown) {
      const auto& a = in(0)->shape;
      int64_t k = attr(op, "transA", 0) ? a[0] : a[a.size() - 1];
      f = Count(2) * out->elements() * k;
      if (in(2)) f = f + out->elements();
    } else if (t == "MatMul" && in(1) && in(1)->shapeKnown) {
      const auto& a = in(0)->shape;
      f = Count(2) * out->elements() * a.back();
    } else if (t == "BatchNormalization" || t == "InstanceNormalization") {
      f = Count(2) * out->elements();
    } else if (t == "LayerNormalization") {
      f = Count(5) * out->elements();  // mean, variance, normalise, scale, shift
    } else if (t == "Softmax" || t == "LogSoftmax") {
      f = Count(5) * out->elements();  // max, subtract, exp, sum, divide
    } else if (t == "Gelu") {
      f = Count(8) * out->elements();
    } else if (t == "MaxPool" || t == "AveragePool") {
      auto k = op.ints.find("kernel_shape");
      f = out->elements() * (k == op.ints.end() ? 1 : product(k->second));
    } else if (t == "GlobalAveragePool" || t == "GlobalMaxPool" || t == "ReduceMean" ||
               t == "ReduceSum" || t == "ReduceMax") {
      f = in(0)->elements();
    } else if (kElementwise.count(t)) {
      f = out->elements();
    } else if (kNoArithmetic.count(t)) {
      f = 0;
    } else {
      op.flopsKnown = false;
      unknown.insert(t);
    }
    if (f.overflow) {
      op.flopsKnown = false;
      g.overflows.push_back(op.name + " (" + t + "): its FLOPs overflow 64 bits");
    } else {
      op.flops = f.value;
    }
  }
  for (const std::string& t : unknown)
    g.warnings.push_back("no FLOPs formula for " + t + " (counted as 0)");
}

}  // namespace ts::model
