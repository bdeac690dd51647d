#include "sweep_view.h"

#include <QSplitter>
#include <QVBoxLayout>

#include "chart_view.h"
#include "sim_charts.h"
#include "table_panel.h"

namespace ts {

SweepView::SweepView(memsim::SweepTable sweep, QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("sweepView"));
  auto* layout = new QVBoxLayout(this);
  auto* splitter = new QSplitter(Qt::Vertical, this);
  chart_ = new ChartView(splitter);
  chart_->suggestedName = QStringLiteral("sweep");
  chart_->replaceChart(makeSweepChart(sweep, palette().color(QPalette::Window).lightness() < 128));
  table_ = new TablePanel(splitter);
  StatsTable t;
  t.report = "memsim_sweep";
  t.title = "Sweep of " + sweep.key;
  const bool bytes = sweep.key == "gpu-mem" || sweep.key == "host-mem";
  const bool rate = sweep.key == "ssd-bw" || sweep.key == "pcie-bw";
  t.columns = {{sweep.key, sweep.key,
                bytes  ? StatsUnit::Bytes
                : rate ? StatsUnit::Bandwidth
                       : StatsUnit::Count},
               {"policy", "Policy", StatsUnit::Text},
               {"feasible", "Feasible", StatsUnit::Text},
               {"iteration_ns", "Iteration", StatsUnit::Duration},
               {"ideal_ns", "Ideal", StatsUnit::Duration},
               {"slowdown", "Slowdown", StatsUnit::Count}};
  for (const memsim::SweepPoint& p : sweep.points) {
    StatsCell value =
        bytes || !rate ? StatsCell{static_cast<int64_t>(p.value)} : StatsCell{p.value};
    if (p.feasible)
      t.rows.push_back({value, p.policy, std::string("yes"), int64_t{p.iteration}, int64_t{p.ideal},
                        p.slowdown});
    else
      t.rows.push_back({value, p.policy, std::string("no"), std::monostate{}, std::monostate{},
                        std::monostate{}});
  }
  table_->setTable(std::move(t));
  splitter->addWidget(chart_);
  splitter->addWidget(table_);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 2);
  layout->addWidget(splitter);
}

}  // namespace ts
