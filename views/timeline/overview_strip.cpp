#include "views/timeline/overview_strip.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <cmath>

#include "util/format.h"
#include "views/timeline/qt_text.h"
#include "views/timeline/timeline_canvas.h"

namespace ts {

namespace {
constexpr int kTop = 2;
constexpr int kSelectionBand = 3;                    // the selected range, under the lanes
constexpr QRgb kGpuColour = qRgb(0x59, 0xa1, 0x4f);  // as the GPU rows' utilisation lane
constexpr QRgb kCpuColour = qRgb(0x4e, 0x79, 0xa7);
}  // namespace

OverviewStrip::OverviewStrip(TimelineCanvas* canvas, QWidget* parent)
    : QWidget(parent), canvas_(canvas) {
  setObjectName(QStringLiteral("overviewStrip"));
  setMouseTracking(true);
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
  setToolTip(QString());  // tooltips come from event(), per position
  auto repaint = [this] { update(); };
  connect(canvas_, &TimelineCanvas::viewChanged, this, repaint);
  connect(canvas_, &TimelineCanvas::rangeSelected, this, repaint);
  connect(canvas_, &TimelineCanvas::rangeCleared, this, repaint);
  connect(canvas_, &TimelineCanvas::gutterChanged, this, repaint);
}

QSize OverviewStrip::sizeHint() const {
  const size_t lanes = std::max<size_t>(1, overviewLaneCount(canvas_->rows()));
  return {400, kTop + static_cast<int>(lanes) * (kLaneHeight + 1) + kSelectionBand + 1};
}

int OverviewStrip::gutter() const {
  return std::min(canvas_->gutter(), std::max(0, width() - 1));
}
int OverviewStrip::columns() const {
  return std::max(1, width() - gutter());
}

TimeAxis OverviewStrip::axis() const {
  // The span "Show All" gives, so a fitted view fills the strip's width.
  const Session& s = *canvas_->session();
  const TimeNs span = std::max<TimeNs>(s.duration(), 1);
  TimeAxis a;
  a.fit(s.startTime() - span / 100, s.endTime() + span / 100, columns());
  return a;
}

const std::vector<OverviewLane>& OverviewStrip::lanes() {
  refold();
  return lanes_;
}

void OverviewStrip::refold() {
  const void* rows = &canvas_->rows();
  if (rows == foldedRows_ && columns() == foldedColumns_ && gutter() == foldedGutter_) return;
  foldedRows_ = rows;
  foldedColumns_ = columns();
  foldedGutter_ = gutter();
  lanes_ = foldOverview(canvas_->rows(), axis(), columns());
  drawCache();
}

void OverviewStrip::drawCache() {
  const qreal dpr = devicePixelRatioF();
  cache_ = QImage((size() * dpr), QImage::Format_ARGB32_Premultiplied);
  cache_.setDevicePixelRatio(dpr);
  const QPalette& pal = palette();
  cache_.fill(pal.color(QPalette::Window));
  QPainter p(&cache_);
  QFont font = p.font();
  font.setPixelSize(9);
  p.setFont(font);
  const bool dark = pal.color(QPalette::Window).lightness() < 128;
  const int g = gutter();
  int y = kTop;
  for (const OverviewLane& lane : lanes_) {
    p.fillRect(QRect(g, y, columns(), kLaneHeight), pal.color(QPalette::Base));
    p.setPen(pal.color(QPalette::WindowText));
    p.drawText(QRect(4, y - 1, g - 10, kLaneHeight + 2), Qt::AlignRight | Qt::AlignVCenter,
               QFontMetrics(font).elidedText(plainText(lane.label), Qt::ElideMiddle, g - 10));
    QColor fill(lane.kind == OverviewLane::Kind::Gpu ? kGpuColour : kCpuColour);
    fill.setAlpha(dark ? 210 : 180);
    for (size_t x = 0; x < lane.values.size(); ++x) {
      const float v = lane.values[x];
      if (v <= 0) continue;
      const double h = std::max(1.0, static_cast<double>(v) * kLaneHeight);
      p.fillRect(QRectF(g + static_cast<double>(x), y + kLaneHeight - h, 1.0, h), fill);
    }
    y += kLaneHeight + 1;
  }
}

std::pair<int, int> OverviewStrip::windowSpan() const {
  const TimeAxis a = axis();
  const TimeAxis& view = canvas_->axis();
  const double x0 = a.xOf(view.start()), x1 = a.xOf(view.end(canvas_->canvasWidth()));
  const int g = gutter(), w = columns();
  int from = g + static_cast<int>(std::floor(std::clamp(x0, 0.0, static_cast<double>(w))));
  int to = g + static_cast<int>(std::ceil(std::clamp(x1, 0.0, static_cast<double>(w))));
  if (to - from < 4) {  // a deep zoom still shows where it is
    const int mid = (from + to) / 2;
    from = std::max(g, mid - 2);
    to = std::min(g + w, from + 4);
  }
  return {from, to};
}

void OverviewStrip::paintEvent(QPaintEvent*) {
  refold();
  if (cache_.size() != size() * devicePixelRatioF()) drawCache();  // a height change
  QPainter p(this);
  p.drawImage(0, 0, cache_);
  const QPalette& pal = palette();
  const int g = gutter(), bottom = height() - 1;
  const int lanesBottom = bottom - kSelectionBand;
  if (auto range = canvas_->selection()) {
    const TimeAxis a = axis();
    const double x0 = std::clamp(a.xOf(range->first), 0.0, static_cast<double>(columns()));
    const double x1 = std::clamp(a.xOf(range->second), 0.0, static_cast<double>(columns()));
    p.fillRect(QRectF(g + x0, lanesBottom + 1, std::max(1.0, x1 - x0), kSelectionBand),
               pal.color(QPalette::Highlight));
  }
  // Outside the view dimmed, the view framed.
  auto [from, to] = windowSpan();
  if (drag_ == Drag::Brush && moved_) {
    from = std::clamp(std::min(pressX_, brushTo_), g, g + columns());
    to = std::clamp(std::max(pressX_, brushTo_), g, g + columns());
  }
  QColor dim = pal.color(QPalette::Window);
  dim.setAlpha(150);
  p.fillRect(QRect(g, 0, from - g, lanesBottom + 1), dim);
  p.fillRect(QRect(to, 0, g + columns() - to, lanesBottom + 1), dim);
  QPen frame(pal.color(QPalette::Highlight));
  frame.setWidth(2);
  p.setPen(frame);
  p.setBrush(Qt::NoBrush);
  p.drawRect(QRect(from, 1, std::max(1, to - from - 1), lanesBottom - 1));
  p.setPen(pal.color(QPalette::Mid));
  p.drawLine(0, bottom, width(), bottom);
}

TimeNs OverviewStrip::clampedStart(TimeNs start, TimeNs span) const {
  // A view that fits in the strip stays inside it: moving it never shows time outside the session.
  const TimeAxis a = axis();
  const TimeNs lo = a.timeAt(0), hi = a.timeAt(columns());
  if (span >= hi - lo) return start;
  return std::clamp(start, lo, hi - span);
}

TimeNs OverviewStrip::timeAtX(int x) const {
  return axis().timeAt(std::clamp(x - gutter(), 0, columns()));
}

OverviewStrip::Drag OverviewStrip::dragAt(int x) const {
  if (x < gutter()) return Drag::None;
  auto [from, to] = windowSpan();
  // The window's edges resize it (when it is wide enough to tell them from its inside); its inside
  // pans it, unless it fills most of the strip, where there is nothing to pan and a drag means a
  // new stretch.
  if (to - from >= 12) {
    if (std::abs(x - from) <= 3) return Drag::LeftEdge;
    if (std::abs(x - to) <= 3) return Drag::RightEdge;
  }
  if (x >= from && x <= to && (to - from) * 10 < columns() * 9) return Drag::Pan;
  return Drag::Brush;
}

void OverviewStrip::mousePressEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return;
  const int x = event->position().toPoint().x();
  drag_ = dragAt(x);
  if (drag_ == Drag::None) return;
  pressX_ = brushTo_ = x;
  moved_ = false;
  pressTime_ = timeAtX(x);
  pressStart_ = canvas_->axis().start();
  pressEnd_ = canvas_->axis().end(canvas_->canvasWidth());
  if (drag_ == Drag::Pan) setCursor(Qt::ClosedHandCursor);
}

