#include "app/gui/simulation_flow.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QTabWidget>

#include "app/gui/compare_flow.h"
#include "app/gui/g10_inputs_dialog.h"
#include "app/gui/model_dialog.h"
#include "app/gui/shell.h"
#include "io/atomic_file.h"
#include "memsim/formats/sweep_table.h"
#include "model/model_zoo.h"
#include "views/jobs/one_shot_job.h"
#include "views/models/model_title.h"
#include "views/session/session_view.h"
#include "views/simulation/overlay_pane.h"
#include "views/simulation/simulation_view.h"
#include "views/simulation/sweep_view.h"

namespace ts {

SimulationFlow::SimulationFlow(Shell& shell, CompareFlow& compare, QObject* parent)
    : QObject(parent), shell_(shell), compare_(compare) {}

OverlayPane* SimulationFlow::onTimeline(int tab, const QString& modelPath, int64_t batch) {
  SessionView* view = shell_.sessionView(tab);
  if (!view) return nullptr;
  ModelDialog::remember(modelPath, static_cast<int>(batch));  // offered again by the dialogs
  OverlayPane* pane = view->simulateOnTimeline(modelPath, batch);
  // The pane lives as long as the tab: a second simulation of the same tab reuses it.
  connect(pane, &OverlayPane::updated, this, &SimulationFlow::overlayUpdated, Qt::UniqueConnection);
  return pane;
}

void SimulationFlow::onTimelineDialog() {
  const QString title = tr("Simulate memory tiers on this timeline");
  const int tab = shell_.tabs()->currentIndex();
  if (!shell_.sessionView(tab)) {
    shell_.showError(title,
                     tr("Open a run first: the simulation of its model is drawn on its timeline."));
    return;
  }
  if (auto chosen = chooseModel(tr("The run's model"), tr("Batch size of the run:")))
    onTimeline(tab, chosen->path, chosen->batch);
}

void SimulationFlow::ownTensorsOnTimeline() {
  const int tab = shell_.tabs()->currentIndex();
  SessionView* view = shell_.sessionView(tab);
  if (!view) {
    shell_.showError(tr("Plan this run's own tensors"),
                     tr("Open a run first: its own allocations are planned on its timeline."));
    return;
  }
  OverlayPane* pane = view->simulateOnTimeline({}, 1);  // no model: the run itself
  connect(pane, &OverlayPane::updated, this, &SimulationFlow::overlayUpdated, Qt::UniqueConnection);
}

std::optional<SimulationFlow::ModelChoice> SimulationFlow::chooseModel(const QString& title,
                                                                       const QString& batchLabel) {
  ModelDialog dialog(title, batchLabel, shell_.dialogParent());
  if (dialog.exec() != QDialog::Accepted) return std::nullopt;
  ModelChoice chosen{dialog.file(), dialog.batch()};
  if (!dialog.builtIn().isEmpty()) {
    chosen.path = zooModelFile(title, dialog.builtIn());
    if (chosen.path.isEmpty()) return std::nullopt;
  }
  return chosen;
}

QString SimulationFlow::zooModelFile(const QString& title, const QString& name) {
  auto bytes = model::zooModelBytes(name.toStdString());
  QDir cache(zooCacheDir());
  const QString path = cache.filePath(name + QStringLiteral(".onnx"));
  if (!bytes || !cache.mkpath(QStringLiteral("."))) {
    shell_.showError(title, bytes ? tr("Cannot create %1").arg(cache.path())
                                  : QString::fromStdString(bytes.error()));
    return {};
  }
  if (Status st = writeBytesAtomically(path.toStdString(), *bytes); !st.ok()) {
    shell_.showError(title, QString::fromStdString(st.error()));
    return {};
  }
  return path;
}

void SimulationFlow::whatIf(const memsim::WorkloadSource& source) {
  auto* view = new SimulationView(source, shell_.tabs());
  connect(view, &SimulationView::compareRequested, this,
          [this, view](SessionPtr simulated) { compare_.withWhatIf(*view, std::move(simulated)); });
  QString name, where;
  if (source.isModel()) {
    name = modelTitle(QString::fromStdString(source.modelPath));
    where = QString::fromStdString(source.modelPath);
    // The same model with a run's measured times is another what-if: say whose times.
    if (source.session && !source.sessionPath.empty())
      name = tr("%1 on %2")
                 .arg(name, QFileInfo(QString::fromStdString(source.sessionPath)).fileName());
  } else if (source.isG10Inputs()) {
    // The batch is the tab's to change: the name says where the model comes from instead.
    name = tr("%1 (G10's inputs)").arg(QString::fromStdString(source.g10Model));
    where = QString::fromStdString(source.g10Inputs);
  } else {
    name = QFileInfo(QDir::cleanPath(QString::fromStdString(source.g10Dir))).fileName();
    where = QString::fromStdString(source.g10Dir);
  }
  shell_.addTab(view, tr("What-if: %1").arg(name), where);
}

void SimulationFlow::whatIfOfG10Dialog() {
  static QString lastDir;  // the dialog opens where the last choice was
  QString dir = QFileDialog::getExistingDirectory(
      shell_.dialogParent(),
      tr("G10 folder: a workload (kernels.config, tensors.config) or G10's inputs (frontend/, "
         "results/)"),
      lastDir);
  if (dir.isEmpty()) return;
  lastDir = dir;
  memsim::WorkloadSource source;
  // A folder laid out like G10's repository offers every model and batch G10 traced.
  if (auto models = memsim::listG10Inputs(dir.toStdString())) {
    G10InputsDialog dialog(dir, std::move(*models), shell_.dialogParent());
    if (dialog.exec() != QDialog::Accepted) return;
    source.g10Inputs = dir.toStdString();
    source.g10Model = dialog.model().toStdString();
    source.batch = dialog.batch();
  } else if (QDir(dir).exists(QStringLiteral("frontend")) ||
             QDir(dir).exists(QStringLiteral("results"))) {
    shell_.showError(tr("Simulate a G10 workload"), QString::fromStdString(models.error()));
    return;
  } else if (!QFileInfo::exists(dir + QStringLiteral("/kernels.config")) &&
             !QFileInfo::exists(dir + QStringLiteral("/kernels.config.gz"))) {
    shell_.showError(tr("Simulate a G10 workload"),
                     tr("%1 is neither a G10 workload (kernels.config and tensors.config) nor a "
                        "folder of G10's inputs (frontend/Nets/ and results/, as in G10's "
                        "repository).")
                         .arg(QDir::toNativeSeparators(dir)));
    return;
  } else {
    source.g10Dir = dir.toStdString();
  }
  whatIf(source);
}

void SimulationFlow::whatIfOfModelDialog() {
  auto chosen = chooseModel(tr("Simulate a model's training step"), tr("Batch size of the step:"));
  if (!chosen) return;
  memsim::WorkloadSource source;
  source.modelPath = chosen->path.toStdString();
  source.batch = chosen->batch;
  whatIf(source);
}

void SimulationFlow::whatIfOfRunDialog() {
  SessionView* run = shell_.sessionView(shell_.tabs()->currentIndex());
  if (!run) {
    shell_.showError(tr("Simulate this run"),
                     tr("Open a run first: its kernels are mapped onto the "
                        "model's layers for their measured times."));
    return;
  }
  auto chosen = chooseModel(tr("The run's model"), tr("Batch size of the run:"));
  if (!chosen) return;
  memsim::WorkloadSource source;
  source.modelPath = chosen->path.toStdString();
  source.batch = chosen->batch;
  source.session = run->session();  // the open run: not read again, saved or not
  source.sessionPath = run->path().toStdString();
  whatIf(source);
}

void SimulationFlow::openSweep(const QString& path) {
  // Each file its own job: two sweep files opened together both open.
  runOnce<Result<memsim::SweepTable>>(
      this, [file = path.toStdString()](const Progress&) { return memsim::loadSweepCsv(file); },
      [this, path](const Result<memsim::SweepTable>& sweep) {
        if (!sweep) {
          shell_.showError(tr("Cannot open sweep results"), QString::fromStdString(sweep.error()));
          emit sweepOpened(path, false);
          return;
        }
        auto* view = new SweepView(*sweep, shell_.tabs());
        shell_.addTab(view, modelTitle(path), path);
        emit sweepOpened(path, true);
      });
  shell_.showMessage(tr("Reading %1…").arg(QFileInfo(path).fileName()), 3000);
}

}  // namespace ts
