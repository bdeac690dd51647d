// LatestJob: runs the newest request of a view off the GUI thread. Starting one cancels the one
// before (its flag is raised, its result dropped) and the callback, on the GUI thread, sees only
// the newest result. The views that recompute as the user clicks (statistics, charts, models)
// share it.
#pragma once

#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>
#include <atomic>
#include <functional>
#include <memory>

namespace ts {

template <class T>
class LatestJob {
 public:
  // `context` owns the job (the callback runs while it lives); `done` receives each newest result.
  LatestJob(QObject* context, std::function<void(T)> done) : done_(std::move(done)) {
    QObject::connect(&watcher_, &QFutureWatcherBase::finished, context, [this] {
      if (watcher_.property("generation").toInt() != generation_) return;  // superseded
      busy_ = false;
      done_(watcher_.result());
    });
  }
  ~LatestJob() {
    if (cancel_) cancel_->store(true);
    watcher_.waitForFinished();
  }
  LatestJob(const LatestJob&) = delete;
  LatestJob& operator=(const LatestJob&) = delete;

  // `work(cancel)` runs on a pool thread; it should stop early when `cancel` becomes true.
  void start(std::function<T(const std::atomic<bool>& cancel)> work) {
    if (cancel_) cancel_->store(true);
    cancel_ = std::make_shared<std::atomic<bool>>(false);
    ++generation_;
    busy_ = true;
    watcher_.setProperty("generation", generation_);
    watcher_.setFuture(
        QtConcurrent::run([work = std::move(work), cancel = cancel_] { return work(*cancel); }));
  }
  // Drops whatever is running: its result will not be delivered.
  void supersede() {
    if (cancel_) cancel_->store(true);
    ++generation_;
    busy_ = false;
  }
  bool busy() const { return busy_; }

 private:
  std::function<void(T)> done_;
  QFutureWatcher<T> watcher_;
  std::shared_ptr<std::atomic<bool>> cancel_;
  int generation_ = 0;
  bool busy_ = false;
};

}  // namespace ts
