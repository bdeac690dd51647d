// G10's frontend for CNN model files: layers in forward order, the links between them (a chain,
// except where G10 wires a known block's branches and shortcuts), each layer's activation size,
// the tensors each layer creates and the kernels of one training iteration.
#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include "memsim/formats/g10_frontend.h"
#include "memsim/formats/g10_net_text.h"

namespace ts::memsim {

namespace {

enum class Op {
  Conv2d,
  ReLU,
  MaxPool2d,
  AdaptiveAvgPool2d,
  Linear,
  Dropout,
  BatchNorm2d,
  Add,
  Concat,
  Scale
};

const char* opName(Op op) {
  switch (op) {
    case Op::Conv2d:
      return "Conv2d";
    case Op::ReLU:
      return "ReLU";
    case Op::MaxPool2d:
      return "MaxPool2d";
    case Op::AdaptiveAvgPool2d:
      return "AdaptiveAvgPool2d";
    case Op::Linear:
      return "Linear";
    case Op::Dropout:
      return "Dropout";
    case Op::BatchNorm2d:
      return "BatchNorm2d";
    case Op::Add:
      return "Add";
    case Op::Concat:
      return "Concat";
    case Op::Scale:
      return "Scale";
  }
  return "?";
}

struct Layer {
  Op op = Op::ReLU;
  int line = 0;  // 0 for the layers G10 adds (Add, Concat, Scale, a branch's pooling)
  // Operator parameters (only those G10's sizes and tensors use).
  int64_t inChannels = 0, outChannels = 0, kernelH = 0, kernelW = 0, strideH = 1, strideW = 1,
          padH = 0, padW = 0;               // Conv2d; MaxPool2d uses kernelH, strideH, padH
  int64_t outH = 0, outW = 0;               // AdaptiveAvgPool2d
  int64_t inFeatures = 0, outFeatures = 0;  // Linear
  bool bias = false, inplace = false, trackRunningStats = false;

  int64_t N = 0, C = 0, H = 0, W = 0;  // the layer's input size
  std::vector<int> prev, next;         // layer indices, in G10's order
  int scaleRef = -1;                   // Scale: the layer whose output size it scales to

  // Tensor ids; -1 where the layer has none.
  int in = -1, out = -1, dIn = -1, dOut = -1, weight = -1, dWeight = -1, bias_ = -1, dBias = -1,
      alphaBeta = -1, dAlphaBeta = -1, mu = -1, var = -1, v1 = -1, v2 = -1, dMu = -1, dVar = -1,
      dV1 = -1, dV2 = -1, runningMean = -1, runningVar = -1, mask = -1;
  std::vector<int> otherIn, otherDIn, otherDOut;
};

struct Size {
  int64_t N, C, H, W;
};

class CnnBuilder {
 public:
  CnnBuilder(std::string file, G10Family family, int64_t batch, int64_t h, int64_t w)
      : file_(std::move(file)), family_(family), batch_(batch), inputH_(h), inputW_(w) {}

  Result<G10Graph> build(const NetNode& root) {
    walk(root);
    if (!error_.empty()) return Error{error_};
    if (order_.empty()) return Error{file_ + ": the model has no layers"};
    sizes();
    if (!error_.empty()) return Error{error_};
    tensors();
    if (!error_.empty()) return Error{error_};
    kernels();
    if (!error_.empty()) return Error{error_};
    return std::move(graph_);
  }

 private:
  // --- layers -------------------------------------------------------------------------------

  void fail(int line, const std::string& what) {
    if (error_.empty())
      error_ = file_ + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": " + what;
  }

