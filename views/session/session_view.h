// SessionView: what one tab shows for one open session — the track tree, the timeline, and below
// it the details of the selected event and the session overview (devices, counts, provenance).
#pragma once

#include <QWidget>
#include <optional>

#include "analysis/event_search.h"
#include "session/session.h"
#include "timeline/diagnosis_rows.h"
#include "timeline/timeline_rows.h"
#include "views/jobs/job_runner.h"

class QTreeView;
class QCheckBox;
class QLabel;
class QLineEdit;
class QTabWidget;
class QTableView;
class QTextBrowser;
class QTimer;
class QSplitter;

namespace ts {

class SessionTreeModel;
class TimelineCanvas;
class OverviewStrip;
class EventsTableModel;
class ChartsPane;
class StatsPane;
class DiagnosisPane;
class OverlayPane;

class SessionView : public QWidget {
  Q_OBJECT
 public:
  SessionView(SessionPtr session, QString path, QWidget* parent = nullptr,
              std::shared_ptr<const TimelineRows> rows = nullptr);

  const SessionPtr& session() const { return session_; }
  const QString& path() const { return path_; }
  SessionTreeModel* treeModel() const { return model_; }
  TimelineCanvas* timeline() const { return timeline_; }
  // The minimap above the timeline (View → Overview Strip; shown unless the user hid it, which
  // every tab remembers: QSettings "view/overview").
  OverviewStrip* overviewStrip() const { return overviewStrip_; }
  void setOverviewStripShown(bool shown);
  static bool overviewStripSaved();
  QTextBrowser* details() const { return details_; }

  // Find (Ctrl+F): events by name, substring or regular expression; F3 / Shift+F3 step through
  // them.
  void showFind();
  void findNext(bool backwards = false);
  QString findStatus() const;
  EventsTableModel* eventsModel() const { return eventsModel_; }
  QTableView* eventsTable() const { return eventsTable_; }
  StatsPane* stats() const { return stats_; }
  DiagnosisPane* diagnosis() const { return diagnosis_; }
  ChartsPane* charts() const { return charts_; }
  QTabWidget* bottomTabs() const { return bottom_; }
  // A snapshot of a capture still running: the overview says so instead of "incomplete".
  void setLive(bool live);
  // A newer snapshot of the capture this view shows (each second of a live capture; at its end
  // the saved file, `live` false, under its `path`), with its rows laid out (null: laid out
  // here). Taken in where the user is, rather than in a new view: the time in view (or the whole
  // capture, followed as it grows, when it was in view), the rows unfolded, hidden and scrolled,
  // the selection, the tab shown, the track tree unfolded, the find bar, the events listed. The
  // Statistics, Diagnosis and Charts tabs keep what they show while the capture runs, until the
  // user asks for another or comes back to them.
  void showSnapshot(SessionPtr session, std::shared_ptr<const TimelineRows> rows, bool live,
                    const QString& path);
  // Fills the events table with [t0, t1) of every track, or of one timeline row.
  // The events of [t0, t1) on `row` (kNone: all rows); `selected`: the range is the ruler's
  // selection, else the stretch in view.
  void showEvents(TimeNs t0, TimeNs t1, size_t row = static_cast<size_t>(kNone),
                  bool selected = true);
  // Model → Simulate Memory Tiers: the Simulation tab for `modelPath` at `batch` (replacing an
  // earlier one); each finished run is drawn over this timeline.
  OverlayPane* simulateOnTimeline(const QString& modelPath, int64_t batch);
  OverlayPane* overlayPane() const { return overlay_; }
  // The session the timeline draws: the run, or the run with a simulation overlaid.
  const SessionPtr& shown() const { return shown_; }

 signals:
  // The Simulation tab's "Compare side by side".
  void compareSimulationRequested();

 private:
  QString overviewHtml() const;
  // The events table's columns as wide as what they hold (the name column takes the rest).
  void fitEventsColumns();
  void createFindBar(QWidget* parent);  // the find bar and its connections, hidden
  QWidget* createEventsPane();          // the Events tab: filter, copy, the table
  void updateEventsStatus();            // "N events [matching …] of ROWS in SPAN"

