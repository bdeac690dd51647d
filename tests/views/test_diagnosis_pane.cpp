// The Diagnosis tab on a real PyTorch trace (ResNet-50 training, six ProfilerSteps), offscreen:
// the pane shows what core's diagnose computes, ranked; a chosen finding is explained and shown
// on the timeline with its events outlined; a dragged range is diagnosed alone; a step's
// double-click zooms to it. Screenshots are saved beside the test binary.
#include <QCheckBox>
#include <QLabel>
#include <QSettings>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QtTest>

#include "analysis/diagnosis.h"
#include "io/open_session.h"
#include "timeline/diagnosis_rows.h"
#include "views/charts/chart_view.h"
#include "views/session/diagnosis_pane.h"
#include "views/session/session_view.h"
#include "views/session/stats_table_model.h"
#include "views/session/table_panel.h"
#include "views/timeline/timeline_canvas.h"

using namespace ts;

namespace {

bool waitForDiagnosis(DiagnosisPane& pane) {
  QSignalSpy spy(&pane, &DiagnosisPane::updated);
  if (!pane.busy()) return true;
  return spy.wait(20000);
}

}  // namespace

class TestDiagnosisPane : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    auto s = openSessionFile(std::string(TSCOPE_SHARED_DATA) +
                             "/kineto/kineto-tb_plugin--resnet50_num_workers_0--worker0."
                             "1623143089861.pt.trace.json.gz");
    QVERIFY2(s.ok(), s.ok() ? "" : s.error().c_str());
    session_ = *s;
  }

  void showsTheFindingsCoreComputes() {
    DiagnosisPane pane(session_);
    pane.resize(1280, 420);
    pane.show();
    QVERIFY(waitForDiagnosis(pane));
    auto expected = diagnose(*session_, {});
    QVERIFY(expected.ok());
    QVERIFY(pane.diagnosis());
    const StatsTable& t = pane.findings()->model()->table();
    QCOMPARE(t.rows.size(), expected->findings.size());
    QVERIFY(t.rows.size() >= 5);
    for (size_t i = 0; i < t.rows.size(); ++i) {
      QCOMPARE(t.text(i, 0), expected->findings[i].rule);
      QCOMPARE(static_cast<TimeNs>(t.number(i, 2)), expected->findings[i].cost);
      if (i > 0) QVERIFY(t.number(i, 2) <= t.number(i - 1, 2));  // ranked by cost
    }
    QCOMPARE(t.text(0, 0), std::string("dataloader"));  // 415.8 ms of data loading
    // The steps: the table and a bar per step.
    QCOMPARE(pane.steps()->model()->table().rows.size(), size_t{6});
    QVERIFY(pane.chart()->chart());
    QVERIFY(pane.findChild<QLabel*>(QStringLiteral("diagnosisSummary"))
                ->text()
                .contains(QStringLiteral("findings")));
    pane.grab().toImage().save(QStringLiteral("diagnosis-pane.png"));
  }

  void aChosenFindingIsExplainedAndShown() {
    SessionView view(session_, QStringLiteral("resnet50.json.gz"));
    view.resize(1600, 1000);
    view.show();
    view.bottomTabs()->setCurrentWidget(view.diagnosis());
    DiagnosisPane& pane = *view.diagnosis();
    QVERIFY(waitForDiagnosis(pane));
    // The copies that ran synchronously: a finding with events to outline.
    size_t copies = pane.diagnosis()->findings.size();
    for (size_t i = 0; i < pane.diagnosis()->findings.size(); ++i) {
      if (pane.diagnosis()->findings[i].rule == "cuda_memcpy_async") copies = i;
    }
    QVERIFY(copies < pane.diagnosis()->findings.size());
    const Finding& f = pane.diagnosis()->findings[copies];
    QSignalSpy shown(&pane, &DiagnosisPane::findingActivated);
    QTableView* table = pane.findings()->view();
    table->setCurrentIndex(pane.findings()->proxy()->mapFromSource(
        pane.findings()->model()->index(static_cast<int>(copies), 0)));
    QCOMPARE(shown.count(), 1);
    QVERIFY(pane.explanation()->toPlainText().contains(QStringLiteral("pinned")));
    QVERIFY(pane.explanation()->toPlainText().contains(QStringLiteral("cuda_memcpy_async")));
    // The timeline shows the finding's span, its calls and copies outlined, and the reader stays
    // on the Diagnosis tab.
    TimeNs t0 = view.timeline()->axis().start();
    TimeNs t1 = view.timeline()->axis().end(view.timeline()->canvasWidth());
    QVERIFY(t0 <= f.start && t1 >= f.end);
    QVERIFY(t1 - t0 < 2 * (f.end - f.start));
    QCOMPARE(view.timeline()->highlighted().size(), f.events.size());
    QCOMPARE(view.timeline()->selected().track, f.events.front().first);
    QCOMPARE(view.bottomTabs()->currentWidget(), static_cast<QWidget*>(view.diagnosis()));
    view.grab().toImage().save(QStringLiteral("diagnosis-finding.png"));

    // A dragged range is diagnosed alone: two steps' worth has fewer data-loading steps.
    const std::vector<Step> steps = pane.diagnosis()->steps.steps;  // a copy: replaced below
    QCOMPARE(steps.size(), size_t{6});
    emit view.timeline()->rangeSelected(steps[0].start, steps[1].end);
    QVERIFY(waitForDiagnosis(pane));
    QVERIFY(pane.findChild<QLabel*>(QStringLiteral("diagnosisScope"))
                ->text()
                .startsWith(QStringLiteral("Range")));
    QCOMPARE(pane.diagnosis()->steps.steps.size(), size_t{2});
    emit view.timeline()->rangeCleared();
    QVERIFY(waitForDiagnosis(pane));
    QCOMPARE(pane.diagnosis()->steps.steps.size(), size_t{6});

    // A step's double-click zooms to it.
    QSignalSpy zoom(&pane, &DiagnosisPane::zoomRequested);
    emit pane.steps()->view()->doubleClicked(pane.steps()->proxy()->index(2, 0));
    QCOMPARE(zoom.count(), 1);
    // The step from its CPU start to its GPU end, with a twentieth more each side.
    const Step& two = steps[2];
    const TimeNs from = std::min(two.start, two.gpuStart), to = std::max(two.end, two.gpuEnd);
    QCOMPARE(zoom[0][0].value<TimeNs>(), from - (to - from) / 20);
    QCOMPARE(zoom[0][1].value<TimeNs>(), to + (to - from) / 20);
  }

  void theTimelineShowsStepsIdleGapsAndQueueDepth() {
    SessionView view(session_, QStringLiteral("resnet50.json.gz"));
    view.resize(1600, 1000);
    view.show();
    DiagnosisPane& pane = *view.diagnosis();
    pane.timelineBox()->setChecked(true);
    QCOMPARE(view.shown(), view.session());  // nothing drawn before the tab is opened
    view.bottomTabs()->setCurrentWidget(&pane);
    QTRY_VERIFY_WITH_TIMEOUT(view.shown() != view.session(), 20000);
    const TimelineRows& rows = view.timeline()->rows();
    size_t steps = rows.size(), queue = rows.size(), compute = rows.size();
    const TimelineRow* stream = nullptr;
    for (size_t i = 0; i < rows.size(); ++i) {
      if (rows[i].label == "Steps") steps = i;
      if (rows[i].label == kQueueDepthRow) queue = i;
      if (rows[i].kind == TimelineRow::Kind::Compute) compute = i;
      if (rows[i].kind == TimelineRow::Kind::Stream) stream = &rows[i];
    }
    QVERIFY(steps < rows.size());
    QCOMPARE(steps + 1, compute);             // above Compute
    QCOMPARE(rows[steps].events, size_t{6});  // the six ProfilerSteps
    QVERIFY(queue < rows.size());
    QVERIFY(stream);
    QCOMPARE(stream->lanes.size(), size_t{2});  // its operations, then its idle gaps
    // The gaps drawn are the diagnosis's (8,921 on stream 7 of this trace, as `stats --report
    // idle` counts them), a track per cause sharing the lane.
    size_t gaps = 0;
    for (const LaneView& v : stream->lanes[1]) gaps += v.track->size();
    QCOMPARE(gaps, size_t{8921});
    QCOMPARE(stream->lanes[1].size(), size_t{2});  // host wait and other
    QVERIFY(pane.findChild<QLabel*>(QStringLiteral("diagnosisTimelineNote"))
                ->text()
                .contains(QStringLiteral("8,921 idle gaps")));
    view.grab().toImage().save(QStringLiteral("diagnosis-timeline.png"));
    // Unticked: the run alone again.
    pane.timelineBox()->setChecked(false);
    QCOMPARE(view.shown(), view.session());
    for (size_t i = 0; i < view.timeline()->rows().size(); ++i)
      QVERIFY(view.timeline()->rows()[i].label != "Steps");
    QSettings().remove(QStringLiteral("diagnosis/timelineRows"));  // the choice was the test's
  }

  void anEmptyRangeSaysSo() {
    DiagnosisPane pane(session_);
    pane.show();
    QVERIFY(waitForDiagnosis(pane));
    // A range after the session's end: no GPU work in it.
    pane.setRange(std::pair(session_->endTime() + 1000, session_->endTime() + 2000));
    QVERIFY(waitForDiagnosis(pane));
    QVERIFY(pane.findChild<QLabel*>(QStringLiteral("diagnosisSummary"))
                ->text()
                .contains(QStringLiteral("No GPU operations")));
    QCOMPARE(pane.findings()->model()->table().rows.size(), size_t{0});
  }

 private:
  SessionPtr session_;
};

QTEST_MAIN(TestDiagnosisPane)
#include "test_diagnosis_pane.moc"