  // A number argument, positional (index >= 0) or named; `def` when absent (nullopt: required).
  std::optional<std::vector<double>> arg(const NetNode& n, int index, const char* key,
                                         std::optional<std::vector<double>> def = std::nullopt) {
    if (index >= 0 && static_cast<size_t>(index) < n.positional.size())
      return n.positional[static_cast<size_t>(index)].numbers;
    if (auto it = n.named.find(key); it != n.named.end()) return it->second.numbers;
    if (!def) fail(n.line, n.type + " without " + key);
    return def;
  }
  int64_t integer(const NetNode& n, int index, const char* key, int slot = 0,
                  std::optional<int64_t> def = std::nullopt) {
    std::optional<std::vector<double>> fallback;
    if (def) fallback = std::vector<double>{static_cast<double>(*def)};
    auto v = arg(n, index, key, fallback);
    if (!v || v->empty()) return 0;
    const double x = (*v)[std::min<size_t>(static_cast<size_t>(slot), v->size() - 1)];
    // The range first: converting a number beyond int64's to test it would be undefined.
    if (!(x >= 0 && x <= 1e9) || x != std::floor(x)) {
      fail(n.line, n.type + ": " + key + " must be a whole number from 0 to 10^9");
      return 0;
    }
    return static_cast<int64_t>(x);
  }
  bool flag(const NetNode& n, const char* key, bool def) {
    auto v = arg(n, -1, key, std::vector<double>{def ? 1.0 : 0.0});
    return v && !v->empty() && (*v)[0] != 0;
  }

  Layer fromOperator(const NetNode& n) {
    Layer l;
    l.line = n.line;
    if (n.type == "Conv2d") {
      l.op = Op::Conv2d;
      l.inChannels = integer(n, 0, "in_channels");
      l.outChannels = integer(n, 1, "out_channels");
      l.kernelH = integer(n, 2, "kernel_size", 0);
      l.kernelW = integer(n, 2, "kernel_size", 1);
      l.strideH = integer(n, 3, "stride", 0, 1);
      l.strideW = integer(n, 3, "stride", 1, 1);
      l.padH = integer(n, 4, "padding", 0, 0);
      l.padW = integer(n, 4, "padding", 1, 0);
      l.bias = flag(n, "bias", true);
      if (l.strideH == 0 || l.strideW == 0) fail(n.line, "Conv2d with a stride of 0");
    } else if (n.type == "ReLU") {
      l.op = Op::ReLU;
      l.inplace = flag(n, "inplace", false);
    } else if (n.type == "MaxPool2d") {
      l.op = Op::MaxPool2d;
      l.kernelH = integer(n, 0, "kernel_size");
      l.strideH = integer(n, 1, "stride", 0, l.kernelH);
      l.padH = integer(n, 2, "padding", 0, 0);
      if (l.strideH == 0) fail(n.line, "MaxPool2d with a stride of 0");
    } else if (n.type == "AdaptiveAvgPool2d") {
      l.op = Op::AdaptiveAvgPool2d;
      l.outH = integer(n, 0, "output_size", 0);
      l.outW = integer(n, 0, "output_size", 1);
    } else if (n.type == "Linear") {
      l.op = Op::Linear;
      l.inFeatures = integer(n, 0, "in_features");
      l.outFeatures = integer(n, 1, "out_features");
      l.bias = flag(n, "bias", true);
      if (l.inFeatures == 0) fail(n.line, "Linear with in_features=0");
    } else if (n.type == "Dropout") {
      l.op = Op::Dropout;
      l.inplace = flag(n, "inplace", false);
    } else {  // BatchNorm2d
      l.op = Op::BatchNorm2d;
      l.trackRunningStats = flag(n, "track_running_stats", true);
    }
    return l;
  }

  int newLayer(Layer l) {
    layers_.push_back(std::move(l));
    return static_cast<int>(layers_.size()) - 1;
  }
  Layer& L(int i) { return layers_[static_cast<size_t>(i)]; }

  void link(int from, int to) {
    L(from).next.push_back(to);
    L(to).prev.push_back(from);
  }

  // An operator of the file: it follows the layer before it (G10 chains every operator to the one
  // printed before it; blocks rewire afterwards). The first layer takes the input images.
  void appendOperator(const NetNode& n) {
    const int id = newLayer(fromOperator(n));
    if (order_.empty()) {
      if (L(id).op != Op::Conv2d)
        fail(n.line, "the first layer must be a Conv2d (G10 feeds it the images)");
      L(id).N = batch_, L(id).C = L(id).inChannels, L(id).H = inputH_, L(id).W = inputW_;
    } else {
      link(order_.back(), id);
    }
    order_.push_back(id);
  }

  void walk(const NetNode& n) {
    if (!error_.empty()) return;
    if (n.kind == NetNode::Kind::Operator) {
      appendOperator(n);
      return;
    }
    const size_t first = order_.size();
    std::vector<std::pair<size_t, size_t>> children;  // each child's layers [begin, end)
    for (const NetNode& c : n.children) {
      const size_t begin = order_.size();
      walk(c);
      children.emplace_back(begin, order_.size());
    }
    if (n.kind == NetNode::Kind::Block && error_.empty()) wireBlock(n, first, children);
  }

