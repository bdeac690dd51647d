// Charts of memory-tier simulations (QtCharts), drawn from what `simulate -o` saved (see
// memsim/sim_session.h) or from a `simulate --sweep` table: GPU / host / SSD usage over time
// (stacked area, capacity line), traffic per link per policy, normalised performance per policy
// (ideal time / time, as G10's Figure 11) for one or several workloads, and sensitivity curves
// from a sweep. Titles, axis labels with units, legends; light or dark palette.
#pragma once

#include <QString>
#include <QStringList>
#include <vector>

#include "analysis/stats_table.h"
#include "memsim/formats/sim_session.h"
#include "memsim/formats/sweep_table.h"

class QChart;

namespace ts {

// "tier_usage", "link_traffic", "policy_performance", "sweep", "sim_vs_measured"
QStringList simChartNames();

QChart* makeTierUsageChart(const memsim::SimulatedRun& run, bool dark);
QChart* makeLinkTrafficChart(const std::vector<memsim::SimulatedRun>& runs, bool dark);
// One group of bars per workload (a simulated session each), a bar per policy.
QChart* makePolicyPerformanceChart(const std::vector<std::vector<memsim::SimulatedRun>>& workloads,
                                   bool dark);
// Slowdown against the swept parameter, a line per policy (infeasible points left out).
QChart* makeSweepChart(const memsim::SweepTable& sweep, bool dark);
// Measured and simulated time per layer (memsim::compareLayers' table), two bars per layer.
QChart* makeLayerComparisonChart(const StatsTable& layers, bool dark);

}  // namespace ts
