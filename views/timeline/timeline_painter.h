// TimelinePainter: draws the timeline — the label column, the time ruler and the rows of
// TimelineRows, folded so the work is bounded by pixels × rows — with QPainter only (QtGui, no
// widget). TimelineView is what it shows: rows folded, hidden and ordered, the time axis and
// scroll, the selection and what is tied to it. The canvas edits a TimelineView as the user
// zooms and clicks and paints it here; the CLI's `export --timeline` sets one up and paints it
// into an image without any widget.
#pragma once

#include <QColor>
#include <QFont>
#include <QFontMetrics>
#include <QPainter>
#include <QPalette>
#include <QPointF>
#include <QString>
#include <memory>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "session/session.h"
#include "timeline/counter_fold.h"
#include "timeline/lane_fold.h"
#include "timeline/time_axis.h"
#include "timeline/timeline_rows.h"

namespace ts {

inline constexpr int kTimelineGutter = 240;  // the label column's default width
inline constexpr int kTimelineMinGutter = 120;
inline constexpr int kTimelineRulerHeight = 38;  // a band for the range summary over the ticks
inline constexpr int kTimelineLaneHeight = 18;
inline constexpr int kTimelineGroupHeight = 20;

// An event on a row: what a click or hover finds (kNone where there is none).
struct TimelineHit {
  uint32_t row = kNone, track = kNone, event = kNone;
};

struct TimelineView {
  SessionPtr session;
  std::shared_ptr<const TimelineRows> rows;
  std::vector<bool> collapsed, hidden;  // by row
  std::vector<size_t> order;            // display order (a row's block moves with it)
  TimeAxis axis;
  int scrollY = 0;
  TimelineHit selected;
  std::vector<std::pair<uint32_t, uint32_t>> linked;       // by a flow to the selection
  std::vector<std::pair<uint32_t, uint32_t>> tied;         // by an overlay: arrows from it
  std::vector<std::pair<uint32_t, uint32_t>> highlighted;  // outlined (a tensor's kernels)
  std::optional<std::pair<TimeNs, TimeNs>> selection;      // the selected range
  QString selectionSummary;
  double cursorX = -1;           // x of the mouse in the event area, for the readout; -1: outside
  int gutter = kTimelineGutter;  // width of the label column (the user can drag its edge)
  bool shortNames = true;        // kernel-name rows by function name (View → Short Kernel Names)
  bool utilisation = true;  // each GPU's busy share on its header row (View → GPU Utilisation)
  // What the ruler counts from: the session's start unless set (a comparison lines up two runs
  // at their iterations, and both rulers count from there).
  std::optional<TimeNs> rulerOrigin;

  // `rows` for `session` as their layout starts them (folded rows folded, all shown, in order),
  // the axis on the whole session for `width` pixels of events.
  void reset(SessionPtr session, std::shared_ptr<const TimelineRows> rows, int width);
  // The whole session in view, with a margin of 1 % each side.
  void fitAll(int width);
};

struct VisibleRow {
  size_t row;
  int y, height;
};

int timelineRowHeight(const TimelineRow& row);
// A row's label as drawn: with short names, a kernel-name row's kernel by its function name.
std::string shownRowLabel(const TimelineRow& row, bool shortNames);
// The rows shown, top to bottom, with their y (scroll applied; the ruler above).
std::vector<VisibleRow> visibleRows(const TimelineView& view);
TimelineHit hitTest(const TimelineView& view, QPoint pos);
// Where an event is drawn (its start or end, in the first visible row and lane showing it).
std::optional<QPointF> eventPosition(const TimelineView& view, uint32_t track, uint32_t event,
                                     bool atEnd);

class TimelinePainter {
 public:
  // Draws all of `view` into `size` with the colours of `colours` (light or dark).
  void paint(QPainter& p, QSize size, const TimelineView& view, const QPalette& colours);
  // Forgets the names measured for drawing: call when the view gets another session (a new
  // session may reuse a freed one's address).
  void clearLabels() {
    labels_.clear();
    labelsOf_ = nullptr;
  }

 private:
  // What one frame draws with, taken once at its start; then one drawer per part.
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
  void drawBusy(QPainter& p, const Frame& f, const VisibleRow& vr, const BusyIndex& busy);
  void drawTies(QPainter& p, const Frame& f);  // the selection's flows, ties and outlines
  void drawRuler(QPainter& p, const Frame& f);
  void drawSelectedRange(QPainter& p, const Frame& f);
  QRgb eventColor(const Track& track, uint32_t event) const;
  // A name as drawn inside a box of `width` pixels: converted and measured once per name, then
  // cut by an estimate (eliding exactly costs more than the box).
  // An event's name cut to `width`; a kernel's by its function name alone when the view says so
  // (View → Short Kernel Names), as the tables list it.
  QString label(StringId name, bool kernel, const QFontMetrics& fm, int width);

  static constexpr int kRulerHeight = kTimelineRulerHeight, kLaneHeight = kTimelineLaneHeight;
  const TimelineView* view_ = nullptr;  // during paint()
  const QPalette* palette_ = nullptr;
  bool dark_ = false;  // the palette is dark (set at the start of each frame)
  // Reused every frame: no allocation per lane.
  LaneDraw scratch_;
  std::vector<CounterColumn> counterScratch_;
  std::vector<float> busyScratch_;
  std::vector<ColouredRun> laneRuns_;
  std::vector<std::pair<const Track*, DrawBox>> laneBoxes_;
  struct Label {
    QString text;
    int width;
  };
  const Session* labelsOf_ = nullptr;  // the session the label cache holds names of
  // By name and style (bit 0: shortened as a kernel), since a frame asks for each name again.
  std::unordered_map<uint64_t, Label> labels_;
};

}  // namespace ts
