#include "session_export_job.h"

#include <QPromise>
#include <QtConcurrent/QtConcurrent>

namespace ts {

namespace {
constexpr int kProgressSteps = 1000;
}

SessionExportJob::SessionExportJob(SessionPtr session, QString path, WriteOptions options,
                                   QObject* parent)
    : QObject(parent), session_(std::move(session)), path_(std::move(path)), options_(options) {
  connect(&watcher_, &QFutureWatcher<QString>::progressValueChanged, this, [this](int value) {
    progress_ = static_cast<double>(value) / kProgressSteps;
    emit progressChanged(progress_);
  });
  connect(&watcher_, &QFutureWatcher<QString>::finished, this, [this] {
    QString error =
        watcher_.future().resultCount() ? watcher_.result() : tr("%1: cancelled").arg(path_);
    emit finished(error.isEmpty(), error.isEmpty() ? tr("Exported %1").arg(path_) : error);
  });
}

SessionExportJob::~SessionExportJob() {
  cancel_->store(true);
  watcher_.waitForFinished();
}

void SessionExportJob::start() {
  auto cancel = cancel_;
  SessionPtr session = session_;
  std::string path = path_.toStdString();
  WriteOptions options = options_;
  watcher_.setFuture(QtConcurrent::run([=](QPromise<QString>& promise) {
    promise.setProgressRange(0, kProgressSteps);
    Progress progress{
        [&promise](double f) { promise.setProgressValue(static_cast<int>(f * kProgressSteps)); },
        cancel.get()};
    Status st = writeSessionFile(*session, path, options, progress);
    promise.addResult(st ? QString() : QString::fromStdString(st.error()));
  }));
}

}  // namespace ts
