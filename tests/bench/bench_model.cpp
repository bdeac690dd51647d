// ONNX model → layer table + ASTRA-sim text, as `tensorscope-cli model table` and `model astra`
// do it: ResNet-50 from the zoo (no weights) loaded from a file, checked, shape-inferred, expanded
// into the training step. Run: build/default/tests/bench/bench_model --benchmark_repetitions=5
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "model/astra_workload.h"
#include "model/layer_table.h"
#include "model/model_zoo.h"
#include "model/onnx_loader.h"
#include "model/training_step.h"

namespace {

void BM_ResNet50TableAndAstra(benchmark::State& state) {
  namespace fs = std::filesystem;
  const std::string path =
      (fs::temp_directory_path() / ("bench-r50-" + std::to_string(::getpid()) + ".onnx")).string();
  std::ofstream(path, std::ios::binary) << *ts::model::zooModelBytes("resnet50");
  for (auto _ : state) {
    auto g = ts::model::loadOnnxModel(path);
    ts::StatsTable table = ts::model::layerTable(*g);
    std::string text = ts::statsToText(table);
    auto astra = ts::model::astraText(*g, ts::model::expandTrainingStep(*g), {});
    benchmark::DoNotOptimize(text);
    benchmark::DoNotOptimize(astra);
  }
  fs::remove(path);
}
BENCHMARK(BM_ResNet50TableAndAstra)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
