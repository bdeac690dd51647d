// What the GUI thread does with each snapshot of a long live capture (issue 21: "the GUI
// responsive"). CaptureFlow::replaceView (app/gui/capture_flow.cpp) hands the tab's SessionView the
// snapshot and its rows — laid out off the GUI thread by the capture job, extending the last
// snapshot's layout — (SessionView::showSnapshot); Qt then lays out and paints the tab. That is
// timed here, on the stand-in program's stream at 50 k events/s (live_stream.h), at 1600 × 1000 on
// the offscreen platform. The rows are laid out untimed, as the job does it off the GUI thread.
// The second argument 0 times instead what it did before (until 2026-12-06): a new SessionView
// each time, swapped into the tab, the old one deleted.
#include <benchmark/benchmark.h>

#include <QApplication>
#include <QImage>
#include <QTabWidget>
#include <algorithm>
#include <chrono>

#include "capture/record_sink.h"
#include "live_stream.h"
#include "timeline/timeline_rows.h"
#include "views/session/session_view.h"

namespace {

using namespace ts::capture;
using namespace ts::capture::bench;

// A capture of N seconds; its view swapped at about sixty seconds spread over the run and at
// each of the last ten (a swap does not depend on the ones before it but the last: the capture
// job's layout extends every second's, which is what runs here every second). Reported: the swap's
// time over the last ten seconds (mean, longest), the longest of all, and the first.
void BM_LiveViewSwap(benchmark::State& state) {
  const int64_t seconds = state.range(0);
  const bool inPlace = state.range(1) != 0;
  const int64_t every = std::max<int64_t>(1, seconds / 60);
  double lastMean = 0, lastMax = 0, worst = 0, first = -1, events = 0;
  for (auto _ : state) {
    RecordSink sink;
    Stream stream(sink);
    ts::Provenance provenance;
    provenance.sources.push_back({"bench.tscope", "capture"});
    // Not shown: shown, the event loop would paint it too, and render() paint it again.
    QTabWidget tabs;
    tabs.resize(1600, 1000);
    // Painted into the same image each time, as a window paints into its backing store: grab()
    // would paint into a new 6 MB pixmap each time, whose first writes fault its pages in (about
    // 15 ms on this VM, a third of the swaps) — a cost the window does not have.
    QImage frame(tabs.size(), QImage::Format_ARGB32_Premultiplied);
    std::shared_ptr<const ts::TimelineRows> rows;
    ts::SessionView* view = nullptr;
    double sum = 0;
    lastMax = worst = 0;
    for (int64_t s = 0; s < seconds; ++s) {
      stream.play(kEventsPerSecond);
      auto session = sink.snapshot(provenance, kHoldback);
      if (!session) {
        state.SkipWithError(session.error().c_str());
        return;
      }
      rows = rows ? std::make_shared<const ts::TimelineRows>(*session, *rows)
                  : std::make_shared<const ts::TimelineRows>(*session);
      const bool last10 = s >= seconds - 10;
      if (!last10 && s % every != every - 1) continue;
      const auto t0 = std::chrono::steady_clock::now();
      if (view && inPlace) {
        view->showSnapshot(*session, rows, true, QStringLiteral("Capture (live)"));
      } else {
        auto* next = new ts::SessionView(*session, QStringLiteral("Capture (live)"), &tabs, rows);
        next->setLive(true);
        if (view) tabs.removeTab(0);
        tabs.insertTab(0, next, QStringLiteral("Capture (live)"));
        tabs.setCurrentIndex(0);
        if (view) view->deleteLater();
        view = next;
      }
      QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
      QCoreApplication::processEvents();
      tabs.render(&frame);  // laid out and painted once, the timeline included
      benchmark::DoNotOptimize(frame);
      const double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      if (first < 0) first = ms;
      worst = std::max(worst, ms);
      if (last10) sum += ms, lastMax = std::max(lastMax, ms);
    }
    lastMean = sum / static_cast<double>(std::min<int64_t>(10, seconds));
    events = static_cast<double>(sink.events());
    if (view->session()->eventCount() + 2 * kEventsPerSecond < sink.events())
      state.SkipWithError("the last view lacks events");
  }
  state.counters["events"] = events;
  state.counters["swap_ms_first"] = first;
  state.counters["swap_ms_last10"] = lastMean;
  state.counters["swap_ms_last10_max"] = lastMax;
  state.counters["swap_ms_max"] = worst;
}
BENCHMARK(BM_LiveViewSwap)
    ->ArgsProduct({{20, 600, 3600}, {1, 0}})
    ->Unit(benchmark::kSecond)
    ->Iterations(1);

}  // namespace

int main(int argc, char** argv) {
  qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  QCoreApplication::setOrganizationName(QStringLiteral("tensorscope-bench"));
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
