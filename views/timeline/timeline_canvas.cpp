#include "views/timeline/timeline_canvas.h"

#include <QContextMenuEvent>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMenu>
#include <QPainter>
#include <QSettings>
#include <QToolTip>
#include <QWheelEvent>
#include <array>
#include <cmath>

#include "util/format.h"
#include "views/timeline/palette.h"
#include "views/timeline/row_extensions.h"

namespace ts {

namespace {

constexpr double kMinBoxPx = 3.0;  // narrower events fold into runs

}  // namespace

TimelineCanvas::TimelineCanvas(SessionPtr session, std::shared_ptr<const TimelineRows> rows,
                               QWidget* parent)
    : QWidget(parent),
      session_(session),
      rows_(rows ? std::move(rows) : std::make_shared<TimelineRows>(session)) {
  collapsed_.assign(rows_->size(), false);
  for (size_t i = 0; i < rows_->size(); ++i) collapsed_[i] = (*rows_)[i].startsCollapsed;
  hidden_.assign(rows_->size(), false);
  order_.resize(rows_->size());
  for (size_t i = 0; i < order_.size(); ++i) order_[i] = i;
  setObjectName(QStringLiteral("timelineCanvas"));
  setMouseTracking(true);
  setFocusPolicy(Qt::StrongFocus);
  setMinimumSize(400, 200);
  axis_.fit(session_->startTime(), session_->endTime(), 1000);
}

void TimelineCanvas::setRows(SessionPtr session, std::shared_ptr<const TimelineRows> rows) {
  // Rows keep their folding and hiding by path; new rows start as their layout says.
  std::unordered_map<std::string, std::pair<bool, bool>> state;
  for (size_t i = 0; i < rows_->size(); ++i) state[rowPath(i)] = {collapsed_[i], hidden_[i]};
  session_ = std::move(session);
  rows_ = rows ? std::move(rows) : std::make_shared<TimelineRows>(session_);
  collapsed_.assign(rows_->size(), false);
  hidden_.assign(rows_->size(), false);
  order_.resize(rows_->size());
  for (size_t i = 0; i < rows_->size(); ++i) {
    order_[i] = i;
    auto it = state.find(rowPath(i));
    collapsed_[i] = it != state.end() ? it->second.first : (*rows_)[i].startsCollapsed;
    hidden_[i] = it != state.end() && it->second.second;
  }
  selected_ = {};
  linked_.clear();
  tied_.clear();
  highlighted_.clear();
  labels_.clear();
  update();
}

QList<QPair<QString, QString>> TimelineCanvas::navigationHelp() {
  return {
      {tr("Zoom in / out around the cursor"), tr("Ctrl+Wheel (W / S: View menu)")},
      {tr("Pan left / right"), tr("A / D, ← / →, Shift+Wheel, middle-drag")},
      {tr("Scroll rows"), tr("Wheel, ↑ / ↓")},
      {tr("Show the whole session"), tr("Home (H: View menu)")},
      {tr("Select a time range"), tr("Drag on the ruler")},
      {tr("Zoom to the selected range"), tr("Double-click the range (Ctrl+Z: View menu)")},
      {tr("Select an event (details below)"), tr("Click")},
      {tr("Fold or unfold a group"), tr("Click its label")},
  };
}

void TimelineCanvas::setAxis(const TimeAxis& axis) {
  navigated_ = true;
  axis_ = axis;
  update();
  emit viewChanged();
}

void TimelineCanvas::pushHistory() {
  history_.push(axis_);
}

void TimelineCanvas::fitAll() {
  pushHistory();
  TimeNs span = std::max<TimeNs>(session_->duration(), 1);
  axis_.fit(session_->startTime() - span / 100, session_->endTime() + span / 100, canvasWidth());
  update();
  emit viewChanged();
}

void TimelineCanvas::zoomTo(TimeNs t0, TimeNs t1) {
  if (t1 <= t0) return;
  navigated_ = true;
  pushHistory();
  axis_.fit(t0, t1, canvasWidth());
  update();
  emit viewChanged();
}

void TimelineCanvas::showFromHistory(std::optional<TimeAxis> axis) {
  if (!axis) return;
  axis_ = *axis;
  update();
  emit viewChanged();
}

void TimelineCanvas::back() {
  showFromHistory(history_.back(axis_));
}

void TimelineCanvas::forward() {
  showFromHistory(history_.forward(axis_));
}

void TimelineCanvas::zoomBy(double factor) {
  navigated_ = true;
  QPoint cursor = mapFromGlobal(QCursor::pos());
  double x =
      rect().contains(cursor) && cursor.x() > kGutter ? cursor.x() - kGutter : canvasWidth() / 2.0;
  axis_.zoomAround(x, factor);
  update();
  emit viewChanged();
}

void TimelineCanvas::zoomToSelection() {
  if (selection_) zoomTo(selection_->first, selection_->second);
}

void TimelineCanvas::select(uint32_t track, uint32_t event) {
  selected_.track = track;
  selected_.event = event;
  // Flows are sorted by source: binary search for what this launched, a scan for what launched it
  // (once per click, not per frame).
  linked_.clear();
  const FlowColumns& f = session_->flows;
  auto lo = std::lower_bound(f.srcTrack.begin(), f.srcTrack.end(), track) - f.srcTrack.begin();
  for (auto i = static_cast<size_t>(lo); i < f.srcTrack.size() && f.srcTrack[i] == track; ++i) {
    if (f.srcEvent[i] == event) linked_.emplace_back(f.dstTrack[i], f.dstEvent[i]);
  }
  for (size_t i = 0; i < f.dstTrack.size(); ++i) {
    if (f.dstTrack[i] == track && f.dstEvent[i] == event)
      linked_.emplace_back(f.srcTrack[i], f.srcEvent[i]);
  }
  // A simulation overlay ties a transfer to the kernel that needed it and simulated kernels to
  // measured ones (arrows from the selection), and a tensor to the kernels using it (outlined).
  tied_.clear();
  highlighted_.clear();
  if (const TimelineOverlay* overlay = rows_->overlay()) {
    if (const auto* to = overlay->linksOf(track, event)) tied_ = *to;
    const Track* t = &session_->tracks[track];
    for (const TimelineRow& row : rows_->rows()) {
      if (!row.uses) continue;
      bool mine = false;
      for (const auto& lane : row.lanes) {
        for (const LaneView& view : lane) mine = mine || view.track == t;
      }
      if (mine) {
        highlighted_ = *row.uses;
        break;
      }
    }
  }
  update();
  emit eventSelected(track, event);
}

void TimelineCanvas::centerOn(uint32_t track, uint32_t event) {
  const Track& t = session_->tracks[track];
  const TimeNs start = t.hot.start[event], end = t.effectiveEnd(event);
  pushHistory();
  navigated_ = true;
  const double width = canvasWidth();
  double nsPerPixel = axis_.nsPerPixel();
  if (static_cast<double>(end - start) / nsPerPixel < 20)
    nsPerPixel = static_cast<double>(end - start) * 10 / width;
  axis_ =
      TimeAxis(start + (end - start) / 2 - static_cast<TimeNs>(nsPerPixel * width / 2), nsPerPixel);
  // Scroll to the first visible row that draws the track.
  for (const VisibleRow& vr : layoutRows()) {
    for (const auto& lane : (*rows_)[vr.row].lanes) {
      for (const LaneView& view : lane) {
        if (view.track != &t) continue;
        int top = vr.y + scrollY_;
        if (vr.y < kRulerHeight || vr.y + vr.height > height())
          scrollY_ = std::max(0, top - kRulerHeight - height() / 3);
        update();
        emit viewChanged();
        return;
      }
    }
  }
  update();
  emit viewChanged();
}

std::string TimelineCanvas::rowPath(size_t row) const {
  // The labels of the row and of the rows it sits under, in the layout's original order.
  std::string path = (*rows_)[row].label;
  int depth = (*rows_)[row].depth;
  for (size_t i = row; i-- > 0 && depth > 0;) {
    if ((*rows_)[i].depth < depth) {
      depth = (*rows_)[i].depth;
      path = (*rows_)[i].label + "/" + path;
    }
  }
  return path;
}

void TimelineCanvas::setRowHidden(size_t row, bool hidden) {
  if (row >= hidden_.size()) return;
  hidden_[row] = hidden;
  saveArrangement();
  update();
}

void TimelineCanvas::showAllRows() {
  hidden_.assign(rows_->size(), false);
  saveArrangement();
  update();
}

void TimelineCanvas::moveRow(size_t row, int delta) {
  // A row moves with the rows under it, past the neighbouring sibling block.
  auto pos = static_cast<size_t>(std::find(order_.begin(), order_.end(), row) - order_.begin());
  if (pos >= order_.size()) return;
  const int depth = (*rows_)[row].depth;
  auto blockEnd = [&](size_t p) {
    size_t e = p + 1;
    while (e < order_.size() && (*rows_)[order_[e]].depth > (*rows_)[order_[p]].depth) ++e;
    return e;
  };
  size_t end = blockEnd(pos);
  if (delta < 0) {
    size_t prev = pos;
    while (prev > 0 && (*rows_)[order_[prev - 1]].depth > depth) --prev;
    if (prev == 0 || (*rows_)[order_[prev - 1]].depth != depth) return;  // first among siblings
    --prev;
    std::rotate(order_.begin() + static_cast<std::ptrdiff_t>(prev),
                order_.begin() + static_cast<std::ptrdiff_t>(pos),
                order_.begin() + static_cast<std::ptrdiff_t>(end));
  } else if (delta > 0) {
    if (end >= order_.size() || (*rows_)[order_[end]].depth != depth)
      return;  // last among siblings
    size_t nextEnd = blockEnd(end);
    std::rotate(order_.begin() + static_cast<std::ptrdiff_t>(pos),
                order_.begin() + static_cast<std::ptrdiff_t>(end),
                order_.begin() + static_cast<std::ptrdiff_t>(nextEnd));
  }
  saveArrangement();
  update();
}

void TimelineCanvas::setPersistenceKey(const QString& key) {
  persistenceKey_ = key;
  loadArrangement();
}

void TimelineCanvas::saveArrangement() const {
  if (persistenceKey_.isEmpty()) return;
  QStringList hidden, order;
  for (size_t i : order_) {
    QString path = QString::fromStdString(rowPath(i));
    order << path;
    if (hidden_[i]) hidden << path;
  }
  QSettings settings;
  settings.beginGroup(QStringLiteral("timeline/") + QString::number(qHash(persistenceKey_), 16));
  settings.setValue(QStringLiteral("key"), persistenceKey_);
  settings.setValue(QStringLiteral("order"), order);
  settings.setValue(QStringLiteral("hidden"), hidden);
}

void TimelineCanvas::loadArrangement() {
  QSettings settings;
  settings.beginGroup(QStringLiteral("timeline/") + QString::number(qHash(persistenceKey_), 16));
  if (settings.value(QStringLiteral("key")).toString() != persistenceKey_) return;
  const QStringList order = settings.value(QStringLiteral("order")).toStringList();
  const QStringList hidden = settings.value(QStringLiteral("hidden")).toStringList();
  std::unordered_map<std::string, int> rank;
  for (int i = 0; i < order.size(); ++i) rank.emplace(order[i].toStdString(), i);
  // Saved rows take their saved places; rows the file did not have before keep theirs after them.
  std::vector<std::pair<int, size_t>> keyed;
  for (size_t i = 0; i < rows_->size(); ++i) {
    auto it = rank.find(rowPath(i));
    keyed.emplace_back(it != rank.end() ? it->second : static_cast<int>(order.size() + i), i);
    hidden_[i] = hidden.contains(QString::fromStdString(rowPath(i)));
  }
  std::stable_sort(keyed.begin(), keyed.end());
  for (size_t i = 0; i < keyed.size(); ++i) order_[i] = keyed[i].second;
  update();
}

void TimelineCanvas::contextMenuEvent(QContextMenuEvent* e) {
  if (e->pos().x() >= kGutter || e->pos().y() < kRulerHeight) return;
  for (const VisibleRow& vr : layoutRows()) {
    if (e->pos().y() < vr.y || e->pos().y() >= vr.y + vr.height) continue;
    const size_t row = vr.row;
    QMenu menu(this);
    menu.addAction(tr("Hide “%1”").arg(QString::fromStdString((*rows_)[row].label)), this,
                   [this, row] { setRowHidden(row, true); });
    menu.addAction(tr("Move Up"), this, [this, row] { moveRow(row, -1); });
    menu.addAction(tr("Move Down"), this, [this, row] { moveRow(row, 1); });
    menu.addSeparator();
    QAction* all = menu.addAction(tr("Show All Rows"), this, &TimelineCanvas::showAllRows);
    all->setEnabled(std::find(hidden_.begin(), hidden_.end(), true) != hidden_.end());
    menu.exec(e->globalPos());
    return;
  }
}

void TimelineCanvas::setRowCollapsed(size_t row, bool collapsed) {
  if (row < collapsed_.size()) collapsed_[row] = collapsed;
  update();
}

int TimelineCanvas::rowHeight(const TimelineRow& row) const {
  if (row.kind == TimelineRow::Kind::Group) return kGroupHeight;
  if (row.kind == TimelineRow::Kind::Counter) return 2 * kLaneHeight + 2;
  return static_cast<int>(std::max<size_t>(row.lanes.size(), 1)) * kLaneHeight + 2;
}

std::vector<TimelineCanvas::VisibleRow> TimelineCanvas::layoutRows() const {
  std::vector<VisibleRow> out;
  int y = kRulerHeight - scrollY_;
  int hiddenBelow = -1;  // depth of a collapsed or hidden row whose descendants are not shown
  for (size_t i : order_) {
    const TimelineRow& row = (*rows_)[i];
    if (hiddenBelow >= 0 && row.depth > hiddenBelow) continue;
    hiddenBelow = -1;
    if (hidden_[i]) {
      hiddenBelow = row.depth;
      continue;
    }
    if ((row.kind == TimelineRow::Kind::Group || row.expandable) && collapsed_[i])
      hiddenBelow = row.depth;
    int h = rowHeight(row);
    out.push_back({i, y, h});
    y += h;
  }
  return out;
}

QRgb TimelineCanvas::eventColor(const Track& t, uint32_t e) const {
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
      if (const TimelineOverlay* overlay = rows_->overlay()) {
        if (auto c = palette::styleColor(overlay->styleOf(t.ranges.category[e]))) return *c;
      }
      return palette::scaled(palette::nameColor(t.hot.name[e], dark_), 1.15);
    }
  }
  return qRgb(128, 128, 128);
}

