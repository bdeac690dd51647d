// CompareView: two sessions (before / after) — their timelines stacked on one synchronised time
// axis (each measured from its own session's start; zoom and pan move both), and the kernel and
// copy comparison tables; when one is a measured run with NVTX layer ranges and the other a
// simulation of its model, also measured against simulated per layer (table and chart). Against
// the simulation of one mapped iteration (from the Simulation tab) the whole-session kernel and
// copy tables are not shown: a run of six iterations against one simulated read as −83 %; the
// iteration's own tables (summary, per layer, per kernel, traffic) take their place.
#pragma once

#include <QWidget>
#include <utility>

#include "analysis/stats_table.h"
#include "session/session.h"
#include "views/jobs/job_runner.h"

class QTabWidget;

namespace ts {

class ChartView;
class TablePanel;
class TimelineCanvas;

class CompareView : public QWidget {
  Q_OBJECT
 public:
  CompareView(SessionPtr a, const QString& nameA, SessionPtr b, const QString& nameB,
              QWidget* parent = nullptr);

  TimelineCanvas* timelineA() const { return a_; }
  TimelineCanvas* timelineB() const { return b_; }
  TablePanel* kernels() const { return kernels_; }
  TablePanel* copies() const { return copies_; }
  // A measured run and a simulation of its model: per layer, with a chart (else null).
  TablePanel* layers() const { return layers_; }
  ChartView* layerChart() const { return layerChart_; }

  // A run against the simulation of its model (from the Simulation tab): the time axes line up
  // at the run's mapped iteration and the simulated iteration's start, and the summary, per-layer
  // and per-kernel tables come first.
  struct Simulated {
    TimeNs measuredOrigin = 0, simulatedOrigin = 0;
    TimeNs measuredEnd = 0, simulatedEnd = 0;  // the iterations' ends: the first view shows both
    StatsTable summary, layers, kernels, traffic;
  };
  void setSimulated(const Simulated& s);
  TablePanel* simulatedSummary() const { return simSummary_; }
  TablePanel* simulatedLayers() const { return simLayers_; }
  TablePanel* simulatedKernels() const { return simKernels_; }
  TablePanel* simulatedTraffic() const { return simTraffic_; }
  QTabWidget* tabs() const { return tabs_; }

 private:
  void follow(TimelineCanvas* from, TimelineCanvas* to);
  void addLayersTab(QTabWidget* tabs, const SessionPtr& a, const SessionPtr& b);
  void hideWholeSessionTabs();

  TimelineCanvas* a_ = nullptr;
  TimelineCanvas* b_ = nullptr;
  TablePanel* kernels_ = nullptr;
  TablePanel* copies_ = nullptr;
  TablePanel* layers_ = nullptr;
  ChartView* layerChart_ = nullptr;
  QWidget* layersPage_ = nullptr;
  bool layersFailed_ = false;  // the run has no layer ranges to compare by
  bool simulated_ = false;     // setSimulated: one iteration against the run's
  bool syncing_ = false;
  QTabWidget* tabs_ = nullptr;
  TablePanel* simSummary_ = nullptr;
  TablePanel* simLayers_ = nullptr;
  TablePanel* simKernels_ = nullptr;
  TablePanel* simTraffic_ = nullptr;
  TimeNs originA_ = 0, originB_ = 0;  // the times that line up
  // The kernel and copy tables scan both sessions: computed off the GUI thread.
  JobRunner<std::pair<StatsTable, StatsTable>> tables_;
  JobRunner<Result<StatsTable>> layerJob_;  // the Layers tab's table, per policy
};

}  // namespace ts
