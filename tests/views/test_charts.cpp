// Charts and images: every chart of the bundled sample exports as PNG (decodes at the requested
// size and scale), SVG (valid XML with the chart's title and axis labels) and PDF (a header and
// one page); the charts carry the table's numbers; the timeline exports too. The PNGs are kept
// beside the test binary for a look.
#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QFile>
#include <QGraphicsScene>
#include <QHorizontalBarSeries>
#include <QImage>
#include <QLineSeries>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTextDocumentFragment>
#include <QValueAxis>
#include <QXmlStreamReader>
#include <QtTest>

#include "app/gui/export_flow.h"
#include "app/gui/main_window.h"
#include "app/gui/simulation_flow.h"
#include "io/open_session.h"
#include "memsim/engine/simulation.h"
#include "session/kernel_name.h"
#include "synth/synthetic_session.h"
#include "views/charts/bar_names.h"
#include "views/charts/chart_export.h"
#include "views/charts/chart_view.h"
#include "views/charts/charts_pane.h"
#include "views/charts/session_charts.h"
#include "views/charts/sim_charts.h"
#include "views/session/session_view.h"
#include "views/session/stats_table_model.h"
#include "views/session/table_panel.h"
#include "views/simulation/sweep_view.h"
#include "views/timeline/timeline_canvas.h"

using namespace ts;

class TestCharts : public QObject {
  Q_OBJECT
 private:
  // PNG at the print scale, SVG with the title and an axis title as text, PDF with one page.
  static void checkExports(QChart* chart, const QString& name) {
    QTemporaryDir dir;
    const QSize size(800, 500);
    QString png = dir.filePath(name + QStringLiteral(".png")),
            svg = dir.filePath(name + QStringLiteral(".svg")),
            pdf = dir.filePath(name + QStringLiteral(".pdf"));
    QVERIFY(exportChart(chart, size, ImageFormat::Png, png, 2.0).ok());
    QVERIFY(exportChart(chart, size, ImageFormat::Svg, svg).ok());
    QVERIFY(exportChart(chart, size, ImageFormat::Pdf, pdf).ok());
    QImage image(png);
    QCOMPARE(image.size(), QSize(1600, 1000));  // the print scale
    image.save(QStringLiteral("chart-%1.png").arg(name));
    QFile s(svg);
    QVERIFY(s.open(QIODevice::ReadOnly));
    QXmlStreamReader xml(&s);
    QStringList texts;
    while (!xml.atEnd()) {
      if (xml.readNext() == QXmlStreamReader::Characters) texts << xml.text().toString().trimmed();
    }
    QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
    // The title's lines (the chart's name; for a session chart, what it covers) are text in it.
    const QString plain = QTextDocumentFragment::fromHtml(chart->title()).toPlainText();
    for (const QString& line :
         plain.split(QRegularExpression(QStringLiteral("[\\n\\x{2028}]")), Qt::SkipEmptyParts))
      QVERIFY2(texts.contains(line.trimmed()), qPrintable(name + QStringLiteral(": ") + line));
    bool axisTitle = false;
    for (QAbstractAxis* axis : chart->axes()) axisTitle |= texts.contains(axis->titleText());
    QVERIFY2(axisTitle, qPrintable(name));
    QFile p(pdf);
    QVERIFY(p.open(QIODevice::ReadOnly));
    QByteArray bytes = p.readAll();
    QVERIFY(bytes.startsWith("%PDF-"));
    QCOMPARE(
        bytes.count("/Type /Page\n") + bytes.count("/Type /Page\r") + bytes.count("/Type /Page "),
        1);
  }

 private slots:
  void initTestCase() {
    auto s = openSessionFile(TSCOPE_SAMPLE);
    QVERIFY(s.ok());
    session_ = *s;
  }