// One frame: each visible row draws its label, then its events by kind (counters, lanes); then
// the ties of the selection, the ruler and the selected range over them.
void TimelineCanvas::render(QPainter& p, QSize size) {
  const Frame f = beginFrame(p, size);
  const std::vector<VisibleRow> visible = layoutRows();
  for (size_t vi = 0; vi < visible.size(); ++vi) {
    const VisibleRow& vr = visible[vi];
    if (vr.y + vr.height < kRulerHeight || vr.y > size.height()) continue;
    const TimelineRow& row = (*rows_)[vr.row];
    const int indent = drawRowLabel(p, f, vr, vi);
    if (indent < 0) continue;  // a group row: its label is all of it
    if (row.kind == TimelineRow::Kind::Counter)
      drawCounterRow(p, f, vr, row, indent);
    else
      drawLaneRow(p, f, vr, row);
  }
  drawTies(p, f);
  drawRuler(p, f);
  drawSelectedRange(p, f);
}

TimelineCanvas::Frame TimelineCanvas::beginFrame(QPainter& p, QSize size) {
  Frame f;
  f.size = size;
  f.width = size.width() - kGutter;
  f.pal = palette();
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
int TimelineCanvas::drawRowLabel(QPainter& p, const Frame& f, const VisibleRow& vr, size_t vi) {
  const TimelineRow& row = (*rows_)[vr.row];
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
    QString arrow = collapsed_[vr.row] ? QStringLiteral("▸") : QStringLiteral("▾");
    p.drawText(QRect(indent, vr.y, 14, vr.height), Qt::AlignVCenter, arrow);
    QFont bold = font;
    bold.setBold(true);
    p.setFont(bold);
    p.drawText(QRect(indent + 14, vr.y, kGutter - indent - 18, vr.height), Qt::AlignVCenter,
               QFontMetrics(bold).elidedText(QString::fromStdString(row.label), Qt::ElideRight,
                                             kGutter - indent - 18));
    p.setFont(font);
    return -1;
  }
  if (row.expandable) {
    p.drawText(QRect(indent, vr.y, 14, kLaneHeight), Qt::AlignVCenter,
               collapsed_[vr.row] ? QStringLiteral("▸") : QStringLiteral("▾"));
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
  if (row.kind == TimelineRow::Kind::Copy || row.kind == TimelineRow::Kind::Memset) {
    // The legend: each memory row's colour beside its name.
    QRgb swatch = row.kind == TimelineRow::Kind::Memset
                      ? palette::memsetColor()
                      : palette::copyColor(static_cast<CopyKind>(row.copyKind));
    p.fillRect(QRect(indent, vr.y + kLaneHeight / 2 - 4, 8, 8), QColor(swatch));
    indent += 12;
  }
  p.drawText(
      QRect(indent, vr.y, kGutter - indent - 4, kLaneHeight), Qt::AlignVCenter,
      fm.elidedText(QString::fromStdString(row.label), Qt::ElideRight, kGutter - indent - 4));
  return indent;
}

// Min/max per pixel column from the counter's block summaries, filled down to the baseline,
// scaled to the counter's range (shown in the label column). A memory tier's row is scaled to
// its capacity (drawn dashed) and marks its peak.
void TimelineCanvas::drawCounterRow(QPainter& p, const Frame& f, const VisibleRow& vr,
                                    const TimelineRow& row, int indent) {
  const TimeAxis& a = axis_;
  const int width = f.width;
  const QColor& text = f.text;
  const CounterSummary& cs = *row.counterSummary;
  const bool bytes = row.counter->unit == "bytes";
  auto value = [&](double v) {
    return bytes ? QString::fromStdString(formatBytes(static_cast<uint64_t>(std::max(0.0, v))))
                 : QString::number(v, 'g', 4);
  };
  p.drawText(QRect(indent, vr.y + kLaneHeight, kGutter - indent - 4, kLaneHeight), Qt::AlignVCenter,
             row.capacity > 0 ? tr("peak %1 of %2").arg(value(cs.max), value(row.capacity))
                              : tr("max %1").arg(value(cs.max)));
  foldCounter(*row.counter, cs, a, width, counterScratch_);
  const double top = vr.y + 3, bottom = vr.y + vr.height - 2;
  const double ceiling = std::max(cs.max, row.capacity);
  const double span = ceiling > cs.min ? ceiling - cs.min : 1.0;
  const double floor = std::min(0.0, cs.min);
  auto yOf = [&](double v) {
    return bottom - (v - floor) / (ceiling - floor > 0 ? ceiling - floor : span) * (bottom - top);
  };
  QColor fill(0x4e, 0x79, 0xa7);
  QColor fillLight = fill;
  fillLight.setAlpha(90);
  p.save();
  p.setClipRect(QRect(kGutter, std::max(vr.y, kRulerHeight), width, vr.height));
  for (const CounterColumn& col : counterScratch_) {
    double yHi = yOf(col.max), yLo = yOf(col.min);
    p.fillRect(QRectF(kGutter + col.x, yHi, 1, bottom - yHi), fillLight);
    p.fillRect(QRectF(kGutter + col.x, yHi, 1, std::max(1.0, yLo - yHi)), fill);
  }
  if (row.capacity > 0) {
    p.setPen(QPen(QColor(0xe1, 0x57, 0x59), 1, Qt::DashLine));
    p.drawLine(QPointF(kGutter, yOf(row.capacity)), QPointF(kGutter + width, yOf(row.capacity)));
    if (row.counter->size() > 0 && cs.max > 0) {
      const double x = kGutter + a.xOf(cs.maxTime), y = yOf(cs.max);
      p.setPen(text);
      p.setBrush(QColor(0xe1, 0x57, 0x59));
      p.drawPolygon(QPolygonF({QPointF(x - 4, y - 6), QPointF(x + 4, y - 6), QPointF(x, y)}));
      p.setBrush(Qt::NoBrush);
      p.drawText(QPointF(x + 6, vr.y + 12.0),
                 tr("peak %1").arg(value(cs.max)));  // inside the row, whatever the scale
    }
  }
  p.restore();
}

// Each lane: its views folded, their runs merged, then boxes (with labels where they fit) over
// the runs.
void TimelineCanvas::drawLaneRow(QPainter& p, const Frame& f, const VisibleRow& vr,
                                 const TimelineRow& row) {
  const TimeAxis& a = axis_;
  const int width = f.width;
  const QPalette& pal = f.pal;
  const QFontMetrics fm(f.font);
  p.save();
  p.setClipRect(QRect(kGutter, std::max(vr.y, kRulerHeight), width, vr.height));
  p.translate(kGutter, 0);
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
      if (rect.width() > 64) {
        p.setPen(Qt::white);
        p.drawText(rect, Qt::AlignCenter, QString::number(r.count));
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
            text = fm.elidedText(tr("GPU %1 → GPU %2")
                                     .arg(t.memcpys.srcDevice[b.event])
                                     .arg(t.memcpys.dstDevice[b.event]),
                                 Qt::ElideRight, static_cast<int>(inner.width()));
          } else {
            text = label(t.hot.name[b.event], fm, static_cast<int>(inner.width()));
          }
          if (!text.isEmpty()) p.drawText(inner, Qt::AlignVCenter | Qt::AlignLeft, text);
        }
        if (&t == (selected_.track == kNone ? nullptr : &session_->tracks[selected_.track]) &&
            b.event == selected_.event) {
          p.setPen(QPen(pal.color(QPalette::Highlight), 2));
          p.drawRect(rect.adjusted(-1, -1, 1, 1));
        }
      }
    }
  }
  p.restore();
}

