// SessionLoadJob: opens a session file on a worker thread, reporting progress; cancel() stops it
// at the next chunk. The GUI thread only receives signals.
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <atomic>
#include <memory>

#include "session/session.h"

namespace ts {

struct LoadOutcome {
  SessionPtr session;
  QString error;
};

class SessionLoadJob : public QObject {
  Q_OBJECT
 public:
  explicit SessionLoadJob(QString path, QObject* parent = nullptr);
  ~SessionLoadJob() override;

  void start();
  void cancel();
  const QString& path() const { return path_; }
  double progress() const { return progress_; }

 signals:
  void progressChanged(double fraction);
  void loaded(ts::SessionPtr session);
  void failed(const QString& message);  // includes "cancelled"

 private:
  QString path_;
  std::shared_ptr<std::atomic<bool>> cancel_ = std::make_shared<std::atomic<bool>>(false);
  QFutureWatcher<LoadOutcome> watcher_;
  double progress_ = 0;
};

}  // namespace ts
