// TimelineCanvas: the one widget that draws the timeline — a label gutter, the time ruler and the
// rows of TimelineRows — with zoom, pan, range selection, hover and click. Per-frame work is
// bounded by pixels × rows (lanes are folded, see lane_fold.h), not by the number of events.
#pragma once

#include <QColor>
#include <QFont>
#include <QPalette>
#include <QWidget>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "analysis/range_summary.h"
#include "timeline/lane_fold.h"
#include "timeline/time_axis.h"
#include "timeline/timeline_rows.h"
#include "timeline/zoom_history.h"

namespace ts {

class TimelineCanvas : public QWidget {
  Q_OBJECT
 public:
  static constexpr int kGutter = 240;  // label column
  static constexpr int kRulerHeight = 28;
  static constexpr int kLaneHeight = 18;
  static constexpr int kGroupHeight = 20;

  // `rows` may come prebuilt (the load job builds them off the GUI thread); else they are built
  // here.
  explicit TimelineCanvas(SessionPtr session, std::shared_ptr<const TimelineRows> rows = nullptr,
                          QWidget* parent = nullptr);

  // The canvas's keys and mouse gestures, for the shortcuts dialog: (action, keys).
  static QList<QPair<QString, QString>> navigationHelp();

  const TimeAxis& axis() const { return axis_; }
  const SessionPtr& session() const { return session_; }
  void setAxis(const TimeAxis& axis);
  void fitAll();
  // Zooms so [t0, t1) fills the canvas; the previous view can be restored with back().
  void zoomTo(TimeNs t0, TimeNs t1);
  void back();
  void forward();
  // Keyboard zoom: around the mouse when it is over the canvas, else around the middle.
  void zoomBy(double factor);
  void zoomToSelection();
  int canvasWidth() const { return std::max(1, width() - kGutter); }

  struct Hit {
    uint32_t row = kNone, track = kNone, event = kNone;
  };
  Hit hitAt(QPoint pos) const;
  const Hit& selected() const { return selected_; }
  // Events tied to the selection by a flow (the API call that launched it, the work it launched).
  const std::vector<std::pair<uint32_t, uint32_t>>& linked() const { return linked_; }
  // Events outlined because of the selection: the kernels that use a clicked tensor.
  const std::vector<std::pair<uint32_t, uint32_t>>& highlighted() const { return highlighted_; }
  // Events a simulation overlay ties to the selection (the kernel a transfer fed, the measured
  // kernels of a simulated kernel's layer), drawn as arrows from it.
  const std::vector<std::pair<uint32_t, uint32_t>>& tied() const { return tied_; }
  // Another session and layout for the same run (a simulation overlaid on it): the view, the
  // folding of rows with the same path and the selection's time stay.
  void setRows(SessionPtr session, std::shared_ptr<const TimelineRows> rows);
  void select(uint32_t track, uint32_t event);
  // Brings an event into view: centred, zoomed in when it would be narrower than 20 px, and its
  // row scrolled into sight.
  void centerOn(uint32_t track, uint32_t event);
  std::optional<std::pair<TimeNs, TimeNs>> selection() const { return selection_; }
  // The summary line of the selected range ("2.1 ms · 14 kernels · GPU 0 busy 83 % · ...").
  QString selectionSummary() const { return selectionSummary_; }
  void setRowCollapsed(size_t row, bool collapsed);
  // Arranging rows: hide one (with what it groups), move it among its siblings, show all again.
  // With a persistence key (the session's files), the arrangement is saved and restored.
  void setRowHidden(size_t row, bool hidden);
  bool rowHidden(size_t row) const { return hidden_[row]; }
  void moveRow(size_t row, int delta);  // -1 up, +1 down among siblings
  void showAllRows();
  const std::vector<size_t>& rowOrder() const { return order_; }
  void setPersistenceKey(const QString& key);
  bool rowCollapsed(size_t row) const { return collapsed_[row]; }
  const TimelineRows& rows() const { return *rows_; }
  const std::shared_ptr<const TimelineRows>& rowsPtr() const { return rows_; }

