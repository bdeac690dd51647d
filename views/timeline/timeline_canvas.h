// TimelineCanvas: the one widget that shows the timeline — a label gutter, the time ruler and the
// rows of TimelineRows — with zoom, pan, range selection, hover and click. It keeps what is shown
// in a TimelineView and draws it with TimelinePainter (timeline_painter.h), whose per-frame work is
// bounded by pixels × rows, not by the number of events.
#pragma once

#include <QWidget>
#include <memory>
#include <optional>
#include <vector>

#include "analysis/range_summary.h"
#include "timeline/time_axis.h"
#include "timeline/timeline_rows.h"
#include "timeline/zoom_history.h"
#include "views/jobs/job_runner.h"
#include "views/timeline/timeline_painter.h"

namespace ts {

class TimelineCanvas : public QWidget {
  Q_OBJECT
 public:
  static constexpr int kGutter = kTimelineGutter;  // the label column's default width
  static constexpr int kRulerHeight = kTimelineRulerHeight;
  static constexpr int kLaneHeight = kTimelineLaneHeight;
  static constexpr int kGroupHeight = kTimelineGroupHeight;

  // `rows` may come prebuilt (the load job builds them off the GUI thread); else they are built
  // here.
  explicit TimelineCanvas(SessionPtr session, std::shared_ptr<const TimelineRows> rows = nullptr,
                          QWidget* parent = nullptr);

  // The canvas's keys and mouse gestures, for the shortcuts dialog: (action, keys).
  static QList<QPair<QString, QString>> navigationHelp();

  const TimeAxis& axis() const { return view_.axis; }
  const SessionPtr& session() const { return view_.session; }
  void setAxis(const TimeAxis& axis);
  void fitAll();
  // The whole session in view again, as a step of no history: a live capture's newer snapshot
  // when the view showed the whole of the last one.
  void followGrowth();
  // The stretch the canvas opens on (and keeps fitting as its width settles, until the user moves
  // the view): the whole session unless set.
  void setHomeRange(TimeNs t0, TimeNs t1);
  // The time the ruler counts from (the session's start unless set).
  void setRulerOrigin(TimeNs origin) {
    view_.rulerOrigin = origin;
    update();
  }
  // Zooms so [t0, t1) fills the canvas; the previous view can be restored with back().
  void zoomTo(TimeNs t0, TimeNs t1);
  // Keeps the current view for back() before a gesture elsewhere moves it with setAxis (the
  // overview strip's window drag).
  void recordView() { pushHistory(); }
  TimeNs rulerOrigin() const { return view_.rulerOrigin.value_or(view_.session->startTime()); }
  void back();
  void forward();
  // Keyboard zoom: around the mouse when it is over the canvas, else around the middle.
  void zoomBy(double factor);
  void zoomToSelection();
  int canvasWidth() const { return std::max(1, width() - view_.gutter); }
  // The label column's width: dragged at its edge, remembered for every timeline.
  // Each GPU's utilisation lane on its header row; new canvases follow the saved choice.
  void setUtilisationShown(bool shown);
  bool utilisationShown() const { return view_.utilisation; }
  static bool utilisationSaved();
  int gutter() const { return view_.gutter; }
  void setGutter(int width);

