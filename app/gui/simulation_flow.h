// SimulationFlow: the memory-tier simulations the window opens — a run's model simulated on its
// own timeline (Model → Simulate Memory Tiers…), the what-if tabs (a G10 workload, a model, a
// run's model), the sweep tables of `simulate --sweep`, and the built-in models written to the
// cache as the files the simulations read. Comparisons with the run go to the CompareFlow.
#pragma once

#include <QObject>
#include <QString>
#include <optional>

#include "memsim/formats/workload_source.h"

namespace ts {

class CompareFlow;
class OverlayPane;
class Shell;

class SimulationFlow : public QObject {
  Q_OBJECT
 public:
  SimulationFlow(Shell& shell, CompareFlow& compare, QObject* parent);

  // Model → Simulate Memory Tiers on the session in `tab` (its Simulation tab); null when the tab
  // holds no session.
  OverlayPane* onTimeline(int tab, const QString& modelPath, int64_t batch);
  void onTimelineDialog();
  // The run itself planned (its kernels and its own allocations, no model), on its timeline.
  void ownTensorsOnTimeline();
  // The what-if tab: a workload under a policy and tiers the user moves.
  void whatIf(const memsim::WorkloadSource& source);
  void whatIfOfG10Dialog();
  void whatIfOfModelDialog();
  void whatIfOfRunDialog();  // the current session tab's model, with its measured kernel times
  // A `simulate --sweep` table in a tab of its own (chart and table), read off the GUI thread;
  // `sweepOpened` follows, or an error is shown.
  void openSweep(const QString& path);
  // A built-in model as an ONNX file in the cache (the simulations read files); empty after an
  // error, shown under `title`.
  QString zooModelFile(const QString& title, const QString& name);

  struct ModelChoice {
    QString path;
    int batch = 0;
  };
  // An ONNX file, or one of the built-in models written to the cache, with the batch; none when
  // cancelled (or after an error, shown).
  std::optional<ModelChoice> chooseModel(const QString& title, const QString& batchLabel);

 signals:
  void overlayUpdated();  // a simulation on a timeline has its result (or its error)
  void sweepOpened(const QString& path, bool ok);

 private:
  Shell& shell_;
  CompareFlow& compare_;
};

}  // namespace ts