void OverviewStrip::mouseMoveEvent(QMouseEvent* event) {
  const int x = event->position().toPoint().x();
  if (drag_ == Drag::None) {
    switch (dragAt(x)) {
      case Drag::Pan:
        setCursor(Qt::OpenHandCursor);
        break;
      case Drag::LeftEdge:
      case Drag::RightEdge:
        setCursor(Qt::SizeHorCursor);
        break;
      default:
        unsetCursor();
    }
    return;
  }
  if (!moved_ && std::abs(x - pressX_) > 3) {
    moved_ = true;
    if (drag_ != Drag::Brush) canvas_->recordView();  // Back returns to the view before the drag
  }
  if (!moved_) return;
  const TimeNs t = timeAtX(x);
  const auto minimum = static_cast<TimeNs>(axis().nsPerPixel() * 4);  // the window stays visible
  const int w = canvas_->canvasWidth();
  switch (drag_) {
    case Drag::Pan:
      canvas_->setAxis(
          TimeAxis(clampedStart(pressStart_ + (t - pressTime_), pressEnd_ - pressStart_),
                   canvas_->axis().nsPerPixel()));
      break;
    case Drag::LeftEdge: {
      TimeAxis a;
      a.fit(std::min(t, pressEnd_ - minimum), pressEnd_, w);
      canvas_->setAxis(a);
      break;
    }
    case Drag::RightEdge: {
      TimeAxis a;
      a.fit(pressStart_, std::max(t, pressStart_ + minimum), w);
      canvas_->setAxis(a);
      break;
    }
    default:
      brushTo_ = x;
      update();
  }
}

