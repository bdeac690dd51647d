// G10's frontend for transformer model files (BERT, ViT): op records
//   <op id> <type> <number of inputs> <input ids...> then per input <rank> <dims...>, then a line
//   of dashes
// where an input id is a weight, a constant or the id of the op that produced it. G10 reads a
// SoftmaxBasic and the three records after it as one op (their last id names its output).
#include <cctype>
#include <map>
#include <set>
#include <sstream>
#include <unordered_map>

#include "memsim/formats/g10_frontend.h"
#include "util/parse_number.h"

namespace ts::memsim {

namespace {

struct OpInput {
  int id = -1;
  std::vector<int64_t> dims;
  int tensor = -1;  // G10's tensor id
  int grad = -1;    // its gradient, when the op passes one back to it
};

struct OpRecord {
  int id = -1;
  std::string type;
  int line = 0;
  std::vector<OpInput> inputs;
  int out = -1;
  std::vector<int> outGrads;  // gradients of the output from each of its users
};

class Reader {
 public:
  Reader(std::string_view text, std::string file) : file_(std::move(file)) {
    // Tokens with their line numbers.
    int line = 1;
    size_t i = 0;
    while (i < text.size()) {
      if (text[i] == '\n') {
        ++line, ++i;
        continue;
      }
      if (std::isspace(static_cast<unsigned char>(text[i]))) {
        ++i;
        continue;
      }
      size_t j = i;
      while (j < text.size() && !std::isspace(static_cast<unsigned char>(text[j]))) ++j;
      tokens_.push_back({std::string(text.substr(i, j - i)), line});
      i = j;
    }
  }

  bool done() const { return pos_ >= tokens_.size(); }
  int line() const { return pos_ < tokens_.size() ? tokens_[pos_].second : lastLine(); }
  int lastLine() const { return tokens_.empty() ? 1 : tokens_.back().second; }
  std::string where() const { return file_ + ":" + std::to_string(line()) + ": "; }

  Result<std::string> word(const std::string& what) {
    if (done()) return Error{file_ + ": ends where " + what + " was due"};
    return tokens_[pos_++].first;
  }
  Result<int64_t> number(const char* what, int64_t max) {
    const std::string w = where();
    auto t = word(what);
    if (!t) return t.failure();
    auto v = parseInteger<int64_t>(*t);
    if (!v || *v < 0 || *v > max)
      return Error{w + what + " '" + *t + "' is not a whole number from 0 to " +
                   std::to_string(max)};
    return *v;
  }

 private:
  std::string file_;
  std::vector<std::pair<std::string, int>> tokens_;
  size_t pos_ = 0;
};

constexpr int64_t kBatchDim = 99;  // G10's placeholder for the batch in a shape

class TransformerBuilder {
 public:
  TransformerBuilder(std::string file, int64_t batch, int globalBelow)
      : file_(std::move(file)), batch_(batch), globalBelow_(globalBelow) {}

  Result<G10Graph> build(std::string_view text) {
    Reader r(text, file_);
    while (!r.done()) {
      auto op = record(r);
      if (!op) return op.failure();
      if (op->type == "SoftmaxBasic") {
        // The three records after a SoftmaxBasic are its steps: their inputs' shapes count, and
        // the last one's id is the softmax's output.
        for (int k = 0; k < 3; ++k) {
          auto step = record(r);
          if (!step) return step.failure();
          op->id = step->id;
        }
      }
      if (!byId_.emplace(op->id, static_cast<int>(ops_.size())).second)
        return Error{file_ + ":" + std::to_string(op->line) + ": op " + std::to_string(op->id) +
                     " is defined twice"};
      ops_.push_back(std::move(*op));
    }
    if (ops_.empty()) return Error{file_ + ": no op records"};
    if (auto s = tensors(); !s.empty()) return Error{s};
    if (auto s = kernels(); !s.empty()) return Error{s};
    return std::move(graph_);
  }