  void everyChartInEveryFormat() {
    QTemporaryDir dir;
    for (const QString& name : sessionChartNames()) {
      const auto kind = sessionChartFromName(name);
      QVERIFY(kind);
      ChartOptions named;
      named.sessionName = "sample.tscope";
      auto made = makeSessionChart(*session_, *kind, named);
      QVERIFY2(made.ok(), made.ok() ? "" : made.error().c_str());
      std::unique_ptr<QChart> chart = std::move(*made);
      // An exported image says what it shows: the session and the range under the title.
      QVERIFY2(chart->title().contains(QStringLiteral("sample.tscope · 0 s – 43.4")),
               qPrintable(chart->title()));
      checkExports(chart.get(), name);
    }
    // Utilisation over the whole session, in the span's unit: a 43 s session from 0 to 43.4 s
    // (it was drawn in ms through the buckets' middles, from 2 s to 41 s).
    {
      auto made = makeSessionChart(*session_, SessionChart::GpuUtilisation, {});
      QVERIFY2(made.ok(), made.ok() ? "" : made.error().c_str());
      std::unique_ptr<QChart> util = std::move(*made);
      auto* x = qobject_cast<QValueAxis*>(util->axes(Qt::Horizontal).front());
      QVERIFY(x && x->titleText().endsWith(QStringLiteral("(s)")));
      auto* line = qobject_cast<QLineSeries*>(util->series().front());
      QVERIFY(line && line->count() >= 2);
      QCOMPARE(line->at(0).x(), 0.0);
      QVERIFY(std::abs(line->at(line->count() - 1).x() - x->max()) < 1e-9);
    }
    // A range and a GPU are named too.
    ChartOptions ranged;
    ranged.stats.start = session_->startTime() + 30'000'000'000;
    ranged.stats.end = session_->startTime() + 31'500'000'000;
    ranged.stats.device = 0;
    const QString subject = chartSubject(*session_, ranged);
    QVERIFY2(subject.contains(QStringLiteral("30.00 s – 31.50 s")) &&
                 subject.contains(QStringLiteral("GPU 0")),
             qPrintable(subject));
  }

  // The memory-tier charts, from a simulated session written and read back, and a sweep.
  void simulationChartsInEveryFormatWithTheirNumbers() {
    memsim::SimWorkload w;
    w.name = "toy";
    constexpr int64_t GiB = int64_t{1} << 30;
    for (int i = 0; i < 9; ++i) w.tensors.push_back({"a" + std::to_string(i), GiB, false});
    for (int i = 0; i < 8; ++i) w.kernels.push_back({"fwd", 50'000'000, {i}, {i + 1}, 0, {}});
    w.lossKernel = 8;
    for (int i = 7; i >= 0; --i) w.kernels.push_back({"bwd", 50'000'000, {i, i + 1}, {}, 0, {}});
    memsim::TierConfig tiers = *memsim::tierPreset("g10-default");
    tiers.gpuBytes = 4 * GiB;
    auto runs = memsim::runPolicies(w, memsim::allPolicies(), tiers);
    QVERIFY(runs.ok());
    auto simOrError = memsim::simulationSession(w, *runs, tiers);
    QVERIFY2(simOrError.ok(), simOrError.ok() ? "" : simOrError.error().c_str());
    SessionPtr sim = *simOrError;
    auto read = memsim::readSimulatedSession(*sim);
    QVERIFY2(read.ok(), read.ok() ? "" : read.error().c_str());
    QCOMPARE(read->size(), runs->size());
    const memsim::SimulatedRun& g10 = read->front();
    QCOMPARE(g10.policy, std::string("g10"));
    QCOMPARE(g10.iteration, (*runs)[0].result.summary.iteration);
    QCOMPARE(g10.ideal, w.idealTime());
    QCOMPARE(g10.linkBytes, (*runs)[0].result.summary.linkBytes);

    StatsTable layers;
    layers.title = "Measured and simulated time per layer — g10 (simulated)";
    layers.columns = {{"layer", "Layer", StatsUnit::Text},
                      {"measured_ns", "Measured", StatsUnit::Duration},
                      {"simulated_ns", "Simulated", StatsUnit::Duration}};
    layers.rows = {{std::string("conv1 (forward)"), int64_t{3'000'000}, int64_t{5'500'000}},
                   {std::string("fc"), std::monostate{}, int64_t{1'000'000}}};
    memsim::SweepTable sweep;
    sweep.key = "gpu-mem";
    for (double gb : {4.0, 8.0, 16.0}) {
      sweep.points.push_back({gb * 1e9, "g10", true, 2'000'000, 1'000'000, 16.0 / gb + 1});
      sweep.points.push_back(
          {gb * 1e9, "flashneuron", gb > 4, 3'000'000, 1'000'000, gb > 4 ? 24.0 / gb + 1 : 0});
    }
    std::unique_ptr<QChart> charts[] = {
        std::unique_ptr<QChart>(makeTierUsageChart(g10, false)),
        std::unique_ptr<QChart>(makeLinkTrafficChart(*read, false)),
        std::unique_ptr<QChart>(makePolicyPerformanceChart({*read, *read}, true)),
        std::unique_ptr<QChart>(makeSweepChart(sweep, false)),
        std::unique_ptr<QChart>(makeLayerComparisonChart(layers, false))};
    for (int i = 0; i < 5; ++i) checkExports(charts[i].get(), simChartNames()[i]);
    auto* layerBars = qobject_cast<QHorizontalBarSeries*>(charts[4]->series().front());
    QCOMPARE(layerBars->barSets().at(0)->count(), 1);  // only the measured layer
    QCOMPARE(layerBars->barSets().at(1)->at(0), 5.5);  // simulated, ms
    // The numbers: traffic in GiB per link, ideal / iteration per policy, the sweep's points.
    QBarSet* traffic = qobject_cast<QBarSeries*>(charts[1]->series().front())->barSets().front();
    QCOMPARE(traffic->label(), QStringLiteral("g10"));
    QCOMPARE(traffic->at(0), static_cast<double>(g10.linkBytes[0]) / GiB);
    QBarSet* performance =
        qobject_cast<QBarSeries*>(charts[2]->series().front())->barSets().front();
    QCOMPARE(performance->count(), 2);  // two workloads
    QCOMPARE(performance->at(0),
             static_cast<double>(g10.ideal) / static_cast<double>(g10.iteration));
    auto* flash = qobject_cast<QLineSeries*>(charts[3]->series().at(1));
    QCOMPARE(flash->name(), QStringLiteral("flashneuron"));
    QCOMPARE(flash->count(), 2);  // the infeasible point is left out
    QCOMPARE(flash->at(0), QPointF(8, 4));

    // A simulated session's Charts tab offers them.
    SessionView view(sim, QStringLiteral("sim.tscope"));
    view.resize(1400, 1000);
    view.show();
    QSignalSpy updated(view.charts(), &ChartsPane::updated);
    view.bottomTabs()->setCurrentWidget(view.charts());
    QVERIFY(updated.wait(10000));
    view.charts()->setChart(QStringLiteral("tier_usage:g10"));
    QVERIFY(view.charts()->view()->chart()->title().contains(QStringLiteral("g10")));
    QCOMPARE(view.charts()->view()->chart()->series().size(), 4);  // three tiers and the capacity
    view.grab().save(QStringLiteral("charts-simulation.png"));
  }