  // Draws the whole canvas with `painter` at `size` (the widget paints itself with it; tests and
  // the frame benchmark draw into a QImage).
  void render(QPainter& painter, QSize size);

 signals:
  void eventSelected(uint32_t track, uint32_t event);
  void rangeSelected(TimeNs start, TimeNs end);
  void rangeCleared();  // a click on the ruler dropped the selection
  // A row's label was clicked (rows with events): the events table shows that row.
  void rowActivated(size_t row);
  void viewChanged();

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
  struct VisibleRow {
    size_t row;
    int y, height;
  };
  std::vector<VisibleRow> layoutRows() const;
  // What one frame draws with, taken once at its start; then one drawer per part of the canvas.
  struct Frame {
    QSize size;
    int width = 0;  // of the event area, right of the label column
    QPalette pal;
    QColor base, text, alternate, mid, stripe;
    QFont font;
  };
  Frame beginFrame(QPainter& p, QSize size);
  int drawRowLabel(QPainter& p, const Frame& f, const VisibleRow& vr, size_t index);
  void drawCounterRow(QPainter& p, const Frame& f, const VisibleRow& vr, const TimelineRow& row,
                      int indent);
  void drawLaneRow(QPainter& p, const Frame& f, const VisibleRow& vr, const TimelineRow& row);
  void drawTies(QPainter& p, const Frame& f);  // the selection's flows, ties and outlines
  void drawRuler(QPainter& p, const Frame& f);
  void drawSelectedRange(QPainter& p, const Frame& f);
  int rowHeight(const TimelineRow& row) const;
  void pushHistory();
  // Back or forward: the view moves from one stack to the other.
  void showFromHistory(std::optional<TimeAxis> axis);
  QRgb eventColor(const Track& track, uint32_t event) const;
  QString tooltipFor(const Hit& hit) const;
  // A name as drawn inside a box of `width` pixels: converted and measured once per name, then
  // cut by an estimate (eliding exactly costs more than the box).
  QString label(StringId name, const QFontMetrics& fm, int width);

  SessionPtr session_;
  std::shared_ptr<const TimelineRows> rows_;
  std::vector<bool> collapsed_;
  std::vector<bool> hidden_;
  std::vector<size_t>
      order_;  // display order of rows (blocks of a row and its descendants move together)
  QString persistenceKey_;
  std::string rowPath(size_t row) const;  // "GPU 0: A100/Stream 7": stable across reopening
  void saveArrangement() const;
  void loadArrangement();
  TimeAxis axis_;
  int scrollY_ = 0;
  Hit selected_;
  std::vector<std::pair<uint32_t, uint32_t>> linked_;
  // Where an event is drawn now (the first visible row and lane showing it), for flow arrows.
  std::optional<QPointF> screenPosition(uint32_t track, uint32_t event, bool atEnd) const;
  std::optional<std::pair<TimeNs, TimeNs>> selection_;
  QString selectionSummary_;
  double cursorX_ = -1;  // canvas x of the mouse, for the time readout; -1 when outside
  void summarizeSelection();
  ZoomHistory history_;  // Alt+Left, Alt+Right
  // Drag state.
  enum class Drag { None, Pan, Select } drag_ = Drag::None;
  QPoint dragFrom_;
  TimeAxis dragAxis_;
  TimeNs selectFrom_ = 0;
  LaneDraw scratch_;  // reused every frame: no allocation per lane
  std::vector<CounterColumn> counterScratch_;
  std::vector<ColouredRun> laneRuns_;
  std::vector<std::pair<const Track*, DrawBox>> laneBoxes_;
  bool navigated_ = false;
  bool dark_ = false;  // the palette is dark (set at the start of each frame)
  struct Label {
    QString text;
    int width;
  };
  std::unordered_map<StringId, Label> labels_;
  // Events outlined for the selection (the kernels a clicked tensor is used by).
  std::vector<std::pair<uint32_t, uint32_t>> highlighted_;
  std::vector<std::pair<uint32_t, uint32_t>>
      tied_;  // overlay links: arrows from the selection  // until the user moves the view, it
              // follows the widget's width
};

}  // namespace ts