  void showOverlay(bool on);
  // The diagnosis's rows on the timeline (the Diagnosis tab's "Show on timeline"), or not.
  void showDiagnosisRows(bool on);
  // The timeline shows the run, with the simulation over it when one is shown, with the
  // diagnosis's rows over that when wanted (built off the GUI thread for that base, then shown).
  void refreshTimeline();
  // The events list (emptied) and the find (its hits dropped) follow the session the timeline
  // shows now.
  void followShown();

  QSplitter* verticalSplit_ = nullptr;  // the timeline over the tabbed panes
  QTimer* findDebounce_ = nullptr;      // the search while typing
  bool stayOnEvents_ = false;           // a selection made from the events list keeps it shown
  QString eventsWhat_;                  // the rows the events list shows
  TimeNs eventsSpan_ = 0;
  bool eventsSelected_ = true;  // of the selected range (else of the view)
  SessionPtr session_;
  SessionPtr shown_;  // session_, or the overlaid copy the timeline draws
  std::shared_ptr<const TimelineRows> baseRows_;
  OverlayPane* overlay_ = nullptr;
  QString path_;
  SessionTreeModel* model_ = nullptr;
  QTreeView* tree_ = nullptr;
  QTextBrowser* overview_ = nullptr;
  TimelineCanvas* timeline_ = nullptr;
  OverviewStrip* overviewStrip_ = nullptr;
  QTextBrowser* details_ = nullptr;
  QTabWidget* bottom_ = nullptr;
  EventsTableModel* eventsModel_ = nullptr;
  QTableView* eventsTable_ = nullptr;
  QLabel* eventsStatus_ = nullptr;
  QLineEdit* eventsFilter_ = nullptr;
  StatsPane* stats_ = nullptr;
  DiagnosisPane* diagnosis_ = nullptr;
  ChartsPane* charts_ = nullptr;
  void runSearch();  // starts the search off the GUI thread
  struct Search {
    SessionPtr session;  // searched
    Result<std::vector<SearchHit>> hits;
  };
  void searchDone(Search done);  // then steps, if a step waits for it
  void resetSearch();
  void step(bool backwards);
  QWidget* findBar_ = nullptr;
  QLineEdit* findEdit_ = nullptr;
  QCheckBox* findRegex_ = nullptr;
  QLabel* findCount_ = nullptr;
  std::vector<SearchHit> hits_;
  size_t current_ = static_cast<size_t>(kNone);
  bool searched_ = false;
  std::optional<bool> pendingStep_;  // Next/Previous pressed while the search runs: backwards?
  bool live_ = false;
  bool takingSnapshot_ = false;  // in showSnapshot: the events list and the find stay as they are
  bool simulationShown_ = false;
  bool diagnosisRowsWanted_ = false;
  struct DiagnosisDrawing {
    SessionPtr base;  // what they were drawn over
    Result<DiagnosisRows> rows;
  };
  std::shared_ptr<const DiagnosisDrawing> drawn_;
  SessionPtr drawing_;  // the base a running job draws over
  void diagnosisDrawn(std::shared_ptr<const DiagnosisDrawing> drawn);
  JobRunner<std::shared_ptr<const DiagnosisDrawing>> diagnosisRowsJob_;
  // The run's own tensors (its allocation records paired by address) drawn under each GPU when
  // no simulation is shown: built off the GUI thread once per finished session.
  struct MeasuredDrawing {
    SessionPtr run;  // what they were measured in
    std::shared_ptr<const TimelineOverlay> layout;
    std::shared_ptr<const TimelineRows> rows;
    SessionPtr session;  // the run with their tracks added; null when there is nothing to draw
  };
  std::shared_ptr<const MeasuredDrawing> measured_;
  void drawMeasuredTensors();
  JobRunner<std::shared_ptr<const MeasuredDrawing>> measuredJob_;
  JobRunner<Search> search_;  // last: waits for its work first
};

}  // namespace ts