void TimelineCanvas::drawTies(QPainter& p, const Frame& f) {
  const int width = f.width;
  const QPalette& pal = f.pal;
  const QSize size = f.size;
  // Flow arrows between the selection and the events tied to it: from the launching call's end to
  // the GPU work's start.
  if (selected_.track != kNone && (!linked_.empty() || !tied_.empty() || !highlighted_.empty())) {
    p.save();
    p.setClipRect(QRect(kGutter, kRulerHeight, width, size.height() - kRulerHeight));
    p.setRenderHint(QPainter::Antialiasing);
    QPen pen(pal.color(QPalette::Highlight), 1.5);
    p.setPen(pen);
    const size_t flows = linked_.size();
    std::vector<std::pair<uint32_t, uint32_t>> arrows = linked_;
    arrows.insert(arrows.end(), tied_.begin(), tied_.end());
    for (size_t i = 0; i < arrows.size(); ++i) {
      auto [track, event] = arrows[i];
      bool selectedIsSource =
          i >= flows || session_->tracks[selected_.track].kind == EventKind::Api;
      auto from = selectedIsSource ? screenPosition(selected_.track, selected_.event, true)
                                   : screenPosition(track, event, true);
      auto to = selectedIsSource ? screenPosition(track, event, false)
                                 : screenPosition(selected_.track, selected_.event, false);
      if (!from || !to) continue;
      p.drawLine(*from, *to);
      QLineF line(*to, *from);  // arrowhead at the destination
      line.setLength(8);
      QLineF left = line, right = line;
      left.setAngle(line.angle() + 25);
      right.setAngle(line.angle() - 25);
      p.drawLine(left);
      p.drawLine(right);
      auto other = screenPosition(track, event, false);
      if (other)
        p.drawRect(QRectF(other->x() - 2, other->y() - kLaneHeight / 2.0 + 1, 4, kLaneHeight - 2));
    }
    p.setPen(QPen(pal.color(QPalette::Highlight), 2));
    for (auto [track, event] : highlighted_) {
      auto from = screenPosition(track, event, false), to = screenPosition(track, event, true);
      if (!from || !to) continue;
      p.drawRect(QRectF(from->x() - 1, from->y() - kLaneHeight / 2.0,
                        std::max(2.0, to->x() - from->x() + 2), kLaneHeight - 1));
    }
    p.restore();
  }
}