  // File → Open Sweep Results (or a dropped .csv): the table and the sensitivity chart.
  void sweepResultsOpenInATab() {
    QTemporaryDir dir;
    QString csv = dir.filePath(QStringLiteral("sweep.csv")),
            bad = dir.filePath(QStringLiteral("bad.csv"));
    QFile f(csv);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(
        "gpu-mem,policy,feasible,iteration_ns,ideal_ns,slowdown,stall_ns\r\n"
        "16000000000,g10,yes,3000,1000,3,2000\r\n16000000000,lru,no,,1000,,\r\n"
        "32000000000,g10,yes,1500,1000,1.5,500\r\n32000000000,lru,yes,4000,1000,4,3000\r\n");
    f.close();
    QFile b(bad);
    QVERIFY(b.open(QIODevice::WriteOnly));
    b.write("name,value\n");
    b.close();
    MainWindow window;
    window.resize(1200, 800);
    window.show();
    // Read off the GUI thread: the tab follows.
    QSignalSpy opened(window.simulation(), &SimulationFlow::sweepOpened);
    window.openFiles({csv});
    QVERIFY(opened.wait(10000));
    QCOMPARE(opened.takeFirst().at(1).toBool(), true);
    auto* view = qobject_cast<SweepView*>(window.tabs()->currentWidget());
    QVERIFY(view);
    QCOMPARE(view->table()->model()->table().rows.size(), size_t{4});
    auto lines = view->chart()->chart()->series();
    QCOMPARE(lines.size(), 2);
    QCOMPARE(qobject_cast<QLineSeries*>(lines.at(0))->count(), 2);
    QCOMPARE(qobject_cast<QLineSeries*>(lines.at(1))->count(),
             1);  // lru's infeasible point left out
    QCOMPARE(qobject_cast<QLineSeries*>(lines.at(0))->at(1), QPointF(32, 1.5));
    view->grab().save(QStringLiteral("sweep-view.png"));
    window.simulation()->openSweep(bad);
    QVERIFY(opened.wait(10000));
    QCOMPARE(opened.takeFirst().at(1).toBool(), false);
    QVERIFY(window.lastError().contains(QStringLiteral("bad.csv:1")));
  }

