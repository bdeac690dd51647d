// Two sessions compared in the window: the compare tab's timelines follow each other (each from
// its own session's start) and its tables hold the kernel and copy comparison; a screenshot is
// saved beside the test binary.
#include <QChart>
#include <QComboBox>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QtTest>

#include "app/gui/compare_flow.h"
#include "app/gui/export_flow.h"
#include "app/gui/main_window.h"
#include "memsim/engine/simulation.h"
#include "memsim/formats/from_model.h"
#include "memsim/formats/sim_session.h"
#include "model/measured_times.h"
#include "model/model_zoo.h"
#include "model/onnx_loader.h"
#include "session_fixture.h"
#include "views/charts/chart_view.h"
#include "views/session/name_style.h"
#include "views/session/stats_table_model.h"
#include "views/session/table_panel.h"
#include "views/simulation/compare_view.h"
#include "views/timeline/timeline_canvas.h"

using namespace ts;

class TestCompareView : public QObject {
  Q_OBJECT
 private slots:
  void twoSessionsSideBySide() {
    MainWindow window;
    window.resize(1400, 1000);
    window.show();
    QSignalSpy opened(&window, &MainWindow::sessionOpened);
    window.openFiles(
        {QStringLiteral(TSCOPE_SAMPLE),
         QStringLiteral(TSCOPE_SHARED_DATA "/kineto/hta-trace_filter--sampled_rank-0.json.gz")});
    while (opened.count() < 2) QVERIFY(opened.wait(20000));
    // A trace is offered for export as a session beside it.
    for (int i = 0; i < 2; ++i) {
      if (!window.tabs()->tabToolTip(i).endsWith(QLatin1String(".json.gz"))) continue;
      QVERIFY(window.exports()->suggestedPath(i).endsWith(
          QLatin1String("/kineto/hta-trace_filter--sampled_rank-0.tscope")));
    }
    QVERIFY(!window.compare()->compareSessions(0, 0));  // a session with itself is no comparison
    QVERIFY(window.compare()->compareSessions(0, 1));
    auto* view = qobject_cast<CompareView*>(window.tabs()->currentWidget());
    QVERIFY(view);
    // Both on one scale from the start, each from its own session's start.
    QCOMPARE(view->timelineB()->axis().nsPerPixel(), view->timelineA()->axis().nsPerPixel());
    // Zooming A moves B to the same stretch from its own start.
    TimelineCanvas* a = view->timelineA();
    TimelineCanvas* b = view->timelineB();
    a->zoomTo(a->session()->startTime() + 1'000'000, a->session()->startTime() + 3'000'000);
    QCOMPARE(b->axis().start() - b->session()->startTime(),
             a->axis().start() - a->session()->startTime());
    QCOMPARE(b->axis().nsPerPixel(), a->axis().nsPerPixel());
    b->setAxis(TimeAxis(b->session()->startTime() + 5'000'000, 1000.0));
    QCOMPARE(a->axis().start() - a->session()->startTime(), TimeNs{5'000'000});
    // Kernel rows: every name of either session, plus the sum (computed off the GUI thread).
    QTRY_VERIFY(!view->kernels()->model()->table().rows.empty());
    const StatsTable& k = view->kernels()->model()->table();
    QVERIFY(k.rows.size() > 16);
    QCOMPARE(std::get<std::string>(k.rows.back()[0]), std::string("all kernels"));
    // Names listed short (Nsight's style), in full in the tooltip and when toggled off.
    const QAbstractItemModel* shown = view->kernels()->view()->model();
    int templated = -1;
    for (int r = 0; r < shown->rowCount() && templated < 0; ++r) {
      if (shown->index(r, 0).data(Qt::ToolTipRole).toString().startsWith(QStringLiteral("void ")))
        templated = r;
    }
    QVERIFY(templated >= 0);
    const QModelIndex cell = shown->index(templated, 0);
    const QString full = cell.data(Qt::ToolTipRole).toString();
    QVERIFY2(!cell.data().toString().contains(QLatin1Char('(')),
             qPrintable(cell.data().toString()));
    QVERIFY(full.contains(cell.data().toString()));
    ts::NameStyle::instance().setShortNames(false);
    QCOMPARE(shown->index(templated, 0).data().toString(), full);
    ts::NameStyle::instance().setShortNames(true);
    // The name column, not Δ %, takes the width left over.
    QVERIFY(view->kernels()->view()->columnWidth(0) >
            view->kernels()->view()->columnWidth(shown->columnCount() - 1));
    QVERIFY(view->copies()->model()->rowCount() >= 2);
    window.grab().save(QStringLiteral("compare.png"));
  }

  // A measured run with NVTX layer ranges against a simulation of its model: a Layers tab with
  // the per-layer table and chart, for the policy chosen.
  void measuredAgainstSimulatedLayers() {
    SessionPtr measured = testing::makeLayerRun({{"forward/conv1", 0, 2'000'000, 1'000'000}});
    QVERIFY(measured);
    auto bytes = model::zooModelBytes("resnet50", 8);
    QVERIFY(bytes.ok());
    auto graph = model::loadOnnxBytes(*bytes, "resnet50.onnx");
    QVERIFY(graph.ok());
    model::TrainingStep step = model::expandTrainingStep(*graph);
    model::applyMeasuredTimes(*graph, model::measureLayerTimes(*measured), step);
    memsim::SimWorkload w = memsim::workloadFromModel(*graph, step);
    memsim::TierConfig tiers = *memsim::tierPreset("g10-default");
    // 384 MiB, under the step's 0.86 GiB peak: LRU has to move data, ideal does not.
    tiers.gpuBytes = int64_t{384} << 20;
    auto runs = memsim::runPolicies(w, {memsim::Policy::Ideal, memsim::Policy::Lru}, tiers);
    QVERIFY(runs.ok());
    auto simOrError = memsim::simulationSession(w, *runs, tiers);
    QVERIFY2(simOrError.ok(), simOrError.ok() ? "" : simOrError.error().c_str());
    SessionPtr sim = *simOrError;

    CompareView view(sim, QStringLiteral("sim.tscope"), measured,
                     QStringLiteral("run.tscope"));  // either order
    view.resize(1400, 1000);
    view.show();
    QVERIFY(view.layers());
    QTRY_VERIFY(!view.layers()->model()->table().rows.empty());  // computed off the GUI thread
    const StatsTable& t = view.layers()->model()->table();
    QCOMPARE(t.text(0, 0), std::string("conv1 (forward)"));
    QCOMPARE(t.number(0, 1), 1'000'000.0);
    QCOMPARE(t.number(0, 2), 1'000'000.0);  // ideal: the measured time exactly
    QVERIFY(view.layerChart()->chart()->title().contains(QStringLiteral("ideal")));
    auto* policy = view.layers()->findChild<QComboBox*>();
    QVERIFY(policy);
    policy->setCurrentText(QStringLiteral("lru"));
    QTRY_VERIFY(view.layers()->model()->table().number(0, 2) > 1'000'000.0);  // LRU stalls conv1
    QVERIFY(view.layerChart()->chart()->title().contains(QStringLiteral("lru")));
    view.grab().save(QStringLiteral("compare-layers.png"));
    // Two captures have no Layers tab.
    CompareView plain(measured, QStringLiteral("a"), measured, QStringLiteral("b"));
    QVERIFY(!plain.layers());
  }
};

QTEST_MAIN(TestCompareView)
#include "test_compare_view.moc"
