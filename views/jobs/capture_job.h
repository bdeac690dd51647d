// CaptureJob: a live capture for the GUI — runs the launcher (capture/launcher.h) through the
// views' one JobRunner and reports its counts and periodic snapshots on the GUI thread, so the
// timeline grows while the program runs. Stopping raises the job's cancel flag, which the
// launcher reads as "stop recording and save". Built only with the CUDA toolkit
// (TSCOPE_HAVE_CAPTURE).
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <atomic>
#include <memory>
#include <optional>
#include <utility>

#include "capture/launcher.h"
#include "timeline/timeline_rows.h"
#include "views/jobs/job_runner.h"

namespace ts {

class CaptureJob : public QObject {
  Q_OBJECT
 public:
  CaptureJob(capture::CaptureOptions options, QObject* parent = nullptr);

  void start();
  // Ends the capture; `terminateProgram` asks the program to exit (else it runs on, unrecorded).
  void stop(bool terminateProgram);
  bool running() const { return job_.busy(); }
  const capture::CaptureOptions& options() const { return options_; }
  const capture::CaptureProgress& lastProgress() const { return progress_; }

 signals:
  void progressed(const capture::CaptureProgress& progress);
  // A snapshot and its timeline rows, built off the GUI thread.
  void snapshot(SessionPtr session, std::shared_ptr<const TimelineRows> rows);
  // The file was written (ok), or the capture could not start (not ok), or it was stopped before
  // the program started (ok, nothing written); `messages` are warnings for the user.
  void finished(bool ok, const QString& message, const QStringList& messages);

 private:
  void done(Result<capture::CaptureResult> result);
  // A snapshot from the launcher: its rows are built at once, or after the build under way (the
  // newest snapshot waits; those it replaces are skipped), so the live view keeps up with what
  // the machine can lay out and the GUI thread never lays out a whole session.
  void offer(SessionPtr session);
  void buildRows(SessionPtr session);
  void shown(std::pair<SessionPtr, std::shared_ptr<const TimelineRows>> shown);
  struct Finish {
    bool ok;
    QString message;
    QStringList messages;
  };
  void finish(Finish f);
  void tell(const Finish& f);

  capture::CaptureOptions options_;
  // Read by the launcher when the stop comes; outlives the worker (the work holds it).
  std::shared_ptr<std::atomic<bool>> keepRunning_ = std::make_shared<std::atomic<bool>>(false);
  capture::CaptureProgress progress_;
  SessionPtr waitingRows_;  // the newest snapshot, while another's rows are built
  std::shared_ptr<const TimelineRows> laidOut_;  // the last rows built: the next extend them
  std::optional<Finish> finish_;                 // held until the last snapshot is shown
  JobRunner<std::pair<SessionPtr, std::shared_ptr<const TimelineRows>>> rows_;
  // Last: destroyed first, so it stops and waits for the worker while the rest still lives.
  JobRunner<Result<capture::CaptureResult>> job_;
};

}  // namespace ts

Q_DECLARE_METATYPE(ts::capture::CaptureProgress)
