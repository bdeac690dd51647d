#include "model/onnx_loader.h"

#include <onnx/checker.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace ts::model {

namespace {

// Inputs in these positions hold state that training does not update.
bool isRunningStatistic(const std::string& opType, size_t position) {
  return opType == "BatchNormalization" && (position == 3 || position == 4);
}

void readShape(const onnx::TypeProto& type, Tensor& t) {
  if (!type.has_tensor_type()) return;
  const auto& tt = type.tensor_type();
  if (t.type == ElemType::Undefined) t.type = static_cast<ElemType>(tt.elem_type());
  if (!tt.has_shape()) return;
  t.shape.clear();
  t.shapeKnown = true;
  for (const auto& d : tt.shape().dim()) {
    if (d.has_dim_value() && d.dim_value() > 0) {
      t.shape.push_back(d.dim_value());
    } else {
      t.shape.push_back(-1);
      t.shapeKnown = false;
    }
  }
}

// Symbolic or zero leading dimensions of the data inputs become the batch; other dimensions with
// the same symbol follow.
void applyBatch(onnx::GraphProto& graph, const std::set<std::string>& initializers, int64_t batch) {
  std::set<std::string> symbols;
  for (auto& input : *graph.mutable_input()) {
    if (initializers.count(input.name()) || !input.type().has_tensor_type()) continue;
    auto* shape = input.mutable_type()->mutable_tensor_type()->mutable_shape();
    if (shape->dim_size() == 0) continue;
    auto* first = shape->mutable_dim(0);
    if (first->has_dim_param()) symbols.insert(first->dim_param());
    if (first->has_dim_param() || first->dim_value() <= 0) first->set_dim_value(batch);
  }
  for (auto& input : *graph.mutable_input()) {
    if (!input.type().has_tensor_type()) continue;
    for (auto& d : *input.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim()) {
      if (d.has_dim_param() && symbols.count(d.dim_param())) d.set_dim_value(batch);
    }
  }
}

bool hasExternalData(const onnx::GraphProto& graph) {
  for (const auto& init : graph.initializer()) {
    if (init.data_location() == onnx::TensorProto::EXTERNAL) return true;
  }
  return false;
}

// `onDisk`: `path` is the model's file, so external data can be checked beside it.
std::string shapeText(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

// Sizes from the file are multiplied into elements, bytes and FLOPs: a crafted shape must be an
// error naming the tensor and its shape, not a wrapped (undefined) number in a table.
Status checkSizes(const ModelGraph& g, const std::string& path) {
  for (const Tensor& t : g.tensors) {
    if (!t.shapeKnown) continue;
    for (int64_t d : t.shape) {
      if (d < 0)
        return Error{path + ": tensor '" + t.name + "' has a negative dimension " +
                     shapeText(t.shape)};
    }
    if (t.elements() < 0 || t.bytes() < 0) {
      return Error{path + ": tensor '" + t.name + "' of shape " + shapeText(t.shape) +
                   " has more elements or bytes than 64 bits hold"};
    }
  }
  if (!g.overflows.empty()) return Error{path + ": op " + g.overflows.front()};
  int64_t params = 0, bytes = 0, flops = 0;
  for (const Tensor& t : g.tensors) {
    if (!t.trainable) continue;
    if (__builtin_add_overflow(params, t.elements(), &params) ||
        __builtin_add_overflow(bytes, t.bytes(), &bytes)) {
      return Error{path + ": the parameters add up to more than 64 bits hold"};
    }
  }
  for (const Op& op : g.ops) {
    if (__builtin_add_overflow(flops, op.flops, &flops))
      return Error{path + ": the FLOPs add up to more than 64 bits hold"};
  }
  return Status::success();
}

Result<ModelGraph> build(onnx::ModelProto& model, const std::string& path,
                         const LoadOptions& options, bool onDisk) {
  if (!model.has_graph()) return Error{path + ": an ONNX model without a graph"};
  onnx::GraphProto& graph = *model.mutable_graph();
  std::set<std::string> initializerNames;
  for (const auto& init : graph.initializer()) initializerNames.insert(init.name());
  // Data inputs show a symbolic (or unset) dimension before the batch is applied; the rest of the
  // non-initializer inputs of a model shipped without weights are its weights.
  std::set<std::string> symbolicInputs;
  for (const auto& input : graph.input()) {
    if (initializerNames.count(input.name()) || !input.type().has_tensor_type()) continue;
    for (const auto& d : input.type().tensor_type().shape().dim()) {
      if (d.has_dim_param() || !d.has_dim_value() || d.dim_value() <= 0)
        symbolicInputs.insert(input.name());
    }
  }
  applyBatch(graph, initializerNames, options.batch);
  if (options.check) {
    try {
      // External data files are looked up beside the model: the checker needs the file's path.
      if (onDisk && hasExternalData(graph))
        onnx::checker::check_model(path);
      else
        onnx::checker::check_model(model);
    } catch (const std::exception& e) {
      return Error{path + ": the ONNX checker refuses it: " + std::string(e.what()).substr(0, 400)};
    }
  }
  ModelGraph g;
  g.path = path;
  g.name = graph.name().empty() ? path : graph.name();
  g.batch = options.batch;
  for (const auto& opset : model.opset_import()) {
    if (opset.domain().empty() || opset.domain() == "ai.onnx") g.opsetVersion = opset.version();
  }
  try {
    onnx::shape_inference::InferShapes(model);
  } catch (const std::exception& e) {
    g.warnings.push_back(std::string("shape inference stopped: ") +
                         std::string(e.what()).substr(0, 300));
  }

  std::map<std::string, int> index;
  auto tensor = [&](const std::string& name) {
    auto [it, fresh] = index.try_emplace(name, static_cast<int>(g.tensors.size()));
    if (fresh) {
      g.tensors.emplace_back();
      g.tensors.back().name = name;
    }
    return it->second;
  };
  for (const auto& init : graph.initializer()) {
    Tensor& t = g.tensors[static_cast<size_t>(tensor(init.name()))];
    t.type = static_cast<ElemType>(init.data_type());
    t.shape.assign(init.dims().begin(), init.dims().end());
    t.shapeKnown = true;
    t.weight = true;
  }
  for (const auto& input : graph.input()) {
    int i = tensor(input.name());
    Tensor& t = g.tensors[static_cast<size_t>(i)];
    if (!t.weight) readShape(input.type(), t);
  }
  for (const auto& vi : graph.value_info())
    readShape(vi.type(), g.tensors[static_cast<size_t>(tensor(vi.name()))]);
  for (const auto& out : graph.output())
    readShape(out.type(), g.tensors[static_cast<size_t>(tensor(out.name()))]);

  // Weights declared as graph inputs (models shipped without weights): the fully static inputs,
  // except the first one when no input is symbolic (then it is the data).
  std::vector<int> graphInputs;
  for (const auto& input : graph.input()) {
    if (!initializerNames.count(input.name())) graphInputs.push_back(index[input.name()]);
  }
  for (size_t k = 0; k < graphInputs.size(); ++k) {
    Tensor& t = g.tensors[static_cast<size_t>(graphInputs[k])];
    bool data = symbolicInputs.count(t.name) || graphInputs.size() == 1 ||
                (k == 0 && symbolicInputs.empty());
    if (data || !t.shapeKnown)
      g.inputs.push_back(graphInputs[k]);
    else
      t.weight = true;
  }
  for (const auto& out : graph.output()) g.outputs.push_back(index[out.name()]);

  for (int n = 0; n < graph.node_size(); ++n) {
    const auto& node = graph.node(n);
    Op op;
    op.type = node.op_type();
    op.name = node.name().empty() ? op.type + "_" + std::to_string(n) : node.name();
    for (const std::string& name : node.input())
      op.inputs.push_back(name.empty() ? -1 : tensor(name));
    for (const std::string& name : node.output()) {
      int o = name.empty() ? -1 : tensor(name);
      op.outputs.push_back(o);
      if (o >= 0) g.tensors[static_cast<size_t>(o)].producer = static_cast<int>(g.ops.size());
    }
    for (const auto& a : node.attribute()) {
      if (a.type() == onnx::AttributeProto::INT)
        op.ints[a.name()] = {a.i()};
      else if (a.type() == onnx::AttributeProto::INTS)
        op.ints[a.name()].assign(a.ints().begin(), a.ints().end());
      else if (a.type() == onnx::AttributeProto::FLOAT)
        op.floats[a.name()] = a.f();
    }
    g.ops.push_back(std::move(op));
  }
  // Trainable: floating weights with more than one element, except running statistics. A
  // scalar initializer is a constant (an attention scale, an epsilon), not a parameter.
  std::set<int> statistics;
  for (const Op& op : g.ops) {
    for (size_t p = 0; p < op.inputs.size(); ++p) {
      if (op.inputs[p] >= 0 && isRunningStatistic(op.type, p)) statistics.insert(op.inputs[p]);
    }
  }
  for (size_t i = 0; i < g.tensors.size(); ++i) {
    Tensor& t = g.tensors[i];
    t.trainable = t.weight && isFloating(t.type) && t.elements() > 1 &&
                  !statistics.count(static_cast<int>(i));
  }
  estimateFlops(g);
  TS_RETURN_IF_ERROR(checkSizes(g, path));
  return g;
}

}  // namespace

namespace {

Result<ModelGraph> parseAndBuild(const std::string& bytes, const std::string& name,
                                 const LoadOptions& options, bool onDisk) {
  if (bytes.empty()) return Error{name + ": the file is empty"};
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes)) {
    return Error{name +
                 ": not an ONNX model (the protobuf does not parse: truncated or another format)"};
  }
  return build(model, name, options, onDisk);
}

}  // namespace

Result<ModelGraph> loadOnnxBytes(const std::string& bytes, const std::string& name,
                                 const LoadOptions& options) {
  return parseAndBuild(bytes, name, options, false);
}

Result<ModelGraph> loadOnnxModel(const std::string& path, const LoadOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{path + ": cannot open"};
  std::ostringstream buf;
  buf << in.rdbuf();
  return parseAndBuild(buf.str(), path, options, true);
}

}  // namespace ts::model
