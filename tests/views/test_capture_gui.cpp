// File → Capture… without a GPU: a stand-in program plays a CUDA program's record stream; the
// capture tab must grow while it runs and hold the whole run at the end. Screenshots of the live
// and the final view are saved beside the test binary. Built only with capture support.
#include <QSignalSpy>
#include <QStatusBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QtTest>

#include "app/gui/capture_dialog.h"
#include "app/gui/capture_flow.h"
#include "app/gui/main_window.h"
#include "session/session_summary.h"
#include "views/session/session_view.h"
#include "views/session/stats_pane.h"

using namespace ts;

class TestCaptureGui : public QObject {
  Q_OBJECT
 private slots:
  void dialogRoundTripAndErrors() {
    CaptureDialog dialog;
    CaptureRequest r;
    r.argv = {QStringLiteral("/usr/bin/python3"), QStringLiteral("train.py"),
              QStringLiteral("--name"), QStringLiteral("two words")};
    r.env = {{QStringLiteral("CUDA_VISIBLE_DEVICES"), QStringLiteral("0,1")}};
    r.output = QStringLiteral("/tmp/x.tscope");
    r.durationSeconds = 12.5;
    r.delaySeconds = 2.5;
    r.kinds = {QStringLiteral("kernel"), QStringLiteral("nvtx")};
    dialog.setRequest(r);
    auto request = dialog.request();
    QVERIFY2(request.ok(), request.ok() ? "" : request.error().c_str());
    const CaptureRequest& back = *request;
    QCOMPARE(back.argv, r.argv);
    QCOMPARE(back.env, r.env);
    QCOMPARE(back.durationSeconds, 12.5);
    QCOMPARE(back.delaySeconds, 2.5);
    QCOMPARE(back.kinds, r.kinds);
    // A delay as long as the duration would record nothing: said before anything runs.
    r.delaySeconds = 12.5;
    dialog.setRequest(r);
    auto empty = dialog.request();
    QVERIFY(!empty.ok());
    QVERIFY(QString::fromStdString(empty.error()).contains(QStringLiteral("delay")));
    r.delaySeconds = 0;
    r.argv = {};
    dialog.setRequest(r);
    auto missing = dialog.request();
    QVERIFY(!missing.ok());
    QVERIFY(QString::fromStdString(missing.error()).contains(QStringLiteral("program")));
  }

  void liveTabGrowsAndHoldsTheRun() {
    QTemporaryDir dir;
    MainWindow window;
    window.resize(1400, 900);
    window.show();
    QSignalSpy finished(window.capture(), &CaptureFlow::finished);
    QSignalSpy updated(window.capture(), &CaptureFlow::updated);
    CaptureRequest r;
    r.argv = {QStringLiteral(TSCOPE_FAKE_TARGET), QStringLiteral("frames"), QStringLiteral("6"),
              QStringLiteral("200"), QStringLiteral("0")};
    r.output = dir.filePath(QStringLiteral("live.tscope"));
    window.capture()->start(r);
    QVERIFY(window.capture()->capturing());
    QVERIFY(updated.wait(10000));  // a first snapshot while the program still runs
    QVERIFY(window.capture()->capturing());
    size_t live = summarize(*window.capture()->view()->session()).kernels;
    QVERIFY(live < 1200);
    // The user goes to the Statistics tab: the snapshots that follow are taken into the same
    // view, which stays there.
    SessionView* view = window.capture()->view();
    view->bottomTabs()->setCurrentWidget(view->stats());
    window.grab().save(QStringLiteral("capture-live.png"));
    QVERIFY(finished.count() == 1 || finished.wait(20000));
    QCOMPARE(finished.front().front().toBool(), true);
    QVERIFY(updated.count() >= 2);
    QCOMPARE(summarize(*window.capture()->view()->session()).kernels, size_t{1200});
    QCOMPARE(window.capture()->view(), view);
    QCOMPARE(view->bottomTabs()->currentWidget(), static_cast<QWidget*>(view->stats()));
    QCOMPARE(view->path(), r.output);
    QCOMPARE(window.tabs()->tabText(window.tabs()->indexOf(window.capture()->view())),
             QStringLiteral("live.tscope"));
    QVERIFY(QFileInfo::exists(r.output));
    window.grab().save(QStringLiteral("capture-final.png"));
  }

  // The warnings at the end (here the stand-in CUPTI's two records it could not complete or read)
  // come under the total: the box and the status bar say what was saved and what was lost.
  void theEndsWarningsComeUnderTheTotal() {
    QTemporaryDir dir;
    MainWindow window;
    QSignalSpy finished(window.capture(), &CaptureFlow::finished);
    CaptureRequest r;
    r.argv = {QStringLiteral(TSCOPE_FAKE_TARGET),
              QStringLiteral("cupti"),
              QStringLiteral("1"),
              QStringLiteral("2"),
              QStringLiteral("100"),
              QStringLiteral("0")};
    r.env = {{QStringLiteral("TSCOPE_CUPTI_LIBRARY"), QStringLiteral(TSCOPE_FAKE_CUPTI)}};
    r.output = dir.filePath(QStringLiteral("warned.tscope"));
    window.capture()->start(r);
    QVERIFY(finished.wait(20000));
    QCOMPARE(finished.front().front().toBool(), true);
    const QStringList lines = window.lastError().split(QLatin1Char('\n'));
    QVERIFY2(lines.size() >= 3, qPrintable(window.lastError()));
    // 200 kernels, their 200 calls and 4 NVTX ranges; the two left out are the records lost.
    QVERIFY2(lines[0].startsWith(r.output + QStringLiteral(": 404 events, 2 records lost")),
             qPrintable(lines[0]));
    QVERIFY(window.lastError().contains(QStringLiteral("could not complete")));
    QVERIFY(window.statusBar()->currentMessage().startsWith(r.output + QStringLiteral(": 404")));
    // The Overview lists the causes that occurred, each with its count, not every possible one.
    QString overview;
    for (auto* browser : window.capture()->view()->findChildren<QTextBrowser*>())
      overview += browser->toPlainText();
    QVERIFY2(overview.contains(QStringLiteral("2 records lost")), qPrintable(overview));
    QVERIFY2(
        overview.contains(QStringLiteral("without timestamps (CUPTI could not complete them)")),
        qPrintable(overview));
    QVERIFY(overview.contains(QStringLiteral("unreadable (incomplete or invalid)")));
    QVERIFY(!overview.contains(QStringLiteral("dropped by CUPTI")));
  }

  void stopEndsTheProgram() {
    QTemporaryDir dir;
    MainWindow window;
    QSignalSpy finished(window.capture(), &CaptureFlow::finished);
    CaptureRequest r;
    r.argv = {QStringLiteral("sleep"), QStringLiteral("30")};
    r.output = dir.filePath(QStringLiteral("stopped.tscope"));
    window.capture()->start(r);
    QTest::qWait(200);
    QElapsedTimer timer;
    timer.start();
    window.capture()->stop(true);
    QVERIFY(finished.wait(10000));
    QVERIFY(timer.elapsed() < 8000);
    QVERIFY(QFileInfo::exists(r.output));
  }
};

QTEST_MAIN(TestCaptureGui)
#include "test_capture_gui.moc"
