#include "session_load_job.h"

#include <QPromise>
#include <QtConcurrent/QtConcurrent>

#include "io/open_session.h"

namespace ts {

namespace {
constexpr int kProgressSteps = 1000;
}

SessionLoadJob::SessionLoadJob(QString path, QObject* parent)
    : QObject(parent), path_(std::move(path)) {
  connect(&watcher_, &QFutureWatcher<LoadOutcome>::progressValueChanged, this, [this](int value) {
    progress_ = static_cast<double>(value) / kProgressSteps;
    emit progressChanged(progress_);
  });
  connect(&watcher_, &QFutureWatcher<LoadOutcome>::finished, this, [this] {
    if (cancel_->load() || watcher_.future().resultCount() == 0) {
      emit failed(tr("%1: cancelled").arg(path_));
      return;
    }
    LoadOutcome outcome = watcher_.result();
    if (outcome.session) emit loaded(outcome.session);
    else emit failed(outcome.error);
  });
}

SessionLoadJob::~SessionLoadJob() {
  cancel_->store(true);
  watcher_.waitForFinished();  // the worker holds no pointer to us, but let it finish cleanly
}

void SessionLoadJob::start() {
  std::string path = path_.toStdString();
  auto cancel = cancel_;
  watcher_.setFuture(QtConcurrent::run([path, cancel](QPromise<LoadOutcome>& promise) {
    promise.setProgressRange(0, kProgressSteps);
    Progress progress{[&promise](double f) {
                        promise.setProgressValue(static_cast<int>(f * kProgressSteps));
                      },
                      cancel.get()};
    auto result = openSessionFile(path, progress);
    if (result) promise.addResult(LoadOutcome{result.value(), {}});
    else promise.addResult(LoadOutcome{nullptr, QString::fromStdString(result.error())});
  }));
}

void SessionLoadJob::cancel() { cancel_->store(true); }

}  // namespace ts