void TimelineCanvas::drawRuler(QPainter& p, const Frame& f) {
  const TimeAxis& a = axis_;
  const int width = f.width;
  const QPalette& pal = f.pal;
  const QSize size = f.size;
  const QColor &text = f.text, &mid = f.mid;
  // Gutter separator and ruler on top.
  p.setPen(mid);
  p.drawLine(kGutter - 1, 0, kGutter - 1, size.height());
  QRect ruler(0, 0, size.width(), kRulerHeight);
  p.fillRect(ruler, pal.color(QPalette::Window));
  p.setPen(text);
  // Readout: the time under the cursor (from the session start) and the scale.
  QString readout = tr("%1 / px").arg(
      QString::fromStdString(formatDuration(static_cast<TimeNs>(std::ceil(a.nsPerPixel())))));
  if (cursorX_ >= 0) {
    readout = QString::fromStdString(formatDuration(a.timeAt(cursorX_) - session_->startTime())) +
              QStringLiteral("  ·  ") + readout;
  }
  p.drawText(QRect(8, 0, kGutter - 12, kRulerHeight), Qt::AlignVCenter, readout);
  for (const RulerTick& tick : rulerTicks(a, width, 90, session_->startTime())) {
    int x = kGutter + static_cast<int>(std::lround(a.xOf(tick.time)));
    p.setPen(mid);
    p.drawLine(x, kRulerHeight - 8, x, kRulerHeight);
    p.setPen(text);
    p.drawText(x + 3, kRulerHeight - 10, QString::fromStdString(tick.label));
  }
  p.setPen(mid);
  p.drawLine(0, kRulerHeight - 1, size.width(), kRulerHeight - 1);
}

