#include "app/gui/open_flow.h"

#include <QAbstractButton>
#include <QDialog>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QTabWidget>
#include <QTimer>

#include "app/gui/open_ranks_dialog.h"
#include "app/gui/shell.h"
#include "app/gui/simulation_flow.h"
#include "views/jobs/session_load_job.h"
#include "views/models/model_title.h"
#include "views/models/model_view.h"
#include "views/session/session_view.h"
#include "views/timeline/timeline_canvas.h"

namespace ts {

namespace {
const char* kFileFilter =
    "All supported files (*.tscope *.json *.json.gz *.sqlite *.pickle);;"
    "Tensorscope sessions (*.tscope);;"
    "PyTorch profiler / Chrome traces (*.json *.json.gz);;"
    "Nsight Systems SQLite exports (*.sqlite);;"
    "PyTorch memory snapshots (*.pickle);;"
    "All files (*)";
}  // namespace

OpenFlow::OpenFlow(Shell& shell, SimulationFlow& simulation, QObject* parent)
    : QObject(parent), shell_(shell), simulation_(simulation) {}

OpenFlow::~OpenFlow() {
  cancel();
}

void OpenFlow::dialog() {
  QStringList paths =
      QFileDialog::getOpenFileNames(shell_.dialogParent(), tr("Open session"), {}, tr(kFileFilter));
  if (!paths.isEmpty()) openFiles(paths);
}

void OpenFlow::ranksDialog() {
  QStringList paths = QFileDialog::getOpenFileNames(
      shell_.dialogParent(), tr("Open ranks as one session"), {}, tr(kFileFilter));
  if (paths.isEmpty()) return;
  OpenRanksDialog dialog(paths, shell_.dialogParent());  // rank order and clock shifts
  if (dialog.exec() == QDialog::Accepted) openRanks(dialog.paths(), dialog.options());
}

void OpenFlow::modelDialog() {
  QString path = QFileDialog::getOpenFileName(shell_.dialogParent(), tr("Open model"), {},
                                              tr("ONNX models (*.onnx);;All files (*)"));
  if (!path.isEmpty()) openModel(path);
}

void OpenFlow::openFiles(const QStringList& paths) {
  for (const QString& path : paths) {
    if (path.endsWith(QLatin1String(".onnx"), Qt::CaseInsensitive))
      openModel(path);
    else if (path.endsWith(QLatin1String(".csv"), Qt::CaseInsensitive))
      simulation_.openSweep(path);
    else if (!focusOpen(path))
      startLoad({path});
  }
}

void OpenFlow::openRanks(const QStringList& paths, const OpenOptions& options) {
  if (!paths.isEmpty()) startLoad(paths, options);
}

// ONNX models open in a model tab (layer table, training step, ASTRA-sim / Chakra export).
void OpenFlow::openModel(const QString& path) {
  auto* view = new ModelView(path, shell_.tabs());
  connect(view, &ModelView::updated, this, [this, view] {
    if (!view->error().isEmpty()) shell_.showError(tr("Cannot open model"), view->error());
    emit modelOpened(view->path(), view->error().isEmpty());
  });
  shell_.addTab(view, modelTitle(path), path);
}

// A session file that is open already, or loading, is not opened twice: its tab comes forward.
bool OpenFlow::focusOpen(const QString& path) {
  const QString absolute = QFileInfo(path).absoluteFilePath();
  QTabWidget* tabs = shell_.tabs();
  for (int i = 0; i < tabs->count(); ++i) {
    SessionView* v = shell_.sessionView(i);
    if (!v || v->timeline()->persistenceKey() != absolute) continue;
    tabs->setCurrentIndex(i);
    shell_.showMessage(tr("%1 is open already").arg(QFileInfo(path).fileName()), 5000);
    return true;
  }
  for (const SessionLoadJob* job : jobs_) {
    if (job->paths().size() == 1 && QFileInfo(job->paths().front()).absoluteFilePath() == absolute)
      return true;
  }
  return false;
}

void OpenFlow::startLoad(const QStringList& paths, const OpenOptions& options) {
  auto* job = new SessionLoadJob(paths, options, this);
  jobs_.push_back(job);
  connect(job, &SessionLoadJob::progressChanged, this, &OpenFlow::progressed);
  connect(job, &SessionLoadJob::loaded, this,
          [this, job](SessionPtr session, std::shared_ptr<const TimelineRows> rows) {
            auto* view = shell_.newSessionView(std::move(session), job->title(), std::move(rows));
            // The timeline's row arrangement (hidden, moved rows) is remembered per set of files.
            QStringList absolute;
            for (const QString& p : job->paths()) absolute << QFileInfo(p).absoluteFilePath();
            view->timeline()->setPersistenceKey(absolute.join(QLatin1Char('|')));
            shell_.addTab(view, job->title(), job->paths().join(QLatin1Char('\n')));
            // Its timeline takes the keys at once (the track tree would search on W, S, H);
            // given once this load's handler is done, not inside it.
            QTimer::singleShot(0, view, [view] { view->setFocus(); });
            for (const QString& path : job->paths()) shell_.addRecent(path);
            if (!view->session()->provenance.incompleteReason.empty())
              shell_.showMessage(tr("Opened without the damaged part of the trace: the session "
                                    "is incomplete (its Overview says why)"),
                                 15000);
            emit sessionOpened(job->paths().front());
            finished(job);
          });
  connect(job, &SessionLoadJob::failed, this, [this, job](const QString& message, bool cancelled) {
    if (cancelled)
      shell_.showMessage(message, 10000);
    else if (job->damaged() && !job->options().recover)
      offerRecovery(job->paths(), job->options(), message);
    else
      shell_.showError(tr("Cannot open session"), message);
    emit loadFailed(job->paths().front(), message);
    finished(job);
  });
  job->start();
  emit progressed();
}

// A trace cut short or with impossible events: the user decides whether to open what is intact
// (marked incomplete, with the reason on its Overview). Not modal, like the errors: other files
// keep loading while it waits.
void OpenFlow::offerRecovery(const QStringList& paths, OpenOptions options, const QString& why) {
  auto* box = new QMessageBox(QMessageBox::Question, tr("Damaged trace"),
                              tr("The trace is damaged. Open what is intact?"),
                              QMessageBox::Open | QMessageBox::Cancel, shell_.dialogParent());
  box->setObjectName(QStringLiteral("recoverQuestion"));
  box->setInformativeText(
      why + tr("\n\nOpening it skips the damaged events; the session is marked incomplete."));
  box->button(QMessageBox::Open)->setText(tr("Open the intact events"));
  box->setAttribute(Qt::WA_DeleteOnClose);
  options.recover = true;
  connect(box, &QMessageBox::finished, this, [this, box, paths, options](int) {
    if (box->clickedButton() == box->button(QMessageBox::Open))
      startLoad(paths, options);
    else
      shell_.showMessage(tr("Not opened: %1 is damaged").arg(QFileInfo(paths.front()).fileName()),
                         10000);
  });
  box->open();
}

void OpenFlow::finished(SessionLoadJob* job) {
  jobs_.removeOne(job);
  job->deleteLater();
  shell_.changed();
  emit progressed();
}

void OpenFlow::cancel() {
  for (SessionLoadJob* job : jobs_) job->cancel();
}

double OpenFlow::progressSum() const {
  double sum = 0;
  for (const SessionLoadJob* job : jobs_) sum += job->progress();
  return sum;
}

QString OpenFlow::status() const {
  if (jobs_.isEmpty()) return {};
  return jobs_.size() == 1 ? tr("Loading %1…").arg(jobs_.front()->title())
                           : tr("Loading %1 sessions…").arg(jobs_.size());
}

}  // namespace ts
