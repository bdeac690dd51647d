// .tscope load and save speed, and bytes per event, on generated sessions of 10 k, 1 M and 10 M
// events (4 GPUs × 4 streams). Run: build/default/tests/bench/bench_tscope
//   --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <map>

#include "io/tscope_file.h"
#include "session/session_summary.h"
#include "synth/synthetic_session.h"

namespace {

namespace fs = std::filesystem;

// One generated session and its saved file per size, made once and shared by the benchmarks.
struct Fixture {
  ts::SessionPtr session;
  std::string path;
};

const Fixture& fixture(int64_t events) {
  static std::map<int64_t, Fixture> cache;
  auto it = cache.find(events);
  if (it != cache.end()) return it->second;
  auto s = ts::generateSyntheticSession({static_cast<uint64_t>(events), 4, 4, 1});
  if (!s.ok()) std::abort();
  std::string path = (fs::temp_directory_path() / ("bench-tscope-" + std::to_string(::getpid()) +
                                                   "-" + std::to_string(events) + ".tscope"))
                         .string();
  if (!ts::saveSession(**s, path).ok()) std::abort();
  return cache[events] = {s.value(), path};
}

void BM_LoadTscope(benchmark::State& state) {
  const Fixture& f = fixture(state.range(0));
  for (auto _ : state) {
    auto loaded = ts::loadSession(f.path, {}, static_cast<unsigned>(state.range(1)));
    if (!loaded.ok()) state.SkipWithError(loaded.error().c_str());
    benchmark::DoNotOptimize(loaded);
  }
  size_t events = f.session->eventCount();
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * events));
  ts::MemoryUse m = ts::memoryUse(*f.session);
  state.counters["hot_B/event"] =
      static_cast<double>(m.hot + m.laneIndex) / static_cast<double>(events);
  state.counters["detail_B/event"] = static_cast<double>(m.details) / static_cast<double>(events);
  state.counters["file_B/event"] =
      static_cast<double>(fs::file_size(f.path)) / static_cast<double>(events);
}

void BM_SaveTscope(benchmark::State& state) {
  const Fixture& f = fixture(state.range(0));
  std::string out = f.path + ".out";
  for (auto _ : state) {
    if (!ts::saveSession(*f.session, out).ok()) state.SkipWithError("save failed");
  }
  fs::remove(out);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * f.session->eventCount()));
}

// Second argument: decoding threads (1: the per-core figure; 0: all cores).
BENCHMARK(BM_LoadTscope)
    ->ArgsProduct({{10'000, 1'000'000, 10'000'000}, {1, 0}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_SaveTscope)->Arg(10'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  for (int64_t n : {10'000, 1'000'000, 10'000'000}) {
    std::error_code ec;
    fs::remove((fs::temp_directory_path() / ("bench-tscope-" + std::to_string(::getpid()) + "-" +
                                             std::to_string(n) + ".tscope")),
               ec);
  }
  return 0;
}
