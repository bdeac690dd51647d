// The Advise tab offscreen: each of its three answers computed from real inputs — two open
// PyTorch traces packed onto one GPU, the two trace_filter ranks moved onto one machine, a
// built-in model split across K80s and V100s — shown with a chart, and the predicted runs offered
// as sessions. Bad inputs answer with what is wrong.
#include <QComboBox>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTextBrowser>
#include <QtTest>

#include "io/open_session.h"
#include "views/advisor/advise_view.h"
#include "views/charts/chart_view.h"

using namespace ts;

namespace {

SessionPtr open(const std::vector<std::string>& names) {
  std::vector<std::string> paths;
  for (const std::string& n : names)
    paths.push_back(std::string(TSCOPE_SHARED_DATA) + "/kineto/" + n);
  auto s = openSessionFiles(paths);
  return s.ok() ? *s : nullptr;
}

bool answered(AdviseView& view, AdviseView::Tab tab) {
  QSignalSpy spy(&view, &AdviseView::updated);
  view.predict(tab);
  if (spy.isEmpty() && !spy.wait(60000)) return false;
  return spy.last().at(0).value<AdviseView::Tab>() == tab;
}

}  // namespace

class TestAdviseView : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    param_ = open({"param--et_replay--linear_kineto.json.gz"});
    resnet_ =
        open({"kineto-tb_plugin--resnet50_num_workers_0--worker0.1623143089861.pt.trace.json.gz"});
    ranks_ = open(
        {"hta-trace_filter--sampled_rank-0.json.gz", "hta-trace_filter--sampled_rank-1.json.gz"});
    QVERIFY(param_ && resnet_ && ranks_);
  }

  void sharesAGpu() {
    AdviseView view([this] {
      return std::vector<AdviseView::OpenSession>{
          {"param", param_}, {"resnet", resnet_}, {"ranks", ranks_}};
    });
    view.resize(1280, 700);
    view.show();
    // One job alone is no packing: the answer says what to tick.
    view.multiplexSessions()->item(0)->setCheckState(Qt::Checked);
    QVERIFY(answered(view, AdviseView::Multiplex));
    QVERIFY(view.result(AdviseView::Multiplex)->toPlainText().contains("Tick two or more"));
    // Copies of one job while two are ticked: said, not ignored.
    view.multiplexSessions()->item(1)->setCheckState(Qt::Checked);
    view.copies()->setValue(2);
    QVERIFY(answered(view, AdviseView::Multiplex));
    QVERIFY(view.result(AdviseView::Multiplex)->toPlainText().contains("Copies of one job"));
    view.multiplexSessions()->item(1)->setCheckState(Qt::Unchecked);
    view.copies()->setValue(1);
    QVERIFY(!view.openTimeline(AdviseView::Multiplex)->isEnabled());
    // Two copies of it on an A100-80GB: time-slicing, MPS and MIG judged.
    view.copies()->setValue(2);
    view.migGpu()->setCurrentIndex(view.migGpu()->findText("A100-80GB"));
    QVERIFY(answered(view, AdviseView::Multiplex));
    const QString text = view.result(AdviseView::Multiplex)->toPlainText();
    QVERIFY2(text.contains("MPS") && text.contains("MIG") && text.contains("Recommendation") &&
                 text.contains("step alone"),
             qPrintable(text));
    QVERIFY(view.chart(AdviseView::Multiplex)->chart());
    // Where each job's peak memory came from; a model's estimate for a job without a counter.
    QVERIFY2(text.contains("unknown: the session records no memory counter"), qPrintable(text));
    view.jobModels()->setText("2=resnet50:32");
    QVERIFY(answered(view, AdviseView::Multiplex));
    QVERIFY2(view.result(AdviseView::Multiplex)
                 ->toPlainText()
                 .contains("estimated from the simulated training step of resnet50 at batch 32"),
             qPrintable(view.result(AdviseView::Multiplex)->toPlainText()));
    view.jobModels()->setText("3=resnet50:32");
    QVERIFY(answered(view, AdviseView::Multiplex));
    QVERIFY(view.result(AdviseView::Multiplex)->toPlainText().contains("no job 3"));
    view.jobModels()->clear();
    QVERIFY(answered(view, AdviseView::Multiplex));
    QVERIFY(view.openTimeline(AdviseView::Multiplex)->isEnabled());
    QSignalSpy opened(&view, &AdviseView::timelineReady);
    view.openTimeline(AdviseView::Multiplex)->click();
    QCOMPARE(opened.count(), 1);
    QVERIFY(opened[0][0].value<SessionPtr>()->devices.size() == 1);
    view.grab().toImage().save(QStringLiteral("advise-multiplex.png"));
  }

  void movesOntoFewerMachines() {
    AdviseView view([this] { return std::vector<AdviseView::OpenSession>{{"ranks", ranks_}}; });
    view.show();
    view.tabs()->setCurrentIndex(AdviseView::Consolidate);
    // The traces name no machines: the answer asks for them.
    view.hosts()->clear();
    QVERIFY(answered(view, AdviseView::Consolidate));
    QVERIFY(view.result(AdviseView::Consolidate)->toPlainText().contains("name no machine"));
    // Two sampled ranks of a 128-rank job (the traces' world size): where the other 126 run is
    // unknown, and 16 machines of 8 GPUs are more than the 2 named, so it asks.
    view.hosts()->setText("0=nodeA, 1=nodeB");
    QVERIFY(answered(view, AdviseView::Consolidate));
    QString text = view.result(AdviseView::Consolidate)->toPlainText();
    QVERIFY2(text.contains("128 ranks need at least 16 machines of 8 GPUs") &&
                 text.contains("how many machines it runs on now"),
             qPrintable(text));
    view.nodesNow()->setValue(32);
    QVERIFY(answered(view, AdviseView::Consolidate));
    text = view.result(AdviseView::Consolidate)->toPlainText();
    QVERIFY2(text.contains("128 ranks on 32 machine(s) → 16 machine(s)"), qPrintable(text));
    // Taken as a job of these two ranks alone: onto one machine.
    view.nodesNow()->setValue(0);
    view.world()->setValue(2);
    QVERIFY(answered(view, AdviseView::Consolidate));
    text = view.result(AdviseView::Consolidate)->toPlainText();
    QVERIFY2(text.contains("2 machine(s) → 1 machine(s)") && text.contains("less per step") &&
                 text.contains("as given; its traces say 128"),
             qPrintable(text));
    // The same two machines over a faster link between them.
    view.gpusPerNode()->setValue(1);
    view.interLink()->setCurrentIndex(view.interLink()->findData("400g"));
    QVERIFY(answered(view, AdviseView::Consolidate));
    QVERIFY2(view.result(AdviseView::Consolidate)
                 ->toPlainText()
                 .contains("from the faster link between machines (400 Gb/s), not from the move"),
             qPrintable(view.result(AdviseView::Consolidate)->toPlainText()));
    view.hosts()->setText("nodeA");
    QVERIFY(answered(view, AdviseView::Consolidate));
    QVERIFY(view.result(AdviseView::Consolidate)->toPlainText().contains("RANK=HOST"));
    view.hosts()->setText("0=nodeA, 1=nodeB, 5=nodeC");
    QVERIFY(answered(view, AdviseView::Consolidate));
    QVERIFY(view.result(AdviseView::Consolidate)->toPlainText().contains("has no rank 5"));
  }

  void splitsAcrossGenerations() {
    AdviseView view([] { return std::vector<AdviseView::OpenSession>{}; });
    view.show();
    view.tabs()->setCurrentIndex(AdviseView::Hetero);
    // The text's example with given throughputs and no model: N / 2N.
    view.model()->setCurrentIndex(0);
    view.devices()->setText("K80, V100");
    view.throughput()->setText("K80=1, V100=2");
    view.batch()->setValue(96);
    QVERIFY(answered(view, AdviseView::Hetero));
    QString text = view.result(AdviseView::Hetero)->toPlainText();
    QVERIFY2(text.contains("1.50×"), qPrintable(text));
    // Estimated from a built-in model, with the predicted step as a session.
    view.model()->setCurrentText("resnet50");
    view.throughput()->clear();
    view.devices()->setText("K80:2, V100:2");
    view.batch()->setValue(64);
    QVERIFY(answered(view, AdviseView::Hetero));
    text = view.result(AdviseView::Hetero)->toPlainText();
    QVERIFY2(text.contains("estimated") && text.contains("All-reduce"), qPrintable(text));
    QVERIFY(view.openTimeline(AdviseView::Hetero)->isEnabled());
    view.grab().toImage().save(QStringLiteral("advise-hetero.png"));
    // An unknown device: said, nothing offered.
    view.devices()->setText("K80, GTX9000");
    QVERIFY(answered(view, AdviseView::Hetero));
    QVERIFY(view.result(AdviseView::Hetero)->toPlainText().contains("unknown device 'GTX9000'"));
    QVERIFY(!view.openTimeline(AdviseView::Hetero)->isEnabled());
  }

 private:
  SessionPtr param_, resnet_, ranks_;
};

QTEST_MAIN(TestAdviseView)
#include "test_advise_view.moc"
