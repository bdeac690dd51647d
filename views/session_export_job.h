// SessionExportJob: writes a session (.tscope, Chrome JSON, CSV) on a worker thread with progress;
// the target file is replaced atomically, so a cancelled or failed export leaves it untouched.
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <atomic>
#include <memory>

#include "io/open_session.h"
#include "session/session.h"

namespace ts {

class SessionExportJob : public QObject {
  Q_OBJECT
 public:
  SessionExportJob(SessionPtr session, QString path, WriteOptions options,
                   QObject* parent = nullptr);
  ~SessionExportJob() override;

  void start();
  void cancel() { cancel_->store(true); }
  const QString& path() const { return path_; }
  double progress() const { return progress_; }

 signals:
  void progressChanged(double fraction);
  void finished(bool ok, const QString& message);

 private:
  SessionPtr session_;
  QString path_;
  WriteOptions options_;
  std::shared_ptr<std::atomic<bool>> cancel_ = std::make_shared<std::atomic<bool>>(false);
  QFutureWatcher<QString> watcher_;  // result: empty on success, else the error
  double progress_ = 0;
};

}  // namespace ts
