// ModelView: the model panel — an ONNX model's layer table with totals, its training-step kernel
// list, batch size / device / optimizer controls, and exports to ASTRA-sim text and Chakra
// traces. Loading and expansion run off the GUI thread; a newer request supersedes an older one.
#pragma once

#include <QWidget>
#include <memory>

#include "analysis/stats_table.h"
#include "model/model_graph.h"
#include "model/training_step.h"
#include "util/result.h"
#include "views/jobs/job_runner.h"

class QComboBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QTabWidget;

namespace ts {

class TablePanel;

class ModelView : public QWidget {
  Q_OBJECT
 public:
  explicit ModelView(QString path, QWidget* parent = nullptr);
  ~ModelView() override;

  const QString& path() const { return path_; }
  bool busy() const { return job_.busy(); }
  const QString& error() const { return error_; }
  std::shared_ptr<const model::ModelGraph> graph() const { return graph_; }
  TablePanel* layers() const { return layers_; }
  TablePanel* kernels() const { return kernels_; }
  TablePanel* memory() const { return memory_; }
  void setBatch(int batch);
  void setDevice(const QString& preset);
  // ASTRA-sim text / Chakra traces of the current model and settings; an error message or empty.
  Status exportAstra(const QString& path, const QString& parallelism, int npus,
                     bool weightsOnly) const;
  Status exportChakra(const QString& prefix, int npus, bool weightsOnly) const;

 signals:
  void updated();  // new tables are shown (or the model failed to load: see error())

 private:
  struct Computed {
    std::shared_ptr<const model::ModelGraph> graph;
    StatsTable layers, kernels, summary, memory;
    std::string memorySentence;  // the step's peak and its make-up
  };
  void recompute();
  void present(Result<Computed> result);
  void exportDialog(bool chakra);
  model::StepOptions stepOptions() const;

  QString path_;
  QSpinBox* batch_ = nullptr;
  QComboBox* device_ = nullptr;
  QComboBox* optimizer_ = nullptr;
  QLabel* summary_ = nullptr;
  QPushButton* exportButton_ = nullptr;
  QTabWidget* tabs_ = nullptr;
  TablePanel* layers_ = nullptr;
  TablePanel* kernels_ = nullptr;
  TablePanel* memory_ = nullptr;
  std::shared_ptr<const model::ModelGraph> graph_;
  JobRunner<Result<Computed>> job_{this,
                                   [this](Result<Computed> result) { present(std::move(result)); }};
  QString error_;
};

}  // namespace ts
