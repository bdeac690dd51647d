// ONNX model → layer table + ASTRA-sim text, as `tensorscope-cli model table` and `model astra`
// do it: ResNet-50 from the zoo (no weights) loaded from a file, checked, shape-inferred, expanded
// into the training step. Run: build/default/tests/bench/bench_model --benchmark_repetitions=5
#include <benchmark/benchmark.h>
#include <onnx/onnx_pb.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
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

// The zoo's ResNet-50 with its weights stored as float initializers (zeros, 102 MB), as a model
// exported from PyTorch holds them.
std::string resnet50WithWeights() {
  onnx::ModelProto model;
  model.ParseFromString(*ts::model::zooModelBytes("resnet50"));
  onnx::GraphProto& graph = *model.mutable_graph();
  for (int i = 1; i < graph.input_size(); ++i) {  // input 0 is the image
    const onnx::ValueInfoProto& in = graph.input(i);
    onnx::TensorProto& init = *graph.add_initializer();
    init.set_name(in.name());
    init.set_data_type(in.type().tensor_type().elem_type());
    int64_t elements = 1;
    for (const auto& d : in.type().tensor_type().shape().dim()) {
      init.add_dims(d.dim_value());
      elements *= d.dim_value();
    }
    init.set_raw_data(std::string(static_cast<size_t>(elements) * 4, '\0'));
  }
  return model.SerializeAsString();
}

// One load in a fresh process, as a user's `model table` or the GUI's first open meets it: in a
// warm loop the in-process load reuses the heap its last run freed, the child never can.
double coldLoadSeconds(const std::string& path, const ts::model::LoadOptions& options) {
  int fds[2];
  if (::pipe(fds) != 0) return -1;
  pid_t pid = ::fork();
  if (pid == 0) {
    auto start = std::chrono::steady_clock::now();
    auto g = ts::model::loadOnnxModel(path, options);
    double s =
        g ? std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() : -1;
    (void)!::write(fds[1], &s, sizeof s);
    ::_exit(0);
  }
  ::close(fds[1]);
  double s = -1;
  if (::read(fds[0], &s, sizeof s) != sizeof s) s = -1;
  ::close(fds[0]);
  ::waitpid(pid, nullptr, 0);
  return s;
}

// Loading alone, with the ONNX library in its child process (isolate 1) and without (0), each
// load in a fresh process: the child's cost (fork, the answer without weight values).
void BM_ResNet50Load(benchmark::State& state) {
  namespace fs = std::filesystem;
  const bool weights = state.range(1) != 0;
  const std::string path =
      (fs::temp_directory_path() / ("bench-r50w-" + std::to_string(::getpid()) + ".onnx")).string();
  std::ofstream(path, std::ios::binary)
      << (weights ? resnet50WithWeights() : *ts::model::zooModelBytes("resnet50"));
  ts::model::LoadOptions options;
  options.isolate = state.range(0) != 0;
  for (auto _ : state) {
    double s = coldLoadSeconds(path, options);
    if (s < 0) state.SkipWithError("the load failed");
    state.SetIterationTime(std::max(s, 0.0));
  }
  fs::remove(path);
}
BENCHMARK(BM_ResNet50Load)
    ->ArgNames({"isolate", "weights"})
    ->ArgsProduct({{0, 1}, {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime();

}  // namespace

BENCHMARK_MAIN();
