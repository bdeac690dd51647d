// SimulationView: the what-if tab — a workload (G10 directory or ONNX model) under a policy and
// a tier configuration the user moves with sliders (GPU memory, host memory, SSD bandwidth,
// batch size for models) and a policy selector. Each change re-plans and re-simulates off the GUI
// thread (the newest request wins; requests made while one runs are merged) and redraws the
// simulated timeline, keeping the zoom, with the summary line above it.
#pragma once

#include <QElapsedTimer>
#include <QWidget>
#include <memory>
#include <optional>

#include "memsim/engine/tier_config.h"
#include "memsim/formats/workload_source.h"
#include "memsim/reports/what_if.h"
#include "views/jobs/job_runner.h"

class QComboBox;
class QPushButton;
class QLabel;
class QSpinBox;
class QVBoxLayout;

namespace ts {

class PolicyBox;
class TierPresetBox;

class TierControl;
class TimelineCanvas;

class SimulationView : public QWidget {
  Q_OBJECT
 public:
  explicit SimulationView(memsim::WorkloadSource source, QWidget* parent = nullptr);

  const memsim::WorkloadSource& source() const { return source_; }
  TimelineCanvas* timeline() const { return timeline_; }  // null until the first result
  QLabel* summary() const { return summary_; }
  QLabel* mapping() const {
    return mapping_;
  }  // how the measured run maps onto the model (null without one)
  PolicyBox* policy() const { return policy_; }
  QPushButton* compareButton() const { return compare_; }  // null unless there is a measured run
  TierControl* gpuMemory() const { return gpu_; }          // GiB
  TierControl* hostMemory() const { return host_; }
  TierControl* ssdBandwidth() const { return ssd_; }  // GiB/s
  QSpinBox* batch() const { return batch_; }          // models only (disabled for G10 workloads)
  const memsim::WhatIf& current() const { return current_; }
  // What the current result simulated, and how the measured run mapped onto it (null without a
  // measured run): what a comparison with the run needs.
  const std::shared_ptr<const memsim::SimWorkload>& workload() const { return workload_; }
  const memsim::MappingSummary* measuredMapping() const {
    return measured_ ? &*measured_ : nullptr;
  }
  memsim::TierConfig tiers() const;  // the tiers the controls set
  bool busy() const { return running_; }
  double lastLatencyMs() const { return lastLatencyMs_; }  // control change → redrawn

 signals:
  void updated();  // a new result is shown (or an error)
  // "Compare with the measured run" (a model simulated with a run's kernel times).
  void compareRequested(SessionPtr simulated);

 private:
  struct Outcome {
    std::shared_ptr<const memsim::SimWorkload> workload;
    int64_t batch = 0;
    Status load;                                    // the workload's, when it was (re)loaded
    std::optional<memsim::MappingSummary> mapping;  // when the workload was (re)loaded
    memsim::WhatIf whatIf;
  };
  void schedule();
  void start();
  void present(Outcome outcome);
  void applyPreset();  // the chosen preset's values into the controls

  memsim::WorkloadSource source_;
  std::shared_ptr<const memsim::SimWorkload> workload_;  // loaded for workloadBatch_
  int64_t workloadBatch_ = 0;
  std::optional<memsim::MappingSummary> measured_;  // for workload_, when a run was mapped
  memsim::TierConfig base_;
  memsim::WhatIf current_;
  PolicyBox* policy_ = nullptr;
  TierPresetBox* preset_ = nullptr;
  TierControl* gpu_ = nullptr;
  TierControl* host_ = nullptr;
  TierControl* ssd_ = nullptr;
  QSpinBox* batch_ = nullptr;
  QComboBox* tracedBatch_ = nullptr;  // G10's inputs: the batches it traced
  QLabel* values_ = nullptr;
  QPushButton* compare_ = nullptr;
  QLabel* mapping_ = nullptr;
  QLabel* summary_ = nullptr;
  QVBoxLayout* body_ = nullptr;
  TimelineCanvas* timeline_ = nullptr;
  bool running_ = false;
  bool pending_ = false;
  QElapsedTimer sinceChange_;
  double lastLatencyMs_ = 0;
  JobRunner<Outcome> job_;  // last: it waits for its work before the members it reads go
};

}  // namespace ts