void TimelineCanvas::drawSelectedRange(QPainter& p, const Frame& f) {
  const TimeAxis& a = axis_;
  const QPalette& pal = f.pal;
  const QSize size = f.size;
  // The selected range: shaded, with its duration.
  if (selection_) {
    double x0 = kGutter + a.xOf(selection_->first), x1 = kGutter + a.xOf(selection_->second);
    QColor shade = pal.color(QPalette::Highlight);
    shade.setAlpha(50);
    p.fillRect(QRectF(x0, 0, x1 - x0, size.height()), shade);
    p.setPen(pal.color(QPalette::Highlight));
    p.drawText(QRectF(std::max<double>(x0, kGutter) + 2, 0, size.width(), 12), Qt::AlignLeft,
               selectionSummary_);
  }
}

void TimelineCanvas::resizeEvent(QResizeEvent* e) {
  QWidget::resizeEvent(e);
  if (!navigated_) {  // show the whole session at the new width
    TimeNs span = std::max<TimeNs>(session_->duration(), 1);
    axis_.fit(session_->startTime() - span / 100, session_->endTime() + span / 100, canvasWidth());
  }
}

void TimelineCanvas::paintEvent(QPaintEvent*) {
  QPainter p(this);
  render(p, size());
}

std::optional<QPointF> TimelineCanvas::screenPosition(uint32_t track, uint32_t event,
                                                      bool atEnd) const {
  const Track& t = session_->tracks[track];
  const uint16_t lane = t.hot.lane[event];
  for (const VisibleRow& vr : layoutRows()) {
    const TimelineRow& row = (*rows_)[vr.row];
    if (row.kind == TimelineRow::Kind::KernelName) continue;  // prefer the stream or Compute row
    for (size_t l = 0; l < row.lanes.size(); ++l) {
      for (const LaneView& view : row.lanes[l]) {
        if (view.track != &t || view.lane != lane || view.subset) continue;
        double x = kGutter + axis_.xOf(atEnd ? t.hot.end[event] : t.hot.start[event]);
        return QPointF(x, vr.y + 1 + static_cast<double>(l) * kLaneHeight + kLaneHeight / 2.0);
      }
    }
  }
  return std::nullopt;
}