  void chartsCarryTheTablesNumbers() {
    auto made = makeSessionChart(*session_, SessionChart::TopKernels, {});
    QVERIFY(made.ok());
    std::unique_ptr<QChart> chart = std::move(*made);
    auto* series = qobject_cast<QHorizontalBarSeries*>(chart->series().front());
    QVERIFY(series);
    QBarSet* set = series->barSets().front();
    auto table = computeStats(*session_, StatsReport::KernSum, {});
    QVERIFY(table.ok());
    // The largest is drawn last (on top).
    QCOMPARE(set->at(set->count() - 1), table->front().number(0, 1) / 1e6);
    // One bar per kernel name up to 15, every category distinct (equal ones would merge bars),
    // and the title counts what is drawn.
    const int expected = std::min<int>(15, static_cast<int>(table->front().rows.size()));
    QCOMPARE(set->count(), expected);
    auto* axis = qobject_cast<QBarCategoryAxis*>(chart->axes(Qt::Vertical).front());
    QVERIFY(axis);
    const QStringList categories = axis->categories();
    QCOMPARE(static_cast<int>(QSet<QString>(categories.begin(), categories.end()).size()),
             expected);
    QVERIFY2(chart->title().contains(QStringLiteral("Top %1 kernels").arg(expected)),
             qPrintable(chart->title()));
    // The names are drawn beside the bars, not elided to "…" by the category axis as they were
    // in a pane of usual height: at 900 × 420 each has its line, in full.
    BarNames* names = nullptr;
    for (QGraphicsItem* item : chart->childItems())
      if (auto* b = dynamic_cast<BarNames*>(item)) names = b;
    QVERIFY(names);
    QGraphicsScene scene;
    scene.addItem(chart.get());
    const auto detach = qScopeGuard([&] { scene.removeItem(chart.get()); });  // chart owns it
    chart->setGeometry(0, 0, 900, 420);
    QApplication::processEvents();
    QStringList shown = names->shownNames();
    QCOMPARE(shown.size(), expected);
    std::vector<std::string_view> full;
    for (int i = 0; i < expected; ++i)
      full.push_back(std::get<std::string>(table->front().rows[static_cast<size_t>(i)].back()));
    const std::vector<std::string> wanted = distinctShortNames(full);
    QFontMetrics fm(names->font());
    for (int i = 0; i < shown.size(); ++i) {
      // In full, unless longer than the names' room (40 % of the width).
      const QString name = QString::fromStdString(wanted[static_cast<size_t>(expected - 1 - i)]);
      QVERIFY2(shown[i] == name || fm.horizontalAdvance(name) > 0.4 * 900, qPrintable(shown[i]));
      QVERIFY(fm.horizontalAdvance(shown[i]) <= chart->plotArea().left());  // left of the plot
    }
    // A pane as short as the Charts tab at 1280 × 800 names every bar, in a smaller font.
    chart->setGeometry(0, 0, 900, 200);
    QApplication::processEvents();
    QVERIFY2(!names->shownNames().contains(QString()), qPrintable(names->shownNames().join('|')));
    QVERIFY(names->shownFont().pixelSize() < names->font().pixelSize());
    // Shorter still, every other name is drawn, the largest always.
    chart->setGeometry(0, 0, 900, 150);
    QApplication::processEvents();
    shown = names->shownNames();
    QVERIFY(!shown.back().isEmpty());
    QVERIFY(shown.count(QString()) > 0);
    auto madeHistogram = makeSessionChart(*session_, SessionChart::KernelHistogram, {});
    QVERIFY(madeHistogram.ok());
    std::unique_ptr<QChart> histogram = std::move(*madeHistogram);
    QBarSet* bins = qobject_cast<QBarSeries*>(histogram->series().front())->barSets().front();
    double kernels = 0;
    for (int i = 0; i < bins->count(); ++i) kernels += bins->at(i);
    QCOMPARE(kernels, 79.0);
  }

