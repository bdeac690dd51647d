// Timeline frame time on the CPU raster path: TimelineCanvas::render into a 1920×1080 QImage, for
// generated sessions of 10 k and 10 M events (4 GPUs × 4 streams: ~40 rows), at full view and three
// deeper zoom levels; and hit-testing under the cursor. Run offscreen:
//   build/default/tests/bench/bench_timeline --benchmark_repetitions=5
#include <benchmark/benchmark.h>

#include <QApplication>
#include <QImage>
#include <QPainter>
#include <map>
#include <memory>

#include "analysis/range_summary.h"
#include "memsim/engine/simulation.h"
#include "memsim/formats/g10_workload.h"
#include "memsim/reports/overlay.h"
#include "session/session_summary.h"
#include "synth/synthetic_session.h"
#include "timeline/diagnosis_rows.h"
#include "timeline/overview.h"
#include "views/session/events_table_model.h"
#include "views/timeline/timeline_canvas.h"

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

// The full view without and with the GPUs' utilisation lanes, interleaved in one run: what the
// lanes cost a frame (range(1): 0 off, 1 on).
void BM_RenderFrameUtilisation(benchmark::State& state) {
  ts::TimelineCanvas& c = canvas(state.range(0));
  zoom(c, 0);
  c.setUtilisationShown(state.range(1) != 0);
  QImage image(1920, 1080, QImage::Format_ARGB32_Premultiplied);
  for (auto _ : state) {
    QPainter p(&image);
    c.render(p, image.size());
  }
  c.setUtilisationShown(true);
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
  if (!session)
    session =
        ts::generateSyntheticSession({static_cast<uint64_t>(state.range(0)), 4, 4, 1}).value();
  for (auto _ : state) {
    ts::TimelineRows rows(session);
    benchmark::DoNotOptimize(rows.size());
  }
}

// Folding the whole session for the overview strip (at 1,600 columns): done when the strip's
// width or the rows change, so it must stay well under a frame's budget on a big session.
void BM_FoldOverview(benchmark::State& state) {
  ts::TimelineCanvas& c = canvas(state.range(0));
  ts::TimeAxis axis;
  axis.fit(c.session()->startTime(), c.session()->endTime(), 1600);
  for (auto _ : state) benchmark::DoNotOptimize(ts::foldOverview(c.rows(), axis, 1600));
}

// The GPUs' utilisation lanes of a frame alone (1,600 columns): folding each busy index.
void BM_FoldBusy(benchmark::State& state) {
  ts::TimelineCanvas& c = canvas(state.range(0));
  ts::TimeAxis axis;
  axis.fit(c.session()->startTime(), c.session()->endTime(), 1600);
  std::vector<float> out;
  for (auto _ : state) {
    for (const ts::TimelineRow& row : c.rows().rows()) {
      if (!row.busy) continue;
      ts::foldBusy(*row.busy, axis, 1600, out);
      benchmark::DoNotOptimize(out.data());
    }
  }
}

// A BERT-256 simulation (G10 at 24 GB: 1.6 k kernels, 6 k tensors with thousands of transfers)
// laid over a 1 M-event run: building the overlaid session and its rows (what the Simulation tab
// adds after the simulation itself), then frames with every tensor lane unfolded.
struct OverlayCase {
  ts::SessionPtr run;
  ts::memsim::SimWorkload workload;
  ts::memsim::SimResult result;
  ts::memsim::TierConfig tiers;
  ts::memsim::Overlay overlay;
};
OverlayCase* overlayCase() {
  static std::unique_ptr<OverlayCase> c;
  if (c) return c.get();
  auto g = ts::memsim::loadG10Workload(TSCOPE_SHARED_DATA "/g10/BERT-256");
  if (!g) return nullptr;
  c = std::make_unique<OverlayCase>();
  c->run = ts::generateSyntheticSession({1'000'000, 1, 4, 1}).value();
  c->workload = std::move(g->workload);
  c->tiers = *ts::memsim::tierPreset("g10-default");
  c->tiers.gpuBytes = 24'000'000'000;
  c->result = ts::memsim::runPolicies(c->workload, {ts::memsim::Policy::G10}, c->tiers)
                  .value()
                  .front()
                  .result;
  c->overlay = ts::memsim::buildOverlay(c->run, {}, c->workload, c->result, c->tiers).value();
  return c.get();
}

void BM_BuildOverlayBert(benchmark::State& state) {
  OverlayCase* c = overlayCase();
  if (!c) return state.SkipWithError("no BERT-256 workload in ../shared/data/g10");
  for (auto _ : state)
    benchmark::DoNotOptimize(
        ts::memsim::buildOverlay(c->run, {}, c->workload, c->result, c->tiers));
  state.counters["rows"] = static_cast<double>(c->overlay.rows->size());
  state.counters["migrations"] = static_cast<double>(c->result.migrations.size());
}

// Frames of a session with rows added (made once into `canvas`), every row unfolded, at the
// zoom level of range(0).
void renderUnfolded(benchmark::State& state, std::unique_ptr<ts::TimelineCanvas>& canvas,
                    const ts::SessionPtr& session, std::shared_ptr<const ts::TimelineRows> rows) {
  if (!canvas) {
    canvas = std::make_unique<ts::TimelineCanvas>(session, std::move(rows));
    canvas->resize(1920, 1080);
    for (size_t i = 0; i < canvas->rows().size(); ++i) canvas->setRowCollapsed(i, false);
  }
  zoom(*canvas, static_cast<int>(state.range(0)));
  QImage image(1920, 1080, QImage::Format_ARGB32_Premultiplied);
  for (auto _ : state) {
    QPainter p(&image);
    canvas->render(p, image.size());
  }
}

