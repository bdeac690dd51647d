#include "model/op_mapping.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "model/astra_workload.h"
#include "session/op_inputs.h"

namespace ts::model {

namespace {

using Shape = std::vector<int64_t>;

enum class OpPhase : uint8_t { Forward, Backward, Update };

bool isAten(std::string_view name) {
  return name.rfind("aten::", 0) == 0;
}
bool isOptimizerRange(std::string_view name) {
  return name.rfind("Optimizer.", 0) == 0;  // Optimizer.step#SGD.step, Optimizer.zero_grad#…
}
bool isAutograd(std::string_view name) {
  return name.find("Backward") != std::string_view::npos ||
         name.rfind("autograd::engine::evaluate_function:", 0) == 0 ||
         name.rfind("torch::autograd::", 0) == 0;
}
bool isAccumulateGrad(std::string_view name) {
  return name.find("AccumulateGrad") != std::string_view::npos;
}

// The model's side: layers, ops by family, trainable weights in order.
struct ModelOps {
  std::vector<std::string> layerOfOp;
  std::map<std::string, std::vector<int>> byFamily;
  struct Param {
    Shape shape;
    int op;
  };
  std::vector<Param> params;  // trainable weights, in op order (how an optimizer visits them)

  ModelOps(const ModelGraph& g, const TrainingStep& step) : layerOfOp(g.ops.size()) {
    for (const Layer& layer : modelLayers(g, step)) {
      for (int op = layer.firstOp; op <= layer.lastOp && op < static_cast<int>(layerOfOp.size());
           ++op)
        layerOfOp[static_cast<size_t>(op)] = layer.name;
    }
    std::vector<bool> seen(g.tensors.size());
    for (size_t op = 0; op < g.ops.size(); ++op) {
      if (std::string f = opFamily(g.ops[op].type); !f.empty())
        byFamily[f].push_back(static_cast<int>(op));
      for (int t : g.ops[op].weights(g.tensors)) {
        const Tensor& w = g.tensors[static_cast<size_t>(t)];
        if (!w.trainable || seen[static_cast<size_t>(t)]) continue;
        seen[static_cast<size_t>(t)] = true;
        params.push_back({w.shape, static_cast<int>(op)});
      }
    }
  }
  bool hasParamShaped(const std::string& layer, const Shape& shape) const {
    return std::any_of(params.begin(), params.end(), [&](const Param& p) {
      return p.shape == shape && layerOfOp[static_cast<size_t>(p.op)] == layer;
    });
  }
};

// Every shape the profiler recorded for the hits from `from` inward.
std::vector<Shape> recordedShapes(const std::vector<EnclosingRanges::Hit>& hits, size_t from) {
  std::vector<Shape> shapes;
  for (size_t h = from; h < hits.size(); ++h) {
    for (OpInput& in : parseOpInputs(hits[h].inputs)) {
      if (!in.dims.empty()) shapes.push_back(std::move(in.dims));
    }
  }
  return shapes;
}

bool sameBatchAside(const Shape& a, const Shape& b) {
  return a.size() == b.size() && !a.empty() && std::equal(a.begin() + 1, a.end(), b.begin() + 1);
}

// Whether the recorded shapes agree with model op `op`: its main trainable weight (a 2-D weight
// also transposed, as Gemm may hold it), else one of its activations with the batch
// dimension aside. nullopt: nothing to check (no shapes recorded, or the model's are unknown).
std::optional<bool> shapesAgree(const ModelGraph& g, int op, const std::vector<Shape>& recorded) {
  if (recorded.empty()) return std::nullopt;
  const Op& o = g.ops[static_cast<size_t>(op)];
  auto has = [&](const Shape& s) {
    return std::find(recorded.begin(), recorded.end(), s) != recorded.end();
  };
  for (int t : o.weights(g.tensors)) {  // the main weight (a bias may not be an input here)
    const Tensor& w = g.tensors[static_cast<size_t>(t)];
    if (!w.trainable || !w.shapeKnown) continue;
    Shape flipped = w.shape;
    if (flipped.size() == 2) std::swap(flipped[0], flipped[1]);
    return has(w.shape) || has(flipped);
  }
  bool anyActivation = false;
  auto check = [&](int t) {
    if (t < 0) return false;
    const Tensor& x = g.tensors[static_cast<size_t>(t)];
    if (x.weight || !x.shapeKnown) return false;
    anyActivation = true;
    return std::any_of(recorded.begin(), recorded.end(),
                       [&](const Shape& s) { return sameBatchAside(s, x.shape); });
  };
  for (int t : o.inputs) {
    if (check(t)) return true;
  }
  for (int t : o.outputs) {
    if (check(t)) return true;
  }
  return anyActivation ? std::optional<bool>(false) : std::nullopt;
}

// The model ops of one family matched in order: forward from the first, backward from the last.
class FamilyCursor {
 public:
  FamilyCursor(const ModelGraph& g, const ModelOps& ops) : g_(g), ops_(ops) {}
  // The op for the next occurrence of `family`, -1 if none (then nothing is used up).
  std::pair<int, Certainty> next(const std::string& family, bool backward,
                                 const std::vector<Shape>& recorded) {
    auto list = ops_.byFamily.find(family);
    if (list == ops_.byFamily.end()) return {-1, Certainty::None};
    size_t& seen = (backward ? seenBackward_ : seenForward_)[family];
    const std::vector<int>& candidates = list->second;
    auto opAt = [&](size_t n) {
      return backward ? candidates[candidates.size() - 1 - n] : candidates[n];
    };
    for (size_t n = seen; n < candidates.size(); ++n) {
      std::optional<bool> agree = shapesAgree(g_, opAt(n), recorded);
      if (!agree.has_value() && n == seen) {  // nothing to check: trust the order
        seen = n + 1;
        return {opAt(n), Certainty::Order};
      }
      if (agree.value_or(false)) {
        seen = n + 1;
        return {opAt(n), Certainty::Checked};
      }
    }
    return {-1, Certainty::None};
  }

