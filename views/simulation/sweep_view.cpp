#include "views/simulation/sweep_view.h"

#include <QSplitter>
#include <QVBoxLayout>

#include "views/charts/chart_view.h"
#include "views/charts/sim_charts.h"
#include "views/session/table_panel.h"

namespace ts {

SweepView::SweepView(memsim::SweepTable sweep, QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("sweepView"));
  auto* layout = new QVBoxLayout(this);
  auto* splitter = new QSplitter(Qt::Vertical, this);
  chart_ = new ChartView(splitter);
  chart_->suggestedName = QStringLiteral("sweep");
  chart_->replaceChart(makeSweepChart(sweep, palette().color(QPalette::Window).lightness() < 128));
  table_ = new TablePanel(splitter);
  table_->setTable(memsim::toStatsTable(sweep));
  splitter->addWidget(chart_);
  splitter->addWidget(table_);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 2);
  layout->addWidget(splitter);
}

}  // namespace ts
