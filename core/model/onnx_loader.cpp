#include "model/onnx_loader.h"

#include <fcntl.h>
#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <set>

#include "model/onnx_strip.h"
#include "util/isolated_call.h"

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

// What the ONNX library makes of a parsed model before Tensorscope reads it: the batch applied,
// the checker's verdict, shapes inferred. The only place libonnx runs (in the isolated child).
struct Prepared {
  std::set<std::string> symbolicInputs;  // data inputs, told apart before the batch fills them
  std::string inferenceWarning;
};

Status prepare(onnx::ModelProto& model, const std::string& path, const LoadOptions& options,
               bool onDisk, const StageReporter& stage, Prepared& out) {
  if (!model.has_graph()) return Error{path + ": an ONNX model without a graph"};
  onnx::GraphProto& graph = *model.mutable_graph();
  std::set<std::string> initializerNames;
  for (const auto& init : graph.initializer()) initializerNames.insert(init.name());
  // Data inputs show a symbolic (or unset) dimension before the batch is applied; the rest of the
  // non-initializer inputs of a model shipped without weights are its weights.
  for (const auto& input : graph.input()) {
    if (initializerNames.count(input.name()) || !input.type().has_tensor_type()) continue;
    for (const auto& d : input.type().tensor_type().shape().dim()) {
      if (d.has_dim_param() || !d.has_dim_value() || d.dim_value() <= 0)
        out.symbolicInputs.insert(input.name());
    }
  }
  applyBatch(graph, initializerNames, options.batch);
  if (options.check) {
    stage("checking the model");
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
  stage("inferring shapes");
  try {
    onnx::shape_inference::InferShapes(model);
  } catch (const std::exception& e) {
    out.inferenceWarning =
        std::string("shape inference stopped: ") + std::string(e.what()).substr(0, 300);
  }
  return Status::success();
}

Result<ModelGraph> graphFrom(const onnx::ModelProto& model, const std::string& path,
                             const LoadOptions& options, const Prepared& prepared) {
  const onnx::GraphProto& graph = model.graph();
  std::set<std::string> initializerNames;
  for (const auto& init : graph.initializer()) initializerNames.insert(init.name());
  const std::set<std::string>& symbolicInputs = prepared.symbolicInputs;
  ModelGraph g;
  g.path = path;
  g.name = graph.name().empty() ? path : graph.name();
  g.batch = options.batch;
  for (const auto& opset : model.opset_import()) {
    if (opset.domain().empty() || opset.domain() == "ai.onnx") g.opsetVersion = opset.version();
  }
  if (!prepared.inferenceWarning.empty()) g.warnings.push_back(prepared.inferenceWarning);

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

Status parse(const std::string& bytes, const std::string& name, onnx::ModelProto& model) {
  if (bytes.empty()) return Error{name + ": the file is empty"};
  if (!model.ParseFromString(bytes)) {
    return Error{name +
                 ": not an ONNX model (the protobuf does not parse: truncated or another format)"};
  }
  return Status::success();
}

// The child's answer: length-prefixed strings — "E" and the error, or "G", the inference warning,
// the symbolic inputs (NUL-separated) and the model without its weights' values.
void putString(std::string& out, const std::string& s) {
  uint64_t size = s.size();
  out.append(reinterpret_cast<const char*>(&size), sizeof size);
  out += s;
}
bool getString(const std::string& in, size_t& at, std::string& s) {
  uint64_t size;
  if (in.size() - at < sizeof size) return false;
  std::memcpy(&size, in.data() + at, sizeof size);
  at += sizeof size;
  if (in.size() - at < size) return false;
  s.assign(in, at, size);
  at += size;
  return true;
}

// Tensorscope reads initializers' names, types and dimensions, never their values: dropping them
// keeps the answer small whatever the model weighs.
void dropWeightValues(onnx::ModelProto& model) {
  for (auto& init : *model.mutable_graph()->mutable_initializer()) {
    init.clear_raw_data();
    init.clear_float_data();
    init.clear_int32_data();
    init.clear_int64_data();
    init.clear_double_data();
    init.clear_uint64_data();
    init.clear_string_data();
  }
}

// The ONNX library in a child process: a file that crashes it (a segmentation fault in shape
// inference, found by fuzzing) or makes it run away ends the child, and the load becomes an error.
Result<ModelGraph> loadIsolated(const std::string& bytes, const std::string& name,
                                const LoadOptions& options, bool onDisk) {
  // Schemas registered before the fork: each child inherits them instead of building them again.
  onnx::OpSchemaRegistry::Schema("Relu");
  IsolationLimits limits;
  limits.extraMemoryBytes =
      std::max<int64_t>(limits.extraMemoryBytes, static_cast<int64_t>(bytes.size()) * 4);
  IsolatedOutcome outcome = runIsolated(
      [&](const StageReporter& stage) {
        std::string answer;
        stage("parsing the protobuf");

        onnx::ModelProto model;
        Prepared prepared;
        Status st = parse(bytes, name, model);
        if (st) st = prepare(model, name, options, onDisk, stage, prepared);
        if (!st) {
          putString(answer, "E");
          putString(answer, st.error());
          return answer;
        }
        stage("sending the model back");
        dropWeightValues(model);
        std::string symbolic;
        for (const std::string& s : prepared.symbolicInputs) symbolic += s + '\0';
        putString(answer, "G");
        putString(answer, prepared.inferenceWarning);
        putString(answer, symbolic);
        putString(answer, model.SerializeAsString());
        return answer;
      },
      limits);
  if (!outcome.finished()) {
    const bool tooBig = outcome.end == IsolatedOutcome::End::OutOfMemory ||
                        outcome.end == IsolatedOutcome::End::TimedOut;
    return Error{name + ": the ONNX library " + outcome.describe() + " — the file is malformed" +
                 (tooBig ? " or too large for it" : "")};
  }
  std::string kind, first, symbolic, modelBytes;
  size_t at = 0;
  if (!getString(outcome.payload, at, kind) || !getString(outcome.payload, at, first))
    return Error{name + ": the ONNX library's child process answered garbled"};
  if (kind == "E") return Error{first};
  Prepared prepared;
  prepared.inferenceWarning = first;
  onnx::ModelProto model;
  if (!getString(outcome.payload, at, symbolic) || !getString(outcome.payload, at, modelBytes) ||
      !model.ParseFromString(modelBytes)) {
    return Error{name + ": the ONNX library's child process answered garbled"};
  }
  for (size_t from = 0; from < symbolic.size();) {
    size_t end = symbolic.find('\0', from);
    prepared.symbolicInputs.insert(symbolic.substr(from, end - from));
    from = end + 1;
  }
  return graphFrom(model, name, options, prepared);
}

Result<ModelGraph> parseAndBuild(std::string_view file, const std::string& name,
                                 const LoadOptions& options, bool onDisk) {
  // The weights' values are dropped before anything parses them (onnx_strip.h); bytes that do not
  // walk as protobuf go on whole, for the parser's own error.
  std::optional<std::string> stripped = withoutWeightValues(file);
  const std::string bytes = stripped ? std::move(*stripped) : std::string(file);
  if (options.isolate) return loadIsolated(bytes, name, options, onDisk);
  onnx::ModelProto model;
  TS_RETURN_IF_ERROR(parse(bytes, name, model));
  Prepared prepared;
  TS_RETURN_IF_ERROR(prepare(
      model, name, options, onDisk, [](const std::string&) {}, prepared));
  return graphFrom(model, name, options, prepared);
}

}  // namespace

Result<ModelGraph> loadOnnxBytes(const std::string& bytes, const std::string& name,
                                 const LoadOptions& options) {
  return parseAndBuild(bytes, name, options, false);
}

Result<ModelGraph> loadOnnxModel(const std::string& path, const LoadOptions& options) {
  // Mapped, not read: the walk steps over the weights' values, whose pages are never touched.
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return Error{path + ": cannot open"};
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    return Error::io(path + ": cannot read");
  }
  const auto size = static_cast<size_t>(std::max<off_t>(st.st_size, 0));
  if (size == 0) {
    ::close(fd);
    return parseAndBuild({}, path, options, true);
  }
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (map == MAP_FAILED) return Error::io(path + ": cannot map");
  auto result = parseAndBuild({static_cast<const char*>(map), size}, path, options, true);
  ::munmap(map, size);
  return result;
}

}  // namespace ts::model
