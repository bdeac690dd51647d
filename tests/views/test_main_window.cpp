// The application shell, offscreen: opening files (also by drag and drop), tabs, errors,
// cancellation, recent files, shortcuts.
#include <QAbstractItemModelTester>
#include <QAction>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QMessageBox>
#include <QMimeData>
#include <QPainter>
#include <QPointer>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QTreeView>
#include <QtTest>

#include "app/gui/capture_flow.h"
#include "app/gui/compare_flow.h"
#include "app/gui/export_flow.h"
#include "app/gui/main_window.h"
#include "app/gui/open_ranks_dialog.h"
#include "app/gui/shortcuts_dialog.h"
#include "app/gui/theme.h"
#include "io/tscope_file.h"
#include "session/session_summary.h"
#include "session_fixture.h"
#include "views/jobs/session_export_job.h"
#include "views/jobs/session_load_job.h"
#include "views/session/session_tree_model.h"
#include "views/session/session_view.h"
#include "views/session/stats_pane.h"
#include "views/timeline/timeline_canvas.h"

using ts::MainWindow;

class TestMainWindow : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);  // recent files go to a test location
    QCoreApplication::setOrganizationName(QStringLiteral("TensorscopeTest"));
    QCoreApplication::setApplicationName(QStringLiteral("TensorscopeTest"));
  }

  void opensTheSampleInATab() {
    MainWindow w;
    w.show();
    QSignalSpy opened(&w, &MainWindow::sessionOpened);
    w.openFiles({QStringLiteral(TSCOPE_SAMPLE)});
    QVERIFY(opened.wait(20000));
    QCOMPARE(w.sessionCount(), 1);
    QCOMPARE(w.tabs()->tabText(0), QStringLiteral("sample.tscope"));
    ts::SessionView* view = w.sessionView(0);
    QVERIFY(view);
    QAbstractItemModelTester tester(view->treeModel(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(view->treeModel()->rowCount() >= 2);  // GPUs and the process
    QVERIFY(w.recentFiles().contains(QFileInfo(QStringLiteral(TSCOPE_SAMPLE)).absoluteFilePath()));

    // What --screenshot renders is not blank: the tree and overview draw many colours.
    QImage shot = w.grab().toImage();
    QVERIFY(!shot.isNull());
    QSet<QRgb> colours;
    for (int y = 0; y < shot.height(); y += 3) {
      for (int x = 0; x < shot.width(); x += 3) colours.insert(shot.pixel(x, y));
    }
    QVERIFY2(colours.size() > 20, qPrintable(QString::number(colours.size())));
  }

  void severalFilesOpenSeveralTabsAndCloseWithTheAction() {
    MainWindow w;
    w.show();
    QSignalSpy idle(&w, &MainWindow::idle);
    QTemporaryDir dir;
    const QString copy = dir.filePath(QStringLiteral("copy.tscope"));
    QVERIFY(QFile::copy(QStringLiteral(TSCOPE_SAMPLE), copy));
    // The same file twice opens once.
    w.openFiles({QStringLiteral(TSCOPE_SAMPLE), copy, QStringLiteral(TSCOPE_SAMPLE)});
    QVERIFY(idle.wait(20000));
    QCOMPARE(w.sessionCount(), 2);
    // Opening it again brings its tab forward instead of a duplicate (the loads finish in either
    // order: find the sample's tab by its path).
    int sampleTab = -1;
    for (int i = 0; i < w.tabs()->count(); ++i) {
      if (w.tabs()->tabToolTip(i) == QStringLiteral(TSCOPE_SAMPLE)) sampleTab = i;
    }
    QVERIFY(sampleTab >= 0);
    w.tabs()->setCurrentIndex(1 - sampleTab);
    w.openFiles({QStringLiteral(TSCOPE_SAMPLE)});
    QCOMPARE(w.tabs()->currentIndex(), sampleTab);
    QVERIFY(!idle.wait(500));  // no load started
    QCOMPARE(w.sessionCount(), 2);
    // Compare Sessions… offers the two opened last; Export… a name beside the file, never it.
    QCOMPARE(w.compare()->defaults(), std::make_pair(0, 1));
    QCOMPARE(
        w.exports()->suggestedPath(sampleTab),
        QFileInfo(QStringLiteral(TSCOPE_SAMPLE)).dir().filePath(QStringLiteral("sample.json")));
    QCOMPARE(w.exports()->suggestedPath(1 - sampleTab), dir.filePath(QStringLiteral("copy.json")));
    QAction *close = nullptr, *exportSession = nullptr, *simulateRun = nullptr;
    for (QAction* a : w.shortcutActions()) {
      if (a->shortcut() == QKeySequence(Qt::CTRL | Qt::Key_W)) close = a;
      if (a->shortcut() == QKeySequence(Qt::CTRL | Qt::Key_E)) exportSession = a;
      if (a->shortcut() == QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_M)) simulateRun = a;
    }
    QVERIFY(close && exportSession && simulateRun);
    QVERIFY(exportSession->isEnabled() && simulateRun->isEnabled());
    close->trigger();
    QCOMPARE(w.sessionCount(), 1);
    close->trigger();
    QCOMPARE(w.sessionCount(), 0);
    // Without a run, what works on a run is greyed out instead of doing nothing.
    QVERIFY(!exportSession->isEnabled());
    QVERIFY(!simulateRun->isEnabled());
  }

  void badFileReportsAnErrorAndOpensNothing() {
    QTemporaryDir dir;
    QString junk = dir.filePath(QStringLiteral("junk.tscope"));
    QFile f(junk);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("this is not a session");
    f.close();
    MainWindow w;
    w.show();
    QSignalSpy failed(&w, &MainWindow::loadFailed);
    w.openFiles({junk});
    QVERIFY(failed.wait(20000));
    QCOMPARE(w.sessionCount(), 0);
    QVERIFY2(w.lastError().contains(junk), qPrintable(w.lastError()));
    QVERIFY(w.lastError().contains(QStringLiteral("unrecognised format")));
  }

  // A model that crashes the ONNX library (a segmentation fault in its shape inference), dropped
  // on the window: the library runs in a child process, so the window reports it and the tab
  // already open stays.
  void aModelThatCrashesTheOnnxLibraryLeavesTheOtherTabs() {
    MainWindow w;
    w.show();
    QSignalSpy opened(&w, &MainWindow::sessionOpened);
    w.openFiles({QStringLiteral(TSCOPE_SAMPLE)});
    QVERIFY(opened.wait(20000));
    QSignalSpy model(&w, &MainWindow::modelOpened);
    auto* mime = new QMimeData;
    mime->setUrls({QUrl::fromLocalFile(
        QStringLiteral(TSCOPE_SHARED_DATA "/crashers/onnx-shape-inference-segv.onnx"))});
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&w, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(10, 10), Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&w, &drop);
    QVERIFY(model.count() > 0 || model.wait(30000));
    QVERIFY(!model.at(0).at(1).toBool());
    QVERIFY2(w.lastError().contains(QStringLiteral("the ONNX library crashed")),
             qPrintable(w.lastError()));
    QCOMPARE(w.tabs()->count(), 2);  // the session, and the model's tab saying why
    auto* exportButton =
        w.tabs()->widget(1)->findChild<QPushButton*>(QStringLiteral("modelExport"));
    QVERIFY(exportButton && !exportButton->isEnabled());  // nothing to export from it
    QVERIFY(w.sessionView(0) && w.sessionView(0)->session()->eventCount() > 0);
    delete mime;
  }

  // A trace cut short: the window asks, and on "Open the intact events" opens the complete ones,
  // the Overview saying the session is incomplete and why.
  void aTruncatedTraceOpensWhatIsIntactWhenTheUserAgrees() {
    QTemporaryDir dir;
    const QString cut = dir.filePath(QStringLiteral("cut.json"));
    QFile f(cut);
    QVERIFY(f.open(QIODevice::WriteOnly));
    // Not a raw string: moc reads this file, and a raw string with an unbalanced quote defeats it.
    f.write(
        "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"a\", \"pid\": 1, \"tid\": 1, \"ts\": 5, "
        "\"dur\": 1}, {\"ph\": \"X\", \"name\": \"b\", \"pid\": 1, \"tid\": 1, \"ts\": 7, "
        "\"dur\": 2}, {\"ph\": \"X\", \"na");
    f.close();
    MainWindow w;
    w.show();
    QSignalSpy failed(&w, &MainWindow::loadFailed);
    QSignalSpy opened(&w, &MainWindow::sessionOpened);
    w.openFiles({cut});
    QVERIFY(failed.wait(20000));
    QCOMPARE(w.sessionCount(), 0);
    auto* box = w.findChild<QMessageBox*>(QStringLiteral("recoverQuestion"));
    QVERIFY(box);
    QVERIFY2(box->informativeText().contains(QStringLiteral("the 2 events before it are complete")),
             qPrintable(box->informativeText()));
    box->button(QMessageBox::Open)->click();
    QVERIFY(opened.wait(20000));
    QCOMPARE(w.sessionCount(), 1);
    const ts::Session& s = *w.sessionView(0)->session();
    QCOMPARE(s.eventCount(), size_t{2});
    QVERIFY(s.provenance.incomplete);
    // What the Overview tab shows, as its text browser holds it.
    QString overview;
    for (auto* browser : w.sessionView(0)->findChildren<QTextBrowser*>())
      overview += browser->toPlainText();
    QVERIFY2(overview.contains(QStringLiteral("Incomplete session")), qPrintable(overview));
    QVERIFY2(overview.contains(QStringLiteral("trace event 3")), qPrintable(overview));
  }

  void droppedFilesOpen() {
    MainWindow w;
    w.show();
    QSignalSpy opened(&w, &MainWindow::sessionOpened);
    auto* mime = new QMimeData;
    mime->setUrls({QUrl::fromLocalFile(QStringLiteral(TSCOPE_SAMPLE))});
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&w, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(10, 10), Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&w, &drop);
    QVERIFY(opened.wait(20000));
    QCOMPARE(w.sessionCount(), 1);
    delete mime;
  }

  // An export cancelled before it starts writes nothing and says it was cancelled.
  void aCancelledExportWritesNothing() {
    auto s = ts::loadSession(TSCOPE_SAMPLE);
    QVERIFY(s.ok());
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("out.tscope"));
    ts::SessionExportJob job(*s, out, {});
    QSignalSpy finished(&job, &ts::SessionExportJob::finished);
    job.cancel();
    job.start();
    QVERIFY(finished.wait(20000));
    QVERIFY(!finished.at(0).at(0).toBool());
    QVERIFY(finished.at(0).at(2).toBool());  // cancelled, told by its flag
    QVERIFY(!QFile::exists(out));
  }

  // Closing the window while a session is being saved: the save is finished first, then the
  // window closes; the file is whole.
  void closingWaitsForTheSaveInProgress() {
    MainWindow w;
    w.show();
    QSignalSpy opened(&w, &MainWindow::sessionOpened);
    w.openFiles({QStringLiteral(TSCOPE_SAMPLE)});
    QVERIFY(opened.wait(20000));
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("saved.tscope"));
    QSignalSpy exported(w.exports(), &ts::ExportFlow::exported);
    w.exports()->start(out, {});
    // The save's end reaches the window through its event loop: it is pending now, whatever the
    // disk's speed.
    QVERIFY(w.exports()->pending() > 0);
    QVERIFY(!w.close());
    QVERIFY(w.isVisible());
    // Closing again asks whether to stop the save; left unanswered, the save's end closes both.
    QVERIFY(!w.close());
    QPointer<QMessageBox> question = w.findChild<QMessageBox*>(QStringLiteral("stopSaveQuestion"));
    QVERIFY(question);
    QVERIFY(exported.count() > 0 || exported.wait(20000));
    QVERIFY(exported.at(0).at(0).toBool());
    QTRY_VERIFY_WITH_TIMEOUT(!w.isVisible(), 5000);
    QTRY_VERIFY_WITH_TIMEOUT(!question || !question->isVisible(), 5000);
    auto saved = ts::loadSession(out.toStdString());
    QVERIFY2(saved.ok(), saved.ok() ? "" : saved.error().c_str());
    QCOMPARE((*saved)->eventCount(), w.sessionView(0)->session()->eventCount());
  }

  void aCancelledLoadFails() {
    ts::SessionLoadJob job({QStringLiteral(TSCOPE_SAMPLE)});
    QSignalSpy failed(&job, &ts::SessionLoadJob::failed);
    QSignalSpy loaded(&job, &ts::SessionLoadJob::loaded);
    job.cancel();
    job.start();
    QVERIFY(failed.wait(20000));
    QCOMPARE(loaded.count(), 0);
    QVERIFY(failed.at(0).at(0).toString().contains(QStringLiteral("cancelled")));
    QVERIFY(failed.at(0).at(1).toBool());  // told by its flag, not by the (translatable) text

    // A file that does not exist fails, and is not taken for a cancellation.
    ts::SessionLoadJob missing({QStringLiteral("/nonexistent/run.tscope")});
    QSignalSpy missingFailed(&missing, &ts::SessionLoadJob::failed);
    missing.start();
    QVERIFY(missingFailed.wait(20000));
    QVERIFY(!missingFailed.at(0).at(1).toBool());
  }

  void ranksOpenAsOneSessionAndExport() {
    MainWindow w;
    w.show();
    QSignalSpy opened(&w, &MainWindow::sessionOpened);
    const QString data = QStringLiteral(TSCOPE_SHARED_DATA "/kineto/");
    w.openRanks({data + QStringLiteral("hta-trace_filter--sampled_rank-0.json.gz"),
                 data + QStringLiteral("hta-trace_filter--sampled_rank-1.json.gz")});
    QVERIFY(opened.wait(20000));
    QCOMPARE(w.sessionCount(), 1);
    QCOMPARE(w.tabs()->tabText(0),
             QStringLiteral("hta-trace_filter--sampled_rank-0.json.gz + 1 more"));
    ts::SessionView* view = w.sessionView(0);
    QCOMPARE(view->session()->ranks.size(), size_t{2});
    QCOMPARE(view->treeModel()->rowCount(), 2);  // a node per rank
    QCOMPARE(view->treeModel()->index(1, 0).data().toString(),
             QStringLiteral("rank 1 / hta-trace_filter--sampled_rank-1"));

    QTemporaryDir dir;
    QSignalSpy exported(w.exports(), &ts::ExportFlow::exported);
    const QString json = dir.filePath(QStringLiteral("ranks.json"));
    w.exports()->start(json, {});
    QVERIFY(exported.wait(20000));
    QVERIFY2(exported.at(0).at(0).toBool(), qPrintable(exported.at(0).at(1).toString()));
    auto back = ts::openSessionFile(json.toStdString());
    QVERIFY(back.ok());
    QCOMPARE(ts::summarize(**back).kernels, size_t{1154 + 1104});

    const QString csv = dir.filePath(QStringLiteral("api.csv"));
    w.exports()->start(csv, {ts::CsvTable::Api});
    QVERIFY(exported.wait(20000));
    QFile f(csv);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QVERIFY(f.readLine().startsWith("rank,start_ns,end_ns,duration_ns,name,pid,tid"));

    w.exports()->start(dir.filePath(QStringLiteral("no/such/dir/x.json")), {});
    QVERIFY(exported.wait(20000));
    QVERIFY(!exported.last().at(0).toBool());
    QVERIFY(w.lastError().contains(QStringLiteral("does not exist")));
  }

  void ranksDialogGivesOrderAndShifts() {
    ts::OpenRanksDialog dialog({QStringLiteral("/a/r0.json"), QStringLiteral("/a/r1.json")});
    auto* table = dialog.findChild<QTableWidget*>(QStringLiteral("ranksTable"));
    QVERIFY(table);
    QCOMPARE(table->rowCount(), 2);
    static_cast<QDoubleSpinBox*>(table->cellWidget(1, 1))->setValue(-250.5);  // µs
    QCOMPARE(dialog.options().shiftNs.at(1), ts::TimeNs{-250500});
    QVERIFY(!dialog.options().shiftNs.count(0));
    table->setCurrentCell(1, 0);
    auto* up = dialog.findChildren<QPushButton*>().first();
    QTest::mouseClick(up, Qt::LeftButton);
    QCOMPARE(dialog.paths(),
             QStringList({QStringLiteral("/a/r1.json"), QStringLiteral("/a/r0.json")}));
    QCOMPARE(dialog.options().shiftNs.at(0), ts::TimeNs{-250500});  // the shift moved with its file
  }

  void captureExplainsItselfWithoutCuda() {
    MainWindow w;
    QAction* capture = nullptr;
    for (QAction* a : w.shortcutActions()) {
      if (a->shortcut() == QKeySequence(Qt::CTRL | Qt::Key_R)) capture = a;
    }
    QVERIFY(capture);
#ifdef TSCOPE_HAVE_CAPTURE
    QVERIFY(!capture->text().contains(QStringLiteral("unavailable")));
#else
    QVERIFY(capture->text().contains(QStringLiteral("unavailable")));
    capture->trigger();
    QVERIFY2(w.lastError().contains(QStringLiteral("without the CUDA toolkit")),
             qPrintable(w.lastError()));
    QVERIFY(!w.capture()->capturing());
#endif
  }

  void themeIsChosenAndRemembered() {
    MainWindow w;
    auto* dark = w.findChild<QAction*>(QStringLiteral("theme-dark"));
    auto* system = w.findChild<QAction*>(QStringLiteral("theme-system"));
    QVERIFY(dark && system);
    dark->trigger();
    QVERIFY(QApplication::palette().color(QPalette::Window).lightness() < 128);
    QCOMPARE(ts::savedTheme(), ts::Theme::Dark);
    w.findChild<QAction*>(QStringLiteral("theme-light"))->trigger();
    QVERIFY(QApplication::palette().color(QPalette::Window).lightness() > 128);
    QVERIFY(QApplication::palette().color(QPalette::Base).lightness() > 200);
    system->trigger();
    QCOMPARE(ts::savedTheme(), ts::Theme::System);
  }

  // View → GPU Utilisation Lanes: the lane drawn on each GPU's header row goes and comes back,
  // in every open timeline, and the choice is remembered for new ones.
  void utilisationLanesToggleFromTheViewMenu() {
    MainWindow w;
    w.resize(1200, 800);
    w.show();
    QSignalSpy opened(&w, &MainWindow::sessionOpened);
    w.openFiles({QStringLiteral(TSCOPE_SAMPLE)});
    QVERIFY(opened.wait(20000));
    auto* lanes = w.findChild<QAction*>(QStringLiteral("utilisationLanes"));
    QVERIFY(lanes && lanes->isCheckable() && lanes->isChecked());
    ts::TimelineCanvas* canvas = w.sessionView(0)->timeline();
    QVERIFY(canvas->utilisationShown());
    auto frame = [canvas] {
      QImage image(canvas->size(), QImage::Format_ARGB32_Premultiplied);
      QPainter p(&image);
      canvas->render(p, image.size());
      return image;
    };
    const QImage with = frame();
    lanes->toggle();
    QVERIFY(!canvas->utilisationShown());
    QVERIFY(!ts::TimelineCanvas::utilisationSaved());
    QVERIFY(frame() != with);  // the lane is gone from the GPU's header row
    lanes->toggle();
    QVERIFY(canvas->utilisationShown() && ts::TimelineCanvas::utilisationSaved());
    QCOMPARE(frame(), with);
  }

  void shortcutsAreListed() {
    MainWindow w;
    QList<QAction*> actions = w.shortcutActions();
    QStringList keys;
    for (QAction* a : actions) keys << a->shortcut().toString();
    QVERIFY(keys.contains(QStringLiteral("Ctrl+O")));
    QVERIFY(keys.contains(QStringLiteral("Ctrl+W")));
    QVERIFY(keys.contains(QStringLiteral("Ctrl+Q")));
    QVERIFY(keys.contains(QStringLiteral("Ctrl+Shift+O")));
    QVERIFY(keys.contains(QStringLiteral("Ctrl+E")));
    QVERIFY(keys.contains(QStringLiteral("Ctrl+R")));  // File → Capture…
    ts::ShortcutsDialog dialog(actions);
    auto* table = dialog.findChild<QTableWidget*>(QStringLiteral("shortcutsTable"));
    QVERIFY(table);
    // One row per action and gesture, under a heading per menu, in menu order (File first, the
    // timeline's gestures last); no key listed twice; the keys column wide enough for its text.
    QStringList headings, listed;
    for (int r = 0; r < table->rowCount(); ++r) {
      if (table->columnSpan(r, 0) == 2) {
        headings << table->item(r, 0)->text();
        continue;
      }
      listed << table->item(r, 1)->text();
      const QFontMetrics fm(table->item(r, 1)->font());
      QVERIFY2(table->columnWidth(1) >= fm.horizontalAdvance(table->item(r, 1)->text()),
               qPrintable(table->item(r, 1)->text()));
    }
    QCOMPARE(listed.size(), actions.size() + ts::TimelineCanvas::navigationHelp().size());
    QCOMPARE(headings.first(), QStringLiteral("File"));
    QCOMPARE(headings.last(), QStringLiteral("Timeline"));
    QVERIFY(headings.indexOf(QStringLiteral("Edit")) < headings.indexOf(QStringLiteral("View")));
    QCOMPARE(QSet<QString>(headings.begin(), headings.end()).size(), headings.size());
    QStringList singleKeys;
    for (const QString& keys : listed) {
      for (const QString& k : keys.split(QStringLiteral(", "))) singleKeys << k;
    }
    QCOMPARE(QSet<QString>(singleKeys.begin(), singleKeys.end()).size(), singleKeys.size());
    QVERIFY(listed.contains(QStringLiteral("H, Home")));  // View → Show All and the canvas's key
  }

  // A live capture's newer snapshot is taken in where the user is (SessionView::showSnapshot):
  // the whole capture followed while it was in view; then a zoomed view, the selection, the tab
  // shown and a folded tree node kept, the tree's counts updated without a reset; at the end the
  // path and the overview follow the saved file.
  void aSnapshotIsTakenInWhereTheUserIs() {
    std::vector<ts::testing::LayerRange> ranges;
    for (int i = 0; i < 60; ++i) {
      ranges.push_back({"forward/l" + std::to_string(i), i * 10'000, i * 10'000 + 9'000, 5'000});
    }
    auto upTo = [&](size_t n) {
      return ts::testing::makeLayerRun({ranges.begin(), ranges.begin() + n});
    };
    const ts::SessionPtr first = upTo(20), second = upTo(40), third = upTo(60);
    ts::SessionView view(first, QStringLiteral("Capture (live)"));
    view.setLive(true);
    view.resize(1400, 900);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    ts::TimelineCanvas* canvas = view.timeline();
    canvas->fitAll();
    auto* overview = view.findChild<QTextBrowser*>(QStringLiteral("overview"));
    QVERIFY(overview);

    view.showSnapshot(second, nullptr, true, QStringLiteral("Capture (live)"));
    QCOMPARE(view.session(), second);
    QCOMPARE(canvas->session(), second);
    QVERIFY(canvas->axis().end(canvas->canvasWidth()) >= second->endTime());  // followed

    uint32_t kernels = ts::kNone;
    for (uint32_t t = 0; t < second->tracks.size(); ++t) {
      if (second->tracks[t].kind == ts::EventKind::Kernel) kernels = t;
    }
    QVERIFY(kernels != ts::kNone);
    const ts::TimeNs t0 = second->startTime() + 50'000, t1 = second->startTime() + 120'000;
    canvas->zoomTo(t0, t1);
    const ts::TimeNs zoomedStart = canvas->axis().start();
    canvas->select(kernels, 7);
    view.bottomTabs()->setCurrentWidget(view.stats());
    auto* tree = view.findChild<QTreeView*>(QStringLiteral("trackTree"));
    QVERIFY(tree);
    const QModelIndex top = view.treeModel()->index(0, 0);
    QVERIFY(tree->isExpanded(top));
    tree->collapse(top);
    QSignalSpy reset(view.treeModel(), &QAbstractItemModel::modelReset);

    view.showSnapshot(third, nullptr, true, QStringLiteral("Capture (live)"));
    QCOMPARE(canvas->session(), third);
    QCOMPARE(canvas->axis().start(), zoomedStart);  // the user's view stays
    QCOMPARE(canvas->selected().track, kernels);
    QCOMPARE(canvas->selected().event, uint32_t{7});
    QCOMPARE(view.bottomTabs()->currentWidget(), static_cast<QWidget*>(view.stats()));
    QCOMPARE(reset.count(), 0);
    QVERIFY(!tree->isExpanded(view.treeModel()->index(0, 0)));
    uint64_t counted = 0;  // the tree counts the newest snapshot's events
    for (int r = 0; r < view.treeModel()->rowCount(); ++r) {
      counted += view.treeModel()->node(view.treeModel()->index(r, 0)).count;
    }
    QCOMPARE(counted, uint64_t{3 * 60});  // 60 kernels under the GPU, 60 calls + 60 ranges
    QVERIFY(overview->toPlainText().contains(QStringLiteral("Capture in progress")));

    view.showSnapshot(third, nullptr, false, QStringLiteral("/tmp/run.tscope"));
    QCOMPARE(view.path(), QStringLiteral("/tmp/run.tscope"));
    QVERIFY(!overview->toPlainText().contains(QStringLiteral("Capture in progress")));
    QCOMPARE(canvas->axis().start(), zoomedStart);
  }

  // A message of several lines (a capture's warnings, one a line) stays whole in its box and
  // keeps its lines apart on the one-line status bar.
  void aMessageOfSeveralLinesKeepsThemApartOnTheStatusBar() {
    MainWindow w;
    w.showError(QStringLiteral("Capture"),
                QStringLiteral("1 record was left out\n1 record could not be read"));
    QCOMPARE(w.lastError(), QStringLiteral("1 record was left out\n1 record could not be read"));
    QCOMPARE(w.statusBar()->currentMessage(),
             QStringLiteral("1 record was left out; 1 record could not be read"));
  }

  // A snapshot with a new GPU (a tree with other nodes: the model is reset) keeps what the user
  // folded in the tree, by the nodes' labels; the new nodes come unfolded as in a new view.
  void aSnapshotWithANewGpuKeepsTheTreesFolding() {
    std::vector<ts::testing::LayerRange> ranges;
    for (int i = 0; i < 20; ++i)
      ranges.push_back({"l" + std::to_string(i), i * 10'000, i * 10'000 + 9'000, 5'000});
    ts::SessionView view(ts::testing::makeLayerRun(ranges, 1), QStringLiteral("Capture (live)"));
    view.setLive(true);
    view.resize(1400, 900);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    auto* tree = view.findChild<QTreeView*>(QStringLiteral("trackTree"));
    QVERIFY(tree);
    ts::SessionTreeModel* model = view.treeModel();
    auto labels = [&] {
      QStringList out;
      for (int r = 0; r < model->rowCount(); ++r) out << model->index(r, 0).data().toString();
      return out;
    };
    const QStringList before = labels();
    QVERIFY(before.size() >= 2);
    const QModelIndex folded = model->index(0, 0);
    QVERIFY(model->rowCount(folded) > 0 && tree->isExpanded(folded));
    tree->collapse(folded);
    QSignalSpy reset(model, &QAbstractItemModel::modelReset);

    view.showSnapshot(ts::testing::makeLayerRun(ranges, 2), nullptr, true,
                      QStringLiteral("Capture (live)"));
    QCOMPARE(reset.count(), 1);
    const QStringList after = labels();
    QVERIFY(after.size() > before.size());
    QVERIFY(after.contains(before[0]));  // the folded node is there still
    for (int r = 0; r < model->rowCount(); ++r) {
      const QModelIndex i = model->index(r, 0);
      if (model->rowCount(i) == 0) continue;
      // The node folded before is folded still; the others (those of before, the new) unfolded.
      QCOMPARE(tree->isExpanded(i), i.data().toString() != before[0]);
    }
  }
};

QTEST_MAIN(TestMainWindow)
#include "test_main_window.moc"