  // A session of two GPUs: the Charts tab chooses one (the README's "the GPU chosen"), and the
  // chart says which under its title; one GPU is named without being chosen.
  void chartsTabChoosesTheGpu() {
    SyntheticSpec spec;
    spec.gpus = 2;
    spec.events = 4000;
    auto two = generateSyntheticSession(spec);
    QVERIFY(two.ok());
    ChartsPane pane(*two);
    pane.resize(900, 500);
    pane.show();
    QSignalSpy updated(&pane, &ChartsPane::updated);
    auto settle = [&] {
      if (!pane.busy() && updated.count() > 0) return;
      while (pane.busy() || updated.isEmpty()) QVERIFY(updated.wait(10000));
    };
    settle();
    QComboBox* device = pane.deviceChooser();
    QVERIFY(device->isVisible());
    QCOMPARE(device->count(), 3);  // all, GPU 0, GPU 1
    const QString gpu1 = QString::fromStdString((*two)->deviceLabel(1));
    QVERIFY(!pane.view()->chart()->title().contains(gpu1));
    updated.clear();
    pane.setDevice(1);
    settle();
    QVERIFY2(pane.view()->chart()->title().contains(gpu1.toHtmlEscaped()),
             qPrintable(pane.view()->chart()->title()));
    ChartOptions all;
    QVERIFY(chartSubject(*session_, all).contains(QStringLiteral("GPU 0")));  // the sample's one
  }

  void chartsTabFollowsTheRangeAndExports() {
    QTemporaryDir dir;
    SessionView view(session_, QStringLiteral("sample.tscope"));
    view.resize(1400, 1000);
    view.show();
    // Nothing is computed for a hidden tab; showing it draws the chart.
    QVERIFY(view.charts()->view()->chart()->series().isEmpty());
    QSignalSpy updated(view.charts(), &ChartsPane::updated);
    view.bottomTabs()->setCurrentWidget(view.charts());
    QVERIFY(updated.wait(10000));
    auto settle = [&] {
      while (view.charts()->busy()) QVERIFY(updated.wait(10000));
    };
    view.charts()->setChart(QStringLiteral("top_kernels"));
    settle();
    auto bars = [&] {
      return qobject_cast<QHorizontalBarSeries*>(view.charts()->view()->chart()->series().front())
          ->barSets()
          .front()
          ->count();
    };
    QCOMPARE(bars(), 15);
    TimeNs end = session_->endTime();
    emit view.timeline()->rangeSelected(end - 60'000'000, end);
    settle();
    QCOMPARE(view.bottomTabs()->currentWidget(), view.charts());  // the reader stays on it
    QVERIFY(bars() < 15);  // fewer kernel names in the last 60 ms
    QString pdf = dir.filePath(QStringLiteral("c.pdf"));
    QVERIFY(view.charts()->exportTo(pdf).ok());
    QVERIFY(QFile::exists(pdf));
    QVERIFY(!view.charts()->exportTo(dir.filePath(QStringLiteral("c.bmp"))).ok());
    emit view.timeline()->rangeCleared();
    settle();
    QCOMPARE(bars(), 15);
    view.grab().save(QStringLiteral("charts-sample.png"));
  }

  void timelineImageFromTheWindow() {
    QTemporaryDir dir;
    MainWindow window;
    window.resize(1200, 800);
    window.show();
    QSignalSpy opened(&window, &MainWindow::sessionOpened);
    window.openFiles({QStringLiteral(TSCOPE_SAMPLE)});
    QVERIFY(opened.wait(10000));
    QString png = dir.filePath(QStringLiteral("tl.png"));
    QVERIFY(window.exports()->timelineImage(png).ok());
    QImage image(png);
    QVERIFY(image.width() > 1000);  // twice the canvas's size
  }

  void timelineExports() {
    QTemporaryDir dir;
    TimelineCanvas canvas(session_);
    canvas.resize(1200, 700);
    canvas.fitAll();
    auto paint = [&](QPainter& p, QSize s) { canvas.render(p, s); };
    QString png = dir.filePath(QStringLiteral("t.png")),
            svg = dir.filePath(QStringLiteral("t.svg"));
    QVERIFY(exportPainting(paint, QSize(1200, 700), ImageFormat::Png, png).ok());
    QVERIFY(exportPainting(paint, QSize(1200, 700), ImageFormat::Svg, svg).ok());
    QCOMPARE(QImage(png).size(), QSize(1200, 700));
    QFile s(svg);
    QVERIFY(s.open(QIODevice::ReadOnly));
    QVERIFY(s.readAll().contains("Stream 7"));  // track labels are text in the vector output
    QVERIFY(!exportPainting(paint, QSize(1200, 700), ImageFormat::Png,
                            dir.filePath(QStringLiteral("no/dir/t.png")))
                 .ok());
  }

 private:
  SessionPtr session_;
};

QTEST_MAIN(TestCharts)
#include "test_charts.moc"
