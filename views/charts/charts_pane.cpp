#include "views/charts/charts_pane.h"

#include <QChart>
#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

#include "views/charts/sim_charts.h"
#include "views/session/device_chooser.h"

namespace ts {

ChartsPane::ChartsPane(SessionPtr session, QWidget* parent)
    : QWidget(parent),
      session_(std::move(session)),
      job_(this, [this](Result<std::vector<StatsTable>> result) { present(std::move(result)); }) {
  setObjectName(QStringLiteral("chartsPane"));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  auto* bar = new QHBoxLayout;
  chart_ = new QComboBox(this);
  const QStringList titles = {tr("Kernel duration histogram"), tr("Top kernels by total time"),
                              tr("GPU utilisation over time"), tr("Copy bandwidth by kind")};
  const QStringList names = sessionChartNames();
  for (int i = 0; i < names.size(); ++i) chart_->addItem(titles.value(i, names[i]), names[i]);
  // A session `simulate -o` wrote also has the memory-tier charts, drawn from what it holds.
  if (auto runs = memsim::readSimulatedSession(*session_); runs.ok() && !runs->empty()) {
    simulated_ = std::move(*runs);
    chart_->insertSeparator(chart_->count());
    for (const memsim::SimulatedRun& r : simulated_) {
      chart_->addItem(tr("Memory tiers over time — %1").arg(QString::fromStdString(r.policy)),
                      QStringLiteral("tier_usage:") + QString::fromStdString(r.policy));
    }
    chart_->addItem(tr("Traffic per link and policy"), QStringLiteral("link_traffic"));
    chart_->addItem(tr("Normalised performance per policy"), QStringLiteral("policy_performance"));
  }
  // None to choose between when there is one GPU.
  device_ = new QComboBox(this);
  device_->setObjectName(QStringLiteral("chartsDevice"));
  fillDeviceChooser(device_, *session_);
  device_->setVisible(device_->count() > 2);
  device_->setToolTip(tr("The GPU the session charts cover"));
  log_ = new QCheckBox(tr("Log scale"), this);
  log_->setToolTip(tr("Histogram: logarithmic count axis"));
  bar->addWidget(chart_);
  bar->addWidget(device_);
  bar->addWidget(log_);
  bar->addStretch(1);
  bar->addWidget(new QLabel(tr("Right-click the chart to export or copy it."), this));
  layout->addLayout(bar);
  view_ = new ChartView(this);
  layout->addWidget(view_, 1);
  connect(chart_, &QComboBox::currentIndexChanged, this, &ChartsPane::rebuild);
  connect(device_, &QComboBox::currentIndexChanged, this, [this] {
    options_.stats.device = device_->currentData().toUInt();
    rebuild();
  });
  connect(log_, &QCheckBox::toggled, this, [this](bool on) {
    options_.logScale = on;
    rebuild();
  });
}

ChartsPane::~ChartsPane() = default;

void ChartsPane::present(Result<std::vector<StatsTable>> result) {
  const auto named = sessionChartFromName(chart_->currentData().toString());
  if (!named) return;
  const SessionChart kind = *named;
  QChart* chart =
      result.ok() ? makeChartFromTable(*session_, kind, result->front(), options_) : new QChart;
  if (!result.ok()) chart->setTitle(QString::fromStdString(result.error()));
  view_->suggestedName = chart_->currentData().toString().section(QLatin1Char(':'), 0, 0);
  view_->replaceChart(chart);
  emit updated();
}

void ChartsPane::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (stale_) rebuild();
}

void ChartsPane::setRange(std::optional<std::pair<TimeNs, TimeNs>> range) {
  options_.stats.start = range ? range->first : std::numeric_limits<TimeNs>::min();
  options_.stats.end = range ? range->second : std::numeric_limits<TimeNs>::max();
  rebuild();
}

void ChartsPane::setSession(SessionPtr session, bool live) {
  session_ = std::move(session);
  fillDeviceChooser(device_, *session_);
  device_->setVisible(device_->count() > 2);
  options_.stats.device = device_->currentData().toUInt();
  stale_ = true;
  if (!live) rebuild();  // draws only when shown
}

void ChartsPane::setSessionName(const QString& name) {
  options_.sessionName = name.toStdString();
  rebuild();
}

void ChartsPane::setDevice(uint32_t device) {
  int i = device_->findData(QVariant::fromValue<uint>(device));
  if (i >= 0) device_->setCurrentIndex(i);
}

void ChartsPane::setChart(const QString& name) {
  int i = chart_->findData(name);
  if (i >= 0) chart_->setCurrentIndex(i);
}

void ChartsPane::changeEvent(QEvent* e) {
  QWidget::changeEvent(e);
  if (e->type() == QEvent::PaletteChange) rebuild();
}

void ChartsPane::rebuild() {
  if (!isVisible()) {
    stale_ = true;  // a hidden tab computes nothing
    return;
  }
  stale_ = false;
  options_.dark = palette().color(QPalette::Window).lightness() < 128;
  if (showSimulationChart(chart_->currentData().toString())) return;
  const auto kind = sessionChartFromName(chart_->currentData().toString());
  if (!kind) return;
  job_.start([session = session_, report = chartReport(*kind),
              stats = options_.stats](const Progress& progress) {
    return computeStats(*session, report, stats, progress);
  });
}

// Simulation charts come from data already in memory: drawn at once, on the GUI thread.
bool ChartsPane::showSimulationChart(const QString& name) {
  if (simulated_.empty()) return false;
  QChart* chart = nullptr;
  if (name.startsWith(QLatin1String("tier_usage:"))) {
    const std::string policy = name.section(QLatin1Char(':'), 1).toStdString();
    for (const memsim::SimulatedRun& r : simulated_) {
      if (r.policy == policy) chart = makeTierUsageChart(r, options_.dark);
    }
  } else if (name == QLatin1String("link_traffic")) {
    chart = makeLinkTrafficChart(simulated_, options_.dark);
  } else if (name == QLatin1String("policy_performance")) {
    chart = makePolicyPerformanceChart({simulated_}, options_.dark);
  }
  if (!chart) return false;
  job_.supersede();  // a report still running for a session chart is dropped
  view_->suggestedName = name.section(QLatin1Char(':'), 0, 0);
  view_->replaceChart(chart);
  emit updated();
  return true;
}

Status ChartsPane::exportTo(const QString& path, double scale) const {
  return view_->exportTo(path, scale);
}

}  // namespace ts