  // --- the blocks G10 wires -------------------------------------------------------------------
  //
  // A block's layers are re-laid: `layers` is the block's layer list (its children's layers and
  // those G10 adds, in G10's order), `edges` its links in G10's order as positions in `layers`,
  // -1 standing for the block's input (the layer before it). Every link inside the block and from
  // its input into it is replaced, so each layer's prev and next lists come out in G10's order.
  using Edges = std::vector<std::pair<int, int>>;

  void relay(size_t first, const std::vector<int>& layers, const Edges& edges, int line) {
    if (first == 0) {
      fail(line, "a block G10 wires cannot be the first layer");
      return;
    }
    const int input = order_[first - 1];
    for (int l : layers) L(l).prev.clear(), L(l).next.clear();
    auto& inNext = L(input).next;
    inNext.erase(std::remove_if(inNext.begin(), inNext.end(),
                                [&](int l) {
                                  return std::find(layers.begin(), layers.end(), l) != layers.end();
                                }),
                 inNext.end());
    auto at = [&](int pos) { return pos < 0 ? input : layers[static_cast<size_t>(pos)]; };
    for (auto [a, b] : edges) link(at(a), at(b));
    order_.resize(first);
    order_.insert(order_.end(), layers.begin(), layers.end());
  }

  static void chain(Edges& e, int from, int to) {
    for (int i = from; i < to; ++i) e.emplace_back(i, i + 1);
  }

  int added(Op op) {
    Layer l;
    l.op = op;
    return newLayer(l);
  }
  int addedMaxPool(int64_t k, int64_t stride, int64_t pad) {
    Layer l;
    l.op = Op::MaxPool2d;
    l.kernelH = k, l.strideH = stride, l.padH = pad;
    return newLayer(l);
  }

  bool expectLayers(const NetNode& n, size_t first, size_t count) {
    if (order_.size() - first == count) return true;
    fail(n.line, n.type + " (" + n.name + ") has " + std::to_string(order_.size() - first) +
                     " layers where G10's wiring of it expects " + std::to_string(count));
    return false;
  }

  void wireBlock(const NetNode& n, size_t first,
                 const std::vector<std::pair<size_t, size_t>>& children) {
    const size_t kids = n.children.size();
    const bool wired =
        (family_ == G10Family::ResNet && (n.type == "Bottleneck" || n.type == "BasicBlock")) ||
        (family_ == G10Family::Inception && n.type.size() == 10 &&
         n.type.rfind("Inception", 0) == 0 && n.type.back() >= 'A' && n.type.back() <= 'E') ||
        (family_ == G10Family::SENet && n.type == "SENetUnit");
    if (wired && first == 0) {
      // G10 wires these blocks to the layer before them.
      fail(n.line, n.type + " (" + n.name + ") cannot be the model's first layer");
      return;
    }
    std::vector<int> layers(order_.begin() + static_cast<std::ptrdiff_t>(first), order_.end());
    Edges e;
    if (family_ == G10Family::ResNet && (n.type == "Bottleneck" || n.type == "BasicBlock")) {
      // A residual block: main path, then an Add of it with the shortcut — the block's input,
      // or its downsample (a conv and a batch norm) when it has one.
      const bool bottleneck = n.type == "Bottleneck";
      const bool downsample = kids == (bottleneck ? 8u : 6u);
      const int mainLayers = bottleneck ? 7 : 5;
      if (!expectLayers(n, first, static_cast<size_t>(mainLayers + (downsample ? 2 : 0)))) return;
      const int add = static_cast<int>(layers.size());
      layers.push_back(added(Op::Add));
      e.emplace_back(-1, 0);
      chain(e, 0, mainLayers - 1);
      if (downsample) {
        e.emplace_back(-1, mainLayers);
        e.emplace_back(mainLayers, mainLayers + 1);
        e.emplace_back(mainLayers - 1, add);
        e.emplace_back(mainLayers + 1, add);
      } else {
        e.emplace_back(-1, add);
        e.emplace_back(mainLayers - 1, add);
      }
      relay(first, layers, e, n.line);
      return;
    }
    if (family_ == G10Family::Inception && n.type.rfind("Inception", 0) == 0 &&
        n.type.size() == 10) {
      wireInception(n, first, children);
      return;
    }
    if (family_ == G10Family::SENet && n.type == "SENetUnit") {
      // body (8 layers) and squeeze-excitation (5) in a chain; G10 adds a Scale after the
      // excitation (sized like the shortcut) and an Add of it with the shortcut — the unit's
      // input, or its identity conv (a conv and a batch norm) — before the final ReLU.
      if (kids != 3 && kids != 4) {
        fail(n.line, "SENetUnit (" + n.name + ") has " + std::to_string(kids) +
                         " parts where G10 expects 3 or 4");
        return;
      }
      const bool identity = kids == 4;
      if (!expectLayers(n, first, identity ? 16 : 14)) return;
      std::vector<int> out(layers.begin(), layers.begin() + 13);  // body and excitation
      const int scale = added(Op::Scale), add = added(Op::Add);
      out.push_back(scale);
      if (identity) out.push_back(layers[13]), out.push_back(layers[14]);
      out.push_back(add);
      out.push_back(layers.back());  // the final ReLU
      e.emplace_back(-1, 0);
      chain(e, 0, 12);
      e.emplace_back(12, 13);
      if (identity) {
        e.emplace_back(-1, 14);
        e.emplace_back(14, 15);
        e.emplace_back(13, 16);
        e.emplace_back(15, 16);
        e.emplace_back(16, 17);
        L(scale).scaleRef = layers[14];
      } else {
        e.emplace_back(13, 14);
        e.emplace_back(-1, 14);
        e.emplace_back(14, 15);
        L(scale).scaleRef = order_[first - 1];
      }
      relay(first, out, e, n.line);
      return;
    }
    // Any other block: its layers stay a chain.
  }

