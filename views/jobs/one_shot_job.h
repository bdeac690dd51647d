// runOnce: one background job of its own, for requests that must not supersede each other (two
// sweep files opened together, two comparisons asked for one after the other). JobRunner is still
// what runs it — its Progress, its wait at destruction — held by a small QObject under `parent`
// that deletes itself once `done` has run on the GUI thread. Destroying `parent` first cancels
// the work and waits for it; `done` is then not called.
#pragma once

#include <QObject>
#include <functional>
#include <utility>

#include "views/jobs/job_runner.h"

namespace ts {

template <class T>
void runOnce(QObject* parent, std::function<T(const Progress&)> work,
             std::function<void(const T&)> done) {
  class Holder : public QObject {
   public:
    Holder(QObject* parent, std::function<void(const T&)> done)
        : QObject(parent), done_(std::move(done)), job_(this, [this](const T& result) {
            done_(result);
            deleteLater();  // later: this runs inside the runner's own callback
          }) {}
    void start(std::function<T(const Progress&)> work) { job_.start(std::move(work)); }

   private:
    std::function<void(const T&)> done_;
    JobRunner<T> job_;  // last: destroyed first, waiting for the work
  };
  (new Holder(parent, std::move(done)))->start(std::move(work));
}

}  // namespace ts
