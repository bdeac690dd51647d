#include "model/model_graph.h"

#include <set>

namespace ts::model {

int elemSize(ElemType t) {
  switch (t) {
    case ElemType::Float:
    case ElemType::Int32:
    case ElemType::Uint32:
      return 4;
    case ElemType::Uint8:
    case ElemType::Int8:
    case ElemType::Bool:
      return 1;
    case ElemType::Uint16:
    case ElemType::Int16:
    case ElemType::Float16:
    case ElemType::BFloat16:
      return 2;
    case ElemType::Int64:
    case ElemType::Double:
    case ElemType::Uint64:
    case ElemType::Complex64:
      return 8;
    case ElemType::Complex128:
      return 16;
    default:
      return 0;
  }
}

const char* toString(ElemType t) {
  switch (t) {
    case ElemType::Float:
      return "float32";
    case ElemType::Uint8:
      return "uint8";
    case ElemType::Int8:
      return "int8";
    case ElemType::Uint16:
      return "uint16";
    case ElemType::Int16:
      return "int16";
    case ElemType::Int32:
      return "int32";
    case ElemType::Int64:
      return "int64";
    case ElemType::String:
      return "string";
    case ElemType::Bool:
      return "bool";
    case ElemType::Float16:
      return "float16";
    case ElemType::Double:
      return "float64";
    case ElemType::Uint32:
      return "uint32";
    case ElemType::Uint64:
      return "uint64";
    case ElemType::Complex64:
      return "complex64";
    case ElemType::Complex128:
      return "complex128";
    case ElemType::BFloat16:
      return "bfloat16";
    default:
      return "undefined";
  }
}

bool isFloating(ElemType t) {
  return t == ElemType::Float || t == ElemType::Float16 || t == ElemType::Double ||
         t == ElemType::BFloat16;
}

int64_t Tensor::elements() const {
  if (!shapeKnown) return -1;
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0 || __builtin_mul_overflow(n, d, &n)) return -1;  // crafted shapes: no wrap-around
  }
  return n;
}

int64_t Tensor::bytes() const {
  int64_t n = elements(), b = 0;
  return n < 0 || __builtin_mul_overflow(n, static_cast<int64_t>(elemSize(type)), &b) ? -1 : b;
}

std::vector<int> Op::weights(const std::vector<Tensor>& tensors) const {
  std::vector<int> w;
  for (int i : inputs) {
    if (i >= 0 && tensors[static_cast<size_t>(i)].weight) w.push_back(i);
  }
  return w;
}

int64_t Op::parameters(const std::vector<Tensor>& tensors) const {
  int64_t n = 0;
  for (int i : inputs) {
    if (i >= 0 && tensors[static_cast<size_t>(i)].trainable)
      n += std::max<int64_t>(tensors[static_cast<size_t>(i)].elements(), 0);
  }
  return n;
}

// A weight shared by several ops (tied embeddings) counts once.
int64_t ModelGraph::parameters() const {
  int64_t n = 0;
  for (const Tensor& t : tensors) {
    if (t.trainable) n += std::max<int64_t>(t.elements(), 0);
  }
  return n;
}

int64_t ModelGraph::parameterBytes() const {
  int64_t n = 0;
  for (const Tensor& t : tensors) {
    if (t.trainable) n += std::max<int64_t>(t.bytes(), 0);
  }
  return n;
}

int64_t ModelGraph::flops() const {
  int64_t n = 0;
  for (const Op& op : ops) n += op.flops;
  return n;
}

}  // namespace ts::model
