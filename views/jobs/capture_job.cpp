#include "views/jobs/capture_job.h"

#include <QMetaObject>
#include <QPointer>

#include "util/format.h"

namespace ts {

CaptureJob::CaptureJob(capture::CaptureOptions options, QObject* parent)
    : QObject(parent),
      options_(std::move(options)),
      rows_(this, [this](auto r) { shown(std::move(r)); }),
      job_(this, [this](Result<capture::CaptureResult> r) { done(std::move(r)); }) {
  qRegisterMetaType<capture::CaptureProgress>();
  qRegisterMetaType<SessionPtr>();
}

void CaptureJob::offer(SessionPtr session) {
  if (rows_.busy())
    waitingRows_ = std::move(session);
  else
    buildRows(std::move(session));
}

void CaptureJob::buildRows(SessionPtr session) {
  // Extending the last layout: a snapshot's rows cost what is new, not the whole capture.
  rows_.start([session, previous = laidOut_](const Progress&) {
    return std::make_pair(session, previous
                                       ? std::make_shared<const TimelineRows>(session, *previous)
                                       : std::make_shared<const TimelineRows>(session));
  });
}

void CaptureJob::shown(std::pair<SessionPtr, std::shared_ptr<const TimelineRows>> shown) {
  laidOut_ = shown.second;
  emit snapshot(shown.first, shown.second);
  if (waitingRows_) {
    buildRows(std::move(waitingRows_));
    waitingRows_ = nullptr;
  } else if (finish_) {
    Finish f = std::move(*finish_);
    finish_.reset();
    tell(f);
  }
}

// The end is told once the last snapshot (the saved file's) is on screen.
void CaptureJob::finish(Finish f) {
  if (rows_.busy() || waitingRows_)
    finish_ = std::move(f);
  else
    tell(f);
}

void CaptureJob::tell(const Finish& f) {
  // No layout follows: the rows on screen are the view's to keep, not ours (they hold GBs after
  // a long capture).
  laidOut_.reset();
  emit finished(f.ok, f.message, f.messages);
}

void CaptureJob::done(Result<capture::CaptureResult> result) {
  if (result.cancelled()) {  // stopped before the program started: nothing ran, nothing to show
    finish({true, tr("Capture stopped before the program started: nothing was recorded"), {}});
    return;
  }
  if (!result.ok()) {
    finish({false, QString::fromStdString(result.error()), {}});
    return;
  }
  QStringList messages;
  for (const std::string& m : result->messages) messages << QString::fromStdString(m);
  QString summary = tr("%1: %2 events")
                        .arg(QString::fromStdString(result->output),
                             QString::fromStdString(formatCount(result->events)));
  if (result->dropped)
    summary += (result->dropped == 1 ? tr(", %1 record lost") : tr(", %1 records lost"))
                   .arg(QString::fromStdString(formatCount(result->dropped)));
  if (result->exitCode)
    summary += tr("; program exited with %1").arg(*result->exitCode);
  else if (result->signal)
    summary += tr("; program ended by signal %1").arg(*result->signal);
  if (result->incomplete) summary += tr(" (incomplete)");
  finish({true, summary, messages});
}

void CaptureJob::start() {
  QPointer<CaptureJob> self(this);
  capture::CaptureHooks hooks;
  // Hooks run on the worker: hand their data to the GUI thread.
  hooks.live = [self](const capture::CaptureProgress& p) {
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
          if (self) self->offer(s);
        },
        Qt::QueuedConnection);
  };
  hooks.keepRunning = keepRunning_.get();
  job_.start([options = options_, hooks, keep = keepRunning_](const Progress& progress) mutable {
    hooks.progress = progress;  // the stop is the job's cancel flag
    return capture::runCapture(options, hooks);
  });
}

void CaptureJob::stop(bool terminateProgram) {
  keepRunning_->store(!terminateProgram);
  job_.cancel();  // still delivers the result: the launcher saves what it recorded
}

}  // namespace ts
