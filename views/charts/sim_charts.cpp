#include "views/charts/sim_charts.h"

#include <QAreaSeries>
#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QColor>
#include <QHorizontalBarSeries>
#include <QLineSeries>
#include <QPen>
#include <QValueAxis>
#include <algorithm>
#include <cmath>
#include <map>

#include "memsim/engine/tier_config.h"
#include "views/charts/session_charts.h"

namespace ts {

namespace {

using namespace memsim;

constexpr double kGiB = 1073741824.0;

QValueAxis* valueAxis(const QString& title, double lo, double hi) {
  auto* axis = new QValueAxis;
  axis->setRange(lo, hi);
  axis->applyNiceNumbers();
  axis->setLabelFormat(QStringLiteral("%g"));
  axis->setTitleText(title);
  return axis;
}

// Puts x below and y left of the chart, for every series it holds.
void attachAxes(QChart* chart, QAbstractAxis* x, QAbstractAxis* y) {
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  for (QAbstractSeries* s : chart->series()) {
    s->attachAxis(x);
    s->attachAxis(y);
  }
}

// One colour per policy in every chart, so a policy reads the same everywhere (the theme's
// palette repeats after five series).
QColor policyColor(const std::string& policy) {
  static const std::map<std::string, QColor> colors = {
      {"g10", QColor(0x1f, 0x77, 0xb4)},         {"g10-host", QColor(0x17, 0xbe, 0xcf)},
      {"g10-gds", QColor(0x9e, 0x6a, 0xd4)},     {"deepum", QColor(0xff, 0x7f, 0x0e)},
      {"flashneuron", QColor(0xd6, 0x27, 0x28)}, {"lru", QColor(0x8c, 0x56, 0x4b)},
      {"ideal", QColor(0x2c, 0xa0, 0x2c)}};
  auto it = colors.find(policy);
  return it != colors.end() ? it->second : QColor(0x7f, 0x7f, 0x7f);
}

}  // namespace

QStringList simChartNames() {
  return {QStringLiteral("tier_usage"), QStringLiteral("link_traffic"),
          QStringLiteral("policy_performance"), QStringLiteral("sweep"),
          QStringLiteral("sim_vs_measured")};
}

QChart* makeTierUsageChart(const SimulatedRun& run, bool dark) {
  QChart* chart =
      newChart(QObject::tr("Memory tiers over time — %1 (%2)")
                   .arg(QString::fromStdString(run.policy), QString::fromStdString(run.workload)),
               dark);
  // Stacked: GPU at the bottom, host above it, SSD on top; each area is filled between the sum
  // below it and the sum including it.
  // QAreaSeries does not own its boundary lines: the chart does.
  auto *gpu = new QLineSeries(chart), *host = new QLineSeries(chart), *ssd = new QLineSeries(chart),
       *floor = new QLineSeries(chart);
  double top = 0, end = 0;
  bool first = true;
  for (const TierUsage& u : run.usage) {
    const double t = static_cast<double>(u.time) * 1e-9;
    const double g = static_cast<double>(u.gpu) / kGiB, h = g + static_cast<double>(u.host) / kGiB,
                 s = h + static_cast<double>(u.ssd) / kGiB;
    // Usage holds from one sample to the next: steps, not slopes.
    if (!first) {
      gpu->append(t, gpu->at(gpu->count() - 1).y());
      host->append(t, host->at(host->count() - 1).y());
      ssd->append(t, ssd->at(ssd->count() - 1).y());
      floor->append(t, 0);
    }
    gpu->append(t, g);
    host->append(t, h);
    ssd->append(t, s);
    floor->append(t, 0);
    top = std::max(top, s);
    end = t;
    first = false;
  }
  auto* gpuArea = new QAreaSeries(gpu, floor);
  gpuArea->setName(QObject::tr("GPU memory"));
  auto* hostArea = new QAreaSeries(host, gpu);
  hostArea->setName(QObject::tr("Host memory"));
  auto* ssdArea = new QAreaSeries(ssd, host);
  ssdArea->setName(QObject::tr("SSD"));
  for (QAreaSeries* a : {gpuArea, hostArea, ssdArea}) chart->addSeries(a);
  auto* capacity = new QLineSeries;
  const double cap = static_cast<double>(run.gpuCapacity) / kGiB;
  capacity->append(0, cap);
  capacity->append(std::max(end, 1e-9), cap);
  capacity->setName(QObject::tr("GPU capacity (%1 GiB)").arg(cap, 0, 'f', 1));
  QPen pen(dark ? Qt::white : Qt::black);
  pen.setStyle(Qt::DashLine);
  pen.setWidthF(1.5);
  capacity->setPen(pen);
  chart->addSeries(capacity);
  auto* x = valueAxis(QObject::tr("Time in the simulated iteration (s)"), 0, std::max(end, 1e-9));
  auto* y = valueAxis(QObject::tr("Resident (GiB)"), 0, std::max(top, cap) * 1.05);
  attachAxes(chart, x, y);
  return chart;
}

QChart* makeLinkTrafficChart(const std::vector<SimulatedRun>& runs, bool dark) {
  QString workload = runs.empty() ? QString() : QString::fromStdString(runs.front().workload);
  QChart* chart = newChart(QObject::tr("Traffic per link and policy — %1").arg(workload), dark);
  auto* series = new QBarSeries;
  double most = 0;
  for (const SimulatedRun& run : runs) {
    auto* set = new QBarSet(QString::fromStdString(run.policy));
    set->setColor(policyColor(run.policy));
    for (int l = 0; l < 4; ++l) {  // the GPU's links; SSD↔host carry nothing in these policies
      double v = static_cast<double>(run.linkBytes[static_cast<size_t>(l)]) / kGiB;
      *set << v;
      most = std::max(most, v);
    }
    series->append(set);
  }
  chart->addSeries(series);
  auto* x = new QBarCategoryAxis;
  for (int l = 0; l < 4; ++l) x->append(QString::fromLatin1(toString(static_cast<Link>(l))));
  x->setTitleText(QObject::tr("Link"));
  auto* y = valueAxis(QObject::tr("Moved per iteration (GiB)"), 0, std::max(most * 1.1, 1.0));
  attachAxes(chart, x, y);
  return chart;
}

QChart* makePolicyPerformanceChart(const std::vector<std::vector<SimulatedRun>>& workloads,
                                   bool dark) {
  QChart* chart = newChart(
      QObject::tr("Normalised performance per policy (ideal time / iteration time)"), dark);
  // Policies in the order they first appear; a workload without one gets 0 there.
  std::vector<std::string> policies;
  for (const auto& runs : workloads) {
    for (const SimulatedRun& r : runs) {
      if (std::find(policies.begin(), policies.end(), r.policy) == policies.end())
        policies.push_back(r.policy);
    }
  }
  auto* series = new QBarSeries;
  for (const std::string& p : policies) {
    auto* set = new QBarSet(QString::fromStdString(p));
    set->setColor(policyColor(p));
    for (const auto& runs : workloads) {
      double v = 0;
      for (const SimulatedRun& r : runs) {
        if (r.policy == p && r.iteration > 0)
          v = static_cast<double>(r.ideal) / static_cast<double>(r.iteration);
      }
      *set << v;
    }
    series->append(set);
  }
  chart->addSeries(series);
  auto* x = new QBarCategoryAxis;
  for (const auto& runs : workloads)
    x->append(runs.empty() ? QStringLiteral("?") : QString::fromStdString(runs.front().workload));
  x->setTitleText(QObject::tr("Workload"));
  auto* y = new QValueAxis;
  y->setRange(0, 1.05);
  y->setTickCount(8);
  y->setLabelFormat(QStringLiteral("%.2f"));
  y->setTitleText(QObject::tr("Ideal / iteration (1 = no slowdown)"));
  attachAxes(chart, x, y);
  return chart;
}

QChart* makeSweepChart(const SweepTable& sweep, bool dark) {
  QChart* chart =
      newChart(QObject::tr("Sensitivity to %1").arg(QString::fromStdString(sweep.key)), dark);
  // The swept value in the unit people think in.
  double scale = 1;
  QString unit;
  if (const memsim::TierField* f = memsim::findTierField(sweep.key)) {
    // The unit the points were given in: decimal when every one is a round number of tenths of
    // GB ("8GB..32GB"), else binary, the tables' unit.
    bool decimal = !sweep.points.empty();
    for (const SweepPoint& p : sweep.points) {
      const double tenths = p.value / 1e8;
      decimal = decimal && std::abs(tenths - std::round(tenths)) < 1e-6;
    }
    scale = decimal ? 1e-9 : 1 / kGiB;
    const bool bytes = f->unit == memsim::TierUnit::Bytes;
    unit = decimal ? (bytes ? QObject::tr("GB") : QObject::tr("GB/s"))
                   : (bytes ? QObject::tr("GiB") : QObject::tr("GiB/s"));
  }
  std::map<std::string, QLineSeries*> lines;
  std::vector<std::string> order;
  double lo = 1e300, hi = -1e300, most = 1;
  for (const SweepPoint& p : sweep.points) {
    const double x = p.value * scale;
    lo = std::min(lo, x);
    hi = std::max(hi, x);
    if (!p.feasible) continue;
    QLineSeries*& line = lines[p.policy];
    if (!line) {
      line = new QLineSeries;
      line->setName(QString::fromStdString(p.policy));
      line->setPointsVisible(true);
      QPen pen(policyColor(p.policy));
      pen.setWidthF(2);
      line->setPen(pen);
      order.push_back(p.policy);
    }
    line->append(x, p.slowdown);
    most = std::max(most, p.slowdown);
  }
  for (const std::string& p : order) chart->addSeries(lines[p]);
  if (lo > hi) lo = hi = 0;
  auto* x = valueAxis(unit.isEmpty()
                          ? QString::fromStdString(sweep.key)
                          : QStringLiteral("%1 (%2)").arg(QString::fromStdString(sweep.key), unit),
                      lo, hi > lo ? hi : lo + 1);
  auto* y = valueAxis(QObject::tr("Slowdown (× ideal)"), 1, most * 1.05);
  attachAxes(chart, x, y);
  return chart;
}

QChart* makeLayerComparisonChart(const StatsTable& t, bool dark) {
  QChart* chart = newChart(QString::fromStdString(t.title), dark);
  auto* measured = new QBarSet(QObject::tr("Measured"));
  auto* simulated = new QBarSet(QObject::tr("Simulated"));
  measured->setColor(QColor(0x7f, 0x7f, 0x7f));
  simulated->setColor(policyColor("g10"));
  // The layers the run measured (all of them when it measured none of the simulated ones); the
  // first at the top, as in the table.
  std::vector<size_t> rows;
  for (size_t r = 0; r < t.rows.size(); ++r) {
    if (t.number(r, 1) > 0) rows.push_back(r);
  }
  if (rows.empty()) {
    for (size_t r = 0; r < t.rows.size(); ++r) rows.push_back(r);
  }
  std::reverse(rows.begin(), rows.end());
  QStringList layers;
  double most = 0;
  for (size_t r : rows) {
    layers << QString::fromStdString(t.text(r, 0));
    const double m = t.number(r, 1) * 1e-6, s = t.number(r, 2) * 1e-6;
    *measured << m;
    *simulated << s;
    most = std::max({most, m, s});
  }
  auto* series = new QHorizontalBarSeries;
  series->append(measured);
  series->append(simulated);
  chart->addSeries(series);
  auto* y = new QBarCategoryAxis;
  y->append(layers);
  y->setTitleText(QObject::tr("Layer (phase)"));
  auto* x = valueAxis(QObject::tr("Time per iteration (ms)"), 0, std::max(most * 1.05, 1e-3));
  attachAxes(chart, x, y);
  return chart;
}

}  // namespace ts
