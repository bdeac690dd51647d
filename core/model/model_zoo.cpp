#include "model/model_zoo.h"

#include <onnx/onnx_pb.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <map>

namespace ts::model {

namespace {

constexpr int64_t kOpset = 17;  // LayerNormalization

// Builds an ONNX graph layer by layer; names follow the PyTorch modules ("layer1.0.conv1").
class Net {
 public:
  Net(const std::string& name, int64_t batch) : batch_(batch) {
    m_.set_ir_version(8);
    m_.set_producer_name("tensorscope-zoo");
    auto* opset = m_.add_opset_import();
    opset->set_domain("");
    opset->set_version(kOpset);
    g_ = m_.mutable_graph();
    g_->set_name(name);
  }

  std::string input(const std::string& name, std::vector<int64_t> dims,
                    int32_t type = onnx::TensorProto::FLOAT) {
    auto* in = g_->add_input();
    in->set_name(name);
    auto* tt = in->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(type);
    for (size_t i = 0; i < dims.size(); ++i) {
      auto* d = tt->mutable_shape()->add_dim();
      if (i == 0 && batch_ <= 0)
        d->set_dim_param("batch");
      else
        d->set_dim_value(i == 0 ? batch_ : dims[i]);
    }
    return name;
  }
  // A weight: a graph input with a static shape and no data.
  std::string weight(const std::string& name, const std::vector<int64_t>& dims) {
    auto* in = g_->add_input();
    in->set_name(name);
    auto* tt = in->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
    return name;
  }
  // Small constants (shapes, indices, scalars) are initializers with their data.
  std::string ints(const std::vector<int64_t>& values) {
    auto* t = constant(onnx::TensorProto::INT64);
    t->add_dims(static_cast<int64_t>(values.size()));
    for (int64_t v : values) t->add_int64_data(v);
    return t->name();
  }
  std::string scalarInt(int64_t value) {
    auto* t = constant(onnx::TensorProto::INT64);
    t->add_int64_data(value);
    return t->name();
  }
  std::string scalar(float value) {
    auto* t = constant(onnx::TensorProto::FLOAT);
    t->add_float_data(value);
    return t->name();
  }

  using Attrs = std::function<void(onnx::NodeProto&)>;
  std::string op(const std::string& type, const std::string& name,
                 const std::vector<std::string>& inputs, const Attrs& attrs = {}) {
    auto* n = g_->add_node();
    n->set_op_type(type);
    n->set_name(name);
    for (const std::string& i : inputs) n->add_input(i);
    std::string out = name + ".out";
    n->add_output(out);
    if (attrs) attrs(*n);
    return out;
  }
  static void intsAttr(onnx::NodeProto& n, const char* name, const std::vector<int64_t>& v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t x : v) a->add_ints(x);
  }
  static void intAttr(onnx::NodeProto& n, const char* name, int64_t v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  }
  static void floatAttr(onnx::NodeProto& n, const char* name, float v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::FLOAT);
    a->set_f(v);
  }