TimelineCanvas::Hit TimelineCanvas::hitAt(QPoint pos) const {
  Hit hit;
  if (pos.x() < kGutter || pos.y() < kRulerHeight) return hit;
  for (const VisibleRow& vr : layoutRows()) {
    if (pos.y() < vr.y || pos.y() >= vr.y + vr.height) continue;
    hit.row = static_cast<uint32_t>(vr.row);
    const TimelineRow& row = (*rows_)[vr.row];
    int lane = (pos.y() - vr.y - 1) / kLaneHeight;
    if (lane < 0 || static_cast<size_t>(lane) >= row.lanes.size()) return hit;
    double x = pos.x() - kGutter;
    for (const LaneView& view : row.lanes[static_cast<size_t>(lane)]) {
      uint32_t e = pickLane(view, axis_, x, 2.0);
      if (e != kNone) {
        hit.track = static_cast<uint32_t>(view.track - session_->tracks.data());
        hit.event = e;
        return hit;
      }
    }
    return hit;
  }
  return hit;
}

QString TimelineCanvas::label(StringId name, const QFontMetrics& fm, int width) {
  auto it = labels_.find(name);
  if (it == labels_.end()) {
    std::string_view text = session_->str(name);
    QString q = QString::fromUtf8(text.data(), static_cast<int>(text.size()));
    it = labels_.emplace(name, Label{q, fm.horizontalAdvance(q)}).first;
  }
  const Label& l = it->second;
  if (l.width <= width) return l.text;
  int chars = static_cast<int>(width / (fm.averageCharWidth() * 1.15)) - 1;
  return chars > 0 ? l.text.left(chars) + QStringLiteral("…") : QString();
}

