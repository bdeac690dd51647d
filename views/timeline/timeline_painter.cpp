#include "views/timeline/timeline_painter.h"

#include <QCoreApplication>
#include <QPolygonF>
#include <algorithm>
#include <cmath>
#include <limits>

#include "session/kernel_name.h"
#include "util/format.h"
#include "views/timeline/palette.h"
#include "views/timeline/row_extensions.h"

namespace ts {

namespace {

constexpr int kRulerHeight = kTimelineRulerHeight, kLaneHeight = kTimelineLaneHeight,
              kGroupHeight = kTimelineGroupHeight;
constexpr double kMinBoxPx = 3.0;  // narrower events fold into runs

}  // namespace

std::string shownRowLabel(const TimelineRow& row, bool shortNames) {
  // A kernel-name row reads "13.7 % <name>": the share stays, the name is shortened.
  if (!shortNames || row.kind != TimelineRow::Kind::KernelName) return row.label;
  const size_t split = row.label.find("% ");
  if (split == std::string::npos) return std::string(shortKernelName(row.label));
  return row.label.substr(0, split + 2) + std::string(shortKernelName(row.label.substr(split + 2)));
}

void TimelineView::reset(SessionPtr s, std::shared_ptr<const TimelineRows> r, int width) {
  session = std::move(s);
  rows = r ? std::move(r) : std::make_shared<TimelineRows>(session);
  collapsed.assign(rows->size(), false);
  for (size_t i = 0; i < rows->size(); ++i) collapsed[i] = (*rows)[i].startsCollapsed;
  hidden.assign(rows->size(), false);
  order.resize(rows->size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  axis.fit(session->startTime(), session->endTime(), width);
}

void TimelineView::fitAll(int width) {
  TimeNs span = std::max<TimeNs>(session->duration(), 1);
  axis.fit(session->startTime() - span / 100, session->endTime() + span / 100, width);
}

int timelineRowHeight(const TimelineRow& row) {
  if (row.kind == TimelineRow::Kind::Group) return kGroupHeight;
  if (row.kind == TimelineRow::Kind::Counter) return 2 * kLaneHeight + 2;
  return static_cast<int>(std::max<size_t>(row.lanes.size(), 1)) * kLaneHeight + 2;
}

std::vector<VisibleRow> visibleRows(const TimelineView& v) {
  std::vector<VisibleRow> out;
  int y = kRulerHeight - v.scrollY;
  int hiddenBelow = -1;  // depth of a collapsed or hidden row whose descendants are not shown
  for (size_t i : v.order) {
    const TimelineRow& row = (*v.rows)[i];
    if (hiddenBelow >= 0 && row.depth > hiddenBelow) continue;
    hiddenBelow = -1;
    if (v.hidden[i]) {
      hiddenBelow = row.depth;
      continue;
    }
    if ((row.kind == TimelineRow::Kind::Group || row.expandable) && v.collapsed[i])
      hiddenBelow = row.depth;
    int h = timelineRowHeight(row);
    out.push_back({i, y, h});
    y += h;
  }
  return out;
}

QRgb TimelinePainter::eventColor(const Track& t, uint32_t e) const {
  const TimelineView& v = *view_;
  switch (t.kind) {
    case EventKind::Kernel:
      return palette::nameColor(t.hot.name[e], dark_);
    case EventKind::Memcpy:
      return palette::copyColor(t.memcpys.copyKind[e]);
    case EventKind::Memset:
      return palette::memsetColor();
    case EventKind::Api:
      return palette::apiColor(t.apis.domain[e]);
    case EventKind::Nvtx:
      if (t.nvtx.color[e]) return t.nvtx.color[e] | 0xFF000000u;
      return palette::nameColor(t.hot.name[e], dark_);
    case EventKind::Range: {
      // A style the module that added the row gave the category (the simulation overlay's).
      if (const TimelineOverlay* overlay = v.rows->overlay()) {
        if (auto c = palette::styleColor(overlay->styleOf(t.ranges.category[e]))) return *c;
      }
      return palette::scaled(palette::nameColor(t.hot.name[e], dark_), 1.15);
    }
  }
  return qRgb(128, 128, 128);
}

// One frame: each visible row draws its label, then its events by kind (counters, lanes); then
// the ties of the selection, the ruler and the selected range over them.
void TimelinePainter::paint(QPainter& p, QSize size, const TimelineView& view,
                            const QPalette& colours) {
  view_ = &view;
  palette_ = &colours;
  const TimelineView& v = view;
  if (labelsOf_ != v.session.get()) {  // names are ids of one session's strings
    labels_.clear();
    labelsOf_ = v.session.get();
  }
  const Frame f = beginFrame(p, size);
  const std::vector<VisibleRow> visible = visibleRows(v);
  for (size_t vi = 0; vi < visible.size(); ++vi) {
    const VisibleRow& vr = visible[vi];
    if (vr.y + vr.height < kRulerHeight || vr.y > size.height()) continue;
    const TimelineRow& row = (*v.rows)[vr.row];
    const int indent = drawRowLabel(p, f, vr, vi);
    if (indent < 0) {  // a group row: its label, and a GPU's utilisation
      if (row.busy && v.utilisation) drawBusy(p, f, vr, *row.busy);
      continue;
    }
    if (row.kind == TimelineRow::Kind::Counter)
      drawCounterRow(p, f, vr, row, indent);
    else
      drawLaneRow(p, f, vr, row);
  }
  drawTies(p, f);
  drawRuler(p, f);
  drawSelectedRange(p, f);
}

TimelinePainter::Frame TimelinePainter::beginFrame(QPainter& p, QSize size) {
  Frame f;
  f.size = size;
  f.width = size.width() - view_->gutter;
  f.pal = *palette_;
  f.base = f.pal.color(QPalette::Base);
  f.text = f.pal.color(QPalette::Text);
  f.alternate = f.pal.color(QPalette::AlternateBase);
  f.mid = f.pal.color(QPalette::Mid);
  f.stripe = f.base.darker(102);
  dark_ = f.pal.color(QPalette::Window).lightness() < 128;  // once per frame
  p.fillRect(QRect(QPoint(0, 0), size), f.base);
  f.font = p.font();
  f.font.setPixelSize(11);
  p.setFont(f.font);
  return f;
}

// The row's band and label (with its fold arrow and colour swatch); the x where the label
// column's extra text may go, or -1 for a group row, which is only its label.
int TimelinePainter::drawRowLabel(QPainter& p, const Frame& f, const VisibleRow& vr, size_t vi) {
  const TimelineView& v = *view_;
  const TimelineRow& row = (*v.rows)[vr.row];
  const QSize size = f.size;
  const QColor &base = f.base, &text = f.text, &alternate = f.alternate, &stripe = f.stripe;
  const QFont& font = f.font;
  const QFontMetrics fm(font);
  QRect band(0, vr.y, size.width(), vr.height);
  bool group = row.kind == TimelineRow::Kind::Group;
  p.fillRect(band, group ? alternate : (vi % 2 ? base : stripe));
  p.setPen(text);
  int indent = 8 + row.depth * 14;
  if (group) {
    QString arrow = v.collapsed[vr.row] ? QStringLiteral("▸") : QStringLiteral("▾");
    p.drawText(QRect(indent, vr.y, 14, vr.height), Qt::AlignVCenter, arrow);
    QFont bold = font;
    bold.setBold(true);
    p.setFont(bold);
    p.drawText(QRect(indent + 14, vr.y, v.gutter - indent - 18, vr.height), Qt::AlignVCenter,
               QFontMetrics(bold).elidedText(QString::fromStdString(row.label), Qt::ElideRight,
                                             v.gutter - indent - 18));
    p.setFont(font);
    return -1;
  }
  if (row.expandable) {
    p.drawText(QRect(indent, vr.y, 14, kLaneHeight), Qt::AlignVCenter,
               v.collapsed[vr.row] ? QStringLiteral("▸") : QStringLiteral("▾"));
    indent += 14;
  }
  const RowExtension* extension =
      row.kind == TimelineRow::Kind::Extension ? rowExtension(row.extension) : nullptr;
  if (extension && extension->labelSwatch && !row.lanes.empty() && !row.lanes[0].empty() &&
      row.lanes[0][0].track->size()) {
    const Track& t = *row.lanes[0][0].track;
    p.fillRect(QRect(indent, vr.y + kLaneHeight / 2 - 4, 8, 8), QColor(eventColor(t, 0)));
    indent += 12;
  }
  if ((row.kind == TimelineRow::Kind::Copy && row.copyKind >= 0) ||
      row.kind == TimelineRow::Kind::Memset) {
    // The legend: each memory row's colour beside its name (unified memory's row holds every
    // direction, each in its copy kind's colour).
    QRgb swatch = row.kind == TimelineRow::Kind::Memset
                      ? palette::memsetColor()
                      : palette::copyColor(static_cast<CopyKind>(row.copyKind));
    p.fillRect(QRect(indent, vr.y + kLaneHeight / 2 - 4, 8, 8), QColor(swatch));
    indent += 12;
  }
  p.drawText(QRect(indent, vr.y, v.gutter - indent - 4, kLaneHeight), Qt::AlignVCenter,
             fm.elidedText(QString::fromStdString(shownRowLabel(row, v.shortNames)),
                           Qt::ElideMiddle, v.gutter - indent - 4));
  return indent;
}

// A GPU's utilisation in its header row: per pixel column, a bar as tall as the share of that
// column's time with a kernel running (two binary searches per column).
void TimelinePainter::drawBusy(QPainter& p, const Frame& f, const VisibleRow& vr,
                               const BusyIndex& busy) {
  const TimelineView& v = *view_;
  foldBusy(busy, v.axis, f.width, busyScratch_);
  const double top = vr.y + 3, bottom = vr.y + vr.height - 2;
  QColor fill(0x59, 0xa1, 0x4f);
  fill.setAlpha(dark_ ? 200 : 170);
  p.save();
  p.setClipRect(QRect(v.gutter, std::max(vr.y, kRulerHeight), f.width, vr.height));
  for (size_t x = 0; x < busyScratch_.size(); ++x) {
    const float share = busyScratch_[x];
    if (share <= 0) continue;
    const double h = std::max(1.0, share * (bottom - top));
    p.fillRect(QRectF(v.gutter + static_cast<double>(x), bottom - h, 1, h), fill);
  }
  p.restore();
}

// Min/max per pixel column from the counter's block summaries, filled down to the baseline,
// scaled to the counter's range (shown in the label column). A memory tier's row is scaled to
// its capacity (drawn dashed) and marks its peak.
void TimelinePainter::drawCounterRow(QPainter& p, const Frame& f, const VisibleRow& vr,
                                     const TimelineRow& row, int indent) {
  const TimelineView& v = *view_;
  const TimeAxis& a = v.axis;
  const int width = f.width;
  const QColor& text = f.text;
  const CounterSummary& cs = *row.counterSummary;
  const bool bytes = row.counter->unit == "bytes";
  auto value = [&](double v) {
    return bytes ? QString::fromStdString(formatBytes(static_cast<uint64_t>(std::max(0.0, v))))
                 : QString::number(v, 'g', 4);
  };
  p.drawText(QRect(indent, vr.y + kLaneHeight, v.gutter - indent - 4, kLaneHeight),
             Qt::AlignVCenter,
             row.capacity > 0
                 ? QCoreApplication::translate("TimelineCanvas", "peak %1 of %2")
                       .arg(value(cs.max), value(row.capacity))
                 : QCoreApplication::translate("TimelineCanvas", "max %1").arg(value(cs.max)));
  foldCounter(*row.counter, cs, a, width, counterScratch_);
  const double top = vr.y + 3, bottom = vr.y + vr.height - 2;
  const double ceiling = counterCeiling(cs, row.capacity);
  const double span = ceiling > cs.min ? ceiling - cs.min : 1.0;
  const double floor = std::min(0.0, cs.min);
  auto yOf = [&](double v) {
    return bottom - (v - floor) / (ceiling - floor > 0 ? ceiling - floor : span) * (bottom - top);
  };
  QColor fill(0x4e, 0x79, 0xa7);
  QColor fillLight = fill;
  fillLight.setAlpha(90);
  p.save();
  p.setClipRect(QRect(v.gutter, std::max(vr.y, kRulerHeight), width, vr.height));
  for (const CounterColumn& col : counterScratch_) {
    double yHi = yOf(col.max), yLo = yOf(col.min);
    p.fillRect(QRectF(v.gutter + col.x, yHi, 1, bottom - yHi), fillLight);
    p.fillRect(QRectF(v.gutter + col.x, yHi, 1, std::max(1.0, yLo - yHi)), fill);
  }
  if (row.capacity > 0) {
    if (row.capacity <= ceiling) {  // the capacity line, where it is on the scale
      p.setPen(QPen(QColor(0xe1, 0x57, 0x59), 1, Qt::DashLine));
      p.drawLine(QPointF(v.gutter, yOf(row.capacity)),
                 QPointF(v.gutter + width, yOf(row.capacity)));
    }
    if (row.counter->size() > 0 && cs.max > 0) {
      const double x = v.gutter + a.xOf(cs.maxTime), y = yOf(cs.max);
      p.setPen(text);
      p.setBrush(QColor(0xe1, 0x57, 0x59));
      p.drawPolygon(QPolygonF({QPointF(x - 4, y - 6), QPointF(x + 4, y - 6), QPointF(x, y)}));
      p.setBrush(Qt::NoBrush);
      // Inside the row whatever the scale; left of the mark when the right edge is near.
      const QString peak =
          QCoreApplication::translate("TimelineCanvas", "peak %1").arg(value(cs.max));
      const QFontMetrics fm(f.font);
      const int w = fm.horizontalAdvance(peak);
      const double at = x + 6 + w > v.gutter + width ? x - 6 - w : x + 6;
      // On a backing of the row's colour: the capacity line runs at the height of the text.
      QColor backing = f.pal.color(QPalette::Base);
      backing.setAlpha(220);
      p.fillRect(QRectF(at - 2, vr.y + 12.0 - fm.ascent(), w + 4, fm.height()), backing);
      p.drawText(QPointF(at, vr.y + 12.0), peak);
    }
  }
  p.restore();
}

// Each lane: its views folded, their runs merged, then boxes (with labels where they fit) over
// the runs.
void TimelinePainter::drawLaneRow(QPainter& p, const Frame& f, const VisibleRow& vr,
                                  const TimelineRow& row) {
  const TimelineView& v = *view_;
  const TimeAxis& a = v.axis;
  const int width = f.width;
  const QPalette& pal = f.pal;
  const QFontMetrics fm(f.font);
  p.save();
  p.setClipRect(QRect(v.gutter, std::max(vr.y, kRulerHeight), width, vr.height));
  p.translate(v.gutter, 0);
  for (size_t lane = 0; lane < row.lanes.size(); ++lane) {
    const int y = vr.y + 1 + static_cast<int>(lane) * kLaneHeight;
    // Runs of every view sharing the lane (the streams of Compute, the kernels, copies and
    // memsets of a stream) are merged first, so a run shows the lane's count and the colour of
    // what dominates it; boxes are drawn over them.
    laneRuns_.clear();
    laneBoxes_.clear();
    for (const LaneView& view : row.lanes[lane]) {
      scratch_.clear();
      foldLane(view, a, width, kMinBoxPx, scratch_);
      for (const DrawRun& r : scratch_.runs)
        laneRuns_.push_back({r.x0, r.x1, r.count, eventColor(*view.track, r.firstEvent)});
      for (const DrawBox& b : scratch_.boxes) laneBoxes_.emplace_back(view.track, b);
    }
    mergeLaneRuns(laneRuns_);
    for (const ColouredRun& r : laneRuns_) {
      // Folded runs are darker and marked with a light top edge (and their count when there
      // is room), so users know there is more to see when zooming in.
      QRectF rect(r.x0, y + 1, std::max(1.0, r.x1 - r.x0), kLaneHeight - 3);
      p.fillRect(rect, QColor(palette::scaled(r.colour, 0.7)));
      p.fillRect(QRectF(rect.x(), rect.y(), rect.width(), 2),
                 QColor(palette::scaled(r.colour, 1.5)));
      // The count wherever it fits (a run cut by the view's edge is as much a run), grouped as
      // every other count ("16,551").
      const QString count = QString::fromStdString(formatCount(r.count));
      const QRectF shown = rect.intersected(QRectF(0, rect.y(), width, rect.height()));
      if (shown.width() >= fm.horizontalAdvance(count) + 8) {
        p.setPen(Qt::white);
        p.drawText(shown, Qt::AlignCenter, count);
      }
    }
    for (const auto& [track, b] : laneBoxes_) {
      {
        const Track& t = *track;
        QRectF rect(b.x0, y + 1, b.x1 - b.x0, kLaneHeight - 3);
        QRgb c = eventColor(t, b.event);
        p.fillRect(rect, QColor(c));
        if (rect.width() > 24) {
          p.setPen(palette::luma(c) > 140 ? Qt::black : Qt::white);
          QRectF inner =
              rect.adjusted(3, 0, -2, 0).intersected(QRectF(0, rect.y(), width, rect.height()));
          QString text;
          if (t.kind == EventKind::Memcpy && t.memcpys.copyKind[b.event] == CopyKind::PtoP) {
            // Peer copies say which way they go.
            text = fm.elidedText(QCoreApplication::translate("TimelineCanvas", "GPU %1 → GPU %2")
                                     .arg(t.memcpys.srcDevice[b.event])
                                     .arg(t.memcpys.dstDevice[b.event]),
                                 Qt::ElideRight, static_cast<int>(inner.width()));
          } else {
            text = label(t.hot.name[b.event], t.kind == EventKind::Kernel, fm,
                         static_cast<int>(inner.width()));
          }
          if (!text.isEmpty()) p.drawText(inner, Qt::AlignVCenter | Qt::AlignLeft, text);
        }
        if (&t == (v.selected.track == kNone ? nullptr : &v.session->tracks[v.selected.track]) &&
            b.event == v.selected.event) {
          p.setPen(QPen(pal.color(QPalette::Highlight), 2));
          p.drawRect(rect.adjusted(-1, -1, 1, 1));
        }
      }
    }
  }
  p.restore();
}

void TimelinePainter::drawTies(QPainter& p, const Frame& f) {
  const TimelineView& v = *view_;
  const int width = f.width;
  const QPalette& pal = f.pal;
  const QSize size = f.size;
  // Flow arrows between the selection and the events tied to it: from the launching call's end to
  // the GPU work's start.
  if (v.selected.track != kNone &&
      (!v.linked.empty() || !v.tied.empty() || !v.highlighted.empty())) {
    p.save();
    p.setClipRect(QRect(v.gutter, kRulerHeight, width, size.height() - kRulerHeight));
    p.setRenderHint(QPainter::Antialiasing);
    QPen pen(pal.color(QPalette::Highlight), 1.5);
    p.setPen(pen);
    const size_t flows = v.linked.size();
    std::vector<std::pair<uint32_t, uint32_t>> arrows = v.linked;
    arrows.insert(arrows.end(), v.tied.begin(), v.tied.end());
    for (size_t i = 0; i < arrows.size(); ++i) {
      auto [track, event] = arrows[i];
      bool selectedIsSource =
          i >= flows || v.session->tracks[v.selected.track].kind == EventKind::Api;
      auto from = selectedIsSource ? eventPosition(v, v.selected.track, v.selected.event, true)
                                   : eventPosition(v, track, event, true);
      auto to = selectedIsSource ? eventPosition(v, track, event, false)
                                 : eventPosition(v, v.selected.track, v.selected.event, false);
      if (!from || !to) continue;
      p.drawLine(*from, *to);
      QLineF line(*to, *from);  // arrowhead at the destination
      line.setLength(8);
      QLineF left = line, right = line;
      left.setAngle(line.angle() + 25);
      right.setAngle(line.angle() - 25);
      p.drawLine(left);
      p.drawLine(right);
      auto other = eventPosition(v, track, event, false);
      if (other)
        p.drawRect(QRectF(other->x() - 2, other->y() - kLaneHeight / 2.0 + 1, 4, kLaneHeight - 2));
    }
    p.setPen(QPen(pal.color(QPalette::Highlight), 2));
    for (auto [track, event] : v.highlighted) {
      auto from = eventPosition(v, track, event, false), to = eventPosition(v, track, event, true);
      if (!from || !to) continue;
      p.drawRect(QRectF(from->x() - 1, from->y() - kLaneHeight / 2.0,
                        std::max(2.0, to->x() - from->x() + 2), kLaneHeight - 1));
    }
    p.restore();
  }
}

void TimelinePainter::drawRuler(QPainter& p, const Frame& f) {
  const TimelineView& v = *view_;
  const TimeAxis& a = v.axis;
  const int width = f.width;
  const QPalette& pal = f.pal;
  const QSize size = f.size;
  const QColor &text = f.text, &mid = f.mid;
  // Gutter separator and ruler on top.
  p.setPen(mid);
  p.drawLine(v.gutter - 1, 0, v.gutter - 1, size.height());
  QRect ruler(0, 0, size.width(), kRulerHeight);
  p.fillRect(ruler, pal.color(QPalette::Window));
  p.setPen(text);
  // Readout: the time under the cursor (from the session start) and the scale.
  QString readout = QCoreApplication::translate("TimelineCanvas", "%1 / px")
                        .arg(QString::fromStdString(
                            formatDuration(static_cast<TimeNs>(std::ceil(a.nsPerPixel())))));
  const TimeNs origin = v.rulerOrigin.value_or(v.session->startTime());
  if (v.cursorX >= 0) {
    readout = QString::fromStdString(formatDuration(a.timeAt(v.cursorX) - origin)) +
              QStringLiteral("  ·  ") + readout;
  }
  p.drawText(QRect(8, 0, v.gutter - 12, kRulerHeight), Qt::AlignVCenter, readout);
  const QFontMetrics fm(f.font);
  p.save();
  p.setClipRect(QRect(v.gutter, 0, width, kRulerHeight));
  // Ticks at least 90 px apart, and wider apart than their labels: deep in a long session a
  // label reads "43.258625862 s" (about 100 px), and 90 px made neighbours overlap.
  std::vector<RulerTick> ticks = rulerTicks(a, width, 90, origin);
  int widest = 0;
  for (const RulerTick& tick : ticks)
    widest = std::max(widest, fm.horizontalAdvance(QString::fromStdString(tick.label)));
  if (widest + 12 > 90) ticks = rulerTicks(a, width, widest + 12, origin);
  int lastRight = std::numeric_limits<int>::min();  // where the label before ends
  for (const RulerTick& tick : ticks) {
    int x = v.gutter + static_cast<int>(std::lround(a.xOf(tick.time)));
    p.setPen(mid);
    p.drawLine(x, kRulerHeight - 8, x, kRulerHeight);
    p.setPen(text);
    // A label that would run past the right edge goes left of its tick, unless it would cover
    // the one before: then the tick stays unlabelled.
    const QString label = QString::fromStdString(tick.label);
    const int w = fm.horizontalAdvance(label);
    int at = x + 3;
    if (at + w > size.width()) at = x - 3 - w;
    if (at < lastRight + 6) continue;
    p.drawText(at, kRulerHeight - 10, label);
    lastRight = at + w;
  }
  p.restore();
  p.setPen(mid);
  p.drawLine(0, kRulerHeight - 1, size.width(), kRulerHeight - 1);
}

void TimelinePainter::drawSelectedRange(QPainter& p, const Frame& f) {
  const TimelineView& v = *view_;
  const TimeAxis& a = v.axis;
  const QPalette& pal = f.pal;
  const QSize size = f.size;
  // The selected range: shaded, with its duration.
  if (v.selection) {
    double x0 = v.gutter + a.xOf(v.selection->first), x1 = v.gutter + a.xOf(v.selection->second);
    QColor shade = pal.color(QPalette::Highlight);
    shade.setAlpha(50);
    p.fillRect(QRectF(x0, 0, x1 - x0, size.height()), shade);
    // The summary as a tag in the ruler's top band, above the tick labels: at the range's start,
    // kept inside the event area.
    // Not for a range wholly outside the view (its tag would sit over times it does not cover).
    if (!v.selectionSummary.isEmpty() && x1 >= v.gutter && x0 <= size.width()) {
      p.setFont(f.font);
      const QFontMetrics fm(f.font);
      const int w = fm.horizontalAdvance(v.selectionSummary) + 16, h = fm.height() + 2;
      const double left =
          std::clamp<double>(x0, v.gutter, std::max<double>(v.gutter, size.width() - w));
      const QRectF tag(left, 1, std::min(w, size.width() - v.gutter), h);
      p.fillRect(tag, pal.color(QPalette::Window));
      p.setPen(pal.color(QPalette::Highlight));
      p.drawRect(tag.adjusted(0, 0, -1, -1));
      p.drawText(
          tag.adjusted(4, 0, -4, 0), Qt::AlignVCenter | Qt::AlignLeft,
          fm.elidedText(v.selectionSummary, Qt::ElideRight, static_cast<int>(tag.width()) - 8));
    }
  }
}

std::optional<QPointF> eventPosition(const TimelineView& v, uint32_t track, uint32_t event,
                                     bool atEnd) {
  const Track& t = v.session->tracks[track];
  const uint16_t lane = t.hot.lane[event];
  for (const VisibleRow& vr : visibleRows(v)) {
    const TimelineRow& row = (*v.rows)[vr.row];
    if (row.kind == TimelineRow::Kind::KernelName) continue;  // prefer the stream or Compute row
    for (size_t l = 0; l < row.lanes.size(); ++l) {
      for (const LaneView& view : row.lanes[l]) {
        if (view.track != &t || view.lane != lane || view.subset) continue;
        double x = v.gutter + v.axis.xOf(atEnd ? t.hot.end[event] : t.hot.start[event]);
        return QPointF(x, vr.y + 1 + static_cast<double>(l) * kLaneHeight + kLaneHeight / 2.0);
      }
    }
  }
  return std::nullopt;
}

TimelineHit hitTest(const TimelineView& v, QPoint pos) {
  TimelineHit hit;
  if (pos.x() < v.gutter || pos.y() < kRulerHeight) return hit;
  for (const VisibleRow& vr : visibleRows(v)) {
    if (pos.y() < vr.y || pos.y() >= vr.y + vr.height) continue;
    hit.row = static_cast<uint32_t>(vr.row);
    const TimelineRow& row = (*v.rows)[vr.row];
    int lane = (pos.y() - vr.y - 1) / kLaneHeight;
    if (lane < 0 || static_cast<size_t>(lane) >= row.lanes.size()) return hit;
    double x = pos.x() - v.gutter;
    for (const LaneView& view : row.lanes[static_cast<size_t>(lane)]) {
      uint32_t e = pickLane(view, v.axis, x, 2.0);
      if (e != kNone) {
        hit.track = static_cast<uint32_t>(view.track - v.session->tracks.data());
        hit.event = e;
        return hit;
      }
    }
    return hit;
  }
  return hit;
}

QString TimelinePainter::label(StringId name, bool kernel, const QFontMetrics& fm, int width) {
  const TimelineView& v = *view_;
  const bool shorten = kernel && v.shortNames;
  const uint64_t key = (uint64_t{name} << 1) | (shorten ? 1 : 0);
  auto it = labels_.find(key);
  if (it == labels_.end()) {
    std::string_view text = v.session->str(name);
    if (shorten) text = shortKernelName(text);
    QString q = QString::fromUtf8(text.data(), static_cast<int>(text.size()));
    it = labels_.emplace(key, Label{q, fm.horizontalAdvance(q)}).first;
  }
  const Label& l = it->second;
  if (l.width <= width) return l.text;
  int chars = static_cast<int>(width / (fm.averageCharWidth() * 1.15)) - 1;
  return chars > 0 ? l.text.left(chars) + QStringLiteral("…") : QString();
}

}  // namespace ts
