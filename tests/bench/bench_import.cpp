// Import speed of PyTorch profiler (Kineto) JSON: generated sessions exported with our Chrome JSON
// writer (Kineto conventions, ~370 bytes per event), then opened as a user would (map the file,
// parse, build the session). Run: build/default/tests/bench/bench_import --benchmark_repetitions=5
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <map>

#include "io/open_session.h"
#include "session/session_summary.h"
#include "synth/synthetic_session.h"

namespace {

namespace fs = std::filesystem;

struct Input {
  std::string path;
  uint64_t bytes = 0;
  size_t events = 0;
};

const Input& input(int64_t events) {
  static std::map<int64_t, Input> cache;
  if (auto it = cache.find(events); it != cache.end()) return it->second;
  auto s = ts::generateSyntheticSession({static_cast<uint64_t>(events), 4, 4, 1});
  if (!s.ok()) std::abort();
  std::string path = (fs::temp_directory_path() / ("bench-import-" + std::to_string(::getpid()) +
                                                   "-" + std::to_string(events) + ".json"))
                         .string();
  if (!ts::writeSessionFile(**s, path).ok()) std::abort();
  return cache[events] = {path, fs::file_size(path), (*s)->eventCount()};
}

void BM_ImportKinetoJson(benchmark::State& state) {
  const Input& in = input(state.range(0));
  ts::MemoryUse memory;
  for (auto _ : state) {
    auto s = ts::openSessionFile(in.path);
    if (!s.ok()) {
      state.SkipWithError(s.error().c_str());
      break;
    }
    memory = ts::memoryUse(**s);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * in.bytes));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * in.events));
  state.counters["json_B/event"] = static_cast<double>(in.bytes) / static_cast<double>(in.events);
  state.counters["session_B/event"] =
      static_cast<double>(memory.hot + memory.laneIndex + memory.details) /
      static_cast<double>(in.events);
}

// Several rank files as one session: read one after another (threads 1) or each on a thread of
// its own (0: one per core). The ratio is the gain from the second core.
void BM_ImportRanks(benchmark::State& state) {
  const Input& in = input(250'000);
  const std::vector<std::string> paths(4, in.path);
  ts::OpenOptions options;
  options.threads = static_cast<unsigned>(state.range(0));
  for (auto _ : state) {
    auto s = ts::openSessionFiles(paths, options);
    if (!s.ok()) {
      state.SkipWithError(s.error().c_str());
      break;
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * in.bytes * paths.size()));
}

BENCHMARK(BM_ImportRanks)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK(BM_ImportKinetoJson)
    ->Arg(1'000'000)
    ->Arg(4'000'000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  for (int64_t n : {250'000, 1'000'000, 4'000'000}) {
    std::error_code ec;
    fs::remove(fs::temp_directory_path() / ("bench-import-" + std::to_string(::getpid()) + "-" +
                                            std::to_string(n) + ".json"),
               ec);
  }
  return 0;
}
