// CaptureJob: a live capture for the GUI — runs the launcher (capture/launcher.h) on a worker
// thread and reports its progress and its periodic snapshots on the GUI thread, so the timeline
// grows while the program runs. Built only with the CUDA toolkit (TSCOPE_HAVE_CAPTURE).
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <atomic>
#include <memory>

#include "capture/launcher.h"

namespace ts {

class CaptureJob : public QObject {
  Q_OBJECT
 public:
  CaptureJob(capture::CaptureOptions options, QObject* parent = nullptr);
  ~CaptureJob() override;

  void start();
  // Ends the capture; `terminateProgram` asks the program to exit (else it runs on, unrecorded).
  void stop(bool terminateProgram);
  bool running() const { return running_; }
  const capture::CaptureOptions& options() const { return options_; }
  const capture::CaptureProgress& lastProgress() const { return progress_; }

 signals:
  void progressed(const capture::CaptureProgress& progress);
  void snapshot(SessionPtr session);
  // The file was written (ok) or the capture could not start; `messages` are warnings for the user.
  void finished(bool ok, const QString& message, const QStringList& messages);

 private:
  capture::CaptureOptions options_;
  std::shared_ptr<std::atomic<bool>> stop_ = std::make_shared<std::atomic<bool>>(false);
  std::shared_ptr<std::atomic<bool>> keepRunning_ = std::make_shared<std::atomic<bool>>(false);
  QFutureWatcher<Result<capture::CaptureResult>> watcher_;
  capture::CaptureProgress progress_;
  bool running_ = false;
};

}  // namespace ts

Q_DECLARE_METATYPE(ts::capture::CaptureProgress)