  std::string conv(const std::string& name, const std::string& x, int64_t cin, int64_t cout,
                   int64_t kh, int64_t kw, int64_t stride, int64_t padH, int64_t padW, bool bias) {
    std::vector<std::string> in{x, weight(name + ".weight", {cout, cin, kh, kw})};
    if (bias) in.push_back(weight(name + ".bias", {cout}));
    return op("Conv", name, in, [&](onnx::NodeProto& n) {
      intsAttr(n, "kernel_shape", {kh, kw});
      intsAttr(n, "strides", {stride, stride});
      intsAttr(n, "pads", {padH, padW, padH, padW});
    });
  }
  std::string conv(const std::string& name, const std::string& x, int64_t cin, int64_t cout,
                   int64_t k, int64_t stride, int64_t pad, bool bias) {
    return conv(name, x, cin, cout, k, k, stride, pad, pad, bias);
  }
  std::string bn(const std::string& name, const std::string& x, int64_t c, float epsilon = 1e-5f) {
    return op("BatchNormalization", name,
              {x, weight(name + ".weight", {c}), weight(name + ".bias", {c}),
               weight(name + ".running_mean", {c}), weight(name + ".running_var", {c})},
              [&](onnx::NodeProto& n) { floatAttr(n, "epsilon", epsilon); });
  }
  std::string relu(const std::string& name, const std::string& x) { return op("Relu", name, {x}); }
  std::string pool(const char* type, const std::string& name, const std::string& x, int64_t k,
                   int64_t s, int64_t p) {
    return op(type, name, {x}, [&](onnx::NodeProto& n) {
      intsAttr(n, "kernel_shape", {k, k});
      intsAttr(n, "strides", {s, s});
      intsAttr(n, "pads", {p, p, p, p});
    });
  }
  std::string flatten(const std::string& name, const std::string& x) {
    return op("Flatten", name, {x}, [](onnx::NodeProto& n) { intAttr(n, "axis", 1); });
  }
  std::string linear(const std::string& name, const std::string& x, int64_t in, int64_t out) {
    return op("Gemm", name, {x, weight(name + ".weight", {out, in}), weight(name + ".bias", {out})},
              [](onnx::NodeProto& n) { intAttr(n, "transB", 1); });
  }
  std::string dropout(const std::string& name, const std::string& x) {
    return op("Dropout", name, {x});
  }
  // x · W + b on the last axis (a transformer's linear layer), W stored [in, out].
  std::string dense(const std::string& name, const std::string& x, int64_t in, int64_t out) {
    std::string y = op("MatMul", name, {x, weight(name + ".weight", {in, out})});
    return op("Add", name + ".add_bias", {y, weight(name + ".bias", {out})});
  }
  std::string layerNorm(const std::string& name, const std::string& x, int64_t c, float epsilon) {
    return op("LayerNormalization", name,
              {x, weight(name + ".weight", {c}), weight(name + ".bias", {c})},
              [&](onnx::NodeProto& n) {
                intAttr(n, "axis", -1);
                floatAttr(n, "epsilon", epsilon);
              });
  }
  // GELU as erf: x · 0.5 · (1 + erf(x / √2)) (ONNX has no Gelu before opset 20).
  std::string gelu(const std::string& name, const std::string& x) {
    std::string e = op("Erf", name + ".erf", {op("Div", name + ".div", {x, scalar(1.41421356f)})});
    std::string h =
        op("Mul", name + ".half", {op("Add", name + ".add", {e, scalar(1.0f)}), scalar(0.5f)});
    return op("Mul", name, {x, h});
  }
  // Multi-head self-attention over [batch, tokens, width] (PyTorch's q, k, v, out projections).
  std::string attention(const std::string& name, const std::string& x, int64_t width, int64_t heads,
                        const std::string& q, const std::string& k, const std::string& v,
                        const std::string& o) {
    const int64_t head = width / heads;
    std::string split = ints({0, 0, heads, head});
    auto project = [&](const std::string& n, const std::vector<int64_t>& perm) {
      std::string y = dense(name + "." + n, x, width, width);
      y = op("Reshape", name + "." + n + ".split", {y, split});
      return op("Transpose", name + "." + n + ".heads", {y},
                [&](onnx::NodeProto& nd) { intsAttr(nd, "perm", perm); });
    };
    std::string qh = project(q, {0, 2, 1, 3}), kh = project(k, {0, 2, 3, 1}),
                vh = project(v, {0, 2, 1, 3});
    std::string scores = op("MatMul", name + ".scores", {qh, kh});
    scores = op("Div", name + ".scale",
                {scores, scalar(static_cast<float>(std::sqrt(static_cast<double>(head))))});
    std::string probs = op("Softmax", name + ".softmax", {scores},
                           [](onnx::NodeProto& n) { intAttr(n, "axis", -1); });
    std::string ctx = op("MatMul", name + ".context", {probs, vh});
    ctx = op("Transpose", name + ".merge", {ctx}, [](onnx::NodeProto& n) {
      intsAttr(n, "perm", {0, 2, 1, 3});
    });
    ctx = op("Reshape", name + ".concat", {ctx, ints({0, 0, width})});
    return dense(name + "." + o, ctx, width, width);
  }