  using Hit = TimelineHit;
  Hit hitAt(QPoint pos) const;
  const Hit& selected() const { return view_.selected; }
  // Events tied to the selection by a flow (the API call that launched it, the work it launched).
  const std::vector<std::pair<uint32_t, uint32_t>>& linked() const { return view_.linked; }
  // Events outlined because of the selection: the kernels that use a clicked tensor.
  const std::vector<std::pair<uint32_t, uint32_t>>& highlighted() const {
    return view_.highlighted;
  }
  // Events a simulation overlay ties to the selection (the kernel a transfer fed, the measured
  // kernels of a simulated kernel's layer), drawn as arrows from it.
  const std::vector<std::pair<uint32_t, uint32_t>>& tied() const { return view_.tied; }
  // Another session and layout for the same run (a simulation overlaid on it): the view, the
  // folding of rows with the same path and the selection's time stay.
  void setRows(SessionPtr session, std::shared_ptr<const TimelineRows> rows);
  void select(uint32_t track, uint32_t event);
  // Selects the first of `events` and outlines them all (a diagnosis finding's calls and
  // operations); an empty list changes nothing.
  void selectOutlined(const std::vector<std::pair<uint32_t, uint32_t>>& events);
  // Brings an event into view: centred, zoomed in when it would be narrower than 20 px, and its
  // row scrolled into sight.
  void centerOn(uint32_t track, uint32_t event);
  // The rows scrolled (and their groups unfolded) so that the first row drawing `track` shows;
  // the time axis stays.
  void showTrack(uint32_t track);
  std::optional<std::pair<TimeNs, TimeNs>> selection() const { return view_.selection; }
  // The summary line of the selected range ("2.1 ms · 14 kernels · GPU 0 busy 83 % · ...").
  QString selectionSummary() const { return view_.selectionSummary; }
  void setRowCollapsed(size_t row, bool collapsed);
  // Arranging rows: hide one (with what it groups), move it among its siblings, show all again.
  // With a persistence key (the session's files), the arrangement is saved and restored.
  void setRowHidden(size_t row, bool hidden);
  bool rowHidden(size_t row) const { return view_.hidden[row]; }
  void moveRow(size_t row, int delta);  // -1 up, +1 down among siblings
  void showAllRows();
  const std::vector<size_t>& rowOrder() const { return view_.order; }
  const QString& persistenceKey() const { return persistenceKey_; }
  void setPersistenceKey(const QString& key);
  bool rowCollapsed(size_t row) const { return view_.collapsed[row]; }
  const TimelineRows& rows() const { return *view_.rows; }
  const std::shared_ptr<const TimelineRows>& sharedRows() const { return view_.rows; }
  const std::shared_ptr<const TimelineRows>& rowsPtr() const { return view_.rows; }

  // Draws the whole canvas with `painter` at `size` (the widget paints itself with it; tests and
  // the frame benchmark draw into a QImage).
  void render(QPainter& painter, QSize size);

 signals:
  void eventSelected(uint32_t track, uint32_t event);
  void rangeSelected(TimeNs start, TimeNs end);
  void rangeCleared();         // a click on the ruler dropped the selection
  void selectionSummarized();  // the range tag has its counts (computed off the GUI thread)
  // A row's label was clicked (rows with events): the events table shows that row.
  void rowActivated(size_t row);
  void viewChanged();
  void gutterChanged(int width);  // the label column was dragged (a compare view keeps both equal)

 protected:
  void paintEvent(QPaintEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void contextMenuEvent(QContextMenuEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  bool event(QEvent* event) override;  // tooltips

 private:
  void pushHistory();
  void panBy(double pixels);  // kept within the session's home view
  // Back or forward: the view moves from one stack to the other.
  void showFromHistory(std::optional<TimeAxis> axis);
  QString tooltipFor(const Hit& hit) const;
  void revealTrack(const Track& t);    // unfolds the groups around the first row drawing `t`
  void scrollToTrack(const Track& t);  // rows scrolled so the first row drawing `t` shows

  TimelineView view_;  // what is shown; the painter draws it
  TimelinePainter painter_;
  QString persistenceKey_;
  std::string rowPath(size_t row) const;  // "GPU 0: A100/Stream 7": stable across reopening
  void saveArrangement() const;
  void loadArrangement();
  void summarizeSelection();  // the tag's duration now, its counts from summaryJob_
  void showSelectionSummary(const RangeSummary& r);
  ZoomHistory history_;  // Alt+Left, Alt+Right
  // Drag state.
  enum class Drag { None, Pan, Select, Gutter } drag_ = Drag::None;
  QPoint dragFrom_;
  TimeAxis dragAxis_;
  TimeNs selectFrom_ = 0;
  bool selectMoved_ = false;              // a press on the ruler became a drag
  TimeNs clampToSession(TimeNs t) const;  // a selected range stays within the session
  bool onGutterEdge(QPoint pos) const { return std::abs(pos.x() - view_.gutter) <= 3; }
  std::optional<std::pair<TimeNs, TimeNs>> home_;  // setHomeRange
  void fitHome();
  bool navigated_ = false;  // until the user moves the view, it follows the widget's width
  // Last: destroyed first, so a running summary is waited for while the canvas still lives.
  JobRunner<RangeSummary> summaryJob_;
};

}  // namespace ts
