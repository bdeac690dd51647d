// ONNX models: the zoo's parameter counts against the published ones, VGG-16's layer table,
// shape inference at two batch sizes, FLOPs by hand, weights stored three ways, bad files.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "model/model_zoo.h"
#include "model/onnx_loader.h"

namespace ts::model {

namespace fs = std::filesystem;

namespace {

ModelGraph zoo(const std::string& name, int64_t batch = 1) {
  auto bytes = zooModelBytes(name);
  EXPECT_TRUE(bytes.ok()) << (bytes.ok() ? "" : bytes.error());
  LoadOptions o;
  o.batch = batch;
  auto g = loadOnnxBytes(*bytes, name, o);
  EXPECT_TRUE(g.ok()) << (g.ok() ? "" : g.error());
  return g.ok() ? *g : ModelGraph{};
}

}  // namespace

TEST(Model, ZooParameterCountsArePublishedOnes) {
  // torchvision and Hugging Face definitions (BERT-base with its pooler).
  const std::map<std::string, int64_t> published = {
      {"alexnet", 61'100'840},   {"vgg16", 138'357'544},   {"vgg19", 143'667'240},   {"resnet50", 25'557'032},
      {"resnet152", 60'192'808}, {"bert-base", 109'482'240}, {"vit-b16", 86'567'656},
  };
  for (const auto& [name, count] : published) {
    ModelGraph g = zoo(name);
    EXPECT_EQ(g.parameters(), count) << name;
    EXPECT_TRUE(g.warnings.empty()) << name << ": " << (g.warnings.empty() ? "" : g.warnings.front());
  }
}

TEST(Model, Vgg16LayerTable) {
  // Published VGG-16 (configuration D) weights per layer: 13 convolutions, 3 fully connected.
  const int64_t expected[] = {1'792,     36'928,    73'856,    147'584,   295'168,    590'080,    590'080, 1'180'160,
                              2'359'808, 2'359'808, 2'359'808, 2'359'808, 2'359'808, 102'764'544, 16'781'312, 4'097'000};
  ModelGraph g = zoo("vgg16");
  std::vector<int64_t> layers;
  for (const Op& op : g.ops) {
    if (op.parameters(g.tensors) > 0) layers.push_back(op.parameters(g.tensors));
  }
  ASSERT_EQ(layers.size(), std::size(expected));
  for (size_t i = 0; i < layers.size(); ++i) EXPECT_EQ(layers[i], expected[i]) << "layer " << i;
}

TEST(Model, ShapesFollowTheBatch) {
  for (int64_t batch : {1, 32}) {
    ModelGraph g = zoo("resnet50", batch);
    for (const Tensor& t : g.tensors) {
      if (t.producer >= 0) {
        EXPECT_TRUE(t.shapeKnown) << t.name << " at batch " << batch;
      }
    }
    const Tensor& out = g.tensors[static_cast<size_t>(g.outputs[0])];
    EXPECT_EQ(out.shape, (std::vector<int64_t>{batch, 1000}));
    // Conv1's output: batch × 64 × 112 × 112.
    int conv1 = -1;
    for (size_t i = 0; i < g.ops.size(); ++i) {
      if (g.ops[i].name == "conv1") conv1 = static_cast<int>(i);
    }
    ASSERT_GE(conv1, 0);
    EXPECT_EQ(g.tensors[static_cast<size_t>(g.ops[static_cast<size_t>(conv1)].outputs[0])].shape,
              (std::vector<int64_t>{batch, 64, 112, 112}));
    // 2 × MACs: 64 × 112 × 112 outputs per image, each 3 × 7 × 7 multiply-adds.
    EXPECT_EQ(g.ops[static_cast<size_t>(conv1)].flops, 2 * batch * 64 * 112 * 112 * 3 * 7 * 7);
  }
  ModelGraph bert = zoo("bert-base", 8);
  EXPECT_EQ(bert.tensors[static_cast<size_t>(bert.outputs[0])].shape, (std::vector<int64_t>{8, 768}));
  ModelGraph vit = zoo("vit-b16", 4);
  EXPECT_EQ(vit.tensors[static_cast<size_t>(vit.outputs[0])].shape, (std::vector<int64_t>{4, 1000}));
}

TEST(Model, BadFilesAreClearErrors) {
  fs::path dir = fs::temp_directory_path() / ("tscope-model-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  auto write = [&](const std::string& name, const std::string& bytes) {
    std::ofstream((dir / name).string(), std::ios::binary) << bytes;
    return (dir / name).string();
  };
  auto bytes = zooModelBytes("alexnet");
  ASSERT_TRUE(bytes.ok());
  auto cut = loadOnnxModel(write("cut.onnx", bytes->substr(0, bytes->size() / 2)));
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.error().find("cut.onnx"), std::string::npos) << cut.error();
  auto text = loadOnnxModel(write("text.onnx", "hello, this is not a model"));
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.error().find("not an ONNX model"), std::string::npos) << text.error();
  auto empty = loadOnnxModel(write("empty.onnx", ""));
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.error().find("empty"), std::string::npos) << empty.error();
  EXPECT_FALSE(loadOnnxModel((dir / "missing.onnx").string()).ok());
  EXPECT_FALSE(zooModelBytes("lenet").ok());
  fs::remove_all(dir);
}

}  // namespace ts::model
