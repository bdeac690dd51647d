#include "model/autograd_saves.h"

#include <algorithm>
#include <set>

namespace ts::model {

namespace {

bool isOneOf(const std::string& type, std::initializer_list<const char*> types) {
  for (const char* t : types) {
    if (type == t) return true;
  }
  return false;
}

// Ops whose backward reads their result (relu, sigmoid, tanh, softmax, exp, sqrt: the derivative
// is a function of the output). Clip (hardtanh, ReLU6) reads its input.
bool savesResult(const std::string& type) {
  return isOneOf(type, {"Relu", "Sigmoid", "Tanh", "Softmax", "LogSoftmax", "Exp", "Sqrt"});
}

// Ops that exporters write for PyTorch views (reshape, flatten, squeeze, permute, narrow,
// expand): their outputs share the input's memory.
bool isView(const std::string& type) {
  return isOneOf(type, {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity", "Transpose",
                        "Slice", "Split", "Expand"});
}

// Activations that torchvision's models run in place (ReLU(inplace=True)), and the residual sum
// `out += identity` of its ResNets. Only those whose backward needs no copy of the input: an
// in-place ReLU6 or Hardswish (hardtanh_, hardswish_) makes autograd clone the input it
// overwrites, as much memory as a new output.
bool mayRunInPlace(const std::string& type) {
  return isOneOf(type, {"Relu", "LeakyRelu", "Elu", "Add"});
}

int64_t elementsOf(const ModelGraph& g, int t) {
  return t >= 0 && static_cast<size_t>(t) < g.tensors.size()
             ? g.tensors[static_cast<size_t>(t)].elements()
             : -1;
}

bool isActivation(const ModelGraph& g, int t) {
  return t >= 0 && static_cast<size_t>(t) < g.tensors.size() &&
         !g.tensors[static_cast<size_t>(t)].weight;
}

}  // namespace

bool gradientIsView(const std::string& type) {
  return isOneOf(type, {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity", "Transpose"});
}

bool isContraction(const std::string& type) {
  return type == "Conv" || type == "ConvTranspose" || type == "Gemm" || type == "MatMul";
}

OutputMemory outputMemory(const OpContext& c, const Op& op) {
  const ModelGraph& g = c.graph;
  if (op.inputs.empty() || op.outputs.empty()) return OutputMemory::Own;
  if (isView(op.type)) return OutputMemory::View;
  const int in = op.inputs[0];
  if (!mayRunInPlace(op.type) || !isActivation(g, in)) return OutputMemory::Own;
  const Tensor& x = g.tensors[static_cast<size_t>(in)];
  const bool graphOutput = std::find(g.outputs.begin(), g.outputs.end(), in) != g.outputs.end();
  if (x.producer < 0 || c.readers[static_cast<size_t>(in)].size() != 1 || graphOutput)
    return OutputMemory::Own;
  // In place only over a result nobody's backward needs (PyTorch refuses to overwrite one).
  if (savesResult(g.ops[static_cast<size_t>(x.producer)].type)) return OutputMemory::Own;
  // An in-place sum needs both operands of one size (no broadcast into the first).
  if (op.type == "Add" &&
      (op.inputs.size() < 2 || elementsOf(g, op.inputs[1]) != elementsOf(g, in) ||
       elementsOf(g, op.outputs[0]) != elementsOf(g, in)))
    return OutputMemory::Own;
  return OutputMemory::InPlace;
}

namespace {

// x · sigmoid(x) is how exporters write SiLU (torch.nn.SiLU, EfficientNet's activations): one op
// in PyTorch, whose backward keeps x alone — neither the sigmoid nor its result.
// The operand (0 or 1) that is the sigmoid, or -1 when `mul` is no SiLU.
int siluGateSide(const ModelGraph& g, const Op& mul) {
  if (mul.type != "Mul" || mul.inputs.size() != 2) return -1;
  for (int side = 0; side < 2; ++side) {
    const int gate = mul.inputs[static_cast<size_t>(side)];
    const int x = mul.inputs[static_cast<size_t>(1 - side)];
    if (gate < 0 || x < 0) continue;
    const int producer = g.tensors[static_cast<size_t>(gate)].producer;
    if (producer < 0) continue;
    const Op& sigmoid = g.ops[static_cast<size_t>(producer)];
    if (sigmoid.type == "Sigmoid" && !sigmoid.inputs.empty() && sigmoid.inputs[0] == x) return side;
  }
  return -1;
}

bool isSiluGate(const ModelGraph& g, const Op& mul) {
  return siluGateSide(g, mul) >= 0;
}

// A Sigmoid whose result only gates its own input (SiLU): nothing of it is kept.
bool onlyGatesItsInput(const OpContext& c, const Op& sigmoid) {
  if (sigmoid.outputs.empty() || sigmoid.outputs[0] < 0) return false;
  const auto& readers = c.readers[static_cast<size_t>(sigmoid.outputs[0])];
  return !readers.empty() && std::all_of(readers.begin(), readers.end(), [&](int r) {
    return isSiluGate(c.graph, c.graph.ops[static_cast<size_t>(r)]);
  });
}

// x · (erf(x / √2) + 1) (then · 0.5) is how exporters write GELU before opset 20: one op in
// PyTorch, whose backward keeps x alone. The product with x, by its operand.
// The operand (0 or 1) that is erf(x / √2) + 1, or -1 when `mul` is no GELU product.
int geluSumSide(const ModelGraph& g, const Op& mul) {
  if (mul.type != "Mul" || mul.inputs.size() != 2) return -1;
  for (int side = 0; side < 2; ++side) {
    const int x = mul.inputs[static_cast<size_t>(1 - side)];
    const int sum = mul.inputs[static_cast<size_t>(side)];
    const int p = sum >= 0 ? g.tensors[static_cast<size_t>(sum)].producer : -1;
    if (p < 0 || g.ops[static_cast<size_t>(p)].type != "Add") continue;
    for (int addend : g.ops[static_cast<size_t>(p)].inputs) {
      const int e = addend >= 0 ? g.tensors[static_cast<size_t>(addend)].producer : -1;
      if (e < 0 || g.ops[static_cast<size_t>(e)].type != "Erf") continue;
      const Op& erf = g.ops[static_cast<size_t>(e)];
      const int d = erf.inputs.empty() || erf.inputs[0] < 0
                        ? -1
                        : g.tensors[static_cast<size_t>(erf.inputs[0])].producer;
      if (d >= 0 && g.ops[static_cast<size_t>(d)].type == "Div" &&
          !g.ops[static_cast<size_t>(d)].inputs.empty() &&
          g.ops[static_cast<size_t>(d)].inputs[0] == x)
        return side;
    }
  }
  return -1;
}

bool isGeluProduct(const ModelGraph& g, const Op& mul) {
  return geluSumSide(g, mul) >= 0;
}

// An Erf whose result, plus one, only multiplies its own input (GELU): nothing of it is kept.
bool onlyInGelu(const OpContext& c, const Op& erf) {
  if (erf.outputs.empty() || erf.outputs[0] < 0) return false;
  const auto& adds = c.readers[static_cast<size_t>(erf.outputs[0])];
  return !adds.empty() && std::all_of(adds.begin(), adds.end(), [&](int a) {
    const Op& add = c.graph.ops[static_cast<size_t>(a)];
    if (add.type != "Add" || add.outputs.empty() || add.outputs[0] < 0) return false;
    const auto& muls = c.readers[static_cast<size_t>(add.outputs[0])];
    return !muls.empty() && std::all_of(muls.begin(), muls.end(), [&](int m) {
      return isGeluProduct(c.graph, c.graph.ops[static_cast<size_t>(m)]);
    });
  });
}

bool needsGrad(const OpContext& c, int t) {
  return t >= 0 && static_cast<size_t>(t) < c.requiresGrad.size() &&
         c.requiresGrad[static_cast<size_t>(t)];
}

}  // namespace

namespace {

// The op that writes tensor t when it is of `type`, else null.
const Op* producerOf(const ModelGraph& g, int t, const char* type) {
  if (t < 0 || static_cast<size_t>(t) >= g.tensors.size()) return nullptr;
  const int p = g.tensors[static_cast<size_t>(t)].producer;
  if (p < 0 || g.ops[static_cast<size_t>(p)].type != type) return nullptr;
  return &g.ops[static_cast<size_t>(p)];
}

int indexOf(const ModelGraph& g, const Op* op) {
  return op ? static_cast<int>(op - &g.ops[0]) : -1;
}

// The single reader of an op's first output when it is of `type` and reads a weight, else -1.
int affineAfter(const ModelGraph& g, const std::vector<std::vector<int>>& readers, const Op& op,
                const char* type) {
  if (op.outputs.empty() || op.outputs[0] < 0) return -1;
  const auto& r = readers[static_cast<size_t>(op.outputs[0])];
  if (r.size() != 1) return -1;
  const Op& next = g.ops[static_cast<size_t>(r[0])];
  const bool weighted = std::any_of(next.inputs.begin(), next.inputs.end(), [&](int t) {
    return t >= 0 && g.tensors[static_cast<size_t>(t)].weight;
  });
  return next.type == type && weighted ? r[0] : -1;
}

}  // namespace

std::vector<char> decomposedLayerNorms(const ModelGraph& g,
                                       const std::vector<std::vector<int>>& readers) {
  std::vector<char> marks(g.ops.size(), 0);
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const Op& div = g.ops[i];
    if (div.type != "Div" || div.inputs.size() != 2) continue;
    // (x - mean(x)) / sqrt(mean((x - mean(x))^2) + eps)
    const Op* sub = producerOf(g, div.inputs[0], "Sub");
    const Op* sqrt = producerOf(g, div.inputs[1], "Sqrt");
    if (!sub || !sqrt || sub->inputs.size() != 2 || sqrt->inputs.empty()) continue;
    const Op* mean = producerOf(g, sub->inputs[1], "ReduceMean");
    const Op* add = producerOf(g, sqrt->inputs[0], "Add");
    if (!mean || mean->inputs.empty() || mean->inputs[0] != sub->inputs[0] || !add) continue;
    const Op* variance = producerOf(g, add->inputs.empty() ? -1 : add->inputs[0], "ReduceMean");
    const Op* pow =
        variance && !variance->inputs.empty() ? producerOf(g, variance->inputs[0], "Pow") : nullptr;
    if (!pow || pow->inputs.empty() || pow->inputs[0] != div.inputs[0]) continue;
    for (const Op* op : {mean, pow, variance, add, sqrt, &div})
      marks[static_cast<size_t>(indexOf(g, op))] = 1;
    marks[static_cast<size_t>(indexOf(g, sub))] = 2;
    if (int scale = affineAfter(g, readers, div, "Mul"); scale >= 0) {
      marks[static_cast<size_t>(scale)] = 1;
      if (int shift = affineAfter(g, readers, g.ops[static_cast<size_t>(scale)], "Add"); shift >= 0)
        marks[static_cast<size_t>(shift)] = 1;
    }
  }
  return marks;
}

AutogradSaves autogradSaves(const OpContext& c, const Op& op) {
  const ModelGraph& g = c.graph;
  AutogradSaves s;
  auto input = [&](size_t i) { return i < op.inputs.size() ? op.inputs[i] : -1; };
  auto keep = [&](int t) {
    if (t >= 0) s.tensors.push_back(t);
  };
  const std::string& type = op.type;
  if (const char mark = c.layerNorm[static_cast<size_t>(indexOf(g, &op))]; mark != 0) {
    if (mark == 2) keep(input(0));  // the normalised input; the rest is made again in backward
    return s;
  }
  const int64_t outElements = op.outputs.empty() ? -1 : elementsOf(g, op.outputs[0]);
  if (isContraction(type)) {
    keep(input(0)), keep(input(1));
  } else if (isOneOf(type, {"BatchNormalization", "InstanceNormalization", "GroupNormalization",
                            "LayerNormalization"})) {
    keep(input(0)), keep(input(1));
    // The batch statistics (mean and inverse standard deviation) kept for the backward pass.
    const int64_t x = elementsOf(g, input(0)), channels = elementsOf(g, input(1));
    int64_t rows = channels;
    if (type == "LayerNormalization" && channels > 0 && x > 0) rows = x / channels;
    const int64_t batch = x > 0 && !g.tensors[static_cast<size_t>(input(0))].shape.empty()
                              ? g.tensors[static_cast<size_t>(input(0))].shape[0]
                              : -1;
    if (type == "InstanceNormalization" && batch > 0) rows = channels * batch;
    if (type == "GroupNormalization" && batch > 0) {  // per sample and group
      auto groups = op.ints.find("num_groups");
      rows = groups != op.ints.end() && !groups->second.empty() ? batch * groups->second[0] : -1;
    }
    if (rows > 0) s.extraName = ".saved_stats", s.extraBytes = 2 * rows * 4;
  } else if (type == "Sigmoid" && onlyGatesItsInput(c, op)) {
    // SiLU's first half: the Mul keeps what its backward needs.
  } else if (savesResult(type)) {
    if (!op.outputs.empty()) keep(op.outputs[0]);
  } else if (type == "MaxPool") {
    keep(input(0));
    if (outElements > 0) s.extraName = ".indices", s.extraBytes = outElements * 8;  // int64
  } else if (type == "Dropout") {
    // Its mask (bool): the op's second output where the exporter wrote one, else made here.
    if (op.outputs.size() > 1 && op.outputs[1] >= 0)
      keep(op.outputs[1]);
    else if (outElements > 0)
      s.extraName = ".mask", s.extraBytes = outElements;
  } else if (type == "Where") {
    keep(input(0));  // the condition
  } else if (type == "Erf" && onlyInGelu(c, op)) {
    // GELU's inner part: the product keeps x.
  } else if (const int sum = geluSumSide(g, op); sum >= 0) {
    keep(input(static_cast<size_t>(1 - sum)));  // GELU keeps x
  } else if (const int gate = siluGateSide(g, op); gate >= 0) {
    keep(input(static_cast<size_t>(1 - gate)));  // SiLU keeps x
  } else if (type == "Mul") {
    // Each operand's gradient needs the other operand.
    if (needsGrad(c, input(1))) keep(input(0));
    if (needsGrad(c, input(0))) keep(input(1));
  } else if (type == "Div") {
    // a / b: a's gradient needs b; b's needs a and b.
    if (needsGrad(c, input(0)) || needsGrad(c, input(1))) keep(input(1));
    if (needsGrad(c, input(1))) keep(input(0));
  } else if (type == "Gather") {
    keep(input(1));  // the indices
  } else if (isView(type) || isOneOf(type, {"Add", "Sub", "Neg", "Concat", "Pad", "ReduceMean",
                                            "ReduceSum", "Shape", "Constant", "ConstantOfShape",
                                            "Cast", "Tile", "Equal", "Range"})) {
    // Gradients that need only shapes.
  } else {
    for (int t : op.inputs) {
      if (isActivation(g, t)) keep(t);
    }
  }
  // Weights live across iterations anyway; what matters is which activations stay.
  std::set<int> seen;
  std::vector<int> kept;
  for (int t : s.tensors) {
    if (isActivation(g, t) && seen.insert(t).second) kept.push_back(t);
  }
  s.tensors = std::move(kept);
  return s;
}

}  // namespace ts::model
