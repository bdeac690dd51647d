// ModelGraph: a neural network as Tensorscope reasons about it — operators in topological order,
// the tensors between them with shapes, element types and sizes, which tensors are weights (and
// which of those are trained), and an estimate of each operator's FLOPs. Built from ONNX by
// onnx_loader; Qt-free and free of ONNX types, so the simulator and the views need neither.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ts::model {

// ONNX TensorProto element types (FLOAT 1 ... BFLOAT16 16).
enum class ElemType : int32_t {
  Undefined = 0,
  Float = 1,
  Uint8 = 2,
  Int8 = 3,
  Uint16 = 4,
  Int16 = 5,
  Int32 = 6,
  Int64 = 7,
  String = 8,
  Bool = 9,
  Float16 = 10,
  Double = 11,
  Uint32 = 12,
  Uint64 = 13,
  Complex64 = 14,
  Complex128 = 15,
  BFloat16 = 16,
};
int elemSize(ElemType t);          // bytes per element (0 when unknown)
const char* toString(ElemType t);  // "float32", "int64", ...
bool isFloating(ElemType t);

struct Tensor {
  std::string name;
  ElemType type = ElemType::Undefined;
  std::vector<int64_t> shape;  // -1: unknown dimension
  bool shapeKnown = false;     // rank and every dimension known
  bool weight = false;         // an initializer or a weight-like graph input
  bool trainable = false;      // a weight that training updates (not BatchNorm running statistics)
  int producer = -1;           // the op that writes it, -1 for inputs and weights

  int64_t elements() const;  // -1 when the shape is not known or its product overflows 64 bits
  int64_t bytes() const;     // -1 likewise
};

struct Op {
  std::string name;
  std::string type;         // ONNX op_type
  std::vector<int> inputs;  // tensor indices; -1 for an omitted optional input
  std::vector<int> outputs;
  std::map<std::string, std::vector<int64_t>> ints;  // integer attributes (scalars as one value)
  std::map<std::string, double> floats;
  int64_t flops = 0;  // estimate; 0 for ops without a formula (see flopsKnown)
  bool flopsKnown = true;

  int64_t parameters(const std::vector<Tensor>& tensors) const;        // trainable weight elements
  std::vector<int> weights(const std::vector<Tensor>& tensors) const;  // weight inputs, in order
};

struct ModelGraph {
  std::string name;
  std::string path;
  int64_t batch = 1;
  int64_t opsetVersion = 0;
  std::vector<Tensor> tensors;
  std::vector<Op> ops;      // topological order
  std::vector<int> inputs;  // data inputs (not weights)
  std::vector<int> outputs;
  std::vector<std::string> warnings;   // shape inference problems, ops without a FLOPs formula
  std::vector<std::string> overflows;  // ops whose FLOPs do not fit 64 bits (the loader refuses)

  int64_t parameters() const;  // trainable weight elements
  int64_t parameterBytes() const;
  int64_t flops() const;
};

// Estimates FLOPs of every op from its shapes and attributes (a multiply-add counts 2); ops
// without a formula keep 0 and flopsKnown = false, and are listed in the graph's warnings.
void estimateFlops(ModelGraph& graph);

}  // namespace ts::model