  // A further graph output (an auxiliary classifier) of shape [batch, width].
  void output(const std::string& name, int64_t width) {
    auto* out = g_->add_output();
    out->set_name(name);
    auto* tt = out->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::FLOAT);
    auto* batch = tt->mutable_shape()->add_dim();
    if (batch_ <= 0)
      batch->set_dim_param("batch");
    else
      batch->set_dim_value(batch_);
    tt->mutable_shape()->add_dim()->set_dim_value(width);
  }

  Result<std::string> finish(const std::string& output, int64_t width) {
    auto* out = g_->add_output();
    out->set_name(output);
    auto* tt = out->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::FLOAT);
    auto* batch = tt->mutable_shape()->add_dim();
    if (batch_ <= 0)
      batch->set_dim_param("batch");
    else
      batch->set_dim_value(batch_);
    tt->mutable_shape()->add_dim()->set_dim_value(width);
    std::string bytes;
    if (!m_.SerializeToString(&bytes)) return Error{"cannot serialize the model"};
    return bytes;
  }

 private:
  onnx::TensorProto* constant(int32_t type) {
    auto* t = g_->add_initializer();
    t->set_name("const_" + std::to_string(consts_++));
    t->set_data_type(type);
    return t;
  }

  onnx::ModelProto m_;
  onnx::GraphProto* g_ = nullptr;
  int64_t batch_ = 0;
  int consts_ = 0;
};

Result<std::string> alexnet(int64_t batch) {
  Net n("alexnet", batch);
  std::string x = n.input("input", {batch, 3, 224, 224});
  struct C {
    int64_t cin, cout, k, s, p;
    bool pool;
  };
  const C convs[] = {{3, 64, 11, 4, 2, true},
                     {64, 192, 5, 1, 2, true},
                     {192, 384, 3, 1, 1, false},
                     {384, 256, 3, 1, 1, false},
                     {256, 256, 3, 1, 1, true}};
  int i = 0;
  for (const C& c : convs) {
    std::string name = "features." + std::to_string(i);
    x = n.relu(name + ".relu", n.conv(name, x, c.cin, c.cout, c.k, c.s, c.p, true));
    if (c.pool) x = n.pool("MaxPool", name + ".pool", x, 3, 2, 0);
    i += c.pool ? 3 : 2;
  }
  x = n.flatten("flatten", x);  // 256 × 6 × 6: the adaptive pool is an identity at 224 × 224
  x = n.dropout("classifier.0", x);
  x = n.relu("classifier.2", n.linear("classifier.1", x, 9216, 4096));
  x = n.dropout("classifier.3", x);
  x = n.relu("classifier.5", n.linear("classifier.4", x, 4096, 4096));
  return n.finish(n.linear("classifier.6", x, 4096, 1000), 1000);
}

Result<std::string> vgg(const std::string& name, const std::vector<int64_t>& config,
                        int64_t batch) {
  Net n(name, batch);
  std::string x = n.input("input", {batch, 3, 224, 224});
  int64_t cin = 3;
  int i = 0;
  for (int64_t c : config) {
    std::string layer = "features." + std::to_string(i);
    if (c == 0) {
      x = n.pool("MaxPool", layer, x, 2, 2, 0);
      ++i;
      continue;
    }
    x = n.relu("features." + std::to_string(i + 1), n.conv(layer, x, cin, c, 3, 1, 1, true));
    cin = c;
    i += 2;
  }
  x = n.flatten("flatten", x);
  x = n.dropout("classifier.2", n.relu("classifier.1", n.linear("classifier.0", x, 25088, 4096)));
  x = n.dropout("classifier.5", n.relu("classifier.4", n.linear("classifier.3", x, 4096, 4096)));
  return n.finish(n.linear("classifier.6", x, 4096, 1000), 1000);
}