 private:
  const ModelGraph& g_;
  const ModelOps& ops_;
  std::map<std::string, size_t> seenForward_, seenBackward_;
};

// The optimizer's ops of one Optimizer.* range, in order, each with the shape of the parameter it
// works on (empty when not recorded, or a list of tensors as foreach optimizers take).
struct OptimizerOp {
  uint64_t key;
  Shape shape;
};

// update/<layer> for each op: by chunks when every parameter got the same number of ops and
// every shape agrees, else walking the parameters in order and matching shapes.
std::vector<OpMatch> matchParameters(const ModelOps& ops, const std::vector<OptimizerOp>& list) {
  std::vector<OpMatch> out(list.size());
  const size_t n = ops.params.size(), m = list.size();
  auto groupOf = [&](size_t p) {
    return LayerGroup{Phase::Update, ops.layerOfOp[static_cast<size_t>(ops.params[p].op)]}.text();
  };
  const std::string optimizer = LayerGroup{Phase::Update, kOptimizerLayer}.text();
  if (n > 0 && m % n == 0) {
    const size_t c = m / n;
    bool all = true, none = true;
    for (size_t i = 0; i < m; ++i) {
      all = all && list[i].shape == ops.params[i / c].shape;
      none = none && list[i].shape.empty();
    }
    if (all || none) {
      for (size_t i = 0; i < m; ++i)
        out[i] = {groupOf(i / c), all ? Certainty::Checked : Certainty::Order};
      return out;
    }
  }
  size_t p = 0;
  for (size_t i = 0; i < m; ++i) {
    const Shape& s = list[i].shape;
    std::optional<size_t> found;
    for (size_t q = p; !s.empty() && q < n; ++q) {
      if (ops.params[q].shape == s) {
        found = q;
        break;
      }
    }
    if (found) {
      out[i] = {groupOf(*found), *found <= p + 1 ? Certainty::Checked : Certainty::Order};
      p = *found;
    } else {
      out[i] = {optimizer, Certainty::Stated};  // the optimizer's, of no parameter we know
    }
  }
  return out;
}

}  // namespace

std::string opFamily(std::string_view name) {
  std::string n;
  for (char c : name) {
    if (c != '_') n.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  if (auto colon = n.rfind(':'); colon != std::string::npos)
    n = n.substr(colon + 1);  // "aten::", "evaluate_function: "
  while (!n.empty() && n.front() == ' ') n.erase(n.begin());
  if (auto b = n.find("backward"); b != std::string::npos) n = n.substr(0, b);
  const std::pair<const char*, const char*> table[] = {{"conv", "conv"},
                                                       {"addmm", "matmul"},
                                                       {"linear", "matmul"},
                                                       {"matmul", "matmul"},
                                                       {"gemm", "matmul"},
                                                       {"bmm", "matmul"},
                                                       {"relu", "relu"},
                                                       {"threshold", "relu"},
                                                       {"maxpool", "maxpool"},
                                                       {"avgpool", "avgpool"},
                                                       {"averagepool", "avgpool"},
                                                       {"batchnorm", "batchnorm"},
                                                       {"batchnormalization", "batchnorm"},
                                                       {"layernorm", "layernorm"},
                                                       {"dropout", "dropout"},
                                                       {"softmax", "softmax"},
                                                       {"gelu", "gelu"},
                                                       {"embedding", "gather"},
                                                       {"gather", "gather"},
                                                       {"tanh", "tanh"},
                                                       {"sigmoid", "sigmoid"}};
  for (auto [key, fam] : table) {
    if (n.find(key) != std::string::npos) return fam;
  }
  if (n == "mm") return "matmul";
  // Global average pooling: PyTorch's adaptive_avg_pool2d to 1×1 runs (and differentiates) as
  // a mean; ONNX exports it as GlobalAveragePool or ReduceMean.
  if (n == "mean" || n == "reducemean") return "avgpool";
  if (n == "add") return "add";
  if (n == "mul") return "mul";
  return {};
}

std::vector<OpMatch> mapByOps(const ModelGraph& g, const TrainingStep& step,
                              const std::vector<LaunchedKernel>& kernels,
                              const EnclosingRanges& enclosing) {
  const ModelOps ops(g, step);
  FamilyCursor cursor(g, ops);
  std::vector<OpMatch> out(kernels.size());
  std::vector<OpPhase> phase(kernels.size(), OpPhase::Forward);
  std::vector<bool> pending(kernels.size());      // placed with its neighbours, below
  std::unordered_map<uint64_t, OpMatch> decided;  // an op range → its match, on first sight
  std::unordered_set<uint64_t> unmatched;         // ops of a model kind that matched nothing
  std::map<uint64_t, std::vector<OptimizerOp>> optimizerOps;  // per Optimizer.* range
  std::vector<std::pair<size_t, uint64_t>> optimizerKernels;  // kernel → its optimizer op
  std::string lastBackward;  // the group of the latest autograd node that matched a layer
  bool inBackward = false;

  for (size_t j = 0; j < kernels.size(); ++j) {
    const LaunchedKernel& k = kernels[j];
    if (k.thread == kNone) continue;
    const std::vector<EnclosingRanges::Hit> hits = enclosing.at(k.thread, k.launch);
    // The kernel's phase and its op: the outermost op of its kind inside the phase's marker.
    std::optional<size_t> optimizer, node, aten;
    for (size_t h = 0; h < hits.size(); ++h) {
      if (!optimizer && isOptimizerRange(hits[h].name)) optimizer = h;
      if (!node && isAutograd(hits[h].name)) node = h;
      if (!aten && isAten(hits[h].name) && (!optimizer || h > *optimizer)) aten = h;
    }
    if (optimizer) {
      phase[j] = OpPhase::Update;
      inBackward = false;
      if (!aten) continue;
      const EnclosingRanges::Hit& op = hits[*aten];
      auto& list = optimizerOps[hits[*optimizer].key()];
      if (list.empty() || list.back().key != op.key()) {
        std::vector<OpInput> inputs = parseOpInputs(op.inputs);
        list.push_back({op.key(), inputs.empty() ? Shape{} : inputs.front().dims});
      }
      optimizerKernels.emplace_back(j, op.key());
      continue;
    }
    // Backward from the first autograd node on: the engine's own ops between nodes (summing the
    // gradients of a tensor used twice) run outside any node.
    inBackward = inBackward || node.has_value();
    const bool backward = inBackward;
    phase[j] = backward ? OpPhase::Backward : OpPhase::Forward;
    std::optional<size_t> at = backward ? (node ? node : aten) : aten;
    if (!at) continue;  // launched outside any op: unmapped
    const EnclosingRanges::Hit& op = hits[*at];
    if (auto known = decided.find(op.key()); known != decided.end()) {
      out[j] = known->second;
      pending[j] = known->second.group.empty() && !unmatched.count(op.key());
      continue;
    }
    const std::vector<Shape> recorded = recordedShapes(hits, *at);
    OpMatch match;
    bool modelKind = false;
    if (backward && isAccumulateGrad(op.name)) {
      // The gradient of a parameter of the layer whose backward node ran just before.
      if (!lastBackward.empty()) {
        const std::string layer = LayerGroup::parse(lastBackward)->layer;
        bool agrees = std::any_of(recorded.begin(), recorded.end(),
                                  [&](const Shape& s) { return ops.hasParamShaped(layer, s); });
        match = {lastBackward, agrees ? Certainty::Checked : Certainty::Guess};
      }
    } else {
      // A model op takes floating-point tensors; an op whose first recorded input is an integer,
      // a scalar or a counter is bookkeeping around one.
      std::vector<OpInput> inputs = parseOpInputs(op.inputs);
      const bool bookkeeping = (!inputs.empty() && !isFloatingTensor(inputs.front())) ||
                               (backward && !node);  // the engine's, between nodes
      const std::string family = bookkeeping ? std::string() : opFamily(op.name);
      modelKind = !family.empty() && ops.byFamily.count(family);
      if (modelKind) {
        auto [modelOp, certainty] = cursor.next(family, backward, recorded);
        if (modelOp >= 0 && !ops.layerOfOp[static_cast<size_t>(modelOp)].empty()) {
          match = {LayerGroup{backward ? Phase::Backward : Phase::Forward,
                              ops.layerOfOp[static_cast<size_t>(modelOp)]}
                       .text(),
                   certainty};
          if (backward) lastBackward = match.group;
        }
      }
    }
    decided.emplace(op.key(), match);
    out[j] = match;
    // An op of a kind the model has that matched none of its ops (more of them than the model
    // has, shapes that disagree) says the model is not this run's: left unmapped, not guessed.
    pending[j] = match.group.empty() && !modelKind;
    if (!pending[j] && match.group.empty()) unmatched.insert(op.key());
  }

  // Optimizer ops: matched to the model's parameters, per Optimizer.* range.
  std::unordered_map<uint64_t, OpMatch> byOptimizerOp;
  for (const auto& [range, list] : optimizerOps) {
    std::vector<OpMatch> matches = matchParameters(ops, list);
    for (size_t i = 0; i < list.size(); ++i) byOptimizerOp[list[i].key] = matches[i];
  }
  for (auto [j, key] : optimizerKernels) out[j] = byOptimizerOp[key];

  // Kernels of ops that are no model op go with the nearest mapped kernel of their phase before
  // them (else after them), as guesses.
  auto neighbour = [&](size_t j) -> const OpMatch* {
    for (size_t i = j; i-- > 0;) {
      if (phase[i] == phase[j] && !out[i].group.empty() && !pending[i]) return &out[i];
    }
    for (size_t i = j + 1; i < kernels.size(); ++i) {
      if (phase[i] == phase[j] && !out[i].group.empty() && !pending[i]) return &out[i];
    }
    return nullptr;
  };
  std::vector<OpMatch> placed(kernels.size());
  for (size_t j = 0; j < kernels.size(); ++j) {
    if (!pending[j]) continue;
    if (const OpMatch* n = neighbour(j)) placed[j] = {n->group, Certainty::Guess};
  }
  for (size_t j = 0; j < kernels.size(); ++j) {
    if (pending[j]) out[j] = placed[j];
  }
  return out;
}

}  // namespace ts::model
