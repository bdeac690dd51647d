#include "views/jobs/capture_job.h"

#include <QMetaObject>
#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>

namespace ts {

CaptureJob::CaptureJob(capture::CaptureOptions options, QObject* parent)
    : QObject(parent), options_(std::move(options)) {
  qRegisterMetaType<capture::CaptureProgress>();
  qRegisterMetaType<SessionPtr>();
  connect(&watcher_, &QFutureWatcher<Result<capture::CaptureResult>>::finished, this, [this] {
    running_ = false;
    auto result = watcher_.result();
    if (!result.ok()) {
      emit finished(false, QString::fromStdString(result.error()), {});
      return;
    }
    QStringList messages;
    for (const std::string& m : result->messages) messages << QString::fromStdString(m);
    QString summary =
        tr("%1: %2 events").arg(QString::fromStdString(result->output)).arg(result->events);
    if (result->dropped) summary += tr(", %1 records dropped").arg(result->dropped);
    if (result->exitCode)
      summary += tr("; program exited with %1").arg(*result->exitCode);
    else if (result->signal)
      summary += tr("; program ended by signal %1").arg(*result->signal);
    if (result->incomplete) summary += tr(" (incomplete)");
    emit finished(true, summary, messages);
  });
}

CaptureJob::~CaptureJob() {
  stop_->store(true);
  watcher_.waitForFinished();
}

void CaptureJob::start() {
  running_ = true;
  QPointer<CaptureJob> self(this);
  capture::CaptureHooks hooks;
  hooks.stop = stop_.get();
  // Hooks run on the worker: hand their data to the GUI thread.
  hooks.progress = [self](const capture::CaptureProgress& p) {
    QMetaObject::invokeMethod(
        self,
        [self, p] {
          if (!self) return;
          self->progress_ = p;
          emit self->progressed(p);
        },
        Qt::QueuedConnection);
  };
  hooks.snapshot = [self](SessionPtr s) {
    QMetaObject::invokeMethod(
        self,
        [self, s] {
          if (self) emit self->snapshot(s);
        },
        Qt::QueuedConnection);
  };
  hooks.keepRunning = keepRunning_.get();
  // The atomics outlive the worker: the lambda holds them.
  watcher_.setFuture(
      QtConcurrent::run([options = options_, hooks, stop = stop_, keep = keepRunning_] {
        return capture::runCapture(options, hooks);
      }));
}

void CaptureJob::stop(bool terminateProgram) {
  keepRunning_->store(!terminateProgram);
  stop_->store(true);
}

}  // namespace ts