 private:
  Result<OpRecord> record(Reader& r) {
    OpRecord op;
    op.line = r.line();
    auto id = r.number("an op id", 1 << 30);
    if (!id) return id.failure();
    op.id = static_cast<int>(*id);
    auto type = r.word("the op type");
    if (!type) return type.failure();
    op.type = *type;
    auto count = r.number("the number of inputs", 64);
    if (!count) return count.failure();
    op.inputs.resize(static_cast<size_t>(*count));
    for (OpInput& in : op.inputs) {
      auto v = r.number("an input id", 1 << 30);
      if (!v) return v.failure();
      in.id = static_cast<int>(*v);
    }
    for (OpInput& in : op.inputs) {
      auto rank = r.number("an input's rank", 16);
      if (!rank) return rank.failure();
      for (int64_t d = 0; d < *rank; ++d) {
        auto v = r.number("a dimension", int64_t{1} << 40);
        if (!v) return v.failure();
        in.dims.push_back(*v == kBatchDim ? batch_ : *v);
      }
      shapes_[in.id] = in.dims;  // the last record that uses a tensor gives its shape
    }
    const std::string w = r.where();
    auto dashes = r.word("the line of dashes ending op " + std::to_string(op.id));
    if (!dashes) return dashes.failure();
    if (dashes->find_first_not_of('-') != std::string::npos || dashes->empty())
      return Error{w + "expected the line of dashes ending op " + std::to_string(op.id) +
                   ", found '" + *dashes + "'"};
    return op;
  }

  Result<int> newTensor(const std::vector<int64_t>& dims, bool global, int line) {
    int64_t bytes = 4;
    for (int64_t d : dims)
      if (__builtin_mul_overflow(bytes, d, &bytes) || bytes > kMaxTensorBytes)
        return Error{file_ + ":" + std::to_string(line) + ": a tensor of more than 1 PiB"};
    graph_.tensors.push_back({bytes, global});
    return static_cast<int>(graph_.tensors.size()) - 1;
  }
  // A gradient of the same size as tensor `t` (G10 sizes it by the page-rounded size).
  int gradientOf(int t) {
    const int64_t bytes = (graph_.tensors[static_cast<size_t>(t)].bytes + 4095) / 4096 * 4096;
    graph_.tensors.push_back({bytes, false});
    return static_cast<int>(graph_.tensors.size()) - 1;
  }
  bool isGlobal(int t) const { return graph_.tensors[static_cast<size_t>(t)].global; }

  // Tensors in G10's creation order: per op its output (shaped as its users see it), its inputs
  // not yet created, then a gradient for each input that is a weight or another op's output.
  std::string tensors() {
    std::unordered_map<int, int> made;  // input id → tensor
    for (size_t i = 0; i < ops_.size(); ++i) {
      OpRecord& op = ops_[i];
      const std::string at = file_ + ":" + std::to_string(op.line) + ": ";
      if (auto s = shapes_.find(op.id); s != shapes_.end()) {
        if (auto m = made.find(op.id); m != made.end()) {
          op.out = m->second;
        } else {
          auto t = newTensor(s->second, op.id < globalBelow_, op.line);
          if (!t) return t.error();
          op.out = made[op.id] = *t;
        }
      } else {
        // Nothing reads this op's output: G10 sizes it like its first input.
        if (op.inputs.empty()) return at + "op " + std::to_string(op.id) + " has no inputs";
        auto t = newTensor(op.inputs[0].dims, false, op.line);
        if (!t) return t.error();
        op.out = *t;
      }
      for (OpInput& in : op.inputs) {
        if (auto m = made.find(in.id); m != made.end()) {
          in.tensor = m->second;
        } else {
          auto t = newTensor(shapes_[in.id], in.id < globalBelow_, op.line);
          if (!t) return t.error();
          in.tensor = made[in.id] = *t;
        }
      }
      for (OpInput& in : op.inputs) {
        auto producer = byId_.find(in.id);
        const bool fromOp = producer != byId_.end();
        // A Power's exponent gets no gradient; elsewhere a weight always does.
        const bool wantsGrad =
            op.type == "Power" ? (!isGlobal(in.tensor) && fromOp) : (isGlobal(in.tensor) || fromOp);
        if (!wantsGrad) continue;
        in.grad = gradientOf(in.tensor);
        if (fromOp) ops_[static_cast<size_t>(producer->second)].outGrads.push_back(in.grad);
      }
      if (i + 1 == ops_.size()) op.outGrads.push_back(gradientOf(op.out));  // the loss's
    }
    return {};
  }

