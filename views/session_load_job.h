// SessionLoadJob: opens a session file — or several trace files as one multi-rank session — on a
// worker thread, reporting progress; cancel() stops it at the next chunk. The GUI thread only
// receives signals.
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <QStringList>
#include <atomic>
#include <memory>

#include "io/open_session.h"
#include "session/session.h"
#include "timeline/timeline_rows.h"

namespace ts {

struct LoadOutcome {
  SessionPtr session;
  std::shared_ptr<const TimelineRows> rows;  // the timeline layout, built off the GUI thread too
  QString error;
};

class SessionLoadJob : public QObject {
  Q_OBJECT
 public:
  explicit SessionLoadJob(QStringList paths, OpenOptions options = {}, QObject* parent = nullptr);
  ~SessionLoadJob() override;

  void start();
  void cancel();
  const QStringList& paths() const { return paths_; }
  // The first file, or "first + N more" for a multi-rank session.
  QString title() const;
  double progress() const { return progress_; }

 signals:
  void progressChanged(double fraction);
  void loaded(ts::SessionPtr session, std::shared_ptr<const ts::TimelineRows> rows);
  void failed(const QString& message);  // includes "cancelled"

 private:
  QStringList paths_;
  OpenOptions options_;
  std::shared_ptr<std::atomic<bool>> cancel_ = std::make_shared<std::atomic<bool>>(false);
  QFutureWatcher<LoadOutcome> watcher_;
  double progress_ = 0;
};

}  // namespace ts
