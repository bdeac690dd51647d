// SessionLoadJob: opens a session file — or several trace files as one multi-rank session — on a
// worker thread, reporting progress; cancel() stops it at the next chunk. The GUI thread only
// receives signals.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <memory>

#include "io/open_session.h"
#include "session/session.h"
#include "timeline/timeline_rows.h"
#include "views/jobs/job_runner.h"

namespace ts {

struct Loaded {
  SessionPtr session;
  std::shared_ptr<const TimelineRows> rows;  // the timeline layout, built off the GUI thread too
};

class SessionLoadJob : public QObject {
  Q_OBJECT
 public:
  explicit SessionLoadJob(QStringList paths, OpenOptions options = {}, QObject* parent = nullptr);

  void start();
  void cancel();
  const QStringList& paths() const { return paths_; }
  const OpenOptions& options() const { return options_; }
  // After failed(): the file is a damaged trace whose intact part opens with options().recover.
  bool damaged() const { return damaged_; }
  // The first file, or "first + N more" for a multi-rank session.
  QString title() const;
  double progress() const { return progress_; }

 signals:
  void progressChanged(double fraction);
  void loaded(ts::SessionPtr session, std::shared_ptr<const ts::TimelineRows> rows);
  // Also when cancelled (the user stopped it, or closed the window): then `cancelled` is true.
  void failed(const QString& message, bool cancelled);

 private:
  QStringList paths_;
  OpenOptions options_;
  double progress_ = 0;
  bool cancelRequested_ = false;  // before start(): the job starts cancelled
  bool damaged_ = false;
  JobRunner<Result<Loaded>> job_;
};

}  // namespace ts