  void kernel(const char* name, const OpRecord& op, std::set<int> in, std::set<int> out) {
    if (in.count(-1) || out.count(-1)) {
      if (error_.empty())
        error_ = file_ + ":" + std::to_string(op.line) + ": " + name + " of op " +
                 std::to_string(op.id) + " (" + op.type + ") has no gradient to work on";
      in.erase(-1), out.erase(-1);
    }
    graph_.kernels.push_back(
        {name, std::vector<int>(in.begin(), in.end()), std::vector<int>(out.begin(), out.end())});
  }

  // The update of the op's weight input (the last one, if several), when it has one.
  void applyGrad(const OpRecord& op) {
    const OpInput* w = nullptr;
    for (const OpInput& in : op.inputs)
      if (isGlobal(in.tensor)) w = &in;
    if (w) kernel("Apply_Grad", op, {w->tensor, w->grad}, {w->tensor});
  }

  std::string kernels() {
    static const std::map<std::string, const char*> kForward = {
        {"GatherV2", "GatherV2_Forward"},
        {"Convolution", "Conv2d_Forward"},
        {"Dot", "Linear_Forward"},
        {"Relu", "ReLU_Forward"},
        {"Add", "Add_Forward"},
        {"BatchMatMul", "BatchMatMul_Forward"},
        {"Divide", "Divide_Forward"},
        {"Multiply", "Multiply_Forward"},
        {"Power", "Power_Forward"},
        {"SoftmaxBasic", "SoftmaxBasic_Forward"},
        {"Sqrt", "Sqrt_Forward"},
        {"Subtract", "Subtract_Forward"},
        {"Sum", "Sum_Forward"},
        {"Tanh", "Tanh_Forward"},
        {"Erf", "Erf_Forward"}};
    for (const OpRecord& op : ops_) {
      auto f = kForward.find(op.type);
      if (f == kForward.end())
        return file_ + ":" + std::to_string(op.line) + ": op type '" + op.type +
               "' is not one G10's frontend knows";
      std::set<int> in;
      for (const OpInput& i : op.inputs) in.insert(i.tensor);
      kernel(f->second, op, in, {op.out});
    }
    const OpRecord& lastOp = ops_.back();
    graph_.lossKernel = static_cast<int>(graph_.kernels.size());
    kernel("makeLoss", lastOp, {lastOp.out}, {lastOp.outGrads[0]});

    for (size_t i = ops_.size(); i-- > 0;) {
      const OpRecord& op = ops_[i];
      if (op.outGrads.empty()) {
        // No user passes a gradient back: G10 would read past an empty list here.
        return file_ + ":" + std::to_string(op.line) + ": op " + std::to_string(op.id) + " (" +
               op.type + ") gets no gradient from the ops that use it";
      }
      const int dOut = op.outGrads[0];
      if (op.outGrads.size() > 1)
        kernel("Add_MultiGredient", op, {op.outGrads.begin(), op.outGrads.end()}, {dOut});
      auto input = [&](size_t k) -> const OpInput* {
        return k < op.inputs.size() ? &op.inputs[k] : nullptr;
      };
      const OpInput* a = input(0);
      const OpInput* b = input(1);
      if (!a || ((op.type == "BatchMatMul" || op.type == "Divide" || op.type == "Multiply" ||
                  op.type == "Power") &&
                 !b))
        return file_ + ":" + std::to_string(op.line) + ": op " + std::to_string(op.id) + " (" +
               op.type + ") has too few inputs";
      if (op.type == "GatherV2" || op.type == "Dot" || op.type == "Convolution") {
        // A lookup or product of an activation with a weight: the weight's gradient, the
        // activation's when it has one, then the weight's update.
        // With several of a kind the last counts (a Dot's activation gradient too when absent).
        int w = -1, dW = -1, x = -1, dX = -1;
        for (const OpInput& in : op.inputs) {
          if (isGlobal(in.tensor)) {
            w = in.tensor, dW = in.grad;
          } else {
            x = in.tensor;
            if (in.grad >= 0 || op.type == "Dot") dX = in.grad;
          }
        }
        if (op.type == "GatherV2") {
          std::set<int> out = {dW};
          if (dX >= 0) out.insert(dX);
          kernel("GatherV2_Backward", op, {dOut, x}, out);
          kernel("Apply_Grad", op, {dW, w}, {w});
        } else {
          const bool dot = op.type == "Dot";
          kernel(dot ? "Linear_Backward_Weight" : "Conv2d_Backward_Weight", op, {dOut, x}, {dW});
          if (dX >= 0)
            kernel(dot ? "Linear_Backward_Input" : "Conv2d_Backward_Input", op, {w, dOut}, {dX});
          kernel(dot ? "Linear_Apply_Grad_Weight" : "Apply_Grad", op, {dW, w}, {w});
        }
      } else if (op.type == "Add" || op.type == "Subtract") {
        std::set<int> out;
        for (const OpInput& in : op.inputs)
          if (in.grad >= 0) out.insert(in.grad);
        kernel(op.type == "Add" ? "Add_Backward" : "Subtract_Backward", op, {dOut}, out);
        applyGrad(op);
      } else if (op.type == "BatchMatMul" || op.type == "Multiply") {
        const char* name = op.type == "Multiply" ? "Multiply_Backward" : "BatchMatMul_Backward";
        if (a->grad >= 0) kernel(name, op, {dOut, b->tensor}, {a->grad});
        if (b->grad >= 0) kernel(name, op, {dOut, a->tensor}, {b->grad});
        applyGrad(op);
      } else if (op.type == "Divide") {
        if (a->grad >= 0) kernel("Divide_Backward_A", op, {b->tensor, dOut}, {a->grad});
        if (b->grad >= 0) kernel("Divide_Backward_B", op, {b->tensor, op.out, dOut}, {b->grad});
        applyGrad(op);
      } else if (op.type == "Power") {
        kernel("Power_Backward", op, {dOut, a->tensor, b->tensor}, {a->grad});
      } else {  // one input: Relu, SoftmaxBasic, Sqrt, Sum, Tanh, Erf
        static const std::map<std::string, const char*> kUnary = {
            {"Relu", "ReLU_Backward"}, {"SoftmaxBasic", "SoftmaxBasic_Backward"},
            {"Sqrt", "Sqrt_Backward"}, {"Sum", "Sum_Backward"},
            {"Tanh", "Tanh_Backward"}, {"Erf", "Erf_Backward"}};
        kernel(kUnary.at(op.type), op, {dOut, a->tensor}, {a->grad});
      }
      if (!error_.empty()) return error_;
    }
    return error_;
  }

  std::string file_;
  int64_t batch_;
  int globalBelow_;
  std::vector<OpRecord> ops_;
  std::unordered_map<int, int> byId_;                     // op id → index in ops_
  std::unordered_map<int, std::vector<int64_t>> shapes_;  // tensor id → shape
  G10Graph graph_;
  std::string error_;
};

}  // namespace

Result<G10Graph> buildG10Transformer(std::string_view text, const std::string& file, int64_t batch,
                                     int globalBelow) {
  if (batch <= 0) return Error{file + ": the batch must be positive"};
  TransformerBuilder b(file, batch, globalBelow);
  return b.build(text);
}

}  // namespace ts::memsim
