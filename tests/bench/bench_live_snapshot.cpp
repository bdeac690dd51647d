// The live view's cost during a long capture (issue 21, "long live captures"): a capture at
// 50 k events/s — kernels on two streams, each launched by a CUDA API call on one thread — fed to
// the launcher's record sink a second at a time, with the live view's snapshot after each second.
// Snapshots append what is new to a live session whose columns they share (session/live_session.h),
// so their time stays flat however long the capture runs; the targets are ≤ 50 ms per snapshot
// and ≤ 40 bytes per event held over a one-hour capture (BM_LiveCapture/3600: 180 M events).
#include <benchmark/benchmark.h>
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <string>

#include "capture/record_sink.h"
#include "io/open_session.h"
#include "live_stream.h"
#include "timeline/timeline_rows.h"

namespace {

using namespace ts::capture;
using namespace ts::capture::bench;

// Resident bytes of this process now.
int64_t residentBytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * ::sysconf(_SC_PAGESIZE);
}

// A capture of N seconds at 50 k events/s as the launcher sees it: each second's records fed to
// the sink, then the live view's snapshot (the previous one let go as the view takes the new).
// Reported: the snapshot's time over the last ten seconds (mean and longest) and over the whole
// run (longest), and the memory the capture holds per event (resident, the last snapshot's
// session included — it shares the sink's columns).
void BM_LiveCapture(benchmark::State& state) {
  const int64_t seconds = state.range(0);
  double lastMean = 0, lastMax = 0, worst = 0, bytesPerEvent = 0, events = 0;
  for (auto _ : state) {
    malloc_trim(0);
    const int64_t before = residentBytes();
    RecordSink sink;
    Stream stream(sink);
    ts::Provenance provenance;
    provenance.sources.push_back({"bench.tscope", "capture"});
    ts::SessionPtr shown;
    double sum = 0;
    lastMax = worst = 0;
    for (int64_t s = 0; s < seconds; ++s) {
      stream.play(kEventsPerSecond);
      const auto t0 = std::chrono::steady_clock::now();
      auto session = sink.snapshot(provenance, kHoldback);
      const double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      if (!session) {
        state.SkipWithError(session.error().c_str());
        return;
      }
      shown = *session;
      worst = std::max(worst, ms);
      if (s >= seconds - 10) sum += ms, lastMax = std::max(lastMax, ms);
    }
    lastMean = sum / static_cast<double>(std::min<int64_t>(10, seconds));
    malloc_trim(0);
    events = static_cast<double>(sink.events());
    bytesPerEvent = static_cast<double>(residentBytes() - before) / events;
    if (shown->eventCount() + 2 * kEventsPerSecond < sink.events())
      state.SkipWithError("the last snapshot lacks events");
  }
  state.counters["events"] = events;
  state.counters["snapshot_ms_last10"] = lastMean;
  state.counters["snapshot_ms_last10_max"] = lastMax;
  state.counters["snapshot_ms_max"] = worst;
  state.counters["B_per_event"] = bytesPerEvent;
}
BENCHMARK(BM_LiveCapture)->Arg(20)->Arg(80)->Arg(3600)->Unit(benchmark::kSecond)->Iterations(1);

// The live view's layout during the same capture (the GUI lays each snapshot out off its thread,
// views/jobs/capture_job.h): each snapshot's rows extend the last snapshot's (TimelineRows'
// second constructor), so their time follows what is new, not the capture's length. Reported:
// the layout's time over the last ten seconds (mean, longest), the longest over the run, the
// time the last snapshot takes laid out afresh (what every second cost before), and the bytes
// per event the capture and its layout hold together.
void BM_LiveLayout(benchmark::State& state) {
  const int64_t seconds = state.range(0);
  double lastMean = 0, lastMax = 0, worst = 0, freshMs = 0, bytesPerEvent = 0, events = 0;
  for (auto _ : state) {
    malloc_trim(0);
    const int64_t before = residentBytes();
    RecordSink sink;
    Stream stream(sink);
    ts::Provenance provenance;
    provenance.sources.push_back({"bench.tscope", "capture"});
    std::shared_ptr<const ts::TimelineRows> rows;
    double sum = 0;
    lastMax = worst = 0;
    for (int64_t s = 0; s < seconds; ++s) {
      stream.play(kEventsPerSecond);
      auto session = sink.snapshot(provenance, kHoldback);
      if (!session) {
        state.SkipWithError(session.error().c_str());
        return;
      }
      const auto t0 = std::chrono::steady_clock::now();
      rows = rows ? std::make_shared<const ts::TimelineRows>(*session, *rows)
                  : std::make_shared<const ts::TimelineRows>(*session);
      const double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      worst = std::max(worst, ms);
      if (s >= seconds - 10) sum += ms, lastMax = std::max(lastMax, ms);
      if (s >= 3 && rows->extended() == 0) {  // the first seconds are held back or new
        state.SkipWithError("a layout was made afresh, not extended");
        return;
      }
    }
    lastMean = sum / static_cast<double>(std::min<int64_t>(10, seconds));
    malloc_trim(0);
    events = static_cast<double>(sink.events());
    bytesPerEvent = static_cast<double>(residentBytes() - before) / events;
    const auto t0 = std::chrono::steady_clock::now();
    ts::TimelineRows fresh(rows->session().share());
    freshMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    benchmark::DoNotOptimize(fresh.size());
  }
  state.counters["events"] = events;
  state.counters["layout_ms_last10"] = lastMean;
  state.counters["layout_ms_last10_max"] = lastMax;
  state.counters["layout_ms_max"] = worst;
  state.counters["fresh_layout_ms"] = freshMs;
  state.counters["B_per_event"] = bytesPerEvent;
}
BENCHMARK(BM_LiveLayout)
    ->Arg(20)
    ->Arg(80)
    ->Arg(600)
    ->Arg(3600)
    ->Unit(benchmark::kSecond)
    ->Iterations(1);

// The periodic write of a capture's file (on a thread of its own: the live view does not wait
// for it), for N events held.
void BM_LiveSave(benchmark::State& state) {
  RecordSink sink;
  Stream(sink).play(state.range(0));
  ts::Provenance provenance;
  const std::string path = "/tmp/bench-live-" + std::to_string(::getpid()) + ".tscope";
  provenance.sources.push_back({path, "capture"});
  auto session = sink.snapshot(provenance, kHoldback);
  if (!session) {
    state.SkipWithError(session.error().c_str());
    return;
  }
  for (auto _ : state) {
    if (ts::Status st = ts::writeSessionFile(**session, path); !st)
      state.SkipWithError(st.error().c_str());
  }
  ::unlink(path.c_str());
  state.counters["events"] = static_cast<double>((*session)->eventCount());
}
BENCHMARK(BM_LiveSave)
    ->Arg(1'000'000)
    ->Arg(4'000'000)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
