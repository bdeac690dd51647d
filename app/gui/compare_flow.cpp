#include "app/gui/compare_flow.h"

#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QList>
#include <QTabWidget>

#include "app/gui/shell.h"
#include "io/open_session.h"
#include "memsim/formats/sim_session.h"
#include "memsim/reports/mapping_report.h"
#include "memsim/reports/overlay_run.h"
#include "views/jobs/one_shot_job.h"
#include "views/session/session_view.h"
#include "views/simulation/overlay_pane.h"
#include "views/simulation/simulation_view.h"

namespace ts {

namespace {

// A run against the simulation of its mapped iteration: the tables of that iteration, and where
// the two timelines line up.
CompareView::Simulated simulatedComparison(const Session& measured,
                                           const memsim::SimWorkload& workload,
                                           const memsim::SimResult& result,
                                           const model::KernelMapping& mapping, int64_t gpuBytes,
                                           const Session& simulated) {
  CompareView::Simulated s;
  s.measuredOrigin = mapping.origin();
  s.simulatedOrigin = 0;
  if (!mapping.iterations.empty()) s.measuredEnd = mapping.iterations[mapping.iteration].end;
  s.simulatedEnd = simulated.endTime();
  s.summary = memsim::comparisonSummary(measured, workload, result, mapping, gpuBytes);
  s.layers = memsim::layerComparison(workload, result, mapping);
  s.kernels = memsim::kernelComparison(workload, result, mapping);
  s.traffic = memsim::trafficComparison(measured, workload, result, mapping);
  return s;
}

QString policyName(const memsim::SimResult& result) {
  return QString::fromLatin1(memsim::toString(result.policy));
}

}  // namespace

CompareFlow::CompareFlow(Shell& shell, QObject* parent) : QObject(parent), shell_(shell) {}

void CompareFlow::start(const QString& errorTitle,
                        std::function<Result<Prepared>(const Progress&)> prepare) {
  runOnce<Result<Prepared>>(
      this, std::move(prepare),
      [this, errorTitle](const Result<Prepared>& prepared) { present(prepared, errorTitle); });
}

std::pair<int, int> CompareFlow::defaults() const {
  QList<int> sessions;
  for (int i = 0; i < shell_.tabs()->count(); ++i) {
    if (shell_.sessionView(i)) sessions << i;
  }
  if (sessions.size() < 2) return {-1, -1};
  return {sessions[sessions.size() - 2], sessions.back()};  // the two opened last
}

bool CompareFlow::compareSessions(int tabA, int tabB) {
  SessionView* a = shell_.sessionView(tabA);
  SessionView* b = shell_.sessionView(tabB);
  if (!a || !b || tabA == tabB) return false;
  QTabWidget* tabs = shell_.tabs();
  QString nameA = tabs->tabText(tabA), nameB = tabs->tabText(tabB);
  // The view's own tables are built off the GUI thread as it opens.
  auto* view = new CompareView(a->session(), nameA, b->session(), nameB, tabs);
  const QString title = tr("%1 ↔ %2").arg(nameA, nameB);
  shell_.addTab(view, title, title);
  emit opened(view);
  return true;
}

void CompareFlow::dialog() {
  const auto [a, b] = defaults();
  if (a < 0) {
    shell_.showError(tr("Compare sessions"),
                     tr("Open two sessions first (for example before and after an optimisation)."));
    return;
  }
  QTabWidget* tabs = shell_.tabs();
  QDialog dialog(shell_.dialogParent());
  dialog.setWindowTitle(tr("Compare sessions"));
  auto* form = new QFormLayout(&dialog);
  auto* first = new QComboBox(&dialog);
  auto* second = new QComboBox(&dialog);
  for (int i = 0; i < tabs->count(); ++i) {
    if (!shell_.sessionView(i)) continue;
    first->addItem(tabs->tabText(i), i);
    second->addItem(tabs->tabText(i), i);
  }
  // The two sessions opened last, the newer as B.
  first->setCurrentIndex(first->findData(a));
  second->setCurrentIndex(second->findData(b));
  form->addRow(tr("A (before):"), first);
  form->addRow(tr("B (after):"), second);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
  form->addRow(buttons);
  connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
  if (dialog.exec() != QDialog::Accepted) return;
  if (!compareSessions(first->currentData().toInt(), second->currentData().toInt()))
    shell_.showError(tr("Compare sessions"), tr("Choose two different sessions."));
}

bool CompareFlow::withSimulation(SessionView* view) {
  const OverlayPane* pane = view ? view->overlayPane() : nullptr;
  std::shared_ptr<const memsim::OverlayRun> run = pane ? pane->currentShared() : nullptr;
  const memsim::GpuRun* gpu = pane ? pane->shownGpu() : nullptr;
  if (!run || !run->status.ok() || !gpu) return false;
  Prepared p;
  p.measured = view->session();
  p.measuredName = shell_.tabs()->tabText(shell_.tabs()->indexOf(view));
  const QString policy = policyName(gpu->run.result);
  p.simulatedName = tr("%1 (simulated)").arg(policy);
  // Named by the policy: a second comparison of the same run (from the what-if) reads apart.
  p.title = tr("%1 ↔ %2").arg(p.measuredName, policy);
  shell_.showMessage(tr("Comparing %1 with its simulation…").arg(p.measuredName), 5000);
  // The run is shared, not copied: the job keeps it while the pane moves on to a newer one.
  start(tr("Cannot compare with the simulation"),
        [p, run, gpu](const Progress& progress) mutable -> Result<Prepared> {
          if (!progress.enter("simulated session")) return Error::cancelled();
          const memsim::PolicyRun& policyRun = gpu->run;
          auto simulated = memsim::simulationSession(gpu->workload, {policyRun}, run->tiers);
          TS_ASSIGN_OR_RETURN(p.simulated, std::move(simulated));
          if (!progress.enter("comparison tables")) return Error::cancelled();
          p.tables = simulatedComparison(*p.measured, gpu->workload, policyRun.result,
                                         gpu->mapping.kernels, run->tiers.gpuBytes, *p.simulated);
          p.lineUp = true;
          return p;
        });
  return true;
}

void CompareFlow::withWhatIf(const SimulationView& view, SessionPtr simulated) {
  const memsim::WorkloadSource& source = view.source();
  Prepared p;
  p.simulated = std::move(simulated);
  // The measured run: the one simulated, else its open tab, else the file (read by the job).
  p.measured = source.session;
  for (int i = 0; i < shell_.tabs()->count() && !p.measured; ++i) {
    if (SessionView* v = shell_.sessionView(i); v && v->path().toStdString() == source.sessionPath)
      p.measured = v->session();
  }
  p.measuredName = QFileInfo(QString::fromStdString(source.sessionPath)).fileName();
  const QString policy = policyName(view.current().result);
  p.simulatedName = tr("%1 (what-if)").arg(policy);
  p.title = tr("%1 ↔ %2 (what-if)").arg(p.measuredName, policy);
  // The iteration the run was mapped by: its own tables, the timelines lined up at it.
  std::optional<model::KernelMapping> mapping;
  if (const memsim::MappingSummary* m = view.measuredMapping()) mapping = m->kernels;
  shell_.showMessage(tr("Comparing %1 with the what-if…").arg(p.measuredName), 5000);
  start(tr("Compare with the run"),
        [p, path = source.sessionPath, workload = view.workload(), result = view.current().result,
         mapping = std::move(mapping),
         gpuBytes = view.tiers().gpuBytes](const Progress& progress) mutable -> Result<Prepared> {
          if (!p.measured) {
            if (!progress.enter("reading the run")) return Error::cancelled();
            TS_ASSIGN_OR_RETURN(p.measured, openSessionFile(path, progress));
          }
          if (mapping && workload) {
            if (!progress.enter("comparison tables")) return Error::cancelled();
            p.tables = simulatedComparison(*p.measured, *workload, result, *mapping, gpuBytes,
                                           *p.simulated);
            p.lineUp = true;
          }
          return p;
        });
}

void CompareFlow::present(const Result<Prepared>& prepared, const QString& errorTitle) {
  if (!prepared) {
    if (!prepared.cancelled()) {
      shell_.showError(errorTitle, QString::fromStdString(prepared.error()));
      emit failed(QString::fromStdString(prepared.error()));
    }
    return;
  }
  const Prepared& p = *prepared;
  auto* compare =
      new CompareView(p.measured, p.measuredName, p.simulated, p.simulatedName, shell_.tabs());
  if (p.lineUp) compare->setSimulated(p.tables);
  shell_.addTab(compare, p.title, p.title);
  shell_.showMessage({}, 0);  // the "Comparing…" line is done
  emit opened(compare);
}

}  // namespace ts
