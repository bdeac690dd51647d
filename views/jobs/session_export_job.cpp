#include "views/jobs/session_export_job.h"

namespace ts {

SessionExportJob::SessionExportJob(SessionPtr session, QString path, WriteOptions options,
                                   QObject* parent)
    : QObject(parent),
      session_(std::move(session)),
      path_(std::move(path)),
      options_(options),
      job_(this, [this](Status st) {
        emit finished(st.ok(),
                      st.ok() ? tr("Exported %1").arg(path_) : QString::fromStdString(st.error()),
                      st.cancelled());
      }) {
  job_.onProgress([this](double f) {
    progress_ = f;
    emit progressChanged(f);
  });
}

void SessionExportJob::start() {
  job_.start([session = session_, path = path_.toStdString(), options = options_,
              stopped = cancelRequested_](const Progress& progress) -> Status {
    if (stopped) return Error::cancelled(path + ": cancelled");
    return writeSessionFile(*session, path, options, progress);
  });
}

}  // namespace ts
