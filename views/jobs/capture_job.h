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

#include "capture/launcher.h"
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
  void snapshot(SessionPtr session);
  // The file was written (ok), or the capture could not start (not ok), or it was stopped before
  // the program started (ok, nothing written); `messages` are warnings for the user.
  void finished(bool ok, const QString& message, const QStringList& messages);

 private:
  void done(Result<capture::CaptureResult> result);

  capture::CaptureOptions options_;
  // Read by the launcher when the stop comes; outlives the worker (the work holds it).
  std::shared_ptr<std::atomic<bool>> keepRunning_ = std::make_shared<std::atomic<bool>>(false);
  capture::CaptureProgress progress_;
  // Last: destroyed first, so it stops and waits for the worker while the rest still lives.
  JobRunner<Result<capture::CaptureResult>> job_;
};

}  // namespace ts

Q_DECLARE_METATYPE(ts::capture::CaptureProgress)
