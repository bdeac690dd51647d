#include "views/charts/session_charts.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QGraphicsLayout>
#include <QHorizontalBarSeries>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QValueAxis>
#include <algorithm>
#include <cmath>
#include <filesystem>

#include "analysis/intervals.h"
#include "session/kernel_name.h"
#include "util/format.h"
#include "views/charts/bar_names.h"

namespace ts {

QChart* newChart(const QString& title, bool dark) {
  auto* chart = new QChart;
  chart->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
  chart->setTitle(title);
  chart->setAnimationOptions(QChart::NoAnimation);
  chart->legend()->setAlignment(Qt::AlignBottom);
  // The plot gets the pane's height: Qt's default padding (a card inside the view, margins inside
  // it) took a third of a pane of 1280 × 800.
  chart->layout()->setContentsMargins(0, 0, 0, 0);
  chart->setBackgroundRoundness(0);
  chart->setMargins(QMargins(8, 4, 12, 4));
  return chart;
}

namespace {

constexpr double kGiB = 1073741824.0;  // sizes and rates in binary units, as the tables

const char* kNames[] = {"kernel_histogram", "top_kernels", "gpu_util", "copy_bandwidth"};

int column(const StatsTable& t, const char* key) {
  for (size_t c = 0; c < t.columns.size(); ++c) {
    if (t.columns[c].key == key) return static_cast<int>(c);
  }
  return -1;
}

QString clippedName(const std::string& name, int max = 48) {
  QString s = QString::fromStdString(name);
  return s.size() > max ? s.left(max - 1) + QChar(0x2026) : s;
}

QChart* histogram(const StatsTable& t, const ChartOptions& o) {
  QChart* chart = newChart(QObject::tr("Kernel duration histogram"), o.dark);
  auto* set = new QBarSet(QObject::tr("Kernels"));
  QStringList bins;
  int from = column(t, "bin_start_ns"), count = column(t, "count");
  double most = 1;
  for (size_t r = 0; r < t.rows.size(); ++r) {
    double n = t.number(r, static_cast<size_t>(count));
    // A log axis cannot show zero: empty bins sit at its floor.
    *set << (o.logScale ? std::max(n, 0.5) : n);
    most = std::max(most, n);
    bins << QString::fromStdString(
        formatDuration(static_cast<TimeNs>(t.number(r, static_cast<size_t>(from)))));
  }
  auto* series = new QBarSeries;
  series->append(set);
  chart->addSeries(series);
  auto* x = new QBarCategoryAxis;
  x->append(bins);
  x->setTitleText(QObject::tr("Kernel duration (bin start, four bins per decade)"));
  // Upright while each bin has room for its label ("178 µs"), slanted only when many bins share
  // the axis: rotated labels were cut to "…" in a pane of usual height.
  x->setLabelsAngle(bins.size() <= 14 ? 0 : -45);
  chart->legend()->hide();  // one series, named by the axis
  chart->addAxis(x, Qt::AlignBottom);
  series->attachAxis(x);
  QAbstractAxis* y = nullptr;
  if (o.logScale) {
    auto* log = new QLogValueAxis;
    log->setBase(10);
    log->setRange(0.5, most * 2);
    log->setLabelFormat(QStringLiteral("%g"));
    y = log;
  } else {
    auto* lin = new QValueAxis;
    lin->setRange(0, most * 1.05);
    lin->applyNiceNumbers();  // ticks on round counts
    lin->setLabelFormat(QStringLiteral("%g"));
    y = lin;
  }
  y->setTitleText(QObject::tr("Kernels"));
  chart->addAxis(y, Qt::AlignLeft);
  series->attachAxis(y);
  return chart;
}

QChart* topKernels(const StatsTable& t, const ChartOptions& o) {
  size_t n = std::min(t.rows.size(), static_cast<size_t>(std::max(o.topN, 1)));
  // The title counts the bars drawn (a run may have fewer kernel names than asked for).
  QChart* chart = newChart(QObject::tr("Top %1 kernels by total time").arg(n), o.dark);
  auto* set = new QBarSet(QObject::tr("Total time (ms)"));
  int total = column(t, "total_ns");
  // Names are short (Nsight's style), with what tells apart template instances that shorten
  // alike; the categories of a bar axis must differ too, or their bars merge.
  std::vector<std::string_view> full;
  for (size_t i = 0; i < n; ++i) full.push_back(std::get<std::string>(t.rows[i].back()));
  const std::vector<std::string> shown = distinctShortNames(full);
  QStringList categories, names, tips;
  double most = 0;
  // Horizontal bars go bottom-up: the largest is listed last, so it is drawn on top.
  for (size_t i = n; i-- > 0;) {
    double ms = t.number(i, static_cast<size_t>(total)) / 1e6;
    *set << ms;
    most = std::max(most, ms);
    categories << QString::number(i + 1);
    names << QString::fromStdString(shown[i]);
    tips << QStringLiteral("%1\n%2 in total")
                .arg(QString::fromUtf8(full[i].data(), static_cast<qsizetype>(full[i].size())),
                     QString::fromStdString(t.text(i, static_cast<size_t>(total))));
  }
  auto* series = new QHorizontalBarSeries;
  series->append(set);
  chart->addSeries(series);
  // The axis places the bars (categories by rank); BarNames writes the names beside them.
  auto* y = new QBarCategoryAxis;
  y->append(categories);
  y->setLabelsVisible(false);
  y->setGridLineVisible(false);
  chart->legend()->hide();  // one series, named by the x axis
  chart->addAxis(y, Qt::AlignLeft);
  series->attachAxis(y);
  auto* x = new QValueAxis;
  x->setRange(0, std::max(most * 1.05, 1e-3));
  x->applyNiceNumbers();
  x->setTitleText(QObject::tr("Total time (ms)"));
  chart->addAxis(x, Qt::AlignBottom);
  series->attachAxis(x);
  new BarNames(chart, series, names, tips);
  return chart;
}

QChart* utilisation(const Session& s, const StatsTable& t, const ChartOptions& o) {
  QChart* chart = newChart(QObject::tr("GPU utilisation over time"), o.dark);
  TimeNs start = std::max(o.stats.start, s.startTime()), end = std::min(o.stats.end, s.endTime());
  auto* x = new QValueAxis;
  // In the unit the span reads in (a 43 s session in s, not 10000 … 40000 ms).
  const double length = static_cast<double>(std::max<TimeNs>(1, end - start));
  const double unit = length >= 1e10 ? 1e9 : length >= 1e7 ? 1e6 : length >= 1e4 ? 1e3 : 1.0;
  const QString unitName = unit == 1e9   ? QStringLiteral("s")
                           : unit == 1e6 ? QStringLiteral("ms")
                           : unit == 1e3 ? QStringLiteral("µs")
                                         : QStringLiteral("ns");
  x->setTitleText(QObject::tr("Time from session start (%1)").arg(unitName));
  x->setRange(static_cast<double>(start - s.startTime()) / unit,
              static_cast<double>(end - s.startTime()) / unit);
  // Ticks at round times from the session start (1, 2 or 5 × 10^k of the unit), not at tenths of
  // an odd range.
  const double span = std::max(1e-6, x->max() - x->min());
  double step = std::pow(10.0, std::floor(std::log10(span / 6)));
  for (double m : {2.0, 5.0, 10.0}) {
    if (span / step <= 8) break;
    step = std::pow(10.0, std::floor(std::log10(span / 6))) * m;
  }
  x->setTickType(QValueAxis::TicksDynamic);
  x->setTickAnchor(0);
  x->setTickInterval(step);
  x->setLabelFormat(QStringLiteral("%g"));
  auto* y = new QValueAxis;
  y->setTitleText(QObject::tr("Busy %"));  // a kernel running; longer titles are cut in short panes
  y->setRange(0, 100);
  y->setTickCount(6);  // 0, 20, … 100
  y->setLabelFormat(QStringLiteral("%g"));
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  int first = column(t, "bucket_0");
  for (size_t r = 0; r < t.rows.size(); ++r) {
    const std::string& label = std::get<std::string>(t.rows[r][0]);
    if (label.rfind("  ", 0) == 0) continue;  // stream rows: the GPU lines only
    if (t.number(r, static_cast<size_t>(column(t, "kernels"))) == 0)
      continue;  // idle GPUs would hide the others
    auto* line = new QLineSeries;
    line->setName(clippedName(label, 40));
    // Steps, each bucket's share held over all of it: the line spans the whole range (drawn
    // through the buckets' middles, it stopped short of both ends).
    for (int b = 0; b < o.stats.buckets; ++b) {
      auto [bs, be] = bucketBounds(start, end, o.stats.buckets, b);
      const double busy = t.number(r, static_cast<size_t>(first + b));
      line->append(static_cast<double>(bs - s.startTime()) / unit, busy);
      line->append(static_cast<double>(be - s.startTime()) / unit, busy);
    }
    chart->addSeries(line);
    line->attachAxis(x);
    line->attachAxis(y);
  }
  return chart;
}

QChart* bandwidth(const StatsTable& t, const ChartOptions& o) {
  QChart* chart = newChart(QObject::tr("Achieved copy bandwidth by kind"), o.dark);
  auto* set = new QBarSet(QObject::tr("Bandwidth (GB/s)"));
  QStringList kinds;
  int bw = column(t, "bandwidth"), op = column(t, "operation");
  double most = 0;
  for (size_t r = 0; r < t.rows.size(); ++r) {
    const std::string& kind = std::get<std::string>(t.rows[r][static_cast<size_t>(op)]);
    // Copies only: a memset's fill rate (hundreds of GB/s) is no copy bandwidth and would flatten
    // the copies' bars (the Statistics table still lists it).
    if (kind.rfind("Memset", 0) == 0) continue;
    double g = t.number(r, static_cast<size_t>(bw)) / kGiB;
    *set << g;
    most = std::max(most, g);
    kinds << QString::fromStdString(kind);
  }
  auto* series = new QBarSeries;
  series->append(set);
  chart->addSeries(series);
  auto* x = new QBarCategoryAxis;
  x->append(kinds);
  x->setTitleText(QObject::tr("Copy kind"));
  chart->addAxis(x, Qt::AlignBottom);
  series->attachAxis(x);
  auto* y = new QValueAxis;
  y->setRange(0, std::max(most * 1.1, 1e-3));
  y->applyNiceNumbers();
  y->setTitleText(QObject::tr("GiB/s (bytes / copy time)"));
  chart->legend()->hide();
  chart->addAxis(y, Qt::AlignLeft);
  series->attachAxis(y);
  return chart;
}

}  // namespace

QStringList sessionChartNames() {
  QStringList names;
  for (const char* n : kNames) names << QString::fromLatin1(n);
  return names;
}

std::optional<SessionChart> sessionChartFromName(const QString& name) {
  int i = static_cast<int>(sessionChartNames().indexOf(name));
  if (i < 0) return std::nullopt;
  return static_cast<SessionChart>(i);
}

StatsReport chartReport(SessionChart chart) {
  switch (chart) {
    case SessionChart::KernelHistogram:
      return StatsReport::KernHist;
    case SessionChart::TopKernels:
      return StatsReport::KernSum;
    case SessionChart::GpuUtilisation:
      return StatsReport::GpuUtil;
    case SessionChart::CopyBandwidth:
      return StatsReport::MemTime;
  }
  return StatsReport::KernSum;
}

Result<std::unique_ptr<QChart>> makeSessionChart(const Session& s, SessionChart chart,
                                                 const ChartOptions& o) {
  TS_ASSIGN_OR_RETURN(auto tables, computeStats(s, chartReport(chart), o.stats));
  return std::unique_ptr<QChart>(makeChartFromTable(s, chart, tables.front(), o));
}

QString chartSubject(const Session& s, const ChartOptions& o) {
  QStringList parts;
  // The name the user opened it by; else the file it was first read from.
  if (!o.sessionName.empty())
    parts << QString::fromStdString(o.sessionName);
  else if (!s.provenance.sources.empty())
    parts << QString::fromStdString(
        std::filesystem::path(s.provenance.sources.front().path).filename().string());
  const TimeNs start = std::max(o.stats.start, s.startTime()),
               end = std::min(o.stats.end, s.endTime());
  const auto [from, to] = formatEnds(start - s.startTime(), end - s.startTime());
  parts << QStringLiteral("%1 – %2").arg(QString::fromStdString(from), QString::fromStdString(to));
  // The GPU chosen; with none chosen, the one GPU that has events, when there is one.
  uint32_t device = o.stats.device;
  if (device == kNone) {
    const std::vector<bool> active = s.activeDevices();
    if (std::count(active.begin(), active.end(), true) == 1)
      device =
          static_cast<uint32_t>(std::find(active.begin(), active.end(), true) - active.begin());
  }
  if (device != kNone && device < s.devices.size())
    parts << QString::fromStdString(s.deviceLabel(device));
  return parts.join(QStringLiteral(" · "));
}

QChart* makeChartFromTable(const Session& s, SessionChart chart, const StatsTable& t,
                           const ChartOptions& o) {
  QChart* made = nullptr;
  switch (chart) {
    case SessionChart::KernelHistogram:
      made = histogram(t, o);
      break;
    case SessionChart::TopKernels:
      made = topKernels(t, o);
      break;
    case SessionChart::GpuUtilisation:
      made = utilisation(s, t, o);
      break;
    case SessionChart::CopyBandwidth:
      made = bandwidth(t, o);
      break;
  }
  // What the chart is of, so an exported image says it without its file name: the session and
  // the range (and GPU) it covers, under the title.
  if (made)
    made->setTitle(QStringLiteral("%1<br><span style='font-weight:normal'>%2</span>")
                       .arg(made->title().toHtmlEscaped(), chartSubject(s, o).toHtmlEscaped()));
  return made;
}

}  // namespace ts
