// OverlayPane: the Simulation tab of a run — its model simulated under a policy and tiers the user
// sets (policy, tier preset, capacities and bandwidths, batch), run off the GUI thread with its
// stage shown, and laid over the run's timeline (SessionView draws it). It also shows how the
// run's kernels map onto the model (coverage, the iteration, every kernel with its layer), lets
// the user correct that (assign kernels to a layer, pick the iteration from the timeline), and
// the simulation against the measurement per kernel and per layer.
#pragma once

#include <QHash>
#include <QWidget>
#include <functional>
#include <map>
#include <memory>
#include <optional>

#include "memsim/reports/overlay_run.h"
#include "views/jobs/job_runner.h"

class QCheckBox;
class QComboBox;
class QHBoxLayout;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QSplitter;
class QTabWidget;

namespace ts {

class PolicyBox;
class TierPresetBox;

class TablePanel;

class OverlayPane : public QWidget {
  Q_OBJECT
 public:
  OverlayPane(SessionPtr run, QString modelPath, int64_t batch, QWidget* parent = nullptr);

  // Runs with the controls' values (also called by every control's change).
  void simulate();
  bool busy() const { return job_.busy(); }
  // The latest finished run (null before the first): its error, mappings, results and overlay.
  const memsim::OverlayRun* current() const { return current_.get(); }
  // The same run, shared: a job that outlives a newer run (a comparison being built) keeps it.
  const std::shared_ptr<const memsim::OverlayRun>& currentShared() const { return current_; }
  // The GPU the tables show (chosen when several were simulated); null before a run.
  const memsim::GpuRun* shownGpu() const;
  // Where the "iteration from the timeline selection" button reads the selection.
  void setSelectionSource(std::function<std::optional<std::pair<TimeNs, TimeNs>>()> source) {
    selection_ = std::move(source);
  }
  // Corrections made so far (kernel name → layer group, "" to leave out).
  const std::map<std::string, std::string>& corrections() const {
    return request_.source.mapping.corrections;
  }
  // Assigns every kernel of the mapping table's selected rows (or `names`) to `group`, re-runs.
  void assign(const QStringList& names, const QString& group);

  PolicyBox* policy() const { return policy_; }
  TierPresetBox* preset() const { return preset_; }
  QLineEdit* gpuMemory() const { return gpu_; }
  QLineEdit* hostMemory() const { return host_; }
  QLineEdit* ssdBandwidth() const { return ssdBw_; }
  QSpinBox* batch() const { return batch_; }
  QLabel* summary() const { return summary_; }
  QLabel* stage() const { return stage_; }
  QComboBox* sort() const { return sort_; }
  QCheckBox* classBox(memsim::TensorClass role) const;
  TablePanel* mappingTable() const { return mapping_; }
  TablePanel* kernelTable() const { return kernels_; }
  TablePanel* layerTable() const { return layers_; }
  QPushButton* compareButton() const { return compare_; }

 signals:
  void updated();           // a run finished: the overlay (or an error) is in current()
  void compareRequested();  // the measured run and the simulation side by side
  void removeRequested();   // the overlay off the timeline

 private:
  Status readControls();  // the controls into the request; the error names the field
  void present(std::shared_ptr<const memsim::OverlayRun> run);
  void showGpu();
  void fitSummary();  // the summary's share of the split: its text's height, unless the user chose
  void resizeEvent(QResizeEvent* event) override;  // a new width wraps the summary anew
  void applyPreset();                              // the chosen preset's values into the fields
  QHBoxLayout* laneControls();  // which tensor lanes, their order, the legend of their colours
  void addMappingControls();    // assign kernels to layers, choose the iteration (mapping_'s bar)

  SessionPtr run_;
  memsim::OverlayRequest request_;
  std::shared_ptr<const memsim::OverlayRun> current_;
  std::function<std::optional<std::pair<TimeNs, TimeNs>>()> selection_;
  PolicyBox* policy_ = nullptr;
  TierPresetBox* preset_ = nullptr;
  QLineEdit* gpu_ = nullptr;
  QLineEdit* host_ = nullptr;
  QLineEdit* ssd_ = nullptr;
  QLineEdit* pcie_ = nullptr;
  QLineEdit* ssdBw_ = nullptr;
  QHash<const QLineEdit*, QString> shownPreset_;  // each field's text as the preset set it
  // A typed value as it is shown after a run ("3GB" shows "2.79 GiB"), and what was typed: the
  // field left as shown keeps the typed, exact value.
  QHash<const QLineEdit*, std::pair<QString, QString>> shownTyped_;
  QSpinBox* batch_ = nullptr;
  QComboBox* sort_ = nullptr;
  std::vector<std::pair<memsim::TensorClass, QCheckBox*>> classes_;
  QProgressBar* progress_ = nullptr;
  QLabel* stage_ = nullptr;
  QLabel* summary_ = nullptr;
  QTabWidget* tabs_ = nullptr;
  QSplitter* split_ = nullptr;  // the summary above the tables
  bool splitChosen_ = false;    // the user set the split (now or before): it is kept
  TablePanel* mapping_ = nullptr;
  TablePanel* kernels_ = nullptr;
  TablePanel* layers_ = nullptr;
  TablePanel* memory_ = nullptr;   // GPU memory once each layer is done, run against model
  TablePanel* tensors_ = nullptr;  // the model's tensors matched to the run's allocations
  QComboBox* assignTo_ = nullptr;
  QComboBox* gpuChooser_ = nullptr;
  QPushButton* compare_ = nullptr;
  JobRunner<std::shared_ptr<const memsim::OverlayRun>> job_;
};

}  // namespace ts