Result<std::string> resnet(const std::string& name, const std::vector<int>& blocks, int64_t batch) {
  Net n(name, batch);
  std::string x = n.input("input", {batch, 3, 224, 224});
  x = n.relu("relu", n.bn("bn1", n.conv("conv1", x, 3, 64, 7, 2, 3, false), 64));
  x = n.pool("MaxPool", "maxpool", x, 3, 2, 1);
  int64_t cin = 64;
  const int64_t widths[] = {64, 128, 256, 512};
  for (int stage = 0; stage < 4; ++stage) {
    for (int b = 0; b < blocks[static_cast<size_t>(stage)]; ++b) {
      std::string p = "layer" + std::to_string(stage + 1) + "." + std::to_string(b);
      int64_t w = widths[stage], cout = w * 4, stride = b == 0 && stage > 0 ? 2 : 1;
      // Bottleneck (torchvision v1.5: the stride is on the 3 × 3 convolution).
      std::string y = n.relu(p + ".relu1",
                             n.bn(p + ".bn1", n.conv(p + ".conv1", x, cin, w, 1, 1, 0, false), w));
      y = n.relu(p + ".relu2",
                 n.bn(p + ".bn2", n.conv(p + ".conv2", y, w, w, 3, stride, 1, false), w));
      y = n.bn(p + ".bn3", n.conv(p + ".conv3", y, w, cout, 1, 1, 0, false), cout);
      std::string shortcut = x;
      if (b == 0) {
        shortcut = n.bn(p + ".downsample.1",
                        n.conv(p + ".downsample.0", x, cin, cout, 1, stride, 0, false), cout);
      }
      x = n.relu(p + ".relu3", n.op("Add", p + ".add", {y, shortcut}));
      cin = cout;
    }
  }
  x = n.flatten("flatten", n.op("GlobalAveragePool", "avgpool", {x}));
  return n.finish(n.linear("fc", x, 2048, 1000), 1000);
}

// One transformer encoder layer; `preNorm` puts the LayerNorms before attention and MLP (ViT),
// else after the residual additions (BERT).
std::string encoder(Net& n, const std::string& p, std::string x, int64_t width, int64_t heads,
                    int64_t hidden, bool preNorm, float epsilon) {
  if (preNorm) {
    std::string a = n.attention(p + ".self_attention", n.layerNorm(p + ".ln_1", x, width, epsilon),
                                width, heads, "query", "key", "value", "out_proj");
    x = n.op("Add", p + ".residual1", {x, a});
    std::string h = n.layerNorm(p + ".ln_2", x, width, epsilon);
    h = n.dense(p + ".mlp.3", n.gelu(p + ".mlp.1", n.dense(p + ".mlp.0", h, width, hidden)), hidden,
                width);
    return n.op("Add", p + ".residual2", {x, h});
  }
  std::string a = n.attention(p + ".attention", x, width, heads, "self.query", "self.key",
                              "self.value", "output.dense");
  x = n.layerNorm(p + ".attention.output.LayerNorm", n.op("Add", p + ".residual1", {a, x}), width,
                  epsilon);
  std::string h =
      n.gelu(p + ".intermediate.act", n.dense(p + ".intermediate.dense", x, width, hidden));
  h = n.dense(p + ".output.dense", h, hidden, width);
  return n.layerNorm(p + ".output.LayerNorm", n.op("Add", p + ".residual2", {h, x}), width,
                     epsilon);
}

Result<std::string> bertBase(int64_t batch) {
  constexpr int64_t kSeq = 128, kWidth = 768;
  Net n("bert-base", batch);
  std::string ids = n.input("input_ids", {batch, kSeq}, onnx::TensorProto::INT64);
  std::string types = n.input("token_type_ids", {batch, kSeq}, onnx::TensorProto::INT64);
  std::vector<int64_t> positions(kSeq);
  for (int64_t i = 0; i < kSeq; ++i) positions[static_cast<size_t>(i)] = i;
  std::string x = n.op("Gather", "embeddings.word_embeddings",
                       {n.weight("embeddings.word_embeddings.weight", {30522, kWidth}), ids});
  std::string pos =
      n.op("Gather", "embeddings.position_embeddings",
           {n.weight("embeddings.position_embeddings.weight", {512, kWidth}), n.ints(positions)});
  std::string tok = n.op("Gather", "embeddings.token_type_embeddings",
                         {n.weight("embeddings.token_type_embeddings.weight", {2, kWidth}), types});
  x = n.op("Add", "embeddings.add_token_types",
           {n.op("Add", "embeddings.add_positions", {x, pos}), tok});
  x = n.layerNorm("embeddings.LayerNorm", x, kWidth, 1e-12f);
  for (int l = 0; l < 12; ++l)
    x = encoder(n, "encoder.layer." + std::to_string(l), x, kWidth, 12, 3072, false, 1e-12f);
  std::string first = n.op("Gather", "pooler.first_token", {x, n.scalarInt(0)},
                           [](onnx::NodeProto& nd) { Net::intAttr(nd, "axis", 1); });
  return n.finish(
      n.op("Tanh", "pooler.activation", {n.linear("pooler.dense", first, kWidth, kWidth)}), kWidth);
}

