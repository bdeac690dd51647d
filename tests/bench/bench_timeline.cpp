// Timeline frame time on the CPU raster path: TimelineCanvas::render into a 1920×1080 QImage, for
// generated sessions of 10 k and 10 M events (4 GPUs × 4 streams: ~40 rows), at full view and three
// deeper zoom levels; and hit-testing under the cursor. Run offscreen:
//   build/default/tests/bench/bench_timeline --benchmark_repetitions=5
#include <QApplication>
#include <QImage>
#include <QPainter>
#include <benchmark/benchmark.h>

#include <map>
#include <memory>

#include "synth/synthetic_session.h"
#include "timeline_canvas.h"

namespace {

ts::TimelineCanvas& canvas(int64_t events) {
  static std::map<int64_t, std::unique_ptr<ts::TimelineCanvas>> cache;
  auto& slot = cache[events];
  if (!slot) {
    auto s = ts::generateSyntheticSession({static_cast<uint64_t>(events), 4, 4, 1});
    if (!s.ok()) std::abort();
    slot = std::make_unique<ts::TimelineCanvas>(s.value());
    slot->resize(1920, 1080);
  }
  return *slot;
}

// Zoom level z: the full session, then 1/10, 1/100, 1/1000 of it around its middle.
void zoom(ts::TimelineCanvas& c, int z) {
  c.fitAll();
  for (int i = 0; i < z; ++i) {
    ts::TimeAxis a = c.axis();
    a.zoomAround(c.canvasWidth() / 2.0, 10.0);
    c.setAxis(a);
  }
}

void BM_RenderFrame(benchmark::State& state) {
  ts::TimelineCanvas& c = canvas(state.range(0));
  zoom(c, static_cast<int>(state.range(1)));
  QImage image(1920, 1080, QImage::Format_ARGB32_Premultiplied);
  for (auto _ : state) {
    QPainter p(&image);
    c.render(p, image.size());
  }
}

void BM_Pick(benchmark::State& state) {
  ts::TimelineCanvas& c = canvas(state.range(0));
  zoom(c, 0);
  int x = ts::TimelineCanvas::kGutter + 10, y = ts::TimelineCanvas::kRulerHeight + 60;
  for (auto _ : state) {
    benchmark::DoNotOptimize(c.hitAt(QPoint(x, y)));
    x = x >= 1900 ? ts::TimelineCanvas::kGutter + 10 : x + 37;
  }
}

// Building the row layout (filtered lanes, block summaries) when a session opens.
void BM_BuildRows(benchmark::State& state) {
  static ts::SessionPtr session;
  if (!session) session = ts::generateSyntheticSession({static_cast<uint64_t>(state.range(0)), 4, 4, 1}).value();
  for (auto _ : state) {
    ts::TimelineRows rows(session);
    benchmark::DoNotOptimize(rows.size());
  }
}

BENCHMARK(BM_BuildRows)->Arg(10'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RenderFrame)->ArgsProduct({{10'000, 10'000'000}, {0, 1, 2, 3}})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Pick)->Arg(10'000)->Arg(10'000'000)->Unit(benchmark::kMicrosecond);

}  // namespace

int main(int argc, char** argv) {
  qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
