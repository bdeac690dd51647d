// The Statistics tab on the bundled sample, offscreen: the pane shows what core computes, sorts
// on raw values, filters, follows the timeline's range, exports CSV and JSON; a screenshot is
// saved beside the test binary.
#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include "analysis/stats_reports.h"
#include "io/open_session.h"
#include "session_fixture.h"
#include "views/session/session_view.h"
#include "views/session/stats_pane.h"
#include "views/session/stats_table_model.h"
#include "views/session/table_panel.h"
#include "views/timeline/timeline_canvas.h"

using namespace ts;

namespace {

bool waitForTable(StatsPane& pane) {
  QSignalSpy spy(&pane, &StatsPane::updated);
  if (!pane.busy()) return true;
  return spy.wait(10000);
}

// The column of `key` in the pane's current table.
int column(const StatsPane& pane, const std::string& key) {
  const StatsTable& t = pane.model()->table();
  for (size_t c = 0; c < t.columns.size(); ++c) {
    if (t.columns[c].key == key) return static_cast<int>(c);
  }
  return -1;
}

}  // namespace

class TestStatsPane : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    auto s = openSessionFile(TSCOPE_SAMPLE);
    QVERIFY2(s.ok(), s.ok() ? "" : s.error().c_str());
    session_ = *s;
  }

  // Long notes keep to two lines under the table, whole in their tooltip; short ones are shown
  // whole, without one; a wider panel shows more of them.
  void longNotesLeaveTheTableItsRows() {
    TablePanel panel;
    panel.resize(600, 400);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    auto* label = panel.findChildren<QLabel*>().back();
    QString longNotes;
    for (int i = 0; i < 60; ++i) longNotes += QStringLiteral("kernel_%1 ×2 (12 µs); ").arg(i);
    panel.setNotes(longNotes);
    QVERIFY(label->text().size() < longNotes.size());
    QVERIFY(label->text().endsWith(QChar(0x2026)));  // …
    QVERIFY(label->toolTip().contains(QStringLiteral("kernel_59")));
    // Two lines at the label's width, once the panel is laid out again.
    QTRY_VERIFY(label->heightForWidth(label->width()) <=
                2 * label->fontMetrics().lineSpacing() + 4);
    const qsizetype narrow = label->text().size();
    panel.resize(1200, 400);
    QTRY_VERIFY(label->text().size() > narrow);
    panel.setNotes(QStringLiteral("Start: from the iteration's first kernel."));
    QCOMPARE(label->text(), QStringLiteral("Start: from the iteration's first kernel."));
    QVERIFY(label->toolTip().isEmpty());
  }

  void showsWhatCoreComputes() {
    StatsPane pane(session_);
    pane.show();  // a hidden pane computes nothing
    QAbstractItemModelTester tester(pane.model(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(waitForTable(pane));
    auto expected = computeStats(*session_, StatsReport::KernSum, {});
    QVERIFY(expected.ok());
    const StatsTable& shown = pane.model()->table();
    QCOMPARE(shown.report, std::string("kern_sum"));
    QCOMPARE(shown.rows.size(), expected->front().rows.size());
    QCOMPARE(pane.proxy()->rowCount(), 16);  // distinct kernel names in the AlexNet trace
    // Sorting on Total goes by the number, not by its text ("2.6 ms" > "958 µs").
    int total = column(pane, "total_ns");
    pane.view()->sortByColumn(total, Qt::AscendingOrder);
    double previous = -1;
    for (int r = 0; r < pane.proxy()->rowCount(); ++r) {
      double v = pane.proxy()->index(r, total).data(StatsTableModel::SortRole).toDouble();
      QVERIFY(v >= previous);
      previous = v;
    }
    QCOMPARE(pane.proxy()->index(pane.proxy()->rowCount() - 1, total).data().toString(),
             QStringLiteral("2.621 ms"));
    // The filter matches any text column.
    pane.findChild<QLineEdit*>(QStringLiteral("statsFilter"))->setText(QStringLiteral("sgemm"));
    QCOMPARE(pane.proxy()->rowCount(), 1);
    QCOMPARE(pane.shownTable().rows.size(), size_t{1});
  }

  // A live capture's snapshots (SessionView::showSnapshot): the table stays the one made from
  // an earlier snapshot until the user asks for another or the capture ends (not made again each
  // second); the GPU chosen stays chosen when another GPU starts working.
  void aLiveSnapshotKeepsItsTableUntilTheCaptureEnds() {
    std::vector<testing::LayerRange> ranges;
    for (int i = 0; i < 40; ++i)
      ranges.push_back({"l" + std::to_string(i), i * 10'000, i * 10'000 + 9'000, 5'000});
    const SessionPtr first = testing::makeLayerRun({ranges.begin(), ranges.begin() + 20}, 1);
    const SessionPtr last = testing::makeLayerRun(ranges, 2);
    StatsPane pane(first);
    pane.setSession(first, true);  // as SessionView::setLive does
    pane.show();
    QVERIFY(waitForTable(pane));
    auto* scope = pane.findChild<QLabel*>(QStringLiteral("statsScope"));
    QVERIFY(scope->text().contains(QStringLiteral("A snapshot")));
    auto kernels = [&] {
      double n = 0;
      const int c = column(pane, "count");
      for (int r = 0; r < pane.model()->rowCount(); ++r)
        n += pane.model()->table().number(static_cast<size_t>(r), static_cast<size_t>(c));
      return n;
    };
    QCOMPARE(kernels(), 20.0);
    auto* device = pane.findChild<QComboBox*>(QStringLiteral("statsDevice"));
    QVERIFY(device);
    QCOMPARE(device->count(), 2);  // All GPUs, GPU 0
    device->setCurrentIndex(1);
    QVERIFY(waitForTable(pane));
    QCOMPARE(kernels(), 20.0);

    pane.setSession(last, true);
    QVERIFY(!pane.busy());  // nothing started
    QCOMPARE(kernels(), 20.0);
    QCOMPARE(device->count(), 3);                  // the second GPU joins the list
    QCOMPARE(device->currentData().toUInt(), 0u);  // and GPU 0 stays chosen

    pane.setSession(last, false);  // the capture ended: made again from the last snapshot
    QVERIFY(pane.busy());
    QVERIFY(waitForTable(pane));
    QCOMPARE(kernels(), 40.0);  // GPU 0's
    QCOMPARE(device->currentData().toUInt(), 0u);
    QVERIFY(!scope->text().contains(QStringLiteral("A snapshot")));
  }

  void everyTableAndARange() {
    StatsPane pane(session_);
    pane.show();
    QVERIFY(waitForTable(pane));
    // Every report the CLI has (its names from core, so a new one cannot be left out), and the
    // idle gaps of gpu_util as a table of their own; kern_sum last, for the range checks below.
    std::vector<std::string> names{"gpu_gaps"};
    for (StatsReport r : allStatsReports()) {
      if (r != StatsReport::KernSum) names.emplace_back(toString(r));
    }
    names.emplace_back("kern_sum");
    auto* chooser = pane.findChild<QComboBox*>(QStringLiteral("statsReport"));
    QVERIFY(chooser);
    QCOMPARE(chooser->count(), static_cast<int>(names.size()));
    for (const std::string& name : names) {
      pane.setTableName(QString::fromStdString(name));
      QVERIFY(waitForTable(pane));
      QCOMPARE(pane.model()->table().report, name);
      QVERIFY2(pane.model()->rowCount() > 0, name.c_str());
    }
    // A range over the whole session holds all 79 kernels; its last 60 ms hold fewer.
    TimeNs end = session_->endTime();
    pane.setRange(std::pair(session_->startTime(), end));
    QVERIFY(waitForTable(pane));
    auto count = [&] {
      double n = 0;
      int c = column(pane, "count");
      for (int r = 0; r < pane.model()->rowCount(); ++r)
        n += pane.model()->table().number(static_cast<size_t>(r), static_cast<size_t>(c));
      return n;
    };
    QCOMPARE(count(), 79.0);
    StatsOptions o;
    o.start = end - 60'000'000;
    o.end = end;
    pane.setRange(std::pair(o.start, o.end));
    QVERIFY(waitForTable(pane));
    auto expected = computeStats(*session_, StatsReport::KernSum, o);
    QVERIFY(expected.ok());
    double n = 0;
    for (size_t r = 0; r < expected->front().rows.size(); ++r) n += expected->front().number(r, 2);
    QCOMPARE(count(), n);
    QVERIFY(n < 79.0);
  }

  void exportsCsvAndJson() {
    StatsPane pane(session_);
    pane.show();
    QVERIFY(waitForTable(pane));
    QTemporaryDir dir;
    QString csv = dir.filePath(QStringLiteral("kern.csv")),
            json = dir.filePath(QStringLiteral("kern.json"));
    QVERIFY(pane.exportTo(csv).ok());
    QVERIFY(pane.exportTo(json).ok());
    QFile f(csv);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QByteArray text = f.readAll();
    QVERIFY(
        text.startsWith("time_pct,total_ns,count,avg_ns,med_ns,min_ns,max_ns,stddev_ns,name\r\n"));
    QCOMPARE(text.count('\n'), 17);  // header and 16 rows
    QFile j(json);
    QVERIFY(j.open(QIODevice::ReadOnly));
    QJsonDocument doc = QJsonDocument::fromJson(j.readAll());
    QCOMPARE(doc.object()[QStringLiteral("rows")].toArray().size(), 16);
    QVERIFY(!pane.exportTo(dir.filePath(QStringLiteral("no/such/dir/x.csv"))).ok());
  }

  void followsTheTimelineAndScreenshot() {
    SessionView view(session_, QStringLiteral("sample.tscope"));
    view.resize(1400, 1000);
    view.show();
    view.bottomTabs()->setCurrentWidget(view.stats());
    QVERIFY(waitForTable(*view.stats()));
    TimeNs end = session_->endTime();
    emit view.timeline()->rangeSelected(end - 60'000'000, end);
    QVERIFY(waitForTable(*view.stats()));
    QCOMPARE(view.bottomTabs()->currentWidget(), view.stats());  // the reader stays on it
    QVERIFY(view.stats()
                ->findChild<QLabel*>(QStringLiteral("statsScope"))
                ->text()
                .startsWith(QStringLiteral("Range")));
    emit view.timeline()->rangeCleared();
    QVERIFY(waitForTable(*view.stats()));
    QVERIFY(view.stats()
                ->findChild<QLabel*>(QStringLiteral("statsScope"))
                ->text()
                .startsWith(QStringLiteral("Whole")));
    view.stats()->setTableName(QStringLiteral("gpu_gaps"));
    QVERIFY(waitForTable(*view.stats()));
    // Double-clicking a gap shows it on the timeline, with a margin either side.
    QSignalSpy zoom(view.stats(), &StatsPane::zoomRequested);
    emit view.stats()->view()->doubleClicked(view.stats()->proxy()->index(0, 0));
    QCOMPARE(zoom.count(), 1);
    const StatsTable& gaps = view.stats()->model()->table();
    TimeNs gapStart = static_cast<TimeNs>(gaps.number(0, 1)) + session_->startTime();
    QVERIFY(zoom[0][0].value<TimeNs>() < gapStart);
    QVERIFY(view.timeline()->axis().start() < gapStart);
    QVERIFY(view.timeline()->axis().start() >
            session_->startTime());  // zoomed in from the full view
    view.grab().toImage().save(QStringLiteral("stats-sample-gaps.png"));
    view.stats()->setTableName(QStringLiteral("kern_sum"));
    QVERIFY(waitForTable(*view.stats()));
    view.grab().toImage().save(QStringLiteral("stats-sample.png"));
  }

  // The filling text column keeps its contents' width when the numbers are wider than the pane
  // (utilisation buckets in a narrow pane read "PU / strear"), and fills the width left when
  // they are not; in the gaps table the CPU activity fills, not the GPU's label.
  void textColumnsKeepTheirWidth() {
    StatsTable t{"gpu_util", "GPU utilisation", {}, {}, {}};
    t.columns.push_back({"row", "GPU / stream", StatsUnit::Text});
    for (int b = 0; b < 12; ++b)
      t.columns.push_back({"bucket_" + std::to_string(b), "+12.34 s", StatsUnit::Percent});
    std::vector<StatsCell> row{std::string("GPU 0: NVIDIA A100-PG509-200")};
    for (int b = 0; b < 12; ++b) row.emplace_back(50.0);
    t.rows.push_back(row);
    TablePanel panel;
    panel.resize(500, 300);
    panel.show();
    panel.setTable(t);
    QCoreApplication::processEvents();
    QTableView* v = panel.view();
    // One line per row, elided in the middle: wrapped at ", ", a distinct kernel name lost the
    // part that tells it apart below the row.
    QVERIFY(!v->wordWrap());
    QCOMPARE(v->textElideMode(), Qt::ElideMiddle);
    const int needed =
        v->fontMetrics().horizontalAdvance(QStringLiteral("GPU 0: NVIDIA A100-PG509-200"));
    QVERIFY2(v->columnWidth(0) >= needed, qPrintable(QString::number(v->columnWidth(0))));
    for (int width : {1400, 450}) {  // the pane resized: it keeps it too
      panel.resize(width, 300);
      QCoreApplication::processEvents();
      QVERIFY2(v->columnWidth(0) >= needed, qPrintable(QString::number(v->columnWidth(0))));
    }
    // Few columns in a wide pane: the last text column fills the width.
    StatsTable gaps{"gpu_gaps", "GPU idle gaps", {}, {}, {}};
    gaps.columns = {{"gpu", "GPU", StatsUnit::Text},
                    {"duration_ns", "Duration", StatsUnit::Duration},
                    {"cpu", "CPU activity meanwhile", StatsUnit::Text}};
    gaps.rows.push_back({std::string("GPU 0"), int64_t{1000}, std::string("cudaMalloc ×2")});
    panel.resize(1200, 300);
    panel.setTable(gaps);
    QCoreApplication::processEvents();
    QCOMPARE(v->columnWidth(0) + v->columnWidth(1) + v->columnWidth(2), v->viewport()->width());
    QVERIFY(v->columnWidth(2) > v->columnWidth(0) * 3);
    v->setColumnWidth(1, v->columnWidth(1) + 50);  // the user widens one: the filling one gives
    QCOMPARE(v->columnWidth(0) + v->columnWidth(1) + v->columnWidth(2), v->viewport()->width());
  }

 private:
  SessionPtr session_;
};

QTEST_MAIN(TestStatsPane)
#include "test_stats_pane.moc"