Result<std::string> vitB16(int64_t batch) {
  constexpr int64_t kWidth = 768, kPatches = 196;
  Net n("vit-b16", batch);
  std::string x = n.input("input", {batch, 3, 224, 224});
  x = n.conv("conv_proj", x, 3, kWidth, 16, 16, 0, true);  // [b, 768, 14, 14]
  x = n.op("Reshape", "flatten_patches", {x, n.ints({0, kWidth, kPatches})});
  x = n.op("Transpose", "patches", {x}, [](onnx::NodeProto& nd) {
    Net::intsAttr(nd, "perm", {0, 2, 1});
  });
  // The class token, broadcast over the batch: a zeroed first patch plus the token.
  std::string first =
      n.op("Slice", "class_token.batch", {x, n.ints({0}), n.ints({1}), n.ints({1})});
  std::string cls = n.op("Add", "class_token",
                         {n.op("Mul", "class_token.zero", {first, n.scalar(0.0f)}),
                          n.weight("class_token", {1, 1, kWidth})});
  x = n.op("Concat", "tokens", {cls, x}, [](onnx::NodeProto& nd) { Net::intAttr(nd, "axis", 1); });
  x = n.op("Add", "encoder.pos_embedding",
           {x, n.weight("encoder.pos_embedding", {1, kPatches + 1, kWidth})});
  for (int l = 0; l < 12; ++l)
    x = encoder(n, "encoder.layers.encoder_layer_" + std::to_string(l), x, kWidth, 12, 3072, true,
                1e-6f);
  x = n.layerNorm("encoder.ln", x, kWidth, 1e-6f);
  std::string token = n.op("Gather", "class_output", {x, n.scalarInt(0)},
                           [](onnx::NodeProto& nd) { Net::intAttr(nd, "axis", 1); });
  return n.finish(n.linear("heads.head", token, kWidth, 1000), 1000);
}

// torchvision's Inception v3 (299 × 299 input) with its auxiliary classifier. BasicConv2d is a
// convolution without bias, BatchNorm (eps 0.001) and ReLU.
struct Inception {
  Net& n;
  std::string basic(const std::string& name, const std::string& x, int64_t cin, int64_t cout,
                    int64_t kh, int64_t kw, int64_t stride = 1, int64_t padH = 0,
                    int64_t padW = 0) {
    std::string y = n.conv(name + ".conv", x, cin, cout, kh, kw, stride, padH, padW, false);
    return n.relu(name + ".relu", n.bn(name + ".bn", y, cout, 1e-3f));
  }
  std::string concat(const std::string& name, const std::vector<std::string>& parts) {
    return n.op("Concat", name, parts, [](onnx::NodeProto& nd) { Net::intAttr(nd, "axis", 1); });
  }
  std::string avgPool3(const std::string& name, const std::string& x) {
    return n.pool("AveragePool", name, x, 3, 1, 1);
  }

