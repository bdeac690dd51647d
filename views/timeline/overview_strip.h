// OverviewStrip: the minimap above a timeline — the whole session as a few thin lanes (each GPU's
// busy share, the CPU threads' activity; core/timeline/overview.h) with the canvas's view as a
// window on it. Click to centre the view there, drag the window to pan or its edges to widen or
// narrow it, drag elsewhere (or anywhere when the window fills the strip) to zoom to that stretch,
// double-click to show all. Its columns line up with the canvas's below (the same
// label column), and it is folded again only when its width or the rows change: a pan repaints a
// cached image and the window.
#pragma once

#include <QImage>
#include <QWidget>
#include <vector>

#include "timeline/overview.h"

namespace ts {

class TimelineCanvas;

class OverviewStrip : public QWidget {
  Q_OBJECT
 public:
  static constexpr int kLaneHeight = 11;

  explicit OverviewStrip(TimelineCanvas* canvas, QWidget* parent = nullptr);
  QSize sizeHint() const override;
  QSize minimumSizeHint() const override { return sizeHint(); }

  // What is drawn, for tests: the lanes (folded for the current width) and the strip's own axis
  // (the whole session across the columns right of the label column).
  const std::vector<OverviewLane>& lanes();
  TimeAxis axis() const;
  // The canvas's view on the strip, in widget x: [first, second).
  std::pair<int, int> windowSpan() const;

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  bool event(QEvent* event) override;  // tooltips, palette changes

 private:
  int columns() const;
  int gutter() const;
  void refold();  // when the width, the label column or the rows changed
  void drawCache();
  TimeNs timeAtX(int x) const;
  TimeNs clampedStart(TimeNs start, TimeNs span) const;
  QString tooltipAt(int x) const;

  TimelineCanvas* canvas_;
  std::vector<OverviewLane> lanes_;
  const void* foldedRows_ = nullptr;
  int foldedColumns_ = -1, foldedGutter_ = -1;
  QImage cache_;  // lanes and labels, without the window
  enum class Drag { None, Pan, Brush, LeftEdge, RightEdge } drag_ = Drag::None;
  Drag dragAt(int x) const;  // what a press at x starts
  int pressX_ = 0;
  TimeNs pressTime_ = 0, pressStart_ = 0, pressEnd_ = 0;
  int brushTo_ = 0;
  bool moved_ = false;
};

}  // namespace ts
