// The live view's cost per snapshot (issue 21, "long live captures"): the launcher's record sink
// holding N events of a training loop — kernels on two streams, each launched by a CUDA API call
// on one thread — is turned into a session as the live view and the periodic saves do every
// second (every two in the CLI). Reported: the time of one snapshot (and of a snapshot with its
// periodic save, the launcher's whole periodic step), and the sink's bytes per event (its frames,
// before the snapshot's session). The snapshot rebuilds the whole session, so its time grows with
// every event recorded so far: the measurement the incremental publish has to bring down.
#include <benchmark/benchmark.h>
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "capture/record_sink.h"
#include "capture/wire_format.h"
#include "io/open_session.h"

namespace {

using namespace ts::capture;

// Resident bytes of this process now.
int64_t residentBytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * ::sysconf(_SC_PAGESIZE);
}

// A sink fed n events: half kernels (alternating between two streams and two names), half the
// cudaLaunchKernel calls that launched them.
void fill(RecordSink& sink, int64_t n) {
  const size_t c = sink.open();
  FrameWriter w;
  HelloFrame hello;
  hello.pid = 4242;
  w.begin(FrameType::Hello, hello).string("benchhost").string("bench").end();
  DeviceFrame device;
  device.smCount = 132;
  w.begin(FrameType::Device, device).string("Bench GPU").string("00").end();
  ContextFrame context;
  context.contextId = 1;
  w.begin(FrameType::Context, context).end();
  (void)sink.feed(c, w.take());
  int64_t t = 1'000'000'000;
  for (int64_t i = 0; i < n / 2; ++i, t += 20'000) {
    ApiFrame a;
    a.start = t, a.end = t + 4'000, a.processId = 4242, a.threadId = 4243;
    a.correlationId = static_cast<uint32_t>(i + 1), a.cbid = 211;
    w.begin(FrameType::Api, a).string("cudaLaunchKernel_v7000").end();
    KernelFrame k;
    k.start = t + 6'000, k.end = t + 16'000, k.contextId = 1;
    k.streamId = i % 2 ? 7 : 13, k.correlationId = a.correlationId;
    k.gridX = k.gridY = k.gridZ = 1, k.blockX = 256, k.blockY = k.blockZ = 1;
    w.begin(FrameType::Kernel, k).string(i % 2 ? "_Z4gemmv" : "_Z4reluv").end();
    if (w.bytes().size() > (1 << 20)) (void)sink.feed(c, w.take());
  }
  (void)sink.feed(c, w.take());
}

void BM_LiveSnapshot(benchmark::State& state) {
  const int64_t n = state.range(0);
  malloc_trim(0);
  const int64_t before = residentBytes();
  RecordSink sink;
  fill(sink, n);
  malloc_trim(0);
  const int64_t held = residentBytes() - before;
  ts::Provenance provenance;
  provenance.sources.push_back({"bench.tscope", "capture"});
  for (auto _ : state) {
    auto session = sink.snapshot(provenance);
    if (!session) state.SkipWithError(session.error().c_str());
    benchmark::DoNotOptimize(session);
  }
  state.counters["events"] = static_cast<double>(sink.events());
  state.counters["sink_B_per_event"] =
      static_cast<double>(held) / static_cast<double>(std::max<size_t>(1, sink.events()));
}
BENCHMARK(BM_LiveSnapshot)
    ->Arg(250'000)
    ->Arg(1'000'000)
    ->Arg(4'000'000)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);

// The launcher's whole periodic step: the snapshot, then the .tscope file written again.
void BM_LiveSnapshotAndSave(benchmark::State& state) {
  RecordSink sink;
  fill(sink, state.range(0));
  ts::Provenance provenance;
  const std::string path = "/tmp/bench-live-" + std::to_string(::getpid()) + ".tscope";
  provenance.sources.push_back({path, "capture"});
  for (auto _ : state) {
    auto session = sink.snapshot(provenance);
    if (!session) {
      state.SkipWithError(session.error().c_str());
      break;
    }
    if (ts::Status st = ts::writeSessionFile(**session, path); !st)
      state.SkipWithError(st.error().c_str());
  }
  ::unlink(path.c_str());
  state.counters["events"] = static_cast<double>(sink.events());
}
BENCHMARK(BM_LiveSnapshotAndSave)
    ->Arg(1'000'000)
    ->Arg(4'000'000)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
