#include "views/simulation/compare_view.h"

#include <QComboBox>
#include <QLabel>
#include <QSplitter>
#include <QTabWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <tuple>

#include "analysis/session_compare.h"
#include "memsim/formats/sim_session.h"
#include "memsim/reports/layer_compare.h"
#include "views/charts/chart_view.h"
#include "views/charts/sim_charts.h"
#include "views/session/table_panel.h"
#include "views/timeline/timeline_canvas.h"

namespace ts {

namespace {

QWidget* titled(const QString& title, QWidget* content, QWidget* parent) {
  auto* box = new QWidget(parent);
  auto* layout = new QVBoxLayout(box);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  auto* label = new QLabel(QStringLiteral("<b>%1</b>").arg(title.toHtmlEscaped()), box);
  layout->addWidget(label);
  content->setParent(box);
  layout->addWidget(content, 1);
  return box;
}

}  // namespace

CompareView::CompareView(SessionPtr a, const QString& nameA, SessionPtr b, const QString& nameB,
                         QWidget* parent)
    : QWidget(parent),
      tables_(this,
              [this](std::pair<StatsTable, StatsTable> t) {
                kernels_->setTable(std::move(t.first));
                copies_->setTable(std::move(t.second));
              }),
      layerJob_(this, [this](Result<StatsTable> table) {
        if (!table.ok()) {  // the run has no layer ranges, or the policy is gone: say so
          layers_->setNotes(QString::fromStdString(table.error()));
          layersFailed_ = true;
          hideWholeSessionTabs();
          return;
        }
        layerChart_->replaceChart(
            makeLayerComparisonChart(*table, palette().color(QPalette::Window).lightness() < 128));
        layers_->setTable(std::move(*table));
      }) {
  setObjectName(QStringLiteral("compareView"));
  auto* layout = new QVBoxLayout(this);
  auto* splitter = new QSplitter(Qt::Vertical, this);
  a_ = new TimelineCanvas(a);
  b_ = new TimelineCanvas(b);
  splitter->addWidget(titled(tr("A: %1").arg(nameA), a_, splitter));
  splitter->addWidget(titled(tr("B: %1").arg(nameB), b_, splitter));
  auto* tabs = new QTabWidget(splitter);
  tabs_ = tabs;
  originA_ = a->startTime();
  originB_ = b->startTime();
  kernels_ = new TablePanel(tabs);
  copies_ = new TablePanel(tabs);
  tabs->addTab(kernels_, tr("Kernels"));
  tabs->addTab(copies_, tr("Copies"));
  splitter->addWidget(tabs);
  layout->addWidget(splitter);
  kernels_->setNotes(tr("Computing…"));
  tables_.start(
      [a, b](const Progress&) { return std::pair(compareKernels(*a, *b), compareCopies(*a, *b)); });
  addLayersTab(tabs, a, b);
  connect(a_, &TimelineCanvas::viewChanged, this, [this] { follow(a_, b_); });
  connect(b_, &TimelineCanvas::viewChanged, this, [this] { follow(b_, a_); });
  // The same time lines up only when both label columns are as wide.
  connect(a_, &TimelineCanvas::gutterChanged, b_, &TimelineCanvas::setGutter);
  connect(b_, &TimelineCanvas::gutterChanged, a_, &TimelineCanvas::setGutter);
  a_->fitAll();
}

void CompareView::addLayersTab(QTabWidget* tabs, const SessionPtr& a, const SessionPtr& b) {
  // Either side may be the simulation; its provenance says which (no scan of either session).
  SessionPtr measured = a, simulated = b;
  if (!memsim::isSimulated(*simulated)) std::swap(measured, simulated);
  if (!memsim::isSimulated(*simulated) || memsim::isSimulated(*measured)) return;
  QStringList policies;
  for (uint32_t r = 0; r < simulated->ranks.size(); ++r) {
    if (auto p = memsim::simulatedPolicy(*simulated, r)) policies << QString::fromStdString(*p);
  }
  if (policies.isEmpty()) return;
  auto* page = new QSplitter(Qt::Vertical, tabs);
  layersPage_ = page;
  layers_ = new TablePanel(page);
  layerChart_ = new ChartView(page);
  layerChart_->suggestedName = QStringLiteral("sim_vs_measured");
  auto* policy = new QComboBox(layers_);
  policy->addItems(policies);
  layers_->addControl(policy);
  page->addWidget(layers_);
  page->addWidget(layerChart_);
  tabs->addTab(page, tr("Layers"));
  // Both sessions' layer ranges are scanned: off the GUI thread.
  auto show = [this, measured, simulated, policy] {
    layers_->setNotes(tr("Computing…"));
    layerJob_.start(
        [measured, simulated, name = policy->currentText().toStdString()](const Progress&) {
          return memsim::compareLayers(*measured, *simulated, name);
        });
  };
  connect(policy, &QComboBox::currentIndexChanged, this, show);
  show();
}

void CompareView::setSimulated(const Simulated& s) {
  originA_ = s.measuredOrigin;
  originB_ = s.simulatedOrigin;
  int at = 0;
  for (auto [panel, table, title] :
       {std::tuple(&simSummary_, &s.summary, tr("Summary")),
        std::tuple(&simLayers_, &s.layers, tr("Per layer")),
        std::tuple(&simKernels_, &s.kernels, tr("Per kernel")),
        std::tuple(&simTraffic_, &s.traffic, tr("Traffic and memory"))}) {
    *panel = new TablePanel(tabs_);
    (*panel)->setTable(*table);
    tabs_->insertTab(at++, *panel, title);
  }
  tabs_->setCurrentIndex(0);
  simulated_ = true;
  hideWholeSessionTabs();
  // Both from the iteration's start, the longer of the two iterations filling the width (B
  // follows A's view).
  const TimeNs span =
      std::max<TimeNs>({s.measuredEnd - s.measuredOrigin, s.simulatedEnd - s.simulatedOrigin, 1});
  a_->setHomeRange(originA_ - span / 50, originA_ + span + span / 50);
  // Both rulers count from the iterations that line up: the same time reads the same on both.
  a_->setRulerOrigin(originA_);
  b_->setRulerOrigin(originB_);
}

// Against one simulated iteration, whole-session tables mislead: the kernel and copy comparisons
// go, and the NVTX Layers tab too when the run has no layer ranges (Per layer maps by the trace).
void CompareView::hideWholeSessionTabs() {
  if (!simulated_) return;
  tabs_->setTabVisible(tabs_->indexOf(kernels_), false);
  tabs_->setTabVisible(tabs_->indexOf(copies_), false);
  tables_.supersede();
  if (layersPage_ && layersFailed_) tabs_->setTabVisible(tabs_->indexOf(layersPage_), false);
}

// The other timeline shows the same stretch, measured from its own origin (the session's start,
// or the iterations that line up).
void CompareView::follow(TimelineCanvas* from, TimelineCanvas* to) {
  if (syncing_) return;
  syncing_ = true;
  const TimeAxis& axis = from->axis();
  const bool fromA = from == a_;
  TimeNs offset = axis.start() - (fromA ? originA_ : originB_);
  to->setAxis(TimeAxis((fromA ? originB_ : originA_) + offset, axis.nsPerPixel()));
  syncing_ = false;
}

}  // namespace ts
