// What PyTorch's autograd keeps of each operator for the backward pass, and which operators reuse
// their input's memory — the facts that decide how long a training step's tensors live. Taken
// from the saved variables of the aten ops (derivatives.yaml) that exporters write as these ONNX
// op types, and from torchvision's models, whose activations run in place.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/model_graph.h"

namespace ts::model {

// Where an op's first output lives.
enum class OutputMemory {
  Own,      // a new allocation
  View,     // the input's memory (reshape, flatten, squeeze, transpose …): no allocation
  InPlace,  // written over its input (an activation whose input nobody else reads, as
            // torchvision's ReLU(inplace=True) does)
};

// What the backward pass of one op reads, beyond the gradients of its outputs.
struct AutogradSaves {
  std::vector<int> tensors;  // graph tensors kept alive until the op's backward
  // A tensor the forward pass makes only for the backward (max pooling's indices, dropout's
  // mask): its name suffix and bytes; 0 bytes when there is none.
  std::string extraName;
  int64_t extraBytes = 0;
};

// What the rules need to know beyond the op itself.
struct OpContext {
  const ModelGraph& graph;
  const std::vector<std::vector<int>>& readers;  // per graph tensor: the ops that read it
  const std::vector<char>& requiresGrad;  // per graph tensor (known for an op's inputs when the
                                          // ops before it have been visited, in graph order)
  const std::vector<char>& layerNorm;     // per op: decomposedLayerNorms' marks
};

// Layer normalisation as exporters write it before opset 17 — ReduceMean, Sub, Pow, ReduceMean,
// Add, Sqrt, Div, then the affine Mul and Add — is one op in PyTorch, whose backward keeps only its
// input (and two statistics per row, a few bytes, left out here). Per op: 0 outside such a chain,
// 1 inside it (nothing kept), 2 for the Sub that reads the input (which keeps it).
std::vector<char> decomposedLayerNorms(const ModelGraph& g,
                                       const std::vector<std::vector<int>>& readers);

OutputMemory outputMemory(const OpContext& c, const Op& op);
AutogradSaves autogradSaves(const OpContext& c, const Op& op);
// Whether a view's input gradient is a view of its output gradient (reshape, flatten, squeeze,
// transpose): Split, Slice and Expand views have gradients of their own.
bool gradientIsView(const std::string& type);
// Contractions (Conv, Gemm, MatMul): the gradient of the input needs the weights, the gradient
// of the weights needs the input.
bool isContraction(const std::string& type);

}  // namespace ts::model
