#include "app/gui/capture_flow.h"

#include <QFileInfo>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QStatusBar>
#include <QTabWidget>
#include <QToolButton>

#include "app/gui/capture_dialog.h"
#include "app/gui/shell.h"
#include "util/format.h"
#include "views/session/session_view.h"
#include "views/timeline/timeline_canvas.h"

#ifdef TSCOPE_HAVE_CAPTURE
#include "views/jobs/capture_job.h"
#endif

namespace ts {

CaptureFlow::CaptureFlow(Shell& shell, QStatusBar* statusBar, QObject* parent)
    : QObject(parent), shell_(shell) {
  status_ = new QLabel(statusBar);
  status_->setObjectName(QStringLiteral("captureStatus"));
  stopButton_ = new QToolButton(statusBar);
  stopButton_->setText(tr("Stop"));
  stopButton_->setToolTip(tr("Stop the capture"));
  connect(stopButton_, &QToolButton::clicked, this, &CaptureFlow::askStop);
  statusBar->addPermanentWidget(status_);
  statusBar->addPermanentWidget(stopButton_);
  status_->hide();
  stopButton_->hide();
}

CaptureFlow::~CaptureFlow() {
  stop(true);
}

void CaptureFlow::dialog() {
#ifndef TSCOPE_HAVE_CAPTURE
  start({});
#else
  if (capturing()) {
    shell_.showError(tr("Capture"), tr("A capture is already running; stop it first."));
    return;
  }
  auto* dialog = new CaptureDialog(shell_.dialogParent());
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  connect(dialog, &QDialog::accepted, this, [this, dialog] {
    if (auto request = dialog->request(); request.ok()) start(*request);
  });
  dialog->open();
#endif
}

SessionView* CaptureFlow::view() const {
  return view_;
}

bool CaptureFlow::capturing() const {
#ifdef TSCOPE_HAVE_CAPTURE
  return job_ && job_->running();
#else
  return false;
#endif
}

void CaptureFlow::start(const CaptureRequest& request) {
#ifndef TSCOPE_HAVE_CAPTURE
  (void)request;
  shell_.showError(
      tr("Capture unavailable"),
      tr("This Tensorscope was built without the CUDA toolkit (CUPTI), so it cannot record "
         "programs. "
         "Build it on a machine with the toolkit at /usr/local/cuda, or capture elsewhere with "
         "'tensorscope-cli capture' and open the .tscope file here."));
#else
  if (capturing()) return;
  capture::CaptureOptions o;
  for (const QString& a : request.argv) o.argv.push_back(a.toStdString());
  for (const auto& [k, v] : request.env) o.env.emplace_back(k.toStdString(), v.toStdString());
  o.workingDirectory = request.workingDirectory.toStdString();
  o.output = capture::expandOutputName(request.output.toStdString());
  o.durationSeconds = request.durationSeconds;
  o.delaySeconds = request.delaySeconds;
  o.kinds = request.kinds.join(QLatin1Char(',')).toStdString();
  o.saveIntervalSeconds = 1;  // the live view: a new snapshot every second
  delete job_;
  job_ = new CaptureJob(o, this);
  view_ = nullptr;
  const QString program = QFileInfo(request.argv.value(0)).fileName();
  status_->setText(tr("Capturing %1…").arg(program));
  status_->show();
  stopButton_->show();
  connect(job_, &CaptureJob::progressed, this, [this, program](const capture::CaptureProgress& p) {
    status_->setText((p.processes == 1 ? tr("Capturing %1: %2, %3 events, %4 lost, %5 process")
                                       : tr("Capturing %1: %2, %3 events, %4 lost, %5 processes"))
                         .arg(program,
                              QString::fromStdString(
                                  formatDuration(static_cast<TimeNs>(p.elapsedSeconds * 1e9))),
                              QString::fromStdString(formatCount(p.events)),
                              QString::fromStdString(formatCount(p.dropped)))
                         .arg(p.processes));
  });
  // Each periodic save of a running capture: the tab shows the newest snapshot, keeping the zoom
  // when the user zoomed in and following the growth otherwise.
  connect(job_, &CaptureJob::snapshot, this,
          [this](SessionPtr session, std::shared_ptr<const TimelineRows> rows) {
            replaceView(std::move(session), tr("Capture (live)"), true, std::move(rows));
          });
  connect(job_, &CaptureJob::finished, this, &CaptureFlow::ended);
  job_->start();
#endif
}

void CaptureFlow::ended(bool ok, const QString& message, const QStringList& messages) {
#ifdef TSCOPE_HAVE_CAPTURE
  stopButton_->hide();
  status_->hide();
  if (!ok) {
    shell_.showError(tr("Capture failed"), message);
  } else {
    // The warnings come under the summary (file, events, records lost), so the box and the
    // status bar, which the box's message replaces, still say what was saved.
    if (messages.isEmpty())
      shell_.showMessage(message, 15000);
    else
      shell_.showError(tr("Capture"),
                       message + QLatin1Char('\n') + messages.join(QLatin1Char('\n')));
    if (view_) {
      // The last snapshot is the saved file: show it under its name.
      QString path = QString::fromStdString(job_->options().output);
      // The rows the tab already has are the session's (unless an overlay is drawn).
      std::shared_ptr<const TimelineRows> rows;
      if (view_->shown() == view_->session()) rows = view_->timeline()->sharedRows();
      replaceView(view_->session(), path, false, std::move(rows));
      QTabWidget* tabs = shell_.tabs();
      int index = tabs->indexOf(view_);
      if (index >= 0) {
        tabs->setTabText(index, QFileInfo(path).fileName());
        tabs->setTabToolTip(index, path);
        view_->timeline()->setPersistenceKey(QFileInfo(path).absoluteFilePath());
      }
      shell_.addRecent(path);
    }
  }
  emit finished(ok, message);
#else
  (void)ok, (void)message, (void)messages;
#endif
}

void CaptureFlow::replaceView(SessionPtr session, const QString& title, bool live,
                              std::shared_ptr<const TimelineRows> rows) {
  if (!session) return;
  QTabWidget* tabs = shell_.tabs();
  if (view_ && tabs->indexOf(view_) >= 0) {
    // The tab takes the snapshot in where the user is (a new view each second lost the tab
    // shown, the selection, the rows unfolded and cost the GUI thread ~7 ms to make).
    view_->showSnapshot(std::move(session), std::move(rows), live, title);
  } else {
    auto* view = shell_.newSessionView(std::move(session), title, std::move(rows));
    view->setLive(live);
    tabs->setCurrentIndex(tabs->addTab(view, title));
    view_ = view;
  }
  shell_.changed();
  emit updated();
}

void CaptureFlow::askStop() {
  if (!capturing()) return;
  QMessageBox box(QMessageBox::Question, tr("Stop capture"),
                  tr("Stop recording. Terminate the program too?"),
                  QMessageBox::Yes | QMessageBox::No | QMessageBox::Cancel, shell_.dialogParent());
  box.button(QMessageBox::Yes)->setText(tr("Stop and terminate"));
  box.button(QMessageBox::No)->setText(tr("Stop, let it run"));
  int answer = box.exec();
  if (answer == QMessageBox::Cancel) return;
  stop(answer == QMessageBox::Yes);
}

void CaptureFlow::stop(bool terminateProgram) {
#ifdef TSCOPE_HAVE_CAPTURE
  if (job_) job_->stop(terminateProgram);
#else
  (void)terminateProgram;
#endif
}

}  // namespace ts
