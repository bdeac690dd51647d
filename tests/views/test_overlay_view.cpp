// Model → Simulate Memory Tiers on the bundled sample (AlexNet, PyTorch profiler): the run's
// kernels mapped through its aten:: op ranges, G10 planned and simulated off the GUI thread, and
// drawn under GPU 0 of the measured timeline; tier fields re-run it, a correction maps the
// kernel the model lacks, clicks tie tensors and transfers to kernels, and the compare tab lines
// the simulated iteration up with the measured one. Screenshots are saved beside the binary.
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QHelpEvent>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QToolTip>
#include <QtTest>

#include "app/gui/compare_flow.h"
#include "app/gui/main_window.h"
#include "app/gui/simulation_flow.h"
#include "io/atomic_file.h"
#include "memsim/reports/overlay.h"
#include "model/model_zoo.h"
#include "views/session/session_view.h"
#include "views/session/stats_table_model.h"
#include "views/session/table_panel.h"
#include "views/simulation/compare_view.h"
#include "views/simulation/overlay_pane.h"
#include "views/timeline/timeline_canvas.h"

using namespace ts;

namespace {

size_t rowNamed(const TimelineRows& rows, const std::string& label) {
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].label == label) return i;
  }
  return static_cast<size_t>(kNone);
}

size_t rowStarting(const TimelineRows& rows, const std::string& prefix) {
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].label.rfind(prefix, 0) == 0) return i;
  }
  return static_cast<size_t>(kNone);
}

// A built-in model written where the GUI can open it; empty on failure.
QString zooFile(const QTemporaryDir& dir, const char* name) {
  const QString path = dir.filePath(QStringLiteral("%1.onnx").arg(QLatin1String(name)));
  auto bytes = model::zooModelBytes(name);
  return bytes.ok() && writeBytesAtomically(path.toStdString(), *bytes).ok() ? path : QString();
}

}  // namespace