  // InceptionA–E: branches from the block's input joined by a Concat. A and C have a pooling
  // branch (a 3x3 stride-1 max pool G10 adds before the branch's conv); B and D a bare 3x3
  // stride-2 max pool as their last branch; E's second and third branches fork in two and join
  // in a Concat of their own.
  void wireInception(const NetNode& n, size_t first,
                     const std::vector<std::pair<size_t, size_t>>& children) {
    const char kind = n.type.back();
    static const std::map<char, std::vector<int>> kBranches = {
        // children per branch; 0 = the added max pool alone
        {'A', {1, 2, 3, 1}},
        {'B', {1, 3, 0}},
        {'C', {1, 3, 5, 1}},
        {'D', {2, 4, 0}},
        {'E', {1, 1, 1, 1, 1, 1, 1, 1, 1}}};
    auto spec = kBranches.find(kind);
    if (spec == kBranches.end()) return;  // not one G10 wires
    size_t expectKids = 0;
    for (int k : spec->second) expectKids += static_cast<size_t>(k);
    if (n.children.size() != expectKids) {
      fail(n.line, n.type + " (" + n.name + ") has " + std::to_string(n.children.size()) +
                       " branches' convolutions where G10 expects " + std::to_string(expectKids));
      return;
    }
    for (auto [b, e] : children) {
      if (e - b != 3) {
        fail(n.line, n.type + " (" + n.name + "): each part must be a conv, batch norm and ReLU");
        return;
      }
    }
    auto childLayers = [&](size_t k, std::vector<int>& out) {
      const int begin = static_cast<int>(out.size());
      for (size_t i = children[k].first; i < children[k].second; ++i) out.push_back(order_[i]);
      return std::pair<int, int>(begin, static_cast<int>(out.size()) - 1);
    };
    std::vector<int> layers;
    Edges e;
    std::vector<int> ends;  // the Concat's inputs, in order
    if (kind != 'E') {
      const bool addedPoolFirst = kind == 'A' || kind == 'C';
      size_t k = 0;
      for (size_t b = 0; b < spec->second.size(); ++b) {
        const int count = spec->second[b];
        const bool last = b + 1 == spec->second.size();
        const int start = static_cast<int>(layers.size());
        if (count == 0) {
          layers.push_back(addedMaxPool(3, 2, 0));
        } else {
          if (last && addedPoolFirst) layers.push_back(addedMaxPool(3, 1, 1));
          for (int c = 0; c < count; ++c) childLayers(k++, layers);
        }
        e.emplace_back(-1, start);
        chain(e, start, static_cast<int>(layers.size()) - 1);
        ends.push_back(static_cast<int>(layers.size()) - 1);
      }
    } else {
      auto one = [&](size_t k) {
        auto [b, last] = childLayers(k, layers);
        chain(e, b, last);
        return std::pair<int, int>(b, last);
      };
      auto [b1, e1] = one(0);  // branch1x1
      e.emplace_back(-1, b1);
      auto fork = [&](size_t stemFirst, size_t stemLast) {
        // A stem of convs from the input, forking into two convs joined by a Concat.
        auto [s, se] = one(stemFirst);
        e.emplace_back(-1, s);
        for (size_t k = stemFirst + 1; k <= stemLast; ++k) {
          auto [b, l] = one(k);
          e.emplace_back(se, b);
          se = l;
        }
        auto [a, ae] = one(stemLast + 1);
        auto [bb, be] = one(stemLast + 2);
        e.emplace_back(se, a);
        e.emplace_back(se, bb);
        const int cat = static_cast<int>(layers.size());
        layers.push_back(added(Op::Concat));
        e.emplace_back(ae, cat);
        e.emplace_back(be, cat);
        return cat;
      };
      const int cat0 = fork(1, 1);  // branch3x3_1 → 2a, 2b
      const int cat1 = fork(4, 5);  // branch3x3dbl_1, _2 → 3a, 3b
      const int pool = static_cast<int>(layers.size());
      layers.push_back(addedMaxPool(3, 1, 1));
      e.emplace_back(-1, pool);
      auto [pb, pe] = one(8);
      e.emplace_back(pool, pb);
      ends = {e1, cat0, cat1, pe};
    }
    const int concat = static_cast<int>(layers.size());
    layers.push_back(added(Op::Concat));
    for (int end : ends) e.emplace_back(end, concat);
    relay(first, layers, e, n.line);
  }

