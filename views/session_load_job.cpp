#include "session_load_job.h"

#include <QFileInfo>
#include <QPromise>
#include <QtConcurrent/QtConcurrent>

#include "io/open_session.h"

namespace ts {

namespace {
constexpr int kProgressSteps = 1000;
}

SessionLoadJob::SessionLoadJob(QStringList paths, OpenOptions options, QObject* parent)
    : QObject(parent), paths_(std::move(paths)), options_(std::move(options)) {
  connect(&watcher_, &QFutureWatcher<LoadOutcome>::progressValueChanged, this, [this](int value) {
    progress_ = static_cast<double>(value) / kProgressSteps;
    emit progressChanged(progress_);
  });
  connect(&watcher_, &QFutureWatcher<LoadOutcome>::finished, this, [this] {
    if (cancel_->load() || watcher_.future().resultCount() == 0) {
      emit failed(tr("%1: cancelled").arg(title()));
      return;
    }
    LoadOutcome outcome = watcher_.result();
    if (outcome.session)
      emit loaded(outcome.session, outcome.rows);
    else
      emit failed(outcome.error);
  });
}

SessionLoadJob::~SessionLoadJob() {
  cancel_->store(true);
  watcher_.waitForFinished();  // the worker holds no pointer to us, but let it finish cleanly
}

QString SessionLoadJob::title() const {
  if (paths_.isEmpty()) return {};
  QString first = QFileInfo(paths_.front()).fileName();
  return paths_.size() == 1 ? first : tr("%1 + %2 more").arg(first).arg(paths_.size() - 1);
}

void SessionLoadJob::start() {
  std::vector<std::string> paths;
  for (const QString& p : paths_) paths.push_back(p.toStdString());
  auto cancel = cancel_;
  OpenOptions options = options_;
  watcher_.setFuture(QtConcurrent::run([paths, options, cancel](QPromise<LoadOutcome>& promise) {
    promise.setProgressRange(0, kProgressSteps);
    Progress progress{
        [&promise](double f) { promise.setProgressValue(static_cast<int>(f * kProgressSteps)); },
        cancel.get()};
    auto result = openSessionFiles(paths, options, progress);
    if (!result) {
      promise.addResult(LoadOutcome{nullptr, nullptr, QString::fromStdString(result.error())});
      return;
    }
    auto rows = std::make_shared<const TimelineRows>(result.value());
    promise.addResult(LoadOutcome{result.value(), std::move(rows), {}});
  }));
}

void SessionLoadJob::cancel() {
  cancel_->store(true);
}

}  // namespace ts