class TestOverlayView : public QObject {
  Q_OBJECT
 private slots:
  void simulationOnTheSampleTimeline() {
    QTemporaryDir dir;
    const QString model = zooFile(dir, "alexnet");
    QVERIFY(!model.isEmpty());

    MainWindow window;
    window.resize(1600, 1200);
    window.show();
    QSignalSpy opened(&window, &MainWindow::sessionOpened);
    window.openFiles({QStringLiteral(TSCOPE_SAMPLE)});
    QVERIFY(opened.wait(20000));
    SessionView* view = window.sessionView(0);
    QVERIFY(view);
    const SessionPtr measured = view->session();
    QVERIFY(!window.simulation()->onTimeline(5, model, 128));  // no such tab

    OverlayPane* pane = window.simulation()->onTimeline(0, model, 128);
    // The model and batch are what the model dialogs offer next (also after --simulate).
    QCOMPARE(QSettings().value(QStringLiteral("model/last")).toString(), model);
    QCOMPARE(QSettings().value(QStringLiteral("model/batch")).toInt(), 128);
    QVERIFY(pane);
    QSignalSpy updated(pane, &OverlayPane::updated);
    QVERIFY(pane->busy());  // off the GUI thread
    QVERIFY(updated.wait(30000));
    QVERIFY(pane->current());
    QVERIFY2(pane->current()->status.ok(), pane->current()->status.error().c_str());

    // Mapped through the aten:: ranges, the last of two iterations detected by repetition.
    const model::KernelMapping k =
        pane->shownGpu()->mapping.kernels;  // a copy: later runs replace current()
    QVERIFY(k.method == ts::model::MappingMethod::Aten);
    QCOMPARE(k.iterationSource, std::string("repeated kernels"));
    QCOMPARE(k.iterations.size(), size_t{2});
    QCOMPARE(k.kernels.size(), size_t{39});
    QVERIFY(k.coverage() > 0.95 && k.coverage() < 1.0);
    QCOMPARE(pane->mappingTable()->model()->rowCount(), 39);
    QVERIFY(pane->summary()->text().contains(QStringLiteral("by aten, iteration 2 of 2")));
    // Simulated on the run's own GPU (the sample's A100), and the summary says so.
    QCOMPARE(pane->current()->tiers.gpuBytes,
             static_cast<int64_t>(measured->devices[0].memoryBytes));
    QVERIFY2(pane->summary()->text().contains(
                 QStringLiteral("Tiers: g10-default with the run's NVIDIA A100-PG509-200 (")),
             qPrintable(pane->summary()->text()));
    QVERIFY2(pane->summary()->toolTip().contains(
                 QStringLiteral("Tiers: g10-default with the run's NVIDIA A100-PG509-200: GPU ")),
             qPrintable(pane->summary()->toolTip()));

    // The timeline now draws the overlaid copy: the simulation under GPU 0's Compute rows.
    TimelineCanvas* canvas = view->timeline();
    QCOMPARE(canvas->session(), pane->current()->overlay.session);
    QCOMPARE(view->shown(), pane->current()->overlay.session);
    const TimelineRows& rows = canvas->rows();
    size_t group = rowNamed(rows, "Simulation: g10 · alexnet (batch 128)");
    QVERIFY(group != static_cast<size_t>(kNone));
    QVERIFY(group > rowNamed(rows, "Compute"));
    QVERIFY(group < rowNamed(rows, "Stream 7"));
    size_t gpu = rowNamed(rows, "GPU memory (simulated)");
    QVERIFY(gpu != static_cast<size_t>(kNone));
    QCOMPARE(rows[gpu].capacity,
             static_cast<double>(measured->devices[0].memoryBytes));  // the run's A100: 39.4 GiB
    QCOMPARE(rows[rowNamed(rows, "Kernels (simulated)")].lanes.size(), size_t{1});
    QCOMPARE(pane->shownGpu()->run.result.summary.stall, TimeNs{0});  // 39 GiB: everything fits

    // A small GPU: transfers and stalls appear.
    pane->gpuMemory()->setText(QStringLiteral("1GB"));
    pane->simulate();
    QVERIFY(updated.wait(30000));
    QVERIFY2(pane->current()->status.ok(), pane->current()->status.error().c_str());
    const memsim::SimSummary& s = pane->shownGpu()->run.result.summary;
    QVERIFY(s.stall > 0);
    QVERIFY(s.linkBytes[0] > 0);
    const TimelineRows& small = canvas->rows();
    QCOMPARE(small[rowNamed(small, "GPU memory (simulated)")].capacity, 1e9);
    size_t in = rowNamed(small, "host → GPU (simulated)");
    QVERIFY(in != static_cast<size_t>(kNone));
    QVERIFY(small[in].events > 0);
    QCOMPARE(pane->kernelTable()->model()->rowCount(),
             static_cast<int>(pane->shownGpu()->workload.kernels.size()));
    QVERIFY(pane->layerTable()->model()->rowCount() >= 16);  // eight layers, forward and backward

    // A click on a transfer ties it to the simulated kernel that needed it (and the measured
    // kernels of its layer); a click on a tensor lane outlines the kernels that use it.
    const Session& o = *canvas->session();
    const Track* transfers = small[in].lanes[0][0].track;
    const auto transferTrack = static_cast<uint32_t>(transfers - o.tracks.data());
    canvas->select(transferTrack, 0);
    QVERIFY(!canvas->tied().empty());
    // Hovering it: the row's registered extension (views/timeline/row_extensions) explains it.
    canvas->centerOn(transferTrack, 0);
    QPoint at;
    for (int y = TimelineCanvas::kRulerHeight; y < canvas->height() && at.isNull(); ++y) {
      QPoint p(canvas->gutter() + canvas->canvasWidth() / 2, y);
      if (canvas->hitAt(p).track == transferTrack) at = p;
    }
    QVERIFY2(!at.isNull(), "the transfer is not under the middle of the canvas");
    QHelpEvent help(QEvent::ToolTip, at, canvas->mapToGlobal(at));
    QApplication::sendEvent(canvas, &help);
    QVERIFY2(QToolTip::text().contains(QStringLiteral("host → GPU (simulated)")),
             qPrintable(QToolTip::text()));
    size_t tensor = rowNamed(small, "features.0.weight");
    QVERIFY(tensor != static_cast<size_t>(kNone));
    QCOMPARE(small[tensor].extension, std::string(ts::memsim::kTensorRow));
    const Track* lane = small[tensor].lanes[0][0].track;
    canvas->select(static_cast<uint32_t>(lane - o.tracks.data()), 0);
    QVERIFY(canvas->highlighted().size() >=
            3);  // its forward, its gradient, its update, measured conv kernels

    // The filter: weights only.
    for (memsim::TensorClass role : {memsim::TensorClass::Activation, memsim::TensorClass::Gradient,
                                     memsim::TensorClass::OptimizerState,
                                     memsim::TensorClass::Workspace, memsim::TensorClass::Other}) {
      const QSignalBlocker block(pane->classBox(role));
      pane->classBox(role)->setChecked(false);
    }
    pane->simulate();
    QVERIFY(updated.wait(30000));
    QCOMPARE(pane->current()->overlay.tensorsShown,
             size_t{16});  // AlexNet's 8 weights and 8 biases
    QVERIFY(rowStarting(canvas->rows(), "Tensors (16 of ") != static_cast<size_t>(kNone));

    // The kernel the zoo model lacks (adaptive average pooling) is placed by guess, not counted
    // as mapped, and assigned by the user.
    QVERIFY(k.unmapped.empty());
    QString pool;
    for (const model::MappedKernel& mk : k.kernels) {
      if (mk.certainty != model::Certainty::Guess) continue;
      QVERIFY(pool.isEmpty());  // one of them
      pool = QString::fromStdString(
          std::string(measured->str(measured->tracks[mk.track].hot.name[mk.event])));
    }
    QVERIFY(!pool.isEmpty());
    pane->assign({pool}, QStringLiteral("forward/features.10"));
    QVERIFY(updated.wait(30000));
    QCOMPARE(pane->shownGpu()->mapping.kernels.coverage(), 1.0);
    QCOMPARE(pane->corrections().at(pool.toStdString()), std::string("forward/features.10"));

    // Screenshot: the iteration, every row unfolded.
    for (size_t i = 0; i < canvas->rows().size(); ++i) canvas->setRowCollapsed(i, false);
    const memsim::OverlayRun& run = *pane->current();
    const memsim::GpuRun& shown = *pane->shownGpu();
    canvas->zoomTo(run.overlay.origin - 1'000'000,
                   run.overlay.origin + shown.run.result.summary.iteration + 1'000'000);
    window.grab().save(QStringLiteral("overlay-sample.png"));
    view->bottomTabs()->setCurrentWidget(pane);
    window.grab().save(QStringLiteral("overlay-pane.png"));
    canvas->grab().save(QStringLiteral("overlay-sample-timeline.png"));

    // Side by side: the simulated iteration's start lines up with the measured one's.
    // Built off the GUI thread: the tab follows.
    QSignalSpy compared(window.compare(), &CompareFlow::opened);
    QVERIFY(window.compare()->withSimulation(view));
    QVERIFY(compared.wait(30000));
    auto* compare = compared.takeFirst().at(0).value<CompareView*>();
    QVERIFY(compare);
    QCOMPARE(window.tabs()->currentWidget(), compare);
    {
      // Asked for twice before either is built: both open (one request does not drop another).
      const int tabs = window.tabs()->count();
      QVERIFY(window.compare()->withSimulation(view));
      QVERIFY(window.compare()->withSimulation(view));
      QTRY_COMPARE_WITH_TIMEOUT(compared.count(), 2, 30000);
      QCOMPARE(window.tabs()->count(), tabs + 2);
      for (int i = 0; i < 2; ++i) delete compared.at(i).at(0).value<CompareView*>();
      compared.clear();
      window.tabs()->setCurrentWidget(compare);
    }
    QVERIFY(compare->simulatedSummary());
    QCOMPARE(compare->simulatedSummary()->model()->table().text(0, 0), std::string("Iteration"));
    QCOMPARE(compare->simulatedKernels()->model()->rowCount(),
             static_cast<int>(shown.workload.kernels.size()));
    QCOMPARE(compare->simulatedTraffic()->model()->table().number(0, 2),
             static_cast<double>(shown.run.result.summary.linkBytes[0]));
    TimelineCanvas* a = compare->timelineA();
    TimelineCanvas* b = compare->timelineB();
    // It opens on the two iterations, the longer filling the width (not the session's view at a
    // width the canvas did not have yet).
    QCoreApplication::processEvents();
    const TimeNs origin = shown.mapping.kernels.origin();
    const auto& it = shown.mapping.kernels.iterations[shown.mapping.kernels.iteration];
    const double span =
        static_cast<double>(std::max(compare->timelineB()->session()->endTime(), it.end - origin));
    const double shownNs = a->axis().nsPerPixel() * a->canvasWidth();
    QVERIFY2(
        a->axis().start() <= origin && a->axis().timeAt(a->canvasWidth()) >= origin + span &&
            shownNs < span * 1.1,
        qPrintable(QStringLiteral("%1 ns shown for a %2 ns iteration").arg(shownNs).arg(span)));
    QCOMPARE(b->axis().nsPerPixel(), a->axis().nsPerPixel());
    window.grab().save(QStringLiteral("compare-simulated.png"));
    // The View menu's keys work here too: W zooms both, H shows all of A.
    QAction* zoomIn = nullptr;
    for (QAction* action : window.shortcutActions())
      if (action->shortcut() == QKeySequence(Qt::Key_W)) zoomIn = action;
    QVERIFY(zoomIn);
    const double before = a->axis().nsPerPixel();
    zoomIn->trigger();
    QVERIFY(a->axis().nsPerPixel() < before);
    QCOMPARE(b->axis().nsPerPixel(), a->axis().nsPerPixel());
    a->setAxis(TimeAxis(origin + 2'000'000, 5000.0));
    QCOMPARE(b->axis().start(), TimeNs{2'000'000});
    QCOMPARE(b->axis().nsPerPixel(), 5000.0);

    // What was typed is shown in the pane's units, and simulating again keeps its exact value.
    QCOMPARE(pane->gpuMemory()->text(), QStringLiteral("954 MiB"));
    pane->simulate();
    QVERIFY(updated.wait(30000));
    QCOMPARE(pane->current()->tiers.gpuBytes, int64_t{1'000'000'000});

    // Removing the overlay gives the run back.
    window.tabs()->setCurrentIndex(0);
    emit pane->removeRequested();
    QCOMPARE(view->timeline()->session(), measured);
    QVERIFY(!view->overlayPane());
    QCOMPARE(rowNamed(view->timeline()->rows(), "GPU memory (simulated)"),
             static_cast<size_t>(kNone));
  }

  // Bad input stays in the pane: a model that is not the run's, an impossible tier field.
  void errorsAreShownInPlace() {
    QTemporaryDir dir;
    const QString model = zooFile(dir, "vit-b16");
    QVERIFY(!model.isEmpty());
    MainWindow window;
    window.show();
    QSignalSpy opened(&window, &MainWindow::sessionOpened);
    window.openFiles({QStringLiteral(TSCOPE_SAMPLE)});
    QVERIFY(opened.wait(20000));
    OverlayPane* pane = window.simulation()->onTimeline(0, model, 8);
    QSignalSpy updated(pane, &OverlayPane::updated);
    QVERIFY(updated.wait(30000));
    // ViT is not the run's model: only its patch convolution and a few linears find a partner in
    // AlexNet's aten:: ops. The summary says how little maps; every kernel is listed to assign.
    const model::KernelMapping k =
        pane->shownGpu()->mapping.kernels;  // a copy: later runs replace current()
    QVERIFY(k.method == ts::model::MappingMethod::Aten);
    QVERIFY(k.coverage() < 0.5);
    QVERIFY(pane->summary()->text().contains(QStringLiteral("layers timed: forward 4 of 74")));
    QCOMPARE(pane->mappingTable()->model()->rowCount(), 39);
    pane->gpuMemory()->setText(QStringLiteral("lots"));
    pane->simulate();
    QVERIFY(pane->stage()->text().contains(QStringLiteral("Cannot simulate")));
    QCOMPARE(window.sessionView(0)->timeline()->session(), window.sessionView(0)->shown());
  }
};

QTEST_MAIN(TestOverlayView)
#include "test_overlay_view.moc"