QString TimelineCanvas::tooltipFor(const Hit& hit) const {
  const Track& t = session_->tracks[hit.track];
  uint32_t e = hit.event;
  const TimelineRow* row = hit.row < rows_->size() ? &(*rows_)[hit.row] : nullptr;
  if (row && row->kind == TimelineRow::Kind::Extension && t.kind == EventKind::Range) {
    // A row another module added says what its events are.
    if (const RowExtension* extension = rowExtension(row->extension);
        extension && extension->tooltip)
      return extension->tooltip(*session_, *row, t, e);
  }
  QString where = (t.stream != kNone ? QString::fromStdString(session_->streamLabel(t.stream))
                                     : QString::fromStdString(session_->threadLabel(t.thread)))
                      .toHtmlEscaped();
  std::string_view name = session_->str(t.hot.name[e]);
  if (t.kind == EventKind::Memcpy) {  // bytes, and for peer copies which way
    where += tr("<br>%1").arg(QString::fromStdString(formatBytes(t.memcpys.bytes[e])));
    if (t.memcpys.copyKind[e] == CopyKind::PtoP) {
      where += tr("<br>GPU %1 → GPU %2").arg(t.memcpys.srcDevice[e]).arg(t.memcpys.dstDevice[e]);
    }
  }
  return tr("<b>%1</b><br>start %2<br>duration %3<br>%4")
      .arg(QString::fromUtf8(name.data(), static_cast<int>(name.size())).toHtmlEscaped(),
           QString::fromStdString(formatDuration(t.hot.start[e] - session_->startTime())),
           QString::fromStdString(formatDuration(t.hot.end[e] - t.hot.start[e])), where);
}

bool TimelineCanvas::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(e);
    Hit hit = hitAt(help->pos());
    if (hit.event != kNone)
      QToolTip::showText(help->globalPos(), tooltipFor(hit), this);
    else
      QToolTip::hideText();
    return true;
  }
  return QWidget::event(e);
}

void TimelineCanvas::wheelEvent(QWheelEvent* e) {
  navigated_ = true;
  double steps = e->angleDelta().y() / 120.0;
  if (e->modifiers() & Qt::ControlModifier) {
    axis_.zoomAround(e->position().x() - kGutter, std::pow(1.25, steps));
  } else if (e->modifiers() & Qt::ShiftModifier) {
    axis_.panPixels(-steps * canvasWidth() / 10.0);
  } else {
    scrollY_ = std::max(0, scrollY_ - static_cast<int>(steps * 3 * kLaneHeight));
  }
  update();
  emit viewChanged();
  e->accept();
}

void TimelineCanvas::keyPressEvent(QKeyEvent* e) {
  navigated_ = true;
  switch (e->key()) {
    case Qt::Key_W:
      zoomBy(1.5);
      return;
    case Qt::Key_S:
      zoomBy(1 / 1.5);
      return;
    case Qt::Key_A:
    case Qt::Key_Left:
      axis_.panPixels(-canvasWidth() / 10.0);
      break;
    case Qt::Key_D:
    case Qt::Key_Right:
      axis_.panPixels(canvasWidth() / 10.0);
      break;
    case Qt::Key_Up:
      scrollY_ = std::max(0, scrollY_ - kLaneHeight * 3);
      break;
    case Qt::Key_Down:
      scrollY_ += kLaneHeight * 3;
      break;
    case Qt::Key_H:
    case Qt::Key_Home:
      fitAll();
      return;
    case Qt::Key_Z:
      if (e->modifiers() & Qt::ControlModifier) {
        zoomToSelection();
        return;
      }
      QWidget::keyPressEvent(e);
      return;
    default:
      QWidget::keyPressEvent(e);
      return;
  }
  update();
  emit viewChanged();
}