void OverviewStrip::mouseReleaseEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton || drag_ == Drag::None) return;
  const Drag drag = std::exchange(drag_, Drag::None);
  unsetCursor();
  const int x = event->position().toPoint().x();
  if (drag == Drag::Brush && moved_) {
    const TimeNs a = timeAtX(std::min(pressX_, x)), b = timeAtX(std::max(pressX_, x));
    canvas_->zoomTo(a, b);
  } else if (!moved_) {  // a click: the view, at its zoom, centred there
    const TimeNs span = pressEnd_ - pressStart_;
    const TimeNs from = clampedStart(timeAtX(x) - span / 2, span);
    canvas_->zoomTo(from, from + span);
  }
  update();
}

void OverviewStrip::mouseDoubleClickEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton && event->position().x() >= gutter()) canvas_->fitAll();
}

QString OverviewStrip::tooltipAt(int x) const {
  if (x < gutter()) {
    return tr(
        "Overview of the whole session: each GPU's busy share and how many calls and "
        "ranges the CPU threads start, per column. The framed window is the timeline's "
        "view.");
  }
  const auto column = static_cast<size_t>(std::clamp(x - gutter(), 0, columns() - 1));
  const TimeNs t = timeAtX(x);
  QStringList lines;
  lines << plainText(formatTimestamp(t - canvas_->rulerOrigin(), axis().nsPerPixel()));
  for (const OverviewLane& lane : lanes_) {
    if (column >= lane.values.size()) continue;
    if (lane.kind == OverviewLane::Kind::Gpu) {
      lines << tr("%1 busy %2 %")
                   .arg(plainText(lane.label))
                   .arg(lane.values[column] * 100, 0, 'f', 0);
    } else {
      lines << tr("CPU: %1 calls and ranges start here").arg(lane.counts[column]);
    }
  }
  lines << tr(
      "Click: centre the view here · drag: zoom to a stretch · drag the window: pan · "
      "double-click: show all");
  return lines.join(QLatin1Char('\n'));
}

bool OverviewStrip::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    refold();
    QToolTip::showText(help->globalPos(), tooltipAt(help->pos().x()), this);
    return true;
  }
  if (event->type() == QEvent::PaletteChange || event->type() == QEvent::Resize) {
    foldedColumns_ = -1;  // drawn again with the new colours or size
  }
  return QWidget::event(event);
}

}  // namespace ts