  std::string a(const std::string& p, const std::string& x, int64_t in, int64_t pool) {
    std::string b1 = basic(p + ".branch1x1", x, in, 64, 1, 1);
    std::string b5 = basic(p + ".branch5x5_2", basic(p + ".branch5x5_1", x, in, 48, 1, 1), 48, 64,
                           5, 5, 1, 2, 2);
    std::string b3 = basic(p + ".branch3x3dbl_1", x, in, 64, 1, 1);
    b3 = basic(p + ".branch3x3dbl_2", b3, 64, 96, 3, 3, 1, 1, 1);
    b3 = basic(p + ".branch3x3dbl_3", b3, 96, 96, 3, 3, 1, 1, 1);
    std::string bp = basic(p + ".branch_pool", avgPool3(p + ".avg_pool", x), in, pool, 1, 1);
    return concat(p, {b1, b5, b3, bp});
  }
  std::string b(const std::string& p, const std::string& x, int64_t in) {
    std::string b3 = basic(p + ".branch3x3", x, in, 384, 3, 3, 2);
    std::string d = basic(p + ".branch3x3dbl_1", x, in, 64, 1, 1);
    d = basic(p + ".branch3x3dbl_2", d, 64, 96, 3, 3, 1, 1, 1);
    d = basic(p + ".branch3x3dbl_3", d, 96, 96, 3, 3, 2);
    return concat(p, {b3, d, n.pool("MaxPool", p + ".max_pool", x, 3, 2, 0)});
  }
  std::string c(const std::string& p, const std::string& x, int64_t in, int64_t c7) {
    std::string b1 = basic(p + ".branch1x1", x, in, 192, 1, 1);
    std::string b7 = basic(p + ".branch7x7_1", x, in, c7, 1, 1);
    b7 = basic(p + ".branch7x7_2", b7, c7, c7, 1, 7, 1, 0, 3);
    b7 = basic(p + ".branch7x7_3", b7, c7, 192, 7, 1, 1, 3, 0);
    std::string d = basic(p + ".branch7x7dbl_1", x, in, c7, 1, 1);
    d = basic(p + ".branch7x7dbl_2", d, c7, c7, 7, 1, 1, 3, 0);
    d = basic(p + ".branch7x7dbl_3", d, c7, c7, 1, 7, 1, 0, 3);
    d = basic(p + ".branch7x7dbl_4", d, c7, c7, 7, 1, 1, 3, 0);
    d = basic(p + ".branch7x7dbl_5", d, c7, 192, 1, 7, 1, 0, 3);
    std::string bp = basic(p + ".branch_pool", avgPool3(p + ".avg_pool", x), in, 192, 1, 1);
    return concat(p, {b1, b7, d, bp});
  }
  std::string d(const std::string& p, const std::string& x, int64_t in) {
    std::string b3 =
        basic(p + ".branch3x3_2", basic(p + ".branch3x3_1", x, in, 192, 1, 1), 192, 320, 3, 3, 2);
    std::string b7 = basic(p + ".branch7x7x3_1", x, in, 192, 1, 1);
    b7 = basic(p + ".branch7x7x3_2", b7, 192, 192, 1, 7, 1, 0, 3);
    b7 = basic(p + ".branch7x7x3_3", b7, 192, 192, 7, 1, 1, 3, 0);
    b7 = basic(p + ".branch7x7x3_4", b7, 192, 192, 3, 3, 2);
    return concat(p, {b3, b7, n.pool("MaxPool", p + ".max_pool", x, 3, 2, 0)});
  }
  std::string e(const std::string& p, const std::string& x, int64_t in) {
    std::string b1 = basic(p + ".branch1x1", x, in, 320, 1, 1);
    std::string b3 = basic(p + ".branch3x3_1", x, in, 384, 1, 1);
    b3 = concat(p + ".branch3x3", {basic(p + ".branch3x3_2a", b3, 384, 384, 1, 3, 1, 0, 1),
                                   basic(p + ".branch3x3_2b", b3, 384, 384, 3, 1, 1, 1, 0)});
    std::string d = basic(p + ".branch3x3dbl_1", x, in, 448, 1, 1);
    d = basic(p + ".branch3x3dbl_2", d, 448, 384, 3, 3, 1, 1, 1);
    d = concat(p + ".branch3x3dbl", {basic(p + ".branch3x3dbl_3a", d, 384, 384, 1, 3, 1, 0, 1),
                                     basic(p + ".branch3x3dbl_3b", d, 384, 384, 3, 1, 1, 1, 0)});
    std::string bp = basic(p + ".branch_pool", avgPool3(p + ".avg_pool", x), in, 192, 1, 1);
    return concat(p, {b1, b3, d, bp});
  }
};

