// Two sessions compared in the window: the compare tab's timelines follow each other (each from
// its own session's start) and its tables hold the kernel and copy comparison; a screenshot is
// saved beside the test binary.
#include <QSignalSpy>
#include <QTabWidget>
#include <QtTest>

#include "compare_view.h"
#include "main_window.h"
#include "stats_table_model.h"
#include "table_panel.h"
#include "timeline_canvas.h"

using namespace ts;

class TestCompareView : public QObject {
  Q_OBJECT
 private slots:
  void twoSessionsSideBySide() {
    MainWindow window;
    window.resize(1400, 1000);
    window.show();
    QSignalSpy opened(&window, &MainWindow::sessionOpened);
    window.openFiles({QStringLiteral(TSCOPE_SAMPLE),
                      QStringLiteral(TSCOPE_SHARED_DATA "/kineto/hta-trace_filter--sampled_rank-0.json.gz")});
    while (opened.count() < 2) QVERIFY(opened.wait(20000));
    QVERIFY(!window.compareSessions(0, 0));  // a session with itself is no comparison
    QVERIFY(window.compareSessions(0, 1));
    auto* view = qobject_cast<CompareView*>(window.tabs()->currentWidget());
    QVERIFY(view);
    // Zooming A moves B to the same stretch from its own start.
    TimelineCanvas* a = view->timelineA();
    TimelineCanvas* b = view->timelineB();
    a->zoomTo(a->session()->startTime() + 1'000'000, a->session()->startTime() + 3'000'000);
    QCOMPARE(b->axis().start() - b->session()->startTime(), a->axis().start() - a->session()->startTime());
    QCOMPARE(b->axis().nsPerPixel(), a->axis().nsPerPixel());
    b->setAxis(TimeAxis(b->session()->startTime() + 5'000'000, 1000.0));
    QCOMPARE(a->axis().start() - a->session()->startTime(), TimeNs{5'000'000});
    // Kernel rows: every name of either session, plus the sum.
    const StatsTable& k = view->kernels()->model()->table();
    QVERIFY(k.rows.size() > 16);
    QCOMPARE(std::get<std::string>(k.rows.back()[0]), std::string("all kernels"));
    QVERIFY(view->copies()->model()->rowCount() >= 2);
    window.grab().save(QStringLiteral("compare.png"));
  }
};

QTEST_MAIN(TestCompareView)
#include "test_compare_view.moc"
