// Every model of Debian's libonnx-testdata (1,072 operator and layer tests; `./dev test` installs
// the package) loads into a layer table and a training step, or is refused with an error that
// names the file — never a crash (also run under the asan preset).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <map>

#include "model/layer_table.h"
#include "model/onnx_loader.h"
#include "model/training_step.h"

namespace ts::model {

namespace fs = std::filesystem;

TEST(ModelRobustness, EveryDebianTestModelLoadsOrSaysWhy) {
  const fs::path root = "/usr/share/libonnx-testdata/data";
  ASSERT_TRUE(fs::is_directory(root)) << "install libonnx-testdata (./dev test does)";
  size_t models = 0, loaded = 0;
  std::map<std::string, size_t> reasons;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.path().extension() != ".onnx") continue;
    ++models;
    const std::string path = entry.path().string();
    auto g = loadOnnxModel(path);
    if (g.ok()) {
      ++loaded;
      StatsTable t = layerTable(*g);
      EXPECT_EQ(t.rows.size(), g->ops.size() + 1) << path;
      TrainingStep s = expandTrainingStep(*g);
      EXPECT_GE(s.kernels.size(), g->ops.size()) << path;
    } else {
      EXPECT_EQ(g.error().rfind(path, 0), 0u)
          << "the error does not start with the file: " << g.error();
      ++reasons[g.error().substr(path.size(), 60)];
    }
  }
  EXPECT_EQ(models, 1072u);
  // Most load; the rest are refused by the ONNX checker for what they deliberately test.
  EXPECT_GT(loaded, models * 9 / 10) << "loaded " << loaded << " of " << models;
  for (const auto& [reason, n] : reasons) std::printf("  refused %zu: %s\n", n, reason.c_str());
  std::printf("  loaded %zu of %zu models\n", loaded, models);
}

// A 750-byte model that crashes libonnx's shape inference (a segmentation fault in Debian's
// libonnx, found by fuzzing): the ONNX library runs in a child process, so the crash is an error
// naming the file and the stage, and this process goes on to load the next model.
TEST(ModelRobustness, AModelThatCrashesTheOnnxLibraryIsAnError) {
  const std::string path =
      std::string(TSCOPE_SHARED_DATA) + "/crashers/onnx-shape-inference-segv.onnx";
  ASSERT_TRUE(fs::exists(path));
  auto g = loadOnnxModel(path);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.error().rfind(path, 0), 0u) << g.error();
  EXPECT_NE(g.error().find("the ONNX library crashed"), std::string::npos) << g.error();
  EXPECT_NE(g.error().find("while inferring shapes"), std::string::npos) << g.error();
  EXPECT_NE(g.error().find("malformed"), std::string::npos) << g.error();
  auto next = loadOnnxModel("/usr/share/libonnx-testdata/data/node/test_relu/model.onnx");
  EXPECT_TRUE(next.ok()) << next.error();
}

}  // namespace ts::model
