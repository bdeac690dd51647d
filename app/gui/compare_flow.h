// CompareFlow: every comparison the window opens — two session tabs side by side, and a run
// against its simulation (from a session tab's Simulation pane, or from a what-if). The
// simulated session and the iteration's four tables scan the measured run, so they are built
// off the GUI thread; the tab opens when they are ready (`opened`). Each request is a job of its
// own: two comparisons asked for one after the other both open.
#pragma once

#include <QObject>
#include <QString>
#include <functional>
#include <utility>

#include "memsim/formats/workload_source.h"
#include "util/progress.h"
#include "util/result.h"
#include "views/simulation/compare_view.h"

namespace ts {

class SessionView;
class Shell;
class SimulationView;

class CompareFlow : public QObject {
  Q_OBJECT
 public:
  CompareFlow(Shell& shell, QObject* parent);

  // The tabs File → Compare Sessions… offers: the two sessions opened last (-1 when fewer than
  // two sessions are open).
  std::pair<int, int> defaults() const;
  // A compare tab for two open session tabs (by index); false when they are not two sessions.
  bool compareSessions(int tabA, int tabB);
  void dialog();  // File → Compare Sessions…
  // A session tab's simulation (its Simulation pane's shown GPU) against the run; false when the
  // tab has no successful simulation. The tab follows through `opened`.
  bool withSimulation(SessionView* view);
  // A what-if's current result against the run it simulated: the run's open tab, else its file
  // (read off the GUI thread).
  void withWhatIf(const SimulationView& view, SessionPtr simulated);

 signals:
  void opened(CompareView* view);
  void failed(const QString& message);

 private:
  // What a comparison of a run with a simulation needs, built off the GUI thread.
  struct Prepared {
    SessionPtr measured, simulated;
    QString measuredName, simulatedName, title;
    CompareView::Simulated tables;
    bool lineUp = false;  // tables and origins set: the run was mapped onto the workload
  };
  // Builds `prepare` off the GUI thread, then opens its tab (or shows its error under `title`).
  void start(const QString& errorTitle, std::function<Result<Prepared>(const Progress&)> prepare);
  void present(const Result<Prepared>& prepared, const QString& errorTitle);

  Shell& shell_;
};

}  // namespace ts
