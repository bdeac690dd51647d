#include "compare_view.h"

#include <QLabel>
#include <QSplitter>
#include <QTabWidget>
#include <QVBoxLayout>

#include <QComboBox>

#include "analysis/session_compare.h"
#include "chart_view.h"
#include "memsim/layer_compare.h"
#include "memsim/sim_session.h"
#include "sim_charts.h"
#include "table_panel.h"
#include "timeline_canvas.h"

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

CompareView::CompareView(SessionPtr a, const QString& nameA, SessionPtr b, const QString& nameB, QWidget* parent)
    : QWidget(parent) {
  setObjectName(QStringLiteral("compareView"));
  auto* layout = new QVBoxLayout(this);
  auto* splitter = new QSplitter(Qt::Vertical, this);
  a_ = new TimelineCanvas(a);
  b_ = new TimelineCanvas(b);
  splitter->addWidget(titled(tr("A: %1").arg(nameA), a_, splitter));
  splitter->addWidget(titled(tr("B: %1").arg(nameB), b_, splitter));
  auto* tabs = new QTabWidget(splitter);
  kernels_ = new TablePanel(tabs);
  copies_ = new TablePanel(tabs);
  tabs->addTab(kernels_, tr("Kernels"));
  tabs->addTab(copies_, tr("Copies"));
  splitter->addWidget(tabs);
  layout->addWidget(splitter);
  kernels_->setTable(compareKernels(*a, *b));
  copies_->setTable(compareCopies(*a, *b));
  addLayersTab(tabs, a, b);
  connect(a_, &TimelineCanvas::viewChanged, this, [this] { follow(a_, b_); });
  connect(b_, &TimelineCanvas::viewChanged, this, [this] { follow(b_, a_); });
  a_->fitAll();
}

void CompareView::addLayersTab(QTabWidget* tabs, const SessionPtr& a, const SessionPtr& b) {
  // Either side may be the simulation.
  SessionPtr measured = a, simulated = b;
  auto policies = memsim::readSimulatedSession(*simulated);
  if (!policies.ok()) {
    std::swap(measured, simulated);
    policies = memsim::readSimulatedSession(*simulated);
  }
  if (!policies.ok() || policies->empty() || !memsim::compareLayers(*measured, *simulated, "").ok()) return;
  auto* page = new QSplitter(Qt::Vertical, tabs);
  layers_ = new TablePanel(page);
  layerChart_ = new ChartView(page);
  layerChart_->suggestedName = QStringLiteral("sim_vs_measured");
  auto* policy = new QComboBox(layers_);
  for (const memsim::SimulatedRun& r : *policies) policy->addItem(QString::fromStdString(r.policy));
  layers_->addControl(policy);
  page->addWidget(layers_);
  page->addWidget(layerChart_);
  tabs->addTab(page, tr("Layers"));
  auto show = [this, measured, simulated, policy] {
    auto table = memsim::compareLayers(*measured, *simulated, policy->currentText().toStdString());
    if (!table.ok()) return;
    layerChart_->replaceChart(makeLayerComparisonChart(*table, palette().color(QPalette::Window).lightness() < 128));
    layers_->setTable(std::move(*table));
  };
  connect(policy, &QComboBox::currentIndexChanged, this, show);
  show();
}

// The other timeline shows the same stretch, measured from its own session's start.
void CompareView::follow(TimelineCanvas* from, TimelineCanvas* to) {
  if (syncing_) return;
  syncing_ = true;
  const TimeAxis& axis = from->axis();
  TimeNs offset = axis.start() - from->session()->startTime();
  to->setAxis(TimeAxis(to->session()->startTime() + offset, axis.nsPerPixel()));
  syncing_ = false;
}

}  // namespace ts