  // --- sizes ----------------------------------------------------------------------------------

  Size outputSize(int id) {
    const Layer& l = L(id);
    switch (l.op) {
      case Op::Conv2d:
        if (l.C != l.inChannels)
          fail(l.line, "Conv2d expects " + std::to_string(l.inChannels) + " input channels, gets " +
                           std::to_string(l.C));
        return {l.N, l.outChannels, (l.H - l.kernelH + 2 * l.padH) / l.strideH + 1,
                (l.W - l.kernelW + 2 * l.padW) / l.strideW + 1};
      case Op::MaxPool2d:
        return {l.N, l.C, (l.H - l.kernelH + 2 * l.padH) / l.strideH + 1,
                (l.W - l.kernelH + 2 * l.padH) / l.strideH + 1};
      case Op::AdaptiveAvgPool2d:
        return {l.N, l.C, l.outH, l.outW};
      case Op::Linear: {
        int64_t c = 0;
        if (__builtin_mul_overflow(l.C, l.H, &c) || __builtin_mul_overflow(c, l.W, &c) ||
            __builtin_mul_overflow(c / l.inFeatures, l.outFeatures, &c)) {
          fail(l.line, "Linear layer's output is larger than 2^63 elements");
          c = 1;
        }
        return {l.N, c, 1, 1};
      }
      case Op::Scale: {
        const Size ref = outputSize(l.scaleRef);
        return {l.N, l.C, ref.H, ref.W};
      }
      default:
        return {l.N, l.C, l.H, l.W};
    }
  }

  void sizes() {
    sizesOfInputs();
    if (!error_.empty()) return;
    // The last layer's output feeds the loss: it too must be an image.
    const Layer& last = L(order_.back());
    const Size o = outputSize(order_.back());
    if (error_.empty() && (o.N <= 0 || o.C <= 0 || o.H <= 0 || o.W <= 0))
      fail(last.line, std::string(opName(last.op)) + " layer's output is " + std::to_string(o.C) +
                          "x" + std::to_string(o.H) + "x" + std::to_string(o.W) +
                          ": nothing left at this input size");
  }