Result<std::string> inceptionV3(int64_t batch) {
  Net n("inception_v3", batch);
  Inception m{n};
  std::string x = n.input("input", {batch, 3, 299, 299});
  x = m.basic("Conv2d_1a_3x3", x, 3, 32, 3, 3, 2);
  x = m.basic("Conv2d_2a_3x3", x, 32, 32, 3, 3);
  x = m.basic("Conv2d_2b_3x3", x, 32, 64, 3, 3, 1, 1, 1);
  x = n.pool("MaxPool", "maxpool1", x, 3, 2, 0);
  x = m.basic("Conv2d_3b_1x1", x, 64, 80, 1, 1);
  x = m.basic("Conv2d_4a_3x3", x, 80, 192, 3, 3);
  x = n.pool("MaxPool", "maxpool2", x, 3, 2, 0);
  x = m.a("Mixed_5b", x, 192, 32);
  x = m.a("Mixed_5c", x, 256, 64);
  x = m.a("Mixed_5d", x, 288, 64);
  x = m.b("Mixed_6a", x, 288);
  x = m.c("Mixed_6b", x, 768, 128);
  x = m.c("Mixed_6c", x, 768, 160);
  x = m.c("Mixed_6d", x, 768, 160);
  x = m.c("Mixed_6e", x, 768, 192);
  // Auxiliary classifier on Mixed_6e: 5 × 5 average pool (stride 3), two convolutions, linear.
  std::string aux = n.pool("AveragePool", "AuxLogits.avg_pool", x, 5, 3, 0);
  aux = m.basic("AuxLogits.conv0", aux, 768, 128, 1, 1);
  aux = m.basic("AuxLogits.conv1", aux, 128, 768, 5, 5);
  aux = n.flatten("AuxLogits.flatten", n.op("GlobalAveragePool", "AuxLogits.adaptive_pool", {aux}));
  n.output(n.linear("AuxLogits.fc", aux, 768, 1000), 1000);
  x = m.d("Mixed_7a", x, 768);
  x = m.e("Mixed_7b", x, 1280);
  x = m.e("Mixed_7c", x, 2048);
  x = n.dropout("dropout", n.flatten("flatten", n.op("GlobalAveragePool", "avgpool", {x})));
  return n.finish(n.linear("fc", x, 2048, 1000), 1000);
}

using Builder = std::function<Result<std::string>(int64_t)>;

const std::map<std::string, Builder>& builders() {
  static const std::map<std::string, Builder> table = {
      {"alexnet", alexnet},
      {"vgg16",
       [](int64_t b) {
         return vgg("vgg16",
                    {64, 64, 0, 128, 128, 0, 256, 256, 256, 0, 512, 512, 512, 0, 512, 512, 512, 0},
                    b);
       }},
      {"vgg19",
       [](int64_t b) {
         return vgg("vgg19", {64,  64,  0,   128, 128, 0,   256, 256, 256, 256, 0,
                              512, 512, 512, 512, 0,   512, 512, 512, 512, 0},
                    b);
       }},
      {"resnet50",
       [](int64_t b) {
         return resnet("resnet50", {3, 4, 6, 3}, b);
       }},
      {"resnet152",
       [](int64_t b) {
         return resnet("resnet152", {3, 8, 36, 3}, b);
       }},
      {"bert-base", bertBase},
      {"vit-b16", vitB16},
      {"inception_v3", inceptionV3},
  };
  return table;
}

}  // namespace

std::vector<std::string> zooModels() {
  std::vector<std::string> names;
  for (const auto& [name, builder] : builders()) names.push_back(name);
  return names;
}

Result<std::string> zooModelBytes(const std::string& name, int64_t batch) {
  auto it = builders().find(name);
  if (it == builders().end()) {
    std::string known;
    for (const std::string& n : zooModels()) known += (known.empty() ? "" : ", ") + n;
    return Error{"no model '" + name + "' in the zoo (it has " + known + ")"};
  }
  return it->second(batch);
}

Result<ModelGraph> loadModelOrZoo(const std::string& what, const LoadOptions& options) {
  std::error_code ec;
  if (std::filesystem::exists(what, ec)) return loadOnnxModel(what, options);
  auto bytes = zooModelBytes(what, options.batch);
  if (!bytes) {
    std::string names;
    for (const std::string& n : zooModels()) names += (names.empty() ? "" : ", ") + n;
    return Error{what + ": no such file, nor a built-in model (" + names + ")"};
  }
  return loadOnnxBytes(*bytes, what, options);
}

}  // namespace ts::model