void BM_RenderOverlayFrame(benchmark::State& state) {
  OverlayCase* c = overlayCase();
  if (!c) return state.SkipWithError("no BERT-256 workload in ../shared/data/g10");
  static std::unique_ptr<ts::TimelineCanvas> canvas;
  renderUnfolded(state, canvas, c->overlay.session, c->overlay.rows);
}

// The diagnosis drawn on a 1 M-event run (4 GPUs × 4 streams, every operation launched by a call):
// what the Diagnosis tab's job does before the rows appear — the whole session diagnosed, then its
// steps, idle gaps and queue depth added to a copy of the session and laid out — and frames of
// the timeline with them, all rows unfolded.
struct DiagnosisCase {
  ts::SessionPtr run;
  ts::Diagnosis diagnosis;
  ts::DiagnosisRows drawn;
};
DiagnosisCase* diagnosisCase() {
  static std::unique_ptr<DiagnosisCase> c;
  if (c) return c.get();
  c = std::make_unique<DiagnosisCase>();
  c->run = ts::generateSyntheticSession({1'000'000, 4, 4, 1}).value();
  c->diagnosis = ts::diagnose(*c->run, {}).value();
  c->drawn =
      ts::buildDiagnosisRows(c->run, nullptr, c->diagnosis, ts::LaunchIndex(*c->run)).value();
  return c.get();
}

void BM_DiagnoseAndDrawRows(benchmark::State& state) {
  DiagnosisCase* c = diagnosisCase();
  for (auto _ : state) {
    auto d = ts::diagnose(*c->run, {});
    const ts::LaunchIndex launches(*c->run);
    benchmark::DoNotOptimize(ts::buildDiagnosisRows(c->run, nullptr, *d, launches));
  }
  state.counters["steps"] = static_cast<double>(c->drawn.steps);
  state.counters["gaps"] = static_cast<double>(c->drawn.gaps);
  state.counters["queue_rows"] = static_cast<double>(c->drawn.queues);
}

void BM_DrawRowsOnly(benchmark::State& state) {
  DiagnosisCase* c = diagnosisCase();
  const ts::LaunchIndex launches(*c->run);
  for (auto _ : state)
    benchmark::DoNotOptimize(ts::buildDiagnosisRows(c->run, nullptr, c->diagnosis, launches));
}

void BM_RenderDiagnosisFrame(benchmark::State& state) {
  DiagnosisCase* c = diagnosisCase();
  static std::unique_ptr<ts::TimelineCanvas> canvas;
  renderUnfolded(state, canvas, c->drawn.session, c->drawn.rows);
}

// What the GUI computes when a range is selected (the ruler's tag) and when a session tab opens
// (its overview): the whole session at worst, so they are measured against a frame's 16 ms.
void BM_SummarizeWholeRange(benchmark::State& state) {
  ts::TimelineCanvas& c = canvas(state.range(0));
  const ts::Session& s = *c.session();
  for (auto _ : state) benchmark::DoNotOptimize(ts::summarizeRange(s, s.startTime(), s.endTime()));
}

void BM_SummarizeSession(benchmark::State& state) {
  ts::TimelineCanvas& c = canvas(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(ts::summarize(*c.session()));
}

// A click on an event: what launched it and what it launched, found among the session's flows.
void BM_SelectEvent(benchmark::State& state) {
  ts::TimelineCanvas& c = canvas(state.range(0));
  const ts::Session& s = *c.session();
  uint32_t track = 0;
  while (track + 1 < s.tracks.size() && s.tracks[track].kind != ts::EventKind::Kernel) ++track;
  const uint32_t event = static_cast<uint32_t>(s.tracks[track].size() / 2);
  for (auto _ : state) c.select(track, event);
  state.counters["flows"] = static_cast<double>(s.flows.srcTrack.size());
  state.counters["linked"] = static_cast<double>(c.linked().size());
}

// The Events table asked for every event of a 1 M-event session (a ruler drag over all of it):
// arg 0, how long the GUI thread is held (collecting the rows, starting the sort); arg 1, until
// the sorted list is shown.
void BM_EventsTableList(benchmark::State& state) {
  ts::TimelineCanvas& c = canvas(1'000'000);
  const ts::Session& s = *c.session();
  ts::EventsTableModel model(c.session());
  for (auto _ : state) {
    model.setRange(s.startTime(), s.endTime() + 1);
    if (state.range(0) == 1) {
      while (model.busy()) QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 5);
    }
    state.PauseTiming();
    while (model.busy()) QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 5);
    state.ResumeTiming();
  }
  state.counters["rows"] = static_cast<double>(model.rowCount());
}

BENCHMARK(BM_EventsTableList)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BuildRows)->Arg(10'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FoldOverview)->Arg(10'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FoldBusy)->Arg(10'000)->Arg(10'000'000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_BuildOverlayBert)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RenderOverlayFrame)->Arg(0)->Arg(2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DiagnoseAndDrawRows)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DrawRowsOnly)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RenderDiagnosisFrame)->Arg(0)->Arg(2)->Unit(benchmark::kMillisecond);
// 27 M: the events of a 10 GB PyTorch trace (issue 21: at most twice the 10 M frame time).
BENCHMARK(BM_RenderFrame)
    ->ArgsProduct({{10'000, 10'000'000, 27'000'000}, {0, 1, 2, 3}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RenderFrameUtilisation)
    ->ArgsProduct({{10'000, 10'000'000}, {0, 1}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SummarizeWholeRange)->Arg(10'000)->Arg(10'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SummarizeSession)->Arg(10'000)->Arg(10'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SelectEvent)->Arg(10'000)->Arg(10'000'000)->Unit(benchmark::kMillisecond);
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