void TimelineCanvas::mousePressEvent(QMouseEvent* e) {
  QPoint pos = e->position().toPoint();
  if (e->button() == Qt::MiddleButton ||
      (e->button() == Qt::LeftButton && (e->modifiers() & Qt::AltModifier))) {
    drag_ = Drag::Pan;
    navigated_ = true;
    dragFrom_ = pos;
    dragAxis_ = axis_;
    return;
  }
  if (e->button() != Qt::LeftButton) return;
  if (pos.y() < kRulerHeight && pos.x() >= kGutter) {  // range selection on the ruler
    drag_ = Drag::Select;
    selectFrom_ = axis_.timeAt(pos.x() - kGutter);
    selection_.reset();
    update();
    return;
  }
  if (pos.x() < kGutter) {  // a click on a group label folds or unfolds it
    for (const VisibleRow& vr : layoutRows()) {
      const TimelineRow& row = (*rows_)[vr.row];
      if (pos.y() < vr.y || pos.y() >= vr.y + vr.height) continue;
      const int indent = 8 + row.depth * 14;
      bool onArrow =
          row.kind == TimelineRow::Kind::Group || (row.expandable && pos.x() < indent + 16);
      if (onArrow)
        setRowCollapsed(vr.row, !collapsed_[vr.row]);
      else if (!row.lanes.empty())
        emit rowActivated(vr.row);
    }
    return;
  }
  Hit hit = hitAt(pos);
  if (hit.event != kNone) select(hit.track, hit.event);
}

void TimelineCanvas::mouseMoveEvent(QMouseEvent* e) {
  QPoint pos = e->position().toPoint();
  double x = pos.x() >= kGutter ? pos.x() - kGutter : -1.0;
  if (x != cursorX_) {
    cursorX_ = x;
    update(QRect(0, 0, kGutter, kRulerHeight));  // the readout only
  }
  if (drag_ == Drag::Pan) {
    axis_ = dragAxis_;
    axis_.panPixels(dragFrom_.x() - pos.x());
    scrollY_ = std::max(0, scrollY_ - (pos.y() - dragFrom_.y()));
    dragFrom_.setY(pos.y());
    update();
    emit viewChanged();
  } else if (drag_ == Drag::Select) {
    TimeNs at = axis_.timeAt(std::max(0, pos.x() - kGutter));
    selection_ = std::pair(std::min(selectFrom_, at), std::max(selectFrom_, at));
    update();
  }
}

void TimelineCanvas::mouseReleaseEvent(QMouseEvent*) {
  if (drag_ == Drag::Select) {
    if (selection_ && selection_->second - selection_->first <= 0) selection_.reset();
    summarizeSelection();
    update();
    if (selection_)
      emit rangeSelected(selection_->first, selection_->second);
    else
      emit rangeCleared();
  }
  drag_ = Drag::None;
}

void TimelineCanvas::summarizeSelection() {
  selectionSummary_.clear();
  if (!selection_) return;
  RangeSummary r = summarizeRange(*session_, selection_->first, selection_->second);
  QStringList parts;
  parts << QString::fromStdString(formatDuration(r.end - r.start));
  parts << (r.kernels == 1 ? tr("1 kernel")
                           : tr("%1 kernels").arg(QString::fromStdString(formatCount(r.kernels))));
  for (size_t d = 0; d < r.gpuBusy.size(); ++d) {
    if (r.gpuBusy[d] > 0)
      parts << tr("GPU %1 busy %2 %")
                   .arg(session_->devices[d].ordinal)
                   .arg(r.gpuBusy[d] * 100, 0, 'f', 0);
  }
  for (int k = 0; k < kCopyKindCount; ++k) {
    if (r.copyBytes[static_cast<size_t>(k)]) {
      parts << QStringLiteral("%1 %2").arg(
          QString::fromUtf8(toString(static_cast<CopyKind>(k)).data()),
          QString::fromStdString(formatBytes(r.copyBytes[static_cast<size_t>(k)])));
    }
  }
  selectionSummary_ = parts.join(QStringLiteral("  ·  "));
}

void TimelineCanvas::mouseDoubleClickEvent(QMouseEvent* e) {
  TimeNs at = axis_.timeAt(e->position().x() - kGutter);
  if (selection_ && at >= selection_->first && at <= selection_->second)
    zoomTo(selection_->first, selection_->second);
}

}  // namespace ts
