// SessionExportJob: writes a session (.tscope, Chrome JSON, CSV) on a worker thread with progress;
// the target file is replaced atomically, so a cancelled or failed export leaves it untouched.
#pragma once

#include <QObject>
#include <QString>

#include "io/open_session.h"
#include "session/session.h"
#include "util/result.h"
#include "views/jobs/job_runner.h"

namespace ts {

class SessionExportJob : public QObject {
  Q_OBJECT
 public:
  SessionExportJob(SessionPtr session, QString path, WriteOptions options,
                   QObject* parent = nullptr);

  void start();
  void cancel() {
    cancelRequested_ = true;
    job_.cancel();
  }
  const QString& path() const { return path_; }
  double progress() const { return progress_; }

 signals:
  void progressChanged(double fraction);
  // `cancelled`: stopped on request (the file is untouched), not a failure to show as one.
  void finished(bool ok, const QString& message, bool cancelled);

 private:
  SessionPtr session_;
  QString path_;
  WriteOptions options_;
  double progress_ = 0;
  bool cancelRequested_ = false;  // before start(): the job starts cancelled
  JobRunner<Status> job_;
};

}  // namespace ts