  void sizesOfInputs() {
    for (size_t i = 1; i < order_.size() && error_.empty(); ++i) {
      Layer& l = L(order_[i]);
      if (l.prev.empty()) {
        fail(l.line, std::string(opName(l.op)) + " layer has no input");
        return;
      }
      const Size s = outputSize(l.prev[0]);
      l.N = s.N, l.C = s.C, l.H = s.H, l.W = s.W;
      if (l.op == Op::Concat) {
        l.C = 0;
        for (int p : l.prev) {
          const Size ps = outputSize(p);
          if (ps.H != l.H || ps.W != l.W) fail(l.line, "a Concat of branches of different sizes");
          l.C += ps.C;
        }
      }
      if (l.N <= 0 || l.C <= 0 || l.H <= 0 || l.W <= 0 || l.C > (int64_t{1} << 31) ||
          l.H > (int64_t{1} << 31) || l.W > (int64_t{1} << 31))
        fail(l.line, std::string(opName(l.op)) + " layer's input is " + std::to_string(l.C) + "x" +
                         std::to_string(l.H) + "x" + std::to_string(l.W) +
                         ": the layers before it leave no image at this input size");
    }
  }

  // --- tensors --------------------------------------------------------------------------------

  // A new tensor of 4-byte elements (of the layer being built, `line_`). Capped at 1 PiB: sums
  // over every tensor stay far from int64's end.
  int tensor(std::initializer_list<int64_t> dims, bool global = false) {
    int64_t elems = 4;
    for (int64_t d : dims) {
      if (d < 0 || __builtin_mul_overflow(elems, d, &elems) || elems > kMaxTensorBytes) {
        fail(line_, "a tensor of more than 1 PiB (or of negative size)");
        elems = 0;
        break;
      }
    }
    graph_.tensors.push_back({elems, global});
    return static_cast<int>(graph_.tensors.size()) - 1;
  }

  void tensors() {
    for (size_t i = 0; i < order_.size(); ++i) {
      Layer& l = L(order_[i]);
      line_ = l.line;
      const int64_t N = l.N, C = l.C, H = l.H, W = l.W;
      const int input = i == 0 ? -1 : L(l.prev[0]).out;
      switch (l.op) {
        case Op::Conv2d: {
          const Size o = outputSize(order_[i]);
          l.in = i == 0 ? tensor({N, C, H, W}) : input;
          l.out = tensor({N, o.C, o.H, o.W});
          l.weight = tensor({o.C, C, l.kernelH, l.kernelW}, true);
          l.dWeight = tensor({o.C, C, l.kernelH, l.kernelW});
          l.dIn = tensor({N, C, H, W});
          break;
        }
        case Op::ReLU:
          l.in = input;
          l.out = l.inplace ? l.in : tensor({N, C, H, W});
          l.dIn = tensor({N, C, H, W});
          break;
        case Op::MaxPool2d:
        case Op::AdaptiveAvgPool2d: {
          const Size o = outputSize(order_[i]);
          l.in = input;
          l.out = tensor({o.N, o.C, o.H, o.W});
          l.dIn = tensor({N, C, H, W});
          break;
        }
        case Op::Dropout:
          l.in = input;
          l.mask = tensor({N, C, H, W});
          l.out = l.inplace ? l.in : tensor({N, C, H, W});
          l.dIn = tensor({N, C, H, W});
          break;
        case Op::Linear: {
          const Size o = outputSize(order_[i]);
          l.in = input;
          l.weight = tensor({l.inFeatures, l.outFeatures}, true);
          l.out = tensor({o.N, o.C, o.H, o.W});
          l.dIn = tensor({N, C, H, W});
          l.dWeight = tensor({l.inFeatures, l.outFeatures});
          if (l.bias) {
            l.bias_ = tensor({l.outFeatures}, true);
            l.dBias = tensor({l.outFeatures});
          }
          break;
        }
        case Op::BatchNorm2d:
          // Besides the scale and shift (alpha, beta), G10 keeps cuDNN's saved statistics and
          // their gradients as tensors: mean and variance per channel, two work buffers.
          l.in = input;
          l.out = tensor({N, C, H, W});
          l.dIn = tensor({N, C, H, W});
          l.alphaBeta = tensor({C, 2}, true);
          l.dAlphaBeta = tensor({C, 2});
          l.mu = tensor({C});
          l.var = tensor({C});
          l.v1 = tensor({N, C, H, W});
          l.v2 = tensor({C});
          l.dMu = tensor({C});
          l.dVar = tensor({C});
          l.dV1 = tensor({N, C, H, W});
          l.dV2 = tensor({C});
          if (l.trackRunningStats) {
            l.runningMean = tensor({C}, true);
            l.runningVar = tensor({C}, true);
          }
          break;
        case Op::Add:
          // An Add's input gradient is its output gradient: it creates none.
          l.in = input;
          for (size_t p = 1; p < l.prev.size(); ++p) l.otherIn.push_back(L(l.prev[p]).out);
          l.out = tensor({N, C, H, W});
          break;
        case Op::Concat:
          // One input gradient per branch, sized by the channels of the branch's last layer.
          l.in = input;
          l.dIn = tensor({N, H, W, L(l.prev[0]).C});
          for (size_t p = 1; p < l.prev.size(); ++p) {
            l.otherIn.push_back(L(l.prev[p]).out);
            l.otherDIn.push_back(tensor({N, H, W, L(l.prev[p]).C}));
          }
          l.out = tensor({N, C, H, W});
          break;
        case Op::Scale: {
          const Size o = outputSize(order_[i]);
          l.in = input;
          l.out = tensor({o.N, o.C, o.H, o.W});
          l.dIn = tensor({N, C, H, W});
          break;
        }
      }
    }
    // Output gradients, from the last layer back: the loss's for the last layer; otherwise the
    // input gradient of the layers it feeds (an Add passes its own output gradient through, a
    // Concat the gradient of this branch), the first of them as its own and the others summed
    // into it by an Add_MultiGredient kernel.
    for (size_t i = order_.size(); i-- > 0;) {
      const int id = order_[i];
      Layer& l = L(id);
      line_ = l.line;
      if (i + 1 == order_.size()) {
        const Size o = outputSize(id);
        l.dOut = tensor({o.N, o.C, o.H, o.W});
        continue;
      }
      for (size_t k = 0; k < l.next.size(); ++k) {
        const Layer& nx = L(l.next[k]);
        int g = -1;
        if (nx.op == Op::Add) {
          g = nx.dOut;
        } else if (nx.op == Op::Concat) {
          auto pos = std::find(nx.prev.begin(), nx.prev.end(), id) - nx.prev.begin();
          g = pos == 0 ? nx.dIn : nx.otherDIn[static_cast<size_t>(pos - 1)];
        } else {
          g = nx.dIn;
        }
        if (k == 0)
          l.dOut = g;
        else
          l.otherDOut.push_back(g);
      }
      if (l.dOut < 0) fail(l.line, std::string(opName(l.op)) + " layer's output is not used");
    }
  }

