// The timeline canvas on the real widget, offscreen: keyboard and mouse navigation, selection and
// the details panel, and screenshots of the bundled sample (saved beside the test binary).
#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QHelpEvent>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QSplitter>
#include <QStandardPaths>
#include <QTableView>
#include <QTextBlock>
#include <QTextBrowser>
#include <QToolTip>
#include <QtTest>

#include "io/open_session.h"
#include "io/tscope_file.h"
#include "session/session_builder.h"
#include "session_fixture.h"
#include "synth/synthetic_session.h"
#include "util/format.h"
#include "views/session/event_details.h"
#include "views/session/events_table_model.h"
#include "views/session/session_view.h"
#include "views/timeline/overview_strip.h"
#include "views/timeline/timeline_canvas.h"

using ts::TimelineCanvas;

namespace {

// The first kernel of the session, by start.
std::pair<uint32_t, uint32_t> firstKernel(const ts::Session& s) {
  std::pair<uint32_t, uint32_t> best{ts::kNone, 0};
  for (uint32_t t = 0; t < s.tracks.size(); ++t) {
    if (s.tracks[t].kind == ts::EventKind::Kernel && s.tracks[t].size() &&
        (best.first == ts::kNone || s.tracks[t].hot.start[0] < s.tracks[best.first].hot.start[0])) {
      best = {t, 0};
    }
  }
  return best;
}

// Distinct colours in the canvas area of an image: a blank or broken render has very few.
int colours(const QImage& image) {
  QSet<QRgb> seen;
  for (int y = TimelineCanvas::kRulerHeight; y < image.height(); y += 2) {
    for (int x = TimelineCanvas::kGutter; x < image.width(); x += 2) seen.insert(image.pixel(x, y));
  }
  return static_cast<int>(seen.size());
}

bool nothingSelected(ts::SessionView& view) {
  return view.timeline()->selected().event == ts::kNone;
}

// Shows `w` at `size` and waits until it is on screen (false if it never is).
bool shown(QWidget& w, QSize size = {1200, 600}) {
  w.resize(size);
  w.show();
  return QTest::qWaitForWindowExposed(&w);
}

QCheckBox* findRegex(ts::SessionView& view) {
  return view.findChild<QCheckBox*>(QStringLiteral("findRegex"));
}

}  // namespace

class TestTimelineCanvas : public QObject {
  Q_OBJECT
 private slots:
  // A predicted kernel has no launch configuration and no correlation: nothing measured is
  // shown as if it were (no "Grid 0 × 0 × 0", no "Correlation id 0").
  void predictedKernelsShowNoLaunchConfiguration() {
    ts::SessionBuilder b;
    const uint32_t stream = b.stream(b.device(b.rank(0), 0), 1);
    b.addKernel(stream, 0, 1000, b.intern("predicted"), {});
    auto s = b.build();
    QVERIFY(s.ok());
    uint32_t track = 0;
    while ((*s)->tracks[track].kind != ts::EventKind::Kernel) ++track;
    const QString html = ts::eventDetailsHtml(**s, track, 0);
    QVERIFY2(html.contains(QStringLiteral("not recorded")), qPrintable(html));
    QVERIFY(!html.contains(QStringLiteral("0 × 0 × 0")));
    QVERIFY(!html.contains(QStringLiteral("Correlation id")));
  }

  // A simulated session's transfers say whether the plan moved them or a kernel's need did; a
  // measured copy says neither (its async flag is the program's, not a plan's).
  void simulatedTransfersSayPlannedOrOnDemand() {
    for (bool simulated : {true, false}) {
      ts::SessionBuilder b;
      const uint32_t stream = b.stream(b.device(b.rank(0), 0), 10);
      ts::MemcpyDetail d;
      d.bytes = 4096, d.copyKind = ts::CopyKind::HtoD;
      d.async = 1;
      b.addMemcpy(stream, 0, 1000, b.intern("tensor1"), d);
      d.async = 0;
      b.addMemcpy(stream, 2000, 3000, b.intern("tensor2"), d);
      if (simulated) b.provenance().simulation = ts::Provenance::Simulation{"toy", {"g10"}};
      auto s = b.build();
      QVERIFY(s.ok());
      uint32_t track = 0;
      while ((*s)->tracks[track].kind != ts::EventKind::Memcpy) ++track;
      const QString planned = ts::eventDetailsHtml(**s, track, 0);
      const QString demand = ts::eventDetailsHtml(**s, track, 1);
      QCOMPARE(planned.contains(QStringLiteral("<td>planned")), simulated);
      QCOMPARE(demand.contains(QStringLiteral("on demand")), simulated);
      QVERIFY2(!planned.contains(QStringLiteral("on demand")), qPrintable(planned));
      // The canvas's tooltip over each copy says the same.
      TimelineCanvas canvas(s.value());
      QVERIFY(shown(canvas));
      canvas.zoomTo(0, 3000);
      for (auto [time, word] : {std::pair(500, "planned"), std::pair(2500, "on demand")}) {
        const int x = canvas.gutter() + canvas.canvasWidth() * time / 3000;
        QPoint at;
        for (int y = TimelineCanvas::kRulerHeight; y < canvas.height() && at.isNull(); ++y)
          if (canvas.hitAt(QPoint(x, y)).track == track) at = QPoint(x, y);
        QVERIFY2(!at.isNull(), "no copy under the pointer");
        QHelpEvent help(QEvent::ToolTip, at, canvas.mapToGlobal(at));
        QApplication::sendEvent(&canvas, &help);
        QCOMPARE(QToolTip::text().contains(QString::fromUtf8(word)), simulated);
      }
    }
  }

