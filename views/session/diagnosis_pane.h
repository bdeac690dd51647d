// DiagnosisPane: the Diagnosis tab — why the session (or the range dragged on the ruler) is
// slow. The expert rules' findings ranked by the time they cost, the selected one explained with
// its advice; the per-step table and a stacked bar per step (compute, exposed communication,
// memory, idle by cause). A click on a finding zooms the timeline to it and outlines its events;
// a double-click on a step zooms to the step. Computed off the GUI thread; a newer range cancels
// the older computation; a hidden pane computes nothing until shown.
#pragma once

#include <QWidget>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "analysis/diagnosis.h"
#include "session/session.h"
#include "views/jobs/job_runner.h"

class QCheckBox;
class QLabel;
class QTabWidget;
class QTextBrowser;

namespace ts {

class ChartView;
class TablePanel;

class DiagnosisPane : public QWidget {
  Q_OBJECT
 public:
  explicit DiagnosisPane(SessionPtr session, QWidget* parent = nullptr);
  ~DiagnosisPane() override;

  // The range diagnosed (session clock), or the whole session.
  void setRange(std::optional<std::pair<TimeNs, TimeNs>> range);
  // A newer snapshot of the same capture (SessionView::showSnapshot). While `live`, the diagnosis
  // shown stays until the user asks for another (range) or comes back to the tab; else (the
  // capture's last snapshot) it is made again now when shown.
  void setSession(SessionPtr session, bool live);
  TablePanel* findings() const { return findings_; }
  TablePanel* steps() const { return steps_; }
  ChartView* chart() const { return chart_; }
  QTextBrowser* explanation() const { return explanation_; }
  bool busy() const { return job_.busy(); }
  // The last diagnosis shown, or null (computing, failed).
  const Diagnosis* diagnosis() const { return diagnosis_.get(); }
  // Shows finding `index` (of diagnosis()->findings) as if its row were clicked.
  void activateFinding(size_t index);
  // "Show on timeline": the steps, idle gaps and queue depth drawn on the timeline (the user's
  // last choice, QSettings "diagnosis/timelineRows"; on at first).
  QCheckBox* timelineBox() const { return onTimeline_; }
  // What the timeline shows of the diagnosis ("6 steps, 1,234 idle gaps …", "drawing…", an error).
  void setTimelineNote(const QString& note);

 signals:
  void updated();  // a new diagnosis is shown
  // A finding was chosen: show [start, end) and outline its events (track, event).
  // `rankTrack`: a GPU track of the finding's rank, to scroll to when there are no events.
  void findingActivated(TimeNs start, TimeNs end,
                        const std::vector<std::pair<uint32_t, uint32_t>>& events,
                        uint32_t rankTrack);
  void zoomRequested(TimeNs start, TimeNs end);  // a step was double-clicked
  // The diagnosis's rows are wanted on the timeline, or no more: the box was toggled, or the pane
  // was first shown with it ticked (a session nobody diagnoses is not copied to draw them).
  void timelineRowsWanted(bool on);

 private:
  void recompute();
  void showScope();  // what is diagnosed: the range or the whole session, at what time
  void present(Result<std::shared_ptr<const Diagnosis>> result);
  void showEvent(QShowEvent* event) override;

  SessionPtr session_;
  DiagnoseOptions options_;
  QLabel* scope_ = nullptr;
  QLabel* summary_ = nullptr;
  QCheckBox* onTimeline_ = nullptr;
  QLabel* timelineNote_ = nullptr;  // the timeline's colours and what was drawn
  QString legend_;
  bool shownOnce_ = false;
  TablePanel* findings_ = nullptr;
  QTextBrowser* explanation_ = nullptr;
  QTabWidget* right_ = nullptr;  // the finding, the steps chart, the steps table
  TablePanel* steps_ = nullptr;
  ChartView* chart_ = nullptr;
  std::shared_ptr<const Diagnosis> diagnosis_;
  bool stale_ = true;  // changed while hidden: recompute when shown
  bool live_ = false;  // a snapshot of a capture still running
  JobRunner<Result<std::shared_ptr<const Diagnosis>>> job_;  // last: waits for its work first
};

}  // namespace ts