  // --- kernels --------------------------------------------------------------------------------

  void kernel(const char* name, int layer, std::initializer_list<int> in,
              std::initializer_list<int> out, const std::vector<int>& moreIn = {},
              const std::vector<int>& moreOut = {}) {
    G10Graph::Kernel k;
    k.name = name;
    const Layer& l = L(layer);
    std::set<int> ins(in), outs(out);
    ins.insert(moreIn.begin(), moreIn.end());
    outs.insert(moreOut.begin(), moreOut.end());
    if (ins.count(-1) || outs.count(-1)) fail(l.line, std::string(name) + " without a tensor");
    k.inputs.assign(ins.begin(), ins.end());
    k.outputs.assign(outs.begin(), outs.end());
    graph_.kernels.push_back(std::move(k));
  }
  void kernels() {
    for (size_t i = 0; i < order_.size(); ++i) {
      const int id = order_[i];
      const Layer& l = L(id);
      switch (l.op) {
        case Op::Conv2d:
          if (i == 0) kernel("LoadData_A0", id, {}, {l.in});
          kernel("Conv2d_Forward", id, {l.in, l.weight}, {l.out});
          break;
        case Op::ReLU:
          kernel("ReLU_Forward", id, {l.in}, {l.out});
          break;
        case Op::AdaptiveAvgPool2d:
          kernel("AdaptiveAvgPool2d_Forward", id, {l.in}, {l.out});
          break;
        case Op::MaxPool2d:
          kernel("MaxPool2d_Forward", id, {l.in}, {l.out});
          break;
        case Op::Dropout:
          kernel("Dropout_Forward", id, {l.in, l.mask}, {l.out});
          break;
        case Op::Linear:
          kernel("Linear_Forward", id, {l.in, l.weight}, {l.out},
                 l.bias ? std::vector<int>{l.bias_} : std::vector<int>{});
          break;
        case Op::BatchNorm2d: {
          std::vector<int> running;
          if (l.trackRunningStats) running = {l.runningMean, l.runningVar};
          kernel("BatchNorm2d_Forward", id, {l.in, l.alphaBeta}, {l.out, l.mu, l.var, l.v1, l.v2},
                 running, running);
          break;
        }
        case Op::Add:
          kernel("Add_Forward", id, {l.in}, {l.out}, l.otherIn);
          break;
        case Op::Concat:
          kernel("Concat_Forward", id, {l.in}, {l.out}, l.otherIn);
          break;
        case Op::Scale:
          kernel("Scale_Forward", id, {l.in}, {l.out});
          break;
      }
    }
    const int last = order_.back();
    graph_.lossKernel = static_cast<int>(graph_.kernels.size());
    kernel("makeLoss", last, {L(last).out}, {L(last).dOut});

    for (size_t i = order_.size(); i-- > 0;) {
      const int id = order_[i];
      const Layer& l = L(id);
      if (!l.otherDOut.empty()) kernel("Add_MultiGredient", id, {l.dOut}, {l.dOut}, l.otherDOut);
      switch (l.op) {
        case Op::Conv2d:
          kernel("Conv2d_Backward_Weight", id, {l.dOut, l.in}, {l.dWeight});
          kernel("Conv2d_Backward_Input", id, {l.dOut, l.weight}, {l.dIn});
          kernel("Conv2d_Apply_Grad", id, {l.dWeight, l.weight}, {l.weight});
          break;
        case Op::ReLU:
          kernel("ReLU_Backward", id, {l.in, l.dOut}, {l.dIn});
          break;
        case Op::AdaptiveAvgPool2d:
          kernel("AdaptiveAvgPool2d_Backward", id, {l.in, l.dOut}, {l.dIn});
          break;
        case Op::MaxPool2d:
          kernel("MaxPool2d_Backward", id, {l.in, l.dOut}, {l.dIn});
          break;
        case Op::Dropout:
          kernel("Dropout_Backward", id, {l.mask, l.dOut}, {l.dIn});
          break;
        case Op::Linear:
          if (l.bias) {
            kernel("Linear_Backward_Bias", id, {l.dOut}, {l.dBias});
            kernel("Linear_Apply_Grad_Bias", id, {l.dBias, l.bias_}, {l.bias_});
          }
          kernel("Linear_Backward_Weight", id, {l.dOut, l.in}, {l.dWeight});
          kernel("Linear_Backward_Input", id, {l.weight, l.dOut}, {l.dIn});
          kernel("Linear_Apply_Grad_Weight", id, {l.dWeight, l.weight}, {l.weight});
          break;
        case Op::BatchNorm2d:
          kernel("BatchNorm2d_Backward", id, {l.dOut, l.v1, l.v2, l.alphaBeta},
                 {l.dIn, l.dAlphaBeta, l.dMu, l.dVar, l.dV1, l.dV2});
          kernel("BatchNorm2d_Apply_Grad", id, {l.dAlphaBeta, l.alphaBeta}, {l.alphaBeta});
          break;
        case Op::Concat:
          kernel("Concat_Backward", id, {l.dOut}, {l.dIn}, {}, l.otherDIn);
          break;
        case Op::Scale:
          kernel("Scale_Backward", id, {l.dOut}, {l.dIn});
          break;
        case Op::Add:
          break;  // its gradient passes through
      }
    }
  }

  std::string file_;
  G10Family family_;
  int64_t batch_, inputH_, inputW_;
  std::vector<Layer> layers_;
  std::vector<int> order_;  // G10's forward order of layers
  G10Graph graph_;
  std::string error_;
  int line_ = 0;  // the layer whose tensors are being made, for errors
};

}  // namespace

Result<G10Graph> buildG10Cnn(std::string_view text, const std::string& file, G10Family family,
                             int64_t batch, int64_t inputH, int64_t inputW) {
  if (batch <= 0 || inputH <= 0 || inputW <= 0)
    return Error{file + ": the batch and the image size must be positive"};
  auto root = parseNetText(text, file);
  if (!root) return root.failure();
  CnnBuilder b(file, family, batch, inputH, inputW);
  return b.build(*root);
}

}  // namespace ts::memsim