  void initTestCase() {
    // Settings (the label column's width, row arrangements) go to a test location, not the user's.
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("TensorscopeTest"));
    QSettings().remove(QStringLiteral("view/labelColumnWidth"));
  }

  void labelColumnIsDraggedWiderAndRemembered() {
    auto s = ts::loadSession(TSCOPE_SAMPLE);
    TimelineCanvas canvas(s.value());
    QVERIFY(shown(canvas));
    QCOMPARE(canvas.gutter(), TimelineCanvas::kGutter);
    const int y = 200;
    QTest::mousePress(&canvas, Qt::LeftButton, {}, QPoint(canvas.gutter(), y));
    QTest::mouseMove(&canvas, QPoint(canvas.gutter() + 160, y));
    QTest::mouseRelease(&canvas, Qt::LeftButton, {}, QPoint(canvas.gutter() + 160, y));
    QCOMPARE(canvas.gutter(), TimelineCanvas::kGutter + 160);
    QCOMPARE(canvas.canvasWidth(), 1200 - TimelineCanvas::kGutter - 160);
    QCOMPARE(canvas.selected().event, ts::kNone);  // the drag selected nothing under it
    TimelineCanvas next(s.value());                // the next timeline opens with the width chosen
    QCOMPARE(next.gutter(), TimelineCanvas::kGutter + 160);
    // It never takes the events' place: at most the canvas less 200 px, at least 120 px.
    canvas.setGutter(5000);
    QCOMPARE(canvas.gutter(), 1000);
    canvas.setGutter(3);
    QCOMPARE(canvas.gutter(), ts::kTimelineMinGutter);
    QSettings().remove(QStringLiteral("view/labelColumnWidth"));
  }

  void panesStartUsableAndKeepTheirSizes() {
    QSettings().remove(QStringLiteral("view/timelineSplitter"));
    auto s = ts::loadSession(TSCOPE_SAMPLE);
    auto view = std::make_unique<ts::SessionView>(s.value(), QStringLiteral("sample.tscope"));
    view->resize(1400, 900);
    view->show();
    QVERIFY(QTest::qWaitForWindowExposed(view.get()));
    auto* split = view->findChild<QSplitter*>(QStringLiteral("timelineSplitter"));
    QVERIFY(split);
    QVERIFY(split->handleWidth() >= 6);
    const QList<int> sizes = split->sizes();
    QVERIFY2(sizes[1] * 100 >= (sizes[0] + sizes[1]) * 35,
             qPrintable(QStringLiteral("%1 / %2").arg(sizes[0]).arg(sizes[1])));
    // Dragged by its handle, the next session opens with the same split.
    QSplitterHandle* handle = split->handle(1);
    const QPoint mid(handle->width() / 2, handle->height() / 2);
    QTest::mousePress(handle, Qt::LeftButton, {}, mid);
    QTest::mouseMove(handle, mid + QPoint(0, -150));
    QTest::mouseRelease(handle, Qt::LeftButton, {}, mid + QPoint(0, -150));
    const QList<int> dragged = split->sizes();
    QVERIFY(dragged[1] > sizes[1] + 100);
    view.reset();
    ts::SessionView next(s.value(), QStringLiteral("sample.tscope"));
    next.resize(1400, 900);
    next.show();
    QVERIFY(QTest::qWaitForWindowExposed(&next));
    QCOMPARE(next.findChild<QSplitter*>(QStringLiteral("timelineSplitter"))->sizes(), dragged);
    QSettings().remove(QStringLiteral("view/timelineSplitter"));
  }

  void overviewStripShowsTheSessionAndMovesTheView() {
    QSettings().remove(QStringLiteral("view/overview"));
    auto s = ts::loadSession(TSCOPE_SAMPLE);
    ts::SessionView view(s.value(), QStringLiteral("sample.tscope"));
    QVERIFY(shown(view, {1400, 900}));
    ts::OverviewStrip* strip = view.overviewStrip();
    TimelineCanvas* canvas = view.timeline();
    QVERIFY(strip->isVisible());
    QCOMPARE(strip->mapTo(&view, QPoint(0, 0)).x(), canvas->mapTo(&view, QPoint(0, 0)).x());
    QCOMPARE(strip->width(), canvas->width());  // its columns are the canvas's columns
    const auto& lanes = strip->lanes();
    QVERIFY(lanes.size() >= 2);
    QCOMPARE(lanes.front().kind, ts::OverviewLane::Kind::Gpu);
    QCOMPARE(lanes.back().kind, ts::OverviewLane::Kind::Cpu);
    for (const ts::OverviewLane& lane : lanes) {
      QCOMPARE(static_cast<int>(lane.values.size()), canvas->canvasWidth());
      QVERIFY(*std::max_element(lane.values.begin(), lane.values.end()) > 0.0f);
    }
    // Shown all, the window frames the whole strip.
    canvas->fitAll();
    auto [from, to] = strip->windowSpan();
    QVERIFY(std::abs(from - canvas->gutter()) <= 1);
    QVERIFY(std::abs(to - strip->width()) <= 1);
    // Zoomed to a quarter, it frames a quarter.
    const ts::TimeNs t0 = s.value()->startTime(), span = s.value()->duration();
    canvas->zoomTo(t0 + span / 2, t0 + span * 3 / 4);
    std::tie(from, to) = strip->windowSpan();
    const int columns = canvas->canvasWidth();
    QVERIFY2(std::abs((to - from) - columns * 100 / 102 / 4) <= 3,
             qPrintable(QStringLiteral("%1..%2 of %3").arg(from).arg(to).arg(columns)));
    const ts::TimeAxis overview = strip->axis();
    auto viewSpan = [&] {
      return canvas->axis().end(canvas->canvasWidth()) - canvas->axis().start();
    };
    auto viewMiddle = [&] { return canvas->axis().start() + viewSpan() / 2; };
    const ts::TimeNs zoomed = viewSpan();
    const double slack = overview.nsPerPixel() * 2;
    const int y = strip->height() / 2;
    // A click left of the window centres the view there, at the same zoom.
    const int clickX = canvas->gutter() + columns / 4;  // the view fits around it: no clamping
    QTest::mouseClick(strip, Qt::LeftButton, {}, QPoint(clickX, y));
    QVERIFY(std::abs(viewMiddle() - overview.timeAt(clickX - canvas->gutter())) <= slack);
    QVERIFY(std::abs(viewSpan() - zoomed) <= zoomed / 100);
    // A click near the end keeps the whole view inside the session.
    QTest::mouseClick(strip, Qt::LeftButton, {}, QPoint(strip->width() - 3, y));
    QVERIFY(canvas->axis().end(canvas->canvasWidth()) <= overview.timeAt(columns) + slack);
    QVERIFY(std::abs(viewSpan() - zoomed) <= zoomed / 100);
    QTest::mouseClick(strip, Qt::LeftButton, {}, QPoint(clickX, y));
    // Dragging the window pans by what the drag covers on the strip; Back undoes the drag.
    std::tie(from, to) = strip->windowSpan();
    const ts::TimeNs before = canvas->axis().start();
    const QPoint grab((from + to) / 2, y);
    QTest::mousePress(strip, Qt::LeftButton, {}, grab);
    QTest::mouseMove(strip, grab + QPoint(60, 0));
    QTest::mouseMove(strip, grab + QPoint(120, 0));
    QTest::mouseRelease(strip, Qt::LeftButton, {}, grab + QPoint(120, 0));
    QVERIFY(std::abs(canvas->axis().start() - before - overview.nsPerPixel() * 120) <= slack);
    canvas->back();
    QCOMPARE(canvas->axis().start(), before);
    // Dragging its right edge widens the view, keeping its start.
    std::tie(from, to) = strip->windowSpan();
    const ts::TimeNs start = canvas->axis().start();
    QTest::mousePress(strip, Qt::LeftButton, {}, QPoint(to, y));
    QTest::mouseMove(strip, QPoint(to + 40, y));
    QTest::mouseMove(strip, QPoint(to + 80, y));
    QTest::mouseRelease(strip, Qt::LeftButton, {}, QPoint(to + 80, y));
    QCOMPARE(canvas->axis().start(), start);
    QVERIFY(std::abs(canvas->axis().end(canvas->canvasWidth()) -
                     overview.timeAt(to + 80 - canvas->gutter())) <= slack);
    // Dragging elsewhere zooms to what it covers.
    const int a = strip->width() - 300, b = strip->width() - 100;
    QTest::mousePress(strip, Qt::LeftButton, {}, QPoint(a, y));
    QTest::mouseMove(strip, QPoint(a + 100, y));
    QTest::mouseMove(strip, QPoint(b, y));
    QTest::mouseRelease(strip, Qt::LeftButton, {}, QPoint(b, y));
    QVERIFY(std::abs(canvas->axis().start() - overview.timeAt(a - canvas->gutter())) <= slack);
    QVERIFY(std::abs(viewSpan() - (overview.timeAt(b - canvas->gutter()) -
                                   overview.timeAt(a - canvas->gutter()))) <= slack);
    // Double-click: everything again.
    QTest::mouseDClick(strip, Qt::LeftButton, {}, QPoint(clickX, y));
    std::tie(from, to) = strip->windowSpan();
    QVERIFY(std::abs(from - canvas->gutter()) <= 1 && std::abs(to - strip->width()) <= 1);
    // With the window filling the strip, a drag inside it is a new stretch, not a pan.
    QTest::mousePress(strip, Qt::LeftButton, {}, QPoint(clickX + 100, y));
    QTest::mouseMove(strip, QPoint(clickX + 150, y));
    QTest::mouseMove(strip, QPoint(clickX + 300, y));
    QTest::mouseRelease(strip, Qt::LeftButton, {}, QPoint(clickX + 300, y));
    QVERIFY(std::abs(viewSpan() - (overview.timeAt(clickX + 300 - canvas->gutter()) -
                                   overview.timeAt(clickX + 100 - canvas->gutter()))) <= slack);
    // The tooltip names the time and each lane's value there.
    QHelpEvent help(QEvent::ToolTip, QPoint(clickX, y), strip->mapToGlobal(QPoint(clickX, y)));
    QCoreApplication::sendEvent(strip, &help);
    QVERIFY(QToolTip::text().contains(QStringLiteral("busy")));
    QVERIFY(QToolTip::text().contains(QStringLiteral("CPU:")));
    view.setOverviewStripShown(false);
    QVERIFY(!strip->isVisible());
  }

  void keyboardZoomAndPan() {
    auto s = ts::loadSession(TSCOPE_SAMPLE);
    QVERIFY(s.ok());
    TimelineCanvas canvas(s.value());
    QVERIFY(shown(canvas));
    const ts::TimeAxis full = canvas.axis();
    QTest::keyClick(&canvas, Qt::Key_W);
    QVERIFY(canvas.axis().nsPerPixel() < full.nsPerPixel());
    const double zoomed = canvas.axis().nsPerPixel();
    QTest::keyClick(&canvas, Qt::Key_D);
    QVERIFY(canvas.axis().start() > full.start());
    QCOMPARE(canvas.axis().nsPerPixel(), zoomed);  // panning keeps the zoom
    QTest::keyClick(&canvas, Qt::Key_S);
    QVERIFY(canvas.axis().nsPerPixel() > zoomed);
    QTest::keyClick(&canvas, Qt::Key_H);  // show all again
    QVERIFY(canvas.axis().start() <= s.value()->startTime());
    QVERIFY(canvas.axis().end(canvas.canvasWidth()) >= s.value()->endTime());
    canvas.back();  // the view before H
    QVERIFY(canvas.axis().start() > full.start());
    // Panning stops at the home view's ends: D held past the end shows no time after it (the
    // ruler read 45.5 s for a 43.43 s session), A past the start none before.
    QTest::keyClick(&canvas, Qt::Key_W);
    for (int i = 0; i < 40; ++i) QTest::keyClick(&canvas, Qt::Key_D);
    QVERIFY(canvas.axis().end(canvas.canvasWidth()) <= full.end(canvas.canvasWidth()) + 1);
    for (int i = 0; i < 40; ++i) QTest::keyClick(&canvas, Qt::Key_A);
    QVERIFY(canvas.axis().start() >= full.start() - 1);
  }

  void computeRowUnfoldsIntoKernelNames() {
    auto s = ts::loadSession(TSCOPE_SAMPLE);
    TimelineCanvas canvas(s.value());
    QVERIFY(shown(canvas));
    QCOMPARE(canvas.rows()[1].label, std::string("Compute"));
    QVERIFY(canvas.rowCollapsed(1));  // folded at first, like Nsight
    QVERIFY(canvas.rows()[2].kind == ts::TimelineRow::Kind::KernelName);
    QVERIFY(canvas.rows()[2].label.find(" % ") != std::string::npos);
    // Row 0 (the GPU) is 20 px high under the ruler; the Compute label is just below.
    QTest::mouseClick(&canvas, Qt::LeftButton, {},
                      QPoint(30, TimelineCanvas::kRulerHeight + TimelineCanvas::kGroupHeight + 8));
    QVERIFY(!canvas.rowCollapsed(1));
  }

  void rulerSelectionAndZoomToIt() {
    auto s = ts::loadSession(TSCOPE_SAMPLE);
    TimelineCanvas canvas(s.value());
    QVERIFY(shown(canvas));
    const int y = TimelineCanvas::kRulerHeight / 2;
    QTest::mousePress(&canvas, Qt::LeftButton, {}, QPoint(TimelineCanvas::kGutter + 100, y));
    QTest::mouseMove(&canvas, QPoint(TimelineCanvas::kGutter + 300, y));
    QTest::mouseRelease(&canvas, Qt::LeftButton, {}, QPoint(TimelineCanvas::kGutter + 300, y));
    auto sel = canvas.selection();
    QVERIFY(sel.has_value());
    const ts::TimeAxis before = canvas.axis();
    QCOMPARE(sel->first, before.timeAt(100));
    // The duration at once, the counts from a job (a whole 10 M-event session takes ~0.4 s).
    QTRY_VERIFY2(canvas.selectionSummary().contains(QStringLiteral("kernel")),
                 qPrintable(canvas.selectionSummary()));
    QTest::keyClick(&canvas, Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(canvas.axis().start(), sel->first);
    QVERIFY(canvas.axis().nsPerPixel() < before.nsPerPixel() / 4);  // 200 of 960 px
  }

  void rangeTagKeepsSmallBusySharesAndLabelsShortenNames() {
    auto s = ts::loadSession(TSCOPE_SAMPLE);
    TimelineCanvas canvas(s.value());
    QVERIFY(shown(canvas));
    // 30.2 s to the end: the GPU ran 0.1 % of it (tensorscope-cli stats agrees), not "0 %".
    const int y = TimelineCanvas::kRulerHeight / 2;
    const auto xOf = [&](double seconds) {
      return canvas.gutter() +
             static_cast<int>(canvas.axis().xOf(s.value()->startTime() +
                                                static_cast<ts::TimeNs>(seconds * 1e9)));
    };
    QTest::mousePress(&canvas, Qt::LeftButton, {}, QPoint(xOf(30.2), y));
    QTest::mouseMove(&canvas, QPoint(xOf(36), y));
    QTest::mouseMove(&canvas, QPoint(1199, y));
    QTest::mouseRelease(&canvas, Qt::LeftButton, {}, QPoint(1199, y));
    QTRY_VERIFY2(canvas.selectionSummary().contains(QStringLiteral("GPU 0 busy 0.1 %")),
                 qPrintable(canvas.selectionSummary()));
    // A kernel-name row shows the kernel's function name after its share (full in the tooltip).
    for (const ts::TimelineRow& row : canvas.rows().rows()) {
      if (row.kind != ts::TimelineRow::Kind::KernelName) continue;
      const std::string shown = ts::shownRowLabel(row, true);
      QVERIFY2(shown.size() < row.label.size() || row.label.find('(') == std::string::npos,
               shown.c_str());
      QVERIFY(shown.find(" % ") != std::string::npos);
      QCOMPARE(ts::shownRowLabel(row, false), row.label);
    }
  }

  void rulerDoubleClickZoomsAndRangeStaysInTheSession() {
    auto s = ts::loadSession(TSCOPE_SAMPLE);
    TimelineCanvas canvas(s.value());
    QVERIFY(shown(canvas));
    const int y = TimelineCanvas::kRulerHeight / 2, x0 = canvas.gutter();
    // Dragged past the session's end (the view has a 1 % margin each side): the range stops there.
    QTest::mousePress(&canvas, Qt::LeftButton, {}, QPoint(x0 + 600, y));
    QTest::mouseMove(&canvas, QPoint(1199, y));
    QTest::mouseRelease(&canvas, Qt::LeftButton, {}, QPoint(1199, y));
    QVERIFY(canvas.selection().has_value());
    QCOMPARE(canvas.selection()->second, s.value()->endTime());
    // A click inside the range keeps it, and a double-click there zooms to it (as the README says).
    const auto range = *canvas.selection();
    const int inside = x0 + static_cast<int>(canvas.axis().xOf((range.first + range.second) / 2));
    QSignalSpy cleared(&canvas, &TimelineCanvas::rangeCleared);
    QTest::mouseClick(&canvas, Qt::LeftButton, {}, QPoint(inside, y));
    QCOMPARE(cleared.count(), 0);
    QTest::mouseDClick(&canvas, Qt::LeftButton, {}, QPoint(inside, y));
    QVERIFY(canvas.selection().has_value());
    QCOMPARE(canvas.axis().start(), range.first);
    // A click outside it drops it.
    canvas.fitAll();
    QTest::mouseClick(&canvas, Qt::LeftButton, {}, QPoint(x0 + 5, y));
    QVERIFY(!canvas.selection().has_value());
    QCOMPARE(cleared.count(), 1);
  }

  void clickSelectsAndDetailsShowEveryField() {
    auto s = ts::loadSession(TSCOPE_SAMPLE);
    QVERIFY(s.ok());
    ts::SessionView view(s.value(), QStringLiteral("sample.tscope"));
    view.resize(1400, 900);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    TimelineCanvas* canvas = view.timeline();
    // Zoom onto the first kernel so it is wide, then click it on the Compute row.
    auto [track, event] = firstKernel(*s.value());
    const ts::Track& t = s.value()->tracks[track];
    ts::TimeNs start = t.hot.start[event], end = t.hot.end[event];
    canvas->zoomTo(start - (end - start) * 2, end + (end - start) * 2);
    QPoint at;
    for (int y = TimelineCanvas::kRulerHeight; y < canvas->height() && at.isNull(); ++y) {
      QPoint p(TimelineCanvas::kGutter + canvas->canvasWidth() / 2, y);
      if (canvas->hitAt(p).event != ts::kNone) at = p;
    }
    QVERIFY2(!at.isNull(), "no event under the middle of the canvas");
    // Hovering shows name, start, duration and stream.
    QHelpEvent help(QEvent::ToolTip, at, canvas->mapToGlobal(at));
    QApplication::sendEvent(canvas, &help);
    QVERIFY(
        QToolTip::text().contains(QStringLiteral("distribution_elementwise_grid_stride_kernel")));
    QVERIFY(QToolTip::text().contains(QStringLiteral("duration 71 µs")));
    QVERIFY(QToolTip::text().contains(QStringLiteral("Stream 7")));
    QTest::mouseClick(canvas, Qt::LeftButton, {}, at);
    QCOMPARE(canvas->selected().track, track);
    QCOMPARE(canvas->selected().event, event);
    // The API call that launched it is tied to it (drawn as a flow arrow).
    QCOMPARE(canvas->linked().size(), size_t{1});
    const ts::Track& api = s.value()->tracks[canvas->linked()[0].first];
    QVERIFY(api.kind == ts::EventKind::Api);
    QCOMPARE(std::string(s.value()->str(api.hot.name[canvas->linked()[0].second])),
             std::string("cudaLaunchKernel"));
    const QString details = view.details()->toPlainText();
    for (const char* field : {"Grid", "Block", "Registers per thread", "Shared memory",
                              "Theoretical occupancy", "Correlation id", "Stream", "Launched by"}) {
      QVERIFY2(details.contains(QString::fromLatin1(field)), field);
    }
    // The PyTorch op the launch ran in (the sample recorded no shapes: no inputs row).
    QVERIFY2(details.contains(QStringLiteral("PyTorch op")), qPrintable(details));
    QVERIFY(details.contains(QStringLiteral("aten::")));
    QVERIFY(!details.contains(QStringLiteral("Op inputs")));
    QVERIFY(details.contains(QStringLiteral("864 × 1 × 1")));
    QVERIFY(details.contains(QStringLiteral("62.5 %")));
    // What the profiler itself reported for the kernel (Kineto's args), beside our estimate.
    for (const char* reported : {"External id\\s+218", "63 % \\(as the trace states\\)",
                                 "Per SM \\(as the trace states\\)\\s+8 blocks, 64 warps"}) {
      QVERIFY2(details.contains(QRegularExpression(QString::fromUtf8(reported))), reported);
    }
    // "Launched by" is a link: clicked, the launching call is selected and its details shown.
    const auto launcher = canvas->linked()[0];
    int linkAt = -1;
    for (QTextBlock b = view.details()->document()->begin(); b.isValid() && linkAt < 0;
         b = b.next()) {
      for (auto it = b.begin(); !it.atEnd() && linkAt < 0; ++it) {
        if (it.fragment().charFormat().anchorHref().startsWith(QStringLiteral("event:")))
          linkAt = it.fragment().position() + 1;
      }
    }
    QVERIFY(linkAt >= 0);
    QTextCursor link(view.details()->document());
    link.setPosition(linkAt);
    QTest::mouseClick(view.details()->viewport(), Qt::LeftButton, {},
                      view.details()->cursorRect(link).center());
    QCOMPARE(canvas->selected().track, launcher.first);
    QCOMPARE(canvas->selected().event, launcher.second);
    QVERIFY(view.details()->toPlainText().startsWith(QStringLiteral("cudaLaunchKernel")));
    QImage shot = view.grab().toImage();
    shot.save(QStringLiteral("timeline-sample-zoomed.png"));
    QVERIFY(colours(shot) > 20);
  }

  void findNextSelectsAndCentresMatches() {
    auto s = ts::loadSession(TSCOPE_SAMPLE);
    ts::SessionView view(s.value(), QStringLiteral("sample.tscope"));
    view.resize(1400, 900);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.showFind();
    auto* edit = view.findChild<QLineEdit*>(QStringLiteral("findEdit"));
    QVERIFY(edit);
    QTest::keyClicks(edit, QStringLiteral("launchkernel"));  // any case
    // The count shows while typing, before Enter.
    QTRY_COMPARE(view.findStatus(), QStringLiteral("79 matches"));
    QVERIFY(nothingSelected(view));
    QTest::keyClick(edit, Qt::Key_Return);
    // The search runs off the GUI thread; the jump follows when it is done.
    QTRY_VERIFY2(view.findStatus().contains(QStringLiteral(" of ")), qPrintable(view.findStatus()));
    TimelineCanvas* canvas = view.timeline();
    auto name = [&] {
      const ts::Track& t = s.value()->tracks[canvas->selected().track];
      return std::string(s.value()->str(t.hot.name[canvas->selected().event]));
    };
    QCOMPARE(name(), std::string("cudaLaunchKernel"));
    const ts::Track& t = s.value()->tracks[canvas->selected().track];
    ts::TimeNs first = t.hot.start[canvas->selected().event];
    // The match is in view.
    QVERIFY(canvas->axis().start() <= first && first < canvas->axis().end(canvas->canvasWidth()));
    view.findNext(false);
    ts::TimeNs second =
        s.value()->tracks[canvas->selected().track].hot.start[canvas->selected().event];
    QVERIFY(second != first);
    view.findNext(true);
    QCOMPARE(s.value()->tracks[canvas->selected().track].hot.start[canvas->selected().event],
             first);
    edit->setText(QStringLiteral("(("));
    findRegex(view)->setChecked(true);
    view.findNext(false);
    QTRY_VERIFY(view.findStatus().contains(QStringLiteral("invalid regular expression")));
    // Esc in the find field closes the bar.
    QVERIFY(edit->isVisible());
    edit->setFocus();
    QTest::keyClick(edit, Qt::Key_Escape);
    QTRY_VERIFY(!edit->isVisible());
  }

  void eventsTableListsSortsFiltersAndCentres() {
    auto s = ts::loadSession(TSCOPE_SAMPLE);
    const ts::Session& session = *s.value();
    ts::SessionView view(s.value(), QStringLiteral("sample.tscope"));
    view.resize(1400, 900);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.showEvents(session.startTime(), session.endTime() + 1);
    ts::EventsTableModel* model = view.eventsModel();
    QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model->rowCount(), 867);  // every event of the sample, once
    model->sort(ts::EventsTableModel::Duration, Qt::DescendingOrder);
    ts::TimeNs longest = 0;
    for (const ts::Track& t : session.tracks) {
      for (uint32_t i = 0; i < t.size(); ++i)
        longest = std::max(longest, t.hot.end[i] - t.hot.start[i]);
    }
    const auto& top = model->ref(0);
    QCOMPARE(session.tracks[top.track].hot.end[top.event] -
                 session.tracks[top.track].hot.start[top.event],
             longest);
    view.findChild<QLineEdit*>(QStringLiteral("eventsFilter"))
        ->setText(QStringLiteral("cudalaunchkernel"));
    int launches = 0;
    for (const ts::Track& t : session.tracks) {
      for (uint32_t i = 0; i < t.size(); ++i)
        launches += session.str(t.hot.name[i]) == "cudaLaunchKernel";
    }
    QCOMPARE(model->rowCount(), launches);
    // The count line says what is listed: the matches, in the part of the range in the session.
    const QString status = view.findChild<QLabel*>(QStringLiteral("eventsStatus"))->text();
    QVERIFY2(
        status.startsWith(QStringLiteral("79 events matching “cudalaunchkernel” of all rows in "
                                         "the selection (43.43 s)")),
        qPrintable(status));
    // Every start fits its column (they read "43.237233…" when the column was sized for "ms").
    const QFontMetrics fm(view.eventsTable()->font());
    for (int r = 0; r < model->rowCount(); ++r) {
      const QString start = model->index(r, ts::EventsTableModel::Start).data().toString();
      QVERIFY2(fm.horizontalAdvance(start) + 8 <=
                   view.eventsTable()->columnWidth(ts::EventsTableModel::Start),
               qPrintable(start));
    }
    QString csv = model->toCsv({0});
    QVERIFY(
        csv.startsWith(QStringLiteral("Name,Start,Duration,Kind,Stream / thread,Correlation\r\n")));
    QVERIFY(csv.contains(QStringLiteral("cudaLaunchKernel,")));
    // Clicking a row selects and centres its event.
    QTableView* table = view.eventsTable();
    QRect cell = table->visualRect(model->index(3, 0));
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, cell.center());
    QCOMPARE(view.timeline()->selected().track, model->ref(3).track);
    QCOMPARE(view.timeline()->selected().event, model->ref(3).event);
    // ... and the list stays, to step through it (its details wait in their tab).
    QCOMPARE(view.bottomTabs()->currentWidget()->objectName(), QStringLiteral("eventsPane"));
    QVERIFY(view.details()->toPlainText().startsWith(QStringLiteral("cudaLaunchKernel")));
    // Its start reads the same in the list and in Details (the digits its duration needs).
    const QString start = model->index(3, ts::EventsTableModel::Start).data().toString();
    QVERIFY2(view.details()->toPlainText().contains(start + QStringLiteral(" after session start")),
             qPrintable(start));
  }

  // A list longer than kRowsOffThread is filtered and sorted on a thread of its own: the call
  // returns with the table empty and busy (the window keeps answering), the status says what is
  // coming, and the list that arrives is the last one asked for, complete and in order.
  void eventsTableSortsLongListsOffTheGuiThread() {
    ts::SyntheticSpec spec;
    spec.events = 200'000;
    spec.gpus = 2;
    auto s = ts::generateSyntheticSession(spec);
    QVERIFY(s.ok());
    const ts::Session& session = *s.value();
    ts::SessionView view(s.value(), QStringLiteral("big.tscope"));
    view.resize(1400, 900);
    ts::EventsTableModel* model = view.eventsModel();
    QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy busy(model, &ts::EventsTableModel::busyChanged);
    auto status = [&] { return view.findChild<QLabel*>(QStringLiteral("eventsStatus"))->text(); };
    auto waitUntilListed = [&] {
      QTRY_VERIFY_WITH_TIMEOUT(!model->busy(), 30000);
      QCoreApplication::processEvents();
    };
    view.showEvents(session.startTime(), session.endTime() + 1);
    QVERIFY(model->busy());
    QCOMPARE(model->rowCount(), 0);
    QVERIFY2(status().startsWith(QStringLiteral("Sorting ") +
                                 QString::fromStdString(ts::formatCount(session.eventCount())) +
                                 QStringLiteral(" events of all rows")),
             qPrintable(status()));
    waitUntilListed();
    QCOMPARE(busy.count(), 2);  // busy, then listed
    QCOMPARE(static_cast<size_t>(model->rowCount()), session.eventCount());
    QVERIFY2(status().startsWith(QString::fromStdString(ts::formatCount(session.eventCount())) +
                                 QStringLiteral(" events of all rows")),
             qPrintable(status()));
    // Every event once, by start.
    std::vector<std::vector<uint8_t>> seen(session.tracks.size());
    for (size_t t = 0; t < session.tracks.size(); ++t) seen[t].assign(session.tracks[t].size(), 0);
    auto start = [&](int row) {
      const auto& r = model->ref(row);
      return session.tracks[r.track].hot.start[r.event];
    };
    for (int row = 0; row < model->rowCount(); ++row) {
      const auto& r = model->ref(row);
      QVERIFY(!seen[r.track][r.event]);
      seen[r.track][r.event] = 1;
      if (row) QVERIFY(start(row - 1) <= start(row));
    }
    // Two orders asked for in a row: the first is cancelled, the second arrives.
    model->sort(ts::EventsTableModel::Duration, Qt::DescendingOrder);
    model->sort(ts::EventsTableModel::Name, Qt::AscendingOrder);
    QVERIFY(model->busy());
    waitUntilListed();
    auto name = [&](int row) {
      const auto& r = model->ref(row);
      return session.str(session.tracks[r.track].hot.name[r.event]);
    };
    QCOMPARE(static_cast<size_t>(model->rowCount()), session.eventCount());
    for (int row = 1; row < model->rowCount(); ++row) QVERIFY(name(row - 1) <= name(row));
    // A filter: the matches only, counted independently, still by name.
    view.findChild<QLineEdit*>(QStringLiteral("eventsFilter"))->setText(QStringLiteral("MEMCPY"));
    QVERIFY(model->busy());
    QVERIFY2(status().startsWith(QStringLiteral("Matching “MEMCPY” among ")), qPrintable(status()));
    waitUntilListed();
    size_t memcpys = 0;
    for (const ts::Track& t : session.tracks) {
      for (uint32_t i = 0; i < t.size(); ++i) {
        const QString n = QString::fromStdString(std::string(session.str(t.hot.name[i])));
        memcpys += n.contains(QStringLiteral("memcpy"), Qt::CaseInsensitive);
      }
    }
    QVERIFY(memcpys > 0);
    QCOMPARE(static_cast<size_t>(model->rowCount()), memcpys);
    QVERIFY(status().startsWith(QString::fromStdString(ts::formatCount(memcpys)) +
                                QStringLiteral(" events matching")));
    // Closed while a list is being made: the worker is cancelled and waited for.
    model->sort(ts::EventsTableModel::Correlation, Qt::AscendingOrder);
    QVERIFY(model->busy());
  }

  // The ordering itself: descending keeps ties in list order, a cancelled request says so.
  void eventsOrderKeepsTiesAndStopsWhenCancelled() {
    auto s = ts::loadSession(TSCOPE_SAMPLE);
    const ts::Session& session = *s.value();
    std::vector<ts::ListedEvent> all;
    for (uint32_t t = 0; t < session.tracks.size(); ++t)
      for (uint32_t e = 0; e < session.tracks[t].size(); ++e) all.push_back({t, e});
    std::atomic<bool> cancel{false};
    std::vector<ts::ListedEvent> out;
    QVERIFY(ts::filterAndOrderEvents(session, all, {}, ts::EventsColumn::Kind, true, cancel, out));
    QCOMPARE(out.size(), all.size());
    auto position = [&](const ts::ListedEvent& r) {
      return std::find_if(all.begin(), all.end(),
                          [&](const ts::ListedEvent& x) {
                            return x.track == r.track && x.event == r.event;
                          }) -
             all.begin();
    };
    for (size_t i = 1; i < out.size(); ++i) {
      const auto ka = session.tracks[out[i - 1].track].kind, kb = session.tracks[out[i].track].kind;
      QVERIFY(ka >= kb);
      if (ka == kb) QVERIFY(position(out[i - 1]) < position(out[i]));
    }
    cancel = true;
    QVERIFY(
        !ts::filterAndOrderEvents(session, all, {}, ts::EventsColumn::Start, false, cancel, out));
  }

  void rowsHideMoveAndComeBackAfterReopening() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("TensorscopeTest"));
    QSettings().remove(QStringLiteral("timeline"));
    auto s = ts::loadSession(TSCOPE_SAMPLE);
    const QString key = QStringLiteral("/test/sample.tscope");
    auto rowIndex = [&](const TimelineCanvas& c, const std::string& label) {
      for (size_t i = 0; i < c.rows().size(); ++i) {
        if (c.rows()[i].label == label) return i;
      }
      return static_cast<size_t>(-1);
    };
    auto position = [](const TimelineCanvas& c, size_t row) {
      return std::find(c.rowOrder().begin(), c.rowOrder().end(), row) - c.rowOrder().begin();
    };
    {
      TimelineCanvas canvas(s.value());
      canvas.setPersistenceKey(key);
      size_t stream20 = rowIndex(canvas, "Stream 20"), stream7 = rowIndex(canvas, "Stream 7");
      QVERIFY(position(canvas, stream20) > position(canvas, stream7));
      canvas.moveRow(stream20, -1);  // above Stream 7
      QVERIFY(position(canvas, stream20) < position(canvas, stream7));
      size_t memset = rowIndex(canvas, "Memset");
      canvas.setRowHidden(memset, true);
      QVERIFY(canvas.rowHidden(memset));
      // A moved group takes its rows with it: the python process moves above the others.
      size_t python = rowIndex(canvas, "python3.10 (2869224)");
      size_t api = rowIndex(canvas, "CUDA API");
      for (int i = 0; i < 5; ++i) canvas.moveRow(python, -1);
      QVERIFY(position(canvas, api) > position(canvas, python));
      QVERIFY(position(canvas, api) - position(canvas, python) <= 3);
    }
    TimelineCanvas reopened(s.value());
    reopened.setPersistenceKey(key);  // same file: the arrangement comes back
    QVERIFY(reopened.rowHidden(rowIndex(reopened, "Memset")));
    QVERIFY(position(reopened, rowIndex(reopened, "Stream 20")) <
            position(reopened, rowIndex(reopened, "Stream 7")));
    reopened.showAllRows();
    QVERIFY(!reopened.rowHidden(rowIndex(reopened, "Memset")));
    TimelineCanvas other(s.value());
    other.setPersistenceKey(QStringLiteral("/another/file.tscope"));  // another file: untouched
    QVERIFY(!other.rowHidden(rowIndex(other, "Memset")));
  }

  // A live capture's next snapshot (the same tracks at the same indices, more events): rows the
  // user moved stay where they were put and the selection keeps its links; a session whose
  // selected event is another drops both.
  void aNewerSnapshotKeepsMovedRowsAndTheSelectionsLinks() {
    std::vector<ts::testing::LayerRange> ranges;
    for (int i = 0; i < 40; ++i)
      ranges.push_back({"l" + std::to_string(i), i * 10'000, i * 10'000 + 9'000, 5'000});
    const ts::SessionPtr first =
        ts::testing::makeLayerRun({ranges.begin(), ranges.begin() + 20}, 2);
    const ts::SessionPtr newer = ts::testing::makeLayerRun(ranges, 2);
    TimelineCanvas canvas(first);
    size_t second = canvas.rows().size();  // the second GPU's group
    for (size_t i = 0; i < canvas.rows().size() && second == canvas.rows().size(); ++i)
      if (canvas.rows()[i].label.starts_with("GPU 1")) second = i;
    QVERIFY(second < canvas.rows().size());
    canvas.moveRow(second, -1);
    const std::vector<size_t> order = canvas.rowOrder();
    QVERIFY(!std::is_sorted(order.begin(), order.end()));
    const auto [kernels, event] = firstKernel(*first);
    canvas.select(kernels, event + 7);
    const auto linked = canvas.linked();
    QCOMPARE(linked.size(), size_t{1});  // the launch

    canvas.setRows(newer, nullptr);
    QCOMPARE(canvas.rows().size(), order.size());
    QCOMPARE(canvas.rowOrder(), order);
    QCOMPARE(canvas.selected().track, kernels);
    QCOMPARE(canvas.selected().event, event + 7);
    QVERIFY(canvas.linked() == linked);

    for (auto& r : ranges) r.start += 1'000, r.end += 1'000;  // every event elsewhere
    canvas.setRows(ts::testing::makeLayerRun(ranges, 2), nullptr);
    QCOMPARE(canvas.rowOrder(), order);
    QCOMPARE(canvas.selected().track, ts::kNone);
    QVERIFY(canvas.linked().empty());
  }

  void darkPaletteIsFollowed() {
    auto s = ts::loadSession(TSCOPE_SAMPLE);
    TimelineCanvas canvas(s.value());
    QPalette dark;
    dark.setColor(QPalette::Window, QColor(0x2b, 0x2b, 0x2b));
    dark.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
    dark.setColor(QPalette::AlternateBase, QColor(0x33, 0x33, 0x33));
    dark.setColor(QPalette::Text, QColor(0xe0, 0xe0, 0xe0));
    dark.setColor(QPalette::WindowText, QColor(0xe0, 0xe0, 0xe0));
    dark.setColor(QPalette::Mid, QColor(0x55, 0x55, 0x55));
    canvas.setPalette(dark);
    canvas.resize(1400, 700);
    canvas.show();
    QVERIFY(QTest::qWaitForWindowExposed(&canvas));
    QImage image = canvas.grab().toImage();
    image.save(QStringLiteral("timeline-sample-dark.png"));
    // The canvas takes its background and text from the palette: mostly dark, with light labels.
    int darkPixels = 0, lightPixels = 0;
    for (int y = 0; y < image.height(); y += 3) {
      for (int x = 0; x < TimelineCanvas::kGutter; x += 3) {
        int l = qGray(image.pixel(x, y));
        darkPixels += l < 80;
        lightPixels += l > 180;
      }
    }
    QVERIFY(darkPixels > 10 * lightPixels);
    QVERIFY(lightPixels > 20);
  }

  void screenshotsOfTheSampleAndABigSession() {
    auto s = ts::loadSession(TSCOPE_SAMPLE);
    TimelineCanvas canvas(s.value());
    canvas.resize(1600, 900);
    canvas.show();
    QVERIFY(QTest::qWaitForWindowExposed(&canvas));
    QImage full = canvas.grab().toImage();
    full.save(QStringLiteral("timeline-sample-full.png"));
    QVERIFY(colours(full) > 10);
    // Expected rows are present: the Compute row of GPU 0 and the CUDA API row.
    QStringList labels;
    for (const ts::TimelineRow& r : canvas.rows().rows()) labels << QString::fromStdString(r.label);
    QVERIFY(labels.contains(QStringLiteral("Compute")));
    QVERIFY(labels.contains(QStringLiteral("CUDA API")));

    auto big = ts::generateSyntheticSession({10'000'000, 4, 4, 1});
    QVERIFY(big.ok());
    TimelineCanvas bigCanvas(big.value());
    bigCanvas.resize(1920, 1080);
    bigCanvas.show();
    QVERIFY(QTest::qWaitForWindowExposed(&bigCanvas));
    QImage image = bigCanvas.grab().toImage();
    image.save(QStringLiteral("timeline-10M.png"));
    QVERIFY(colours(image) > 10);
  }
};

QTEST_MAIN(TestTimelineCanvas)
#include "test_timeline_canvas.moc"
