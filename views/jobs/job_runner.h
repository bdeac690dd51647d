// JobRunner<T>: the one way a view runs work off the GUI thread (loads, exports, statistics,
// charts, models, simulations). The work gets a core Progress: its cancellation flag, and a
// fraction and stage that reach the GUI thread throttled to what a progress bar can show.
// Starting a job supersedes the one before (its flag is raised and its result dropped), so the
// `done` callback, on the GUI thread, sees only the newest result; cancel() raises the flag but
// still delivers what the work returns (an Error::cancelled(), as core returns it).
#pragma once

#include <QFutureWatcher>
#include <QMetaObject>
#include <QPointer>
#include <QString>
#include <QVariant>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "util/progress.h"

namespace ts {

template <class T>
class JobRunner {
 public:
  // `context` owns the runner; the callbacks run on its thread while it lives.
  JobRunner(QObject* context, std::function<void(T)> done)
      : context_(context), done_(std::move(done)) {
    QObject::connect(&watcher_, &QFutureWatcherBase::finished, context, [this] {
      if (watcher_.property("generation").toInt() != generation_) return;  // superseded
      busy_ = false;
      done_(watcher_.result());
    });
  }
  // Waits for every job it started, superseded ones included: none of them touches the runner
  // (or posts to its context) after this.
  ~JobRunner() {
    for (Running& r : running_) r.state->cancel.store(true);
    for (Running& r : running_) r.future.waitForFinished();
  }
  JobRunner(const JobRunner&) = delete;
  JobRunner& operator=(const JobRunner&) = delete;

  // Optional: hear the newest job's progress (fraction in [0, 1]) and stage names.
  void onProgress(std::function<void(double)> f) { progress_ = std::move(f); }
  void onStage(std::function<void(const QString&)> f) { stage_ = std::move(f); }

  // `work` runs on a pool thread and should return early when its Progress says cancelled.
  void start(std::function<T(const Progress&)> work) {
    if (state_) state_->cancel.store(true);
    std::erase_if(running_, [](const Running& r) { return r.future.isFinished(); });
    state_ = std::make_shared<State>();
    const int generation = ++generation_;
    busy_ = true;
    watcher_.setProperty("generation", generation);
    Progress progress;
    progress.cancel = &state_->cancel;
    QPointer<QObject> context(context_);
    if (progress_) {
      progress.report = [this, context, generation, state = state_](double f) {
        // At most one update per 1/1000: a loader reports per chunk, far more often.
        // A superseded or cancelled job reports nothing more; the bar only moves forward, at
        // most once per 1/1000.
        const int step = static_cast<int>(std::lround(std::clamp(f, 0.0, 1.0) * 1000));
        if (state->cancel.load()) return;
        int last = state->lastStep.load();
        do {
          if (step <= last) return;
        } while (!state->lastStep.compare_exchange_weak(last, step));
        QMetaObject::invokeMethod(
            context.data(),
            [this, context, generation, f] {
              if (context && generation == generation_ && progress_) progress_(f);
            },
            Qt::QueuedConnection);
      };
    }
    if (stage_) {
      progress.stage = [this, context, generation, state = state_](std::string_view name) {
        if (state->cancel.load()) return;
        QMetaObject::invokeMethod(
            context.data(),
            [this, context, generation,
             text = QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size()))] {
              if (context && generation == generation_ && stage_) stage_(text);
            },
            Qt::QueuedConnection);
      };
    }
    // The state (the flag the Progress points to) lives as long as the work that reads it.
    QFuture<T> future = QtConcurrent::run(
        [work = std::move(work), progress, state = state_] { return work(progress); });
    running_.push_back({future, state_});
    watcher_.setFuture(future);
  }
  // Raises the running job's flag; what it returns is still delivered.
  void cancel() {
    if (state_) state_->cancel.store(true);
  }
  // Drops whatever is running: its result will not be delivered.
  void supersede() {
    if (state_) state_->cancel.store(true);
    ++generation_;
    busy_ = false;
  }
  bool busy() const { return busy_; }

 private:
  struct State {
    std::atomic<bool> cancel{false};
    std::atomic<int> lastStep{-1};
  };
  struct Running {
    QFuture<T> future;
    std::shared_ptr<State> state;
  };
  QObject* context_;
  std::function<void(T)> done_;
  std::function<void(double)> progress_;
  std::function<void(const QString&)> stage_;
  QFutureWatcher<T> watcher_;
  std::shared_ptr<State> state_;
  std::vector<Running> running_;  // every job not known to be finished, the current one last
  int generation_ = 0;
  bool busy_ = false;
};

}  // namespace ts
