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
#include <unordered_map>

#include "analysis/range_summary.h"
#include "memsim/formats/sim_session.h"
#include "timeline/row_arrangement.h"
#include "util/format.h"
#include "views/session/name_style.h"
#include "views/timeline/row_extensions.h"

namespace ts {

namespace {
constexpr char kGutterKey[] = "view/labelColumnWidth";
constexpr char kUtilisationKey[] = "view/utilisation";  // View → GPU Utilisation Lanes
}  // namespace

TimelineCanvas::TimelineCanvas(SessionPtr session, std::shared_ptr<const TimelineRows> rows,
                               QWidget* parent)
    : QWidget(parent), summaryJob_(this, [this](RangeSummary r) { showSelectionSummary(r); }) {
  view_.reset(std::move(session), std::move(rows), 1000);
  setObjectName(QStringLiteral("timelineCanvas"));
  setMouseTracking(true);
  setFocusPolicy(Qt::StrongFocus);
  setMinimumSize(400, 200);
  view_.gutter = std::max(kTimelineMinGutter,
                          QSettings().value(QLatin1String(kGutterKey), kTimelineGutter).toInt());
  view_.shortNames = NameStyle::instance().shortNames();
  view_.utilisation = utilisationSaved();
  connect(&NameStyle::instance(), &NameStyle::changed, this, [this] {
    view_.shortNames = NameStyle::instance().shortNames();
    update();
  });
}

bool TimelineCanvas::utilisationSaved() {
  return QSettings().value(QLatin1String(kUtilisationKey), true).toBool();
}

void TimelineCanvas::setUtilisationShown(bool shown) {
  if (view_.utilisation == shown) return;
  view_.utilisation = shown;
  update();
}

void TimelineCanvas::setRows(SessionPtr session, std::shared_ptr<const TimelineRows> rows) {
  // Rows keep their folding and hiding by path; new rows start as their layout says.
  std::unordered_map<std::string, std::pair<bool, bool>> state;
  for (size_t i = 0; i < view_.rows->size(); ++i)
    state[rowPath(i)] = {view_.collapsed[i], view_.hidden[i]};
  // Rows the user moved stay where they were put (a live capture's next snapshot); else the
  // layout's order, an overlay's rows where it places them.
  std::optional<RowArrangement> moved;
  if (!std::is_sorted(view_.order.begin(), view_.order.end()))
    moved = savedArrangement(rowPaths(*view_.rows), view_.order, view_.hidden);
  const SessionPtr before = view_.session;
  view_.session = std::move(session);
  view_.rows = rows ? std::move(rows) : std::make_shared<TimelineRows>(view_.session);
  view_.collapsed.assign(view_.rows->size(), false);
  view_.hidden.assign(view_.rows->size(), false);
  view_.order.resize(view_.rows->size());
  for (size_t i = 0; i < view_.rows->size(); ++i) {
    view_.order[i] = i;
    auto it = state.find(rowPath(i));
    view_.collapsed[i] = it != state.end() ? it->second.first : (*view_.rows)[i].startsCollapsed;
    view_.hidden[i] = it != state.end() && it->second.second;
  }
  if (moved) applyArrangement(*moved, rowPaths(*view_.rows), view_.order, view_.hidden);
  // A selection and outlines survive a switch to a copy of the session with rows added (an
  // overlay drawn or removed keeps the run's tracks at their indices); else they go.
  auto valid = [&](uint32_t track, uint32_t event) {
    if (!before || track >= before->tracks.size() || track >= view_.session->tracks.size())
      return false;
    const Track &a = before->tracks[track], &b = view_.session->tracks[track];
    return event < a.size() && event < b.size() && a.hot.start[event] == b.hot.start[event] &&
           a.hot.name[event] == b.hot.name[event];
  };
  const bool keep =
      view_.selected.track != kNone && valid(view_.selected.track, view_.selected.event);
  if (!keep) view_.selected = {};
  // Its links stay (events keep their indices in a newer snapshot; looking its links up again
  // would scan a live capture's flows whole, each second); an overlay's ties go with it.
  auto gone = [&](const auto& e) { return !keep || !valid(e.first, e.second); };
  std::erase_if(view_.linked, gone);
  view_.tied.clear();
  std::erase_if(view_.highlighted, gone);
  painter_.clearLabels();
  update();
}

QList<QPair<QString, QString>> TimelineCanvas::navigationHelp() {
  // What only the canvas does; its View-menu keys (W, S, H, Ctrl+Z) are listed with those actions.
  return {
      {tr("Zoom in / out around the cursor"), tr("Ctrl+Wheel")},
      {tr("Pan left / right"), tr("A / D, ← / →, Shift+Wheel, middle-drag or Alt+drag")},
      {tr("Scroll rows"), tr("Wheel, ↑ / ↓")},
      {tr("Select a time range"), tr("Drag on the ruler")},
      {tr("Drop the selected range"), tr("Click on the ruler outside it")},
      {tr("Select an event (details below)"), tr("Click")},
      {tr("Fold or unfold a group"), tr("Click its label")},
      {tr("Hide or move a row"), tr("Right-click its label")},
      {tr("Widen the label column"), tr("Drag its right edge")},
      {tr("Close Find"), tr("Esc (in the Find bar)")},
  };
}

TimeNs TimelineCanvas::clampToSession(TimeNs t) const {
  return std::clamp(t, view_.session->startTime(), view_.session->endTime());
}

void TimelineCanvas::setGutter(int width) {
  width = std::clamp(width, kTimelineMinGutter, std::max(kTimelineMinGutter, this->width() - 200));
  if (width == view_.gutter) return;
  view_.gutter = width;
  if (!navigated_) fitHome();
  update();
  emit gutterChanged(width);
  emit viewChanged();
}

// A pan stops at the home view's edges (the session and its margins): pressing D at the end
// showed 45.5 s of a 43.43 s session. A view wider than that moves as asked.
void TimelineCanvas::panBy(double pixels) {
  view_.axis.panPixels(pixels);
  const Session& s = *view_.session;
  const TimeNs margin = std::max<TimeNs>(s.duration(), 1) / 100;  // as fitAll leaves
  const TimeNs lo = s.startTime() - margin, hi = s.endTime() + margin;
  const TimeNs shown = view_.axis.end(canvasWidth()) - view_.axis.start();
  if (shown >= hi - lo) return;
  const TimeNs start = std::clamp(view_.axis.start(), lo, hi - shown);
  if (start != view_.axis.start()) view_.axis = TimeAxis(start, view_.axis.nsPerPixel());
}

void TimelineCanvas::setAxis(const TimeAxis& axis) {
  navigated_ = true;
  view_.axis = axis;
  update();
  emit viewChanged();
}

void TimelineCanvas::pushHistory() {
  history_.push(view_.axis);
}

void TimelineCanvas::fitAll() {
  pushHistory();
  view_.fitAll(canvasWidth());
  update();
  emit viewChanged();
}

void TimelineCanvas::followGrowth() {
  view_.fitAll(canvasWidth());
  update();
  emit viewChanged();
}

void TimelineCanvas::zoomTo(TimeNs t0, TimeNs t1) {
  if (t1 <= t0) return;
  navigated_ = true;
  pushHistory();
  view_.axis.fit(t0, t1, canvasWidth());
  update();
  emit viewChanged();
}

void TimelineCanvas::showFromHistory(std::optional<TimeAxis> axis) {
  if (!axis) return;
  view_.axis = *axis;
  update();
  emit viewChanged();
}

void TimelineCanvas::back() {
  showFromHistory(history_.back(view_.axis));
}

void TimelineCanvas::forward() {
  showFromHistory(history_.forward(view_.axis));
}

void TimelineCanvas::zoomBy(double factor) {
  navigated_ = true;
  QPoint cursor = mapFromGlobal(QCursor::pos());
  double x = rect().contains(cursor) && cursor.x() > view_.gutter ? cursor.x() - view_.gutter
                                                                  : canvasWidth() / 2.0;
  view_.axis.zoomAround(x, factor);
  update();
  emit viewChanged();
}

void TimelineCanvas::zoomToSelection() {
  if (view_.selection) zoomTo(view_.selection->first, view_.selection->second);
}

void TimelineCanvas::select(uint32_t track, uint32_t event) {
  view_.selected.track = track;
  view_.selected.event = event;
  // Flows are sorted by source: binary search for what this launched, a scan for what launched it
  // (once per click, not per frame). A live snapshot's are in the order linked: scanned whole.
  view_.linked.clear();
  const FlowColumns& f = view_.session->flows;
  size_t lo = 0;
  if (view_.session->sortedFlows())
    lo = static_cast<size_t>(std::lower_bound(f.srcTrack.begin(), f.srcTrack.end(), track) -
                             f.srcTrack.begin());
  for (size_t i = lo; i < f.srcTrack.size(); ++i) {
    if (f.srcTrack[i] != track) {
      if (view_.session->sortedFlows()) break;
      continue;
    }
    if (f.srcEvent[i] == event) view_.linked.emplace_back(f.dstTrack[i], f.dstEvent[i]);
  }
  for (size_t i = 0; i < f.dstTrack.size(); ++i) {
    if (f.dstTrack[i] == track && f.dstEvent[i] == event)
      view_.linked.emplace_back(f.srcTrack[i], f.srcEvent[i]);
  }
  // A simulation overlay ties a transfer to the kernel that needed it and simulated kernels to
  // measured ones (arrows from the selection), and a tensor to the kernels using it (outlined).
  view_.tied.clear();
  view_.highlighted.clear();
  if (const TimelineOverlay* overlay = view_.rows->overlay()) {
    if (const auto* to = overlay->linksOf(track, event)) view_.tied = *to;
    const Track* t = &view_.session->tracks[track];
    for (const TimelineRow& row : view_.rows->rows()) {
      if (!row.uses) continue;
      bool mine = false;
      for (const auto& lane : row.lanes) {
        for (const LaneView& view : lane) mine = mine || view.track == t;
      }
      if (mine) {
        view_.highlighted = *row.uses;
        break;
      }
    }
  }
  update();
  emit eventSelected(track, event);
}

void TimelineCanvas::selectOutlined(const std::vector<std::pair<uint32_t, uint32_t>>& events) {
  if (!view_.session) return;
  if (events.empty()) {  // nothing to outline: nor what an earlier call outlined
    view_.selected = {};
    view_.linked.clear();
    view_.tied.clear();
    view_.highlighted.clear();
    update();
    return;
  }
  select(events.front().first, events.front().second);
  view_.highlighted = events;
  // The first of them in view vertically too (another rank's rows may be far down).
  const Track& t = view_.session->tracks[events.front().first];
  revealTrack(t);
  scrollToTrack(t);
  update();
}

void TimelineCanvas::showTrack(uint32_t track) {
  if (!view_.session || track >= view_.session->tracks.size()) return;
  const Track& t = view_.session->tracks[track];
  revealTrack(t);
  scrollToTrack(t);
  update();
  emit viewChanged();
}

void TimelineCanvas::scrollToTrack(const Track& t) {
  for (const VisibleRow& vr : visibleRows(view_)) {
    for (const auto& lane : (*view_.rows)[vr.row].lanes) {
      for (const LaneView& view : lane) {
        if (view.track != &t) continue;
        int top = vr.y + view_.scrollY;
        if (vr.y < kRulerHeight || vr.y + vr.height > height())
          view_.scrollY = std::max(0, top - kRulerHeight - height() / 3);
        return;
      }
    }
  }
}

void TimelineCanvas::centerOn(uint32_t track, uint32_t event) {
  const Track& t = view_.session->tracks[track];
  const TimeNs start = t.hot.start[event], end = t.effectiveEnd(event);
  pushHistory();
  navigated_ = true;
  const double width = canvasWidth();
  double nsPerPixel = view_.axis.nsPerPixel();
  if (static_cast<double>(end - start) / nsPerPixel < 20)
    nsPerPixel = static_cast<double>(end - start) * 10 / width;
  view_.axis =
      TimeAxis(start + (end - start) / 2 - static_cast<TimeNs>(nsPerPixel * width / 2), nsPerPixel);
  // A row inside a folded group (the simulation's transfers): its groups unfold.
  revealTrack(t);
  scrollToTrack(t);  // the first visible row that draws the track
  update();
  emit viewChanged();
}

void TimelineCanvas::revealTrack(const Track& t) {
  const TimelineRows& rows = *view_.rows;
  for (size_t i = 0; i < rows.size(); ++i) {
    bool draws = false;
    for (const auto& lane : rows[i].lanes) {
      for (const LaneView& view : lane) draws = draws || view.track == &t;
    }
    if (!draws) continue;
    if (view_.hidden[i]) continue;  // hidden by the user: another row may show it
    int depth = rows[i].depth;
    for (size_t j = i; j-- > 0 && depth > 0;) {  // the groups it sits in, innermost first
      if (rows[j].depth >= depth) continue;
      depth = rows[j].depth;
      if (view_.collapsed[j]) view_.collapsed[j] = false;
    }
    return;
  }
}

std::string TimelineCanvas::rowPath(size_t row) const {
  return ts::rowPath(*view_.rows, row);
}

void TimelineCanvas::setRowHidden(size_t row, bool hidden) {
  if (row >= view_.hidden.size()) return;
  view_.hidden[row] = hidden;
  saveArrangement();
  update();
}

void TimelineCanvas::showAllRows() {
  view_.hidden.assign(view_.rows->size(), false);
  saveArrangement();
  update();
}

void TimelineCanvas::moveRow(size_t row, int delta) {
  // A row moves with the rows under it, past the neighbouring sibling block.
  auto pos = static_cast<size_t>(std::find(view_.order.begin(), view_.order.end(), row) -
                                 view_.order.begin());
  if (pos >= view_.order.size()) return;
  const int depth = (*view_.rows)[row].depth;
  auto blockEnd = [&](size_t p) {
    size_t e = p + 1;
    while (e < view_.order.size() &&
           (*view_.rows)[view_.order[e]].depth > (*view_.rows)[view_.order[p]].depth)
      ++e;
    return e;
  };
  size_t end = blockEnd(pos);
  if (delta < 0) {
    size_t prev = pos;
    while (prev > 0 && (*view_.rows)[view_.order[prev - 1]].depth > depth) --prev;
    if (prev == 0 || (*view_.rows)[view_.order[prev - 1]].depth != depth)
      return;  // first among siblings
    --prev;
    std::rotate(view_.order.begin() + static_cast<std::ptrdiff_t>(prev),
                view_.order.begin() + static_cast<std::ptrdiff_t>(pos),
                view_.order.begin() + static_cast<std::ptrdiff_t>(end));
  } else if (delta > 0) {
    if (end >= view_.order.size() || (*view_.rows)[view_.order[end]].depth != depth)
      return;  // last among siblings
    size_t nextEnd = blockEnd(end);
    std::rotate(view_.order.begin() + static_cast<std::ptrdiff_t>(pos),
                view_.order.begin() + static_cast<std::ptrdiff_t>(end),
                view_.order.begin() + static_cast<std::ptrdiff_t>(nextEnd));
  }
  saveArrangement();
  update();
}

void TimelineCanvas::setPersistenceKey(const QString& key) {
  persistenceKey_ = key;
  loadArrangement();
}

// The arrangement's math is core's (timeline/row_arrangement); here only where it is kept.
static QString arrangementGroup(const QString& key) {
  return QStringLiteral("timeline/") + QString::number(qHash(key), 16);
}

static QStringList qStrings(const std::vector<std::string>& v) {
  QStringList out;
  for (const std::string& s : v) out << QString::fromStdString(s);
  return out;
}

static std::vector<std::string> stdStrings(const QStringList& list) {
  std::vector<std::string> out;
  for (const QString& s : list) out.push_back(s.toStdString());
  return out;
}

void TimelineCanvas::saveArrangement() const {
  if (persistenceKey_.isEmpty()) return;
  const RowArrangement a = savedArrangement(rowPaths(*view_.rows), view_.order, view_.hidden);
  QSettings settings;
  settings.beginGroup(arrangementGroup(persistenceKey_));
  settings.setValue(QStringLiteral("key"), persistenceKey_);
  settings.setValue(QStringLiteral("order"), qStrings(a.order));
  settings.setValue(QStringLiteral("hidden"), qStrings(a.hidden));
}

void TimelineCanvas::loadArrangement() {
  QSettings settings;
  settings.beginGroup(arrangementGroup(persistenceKey_));
  if (settings.value(QStringLiteral("key")).toString() != persistenceKey_) return;
  const RowArrangement saved{stdStrings(settings.value(QStringLiteral("order")).toStringList()),
                             stdStrings(settings.value(QStringLiteral("hidden")).toStringList())};
  applyArrangement(saved, rowPaths(*view_.rows), view_.order, view_.hidden);
  update();
}

void TimelineCanvas::contextMenuEvent(QContextMenuEvent* e) {
  if (e->pos().x() >= view_.gutter || e->pos().y() < kRulerHeight) return;
  for (const VisibleRow& vr : visibleRows(view_)) {
    if (e->pos().y() < vr.y || e->pos().y() >= vr.y + vr.height) continue;
    const size_t row = vr.row;
    QMenu menu(this);
    menu.addAction(tr("Hide “%1”").arg(QString::fromStdString((*view_.rows)[row].label)), this,
                   [this, row] { setRowHidden(row, true); });
    menu.addAction(tr("Move Up"), this, [this, row] { moveRow(row, -1); });
    menu.addAction(tr("Move Down"), this, [this, row] { moveRow(row, 1); });
    menu.addSeparator();
    QAction* all = menu.addAction(tr("Show All Rows"), this, &TimelineCanvas::showAllRows);
    all->setEnabled(std::find(view_.hidden.begin(), view_.hidden.end(), true) !=
                    view_.hidden.end());
    menu.exec(e->globalPos());
    return;
  }
}

void TimelineCanvas::setRowCollapsed(size_t row, bool collapsed) {
  if (row < view_.collapsed.size()) view_.collapsed[row] = collapsed;
  update();
}

void TimelineCanvas::render(QPainter& p, QSize size) {
  painter_.paint(p, size, view_, palette());
}

TimelineCanvas::Hit TimelineCanvas::hitAt(QPoint pos) const {
  return hitTest(view_, pos);
}

void TimelineCanvas::resizeEvent(QResizeEvent* e) {
  QWidget::resizeEvent(e);
  if (navigated_) return;
  fitHome();           // the whole session (or the home range) at the new width
  emit viewChanged();  // a compare view's other timeline takes the same scale
}

void TimelineCanvas::fitHome() {
  if (home_)
    view_.axis.fit(home_->first, home_->second, canvasWidth());
  else
    view_.fitAll(canvasWidth());
}

void TimelineCanvas::setHomeRange(TimeNs t0, TimeNs t1) {
  if (t1 <= t0) return;
  home_ = std::pair(t0, t1);
  navigated_ = false;
  fitHome();
  update();
  emit viewChanged();
}

void TimelineCanvas::paintEvent(QPaintEvent*) {
  QPainter p(this);
  render(p, size());
}

QString TimelineCanvas::tooltipFor(const Hit& hit) const {
  const Track& t = view_.session->tracks[hit.track];
  uint32_t e = hit.event;
  const TimelineRow* row = hit.row < view_.rows->size() ? &(*view_.rows)[hit.row] : nullptr;
  if (row && row->kind == TimelineRow::Kind::Extension && t.kind == EventKind::Range) {
    // A row another module added says what its events are.
    if (const RowExtension* extension = rowExtension(row->extension);
        extension && extension->tooltip)
      return extension->tooltip(*view_.session, *row, t, e);
  }
  QString where = (t.stream != kNone ? QString::fromStdString(view_.session->streamLabel(t.stream))
                                     : QString::fromStdString(view_.session->threadLabel(t.thread)))
                      .toHtmlEscaped();
  std::string_view name = view_.session->str(t.hot.name[e]);
  if (t.kind == EventKind::Memcpy) {  // bytes, and for peer copies which way
    where += tr("<br>%1").arg(QString::fromStdString(formatBytes(t.memcpys.bytes[e])));
    if (t.memcpys.copyKind[e] == CopyKind::PtoP) {
      where += tr("<br>GPU %1 → GPU %2").arg(t.memcpys.srcDevice[e]).arg(t.memcpys.dstDevice[e]);
    }
    if (auto planned = memsim::simulatedTransferPlanned(*view_.session, t, e))
      where += *planned ? tr("<br>planned") : tr("<br>on demand (a kernel needed it)");
  }
  if (t.kind == EventKind::Range) {  // what the range's maker says about it ("before KERNEL")
    std::string_view args = view_.session->str(t.ranges.args[e]);
    if (!args.empty())
      where += QStringLiteral("<br>") +
               QString::fromUtf8(args.data(), static_cast<qsizetype>(args.size())).toHtmlEscaped();
  }
  return tr("<b>%1</b><br>start %2<br>duration %3<br>%4")
      .arg(QString::fromUtf8(name.data(), static_cast<int>(name.size())).toHtmlEscaped(),
           QString::fromStdString(
               formatTimestamp(t.hot.start[e] - view_.session->startTime(),
                               std::max<TimeNs>(1, t.hot.end[e] - t.hot.start[e]))),
           QString::fromStdString(formatDuration(t.hot.end[e] - t.hot.start[e])), where);
}

bool TimelineCanvas::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(e);
    Hit hit = hitAt(help->pos());
    const TimelineRow* row = hit.row < view_.rows->size() ? &(*view_.rows)[hit.row] : nullptr;
    if (help->pos().x() < view_.gutter && help->pos().y() >= kRulerHeight) {
      // A label: in full (a kernel's whole name), with what the row holds.
      for (const VisibleRow& vr : visibleRows(view_)) {
        if (help->pos().y() < vr.y || help->pos().y() >= vr.y + vr.height) continue;
        const TimelineRow& r = (*view_.rows)[vr.row];
        QString tip = QString::fromStdString(r.label).toHtmlEscaped();
        if (r.events) tip += tr("<br>%1 events").arg(QString::fromStdString(formatCount(r.events)));
        if (!r.info.empty())
          tip += QStringLiteral("<br>") + QString::fromStdString(r.info).toHtmlEscaped().replace(
                                              QLatin1Char('\n'), QStringLiteral("<br>"));
        QToolTip::showText(help->globalPos(), tip, this);
        return true;
      }
      QToolTip::hideText();
    } else if (hit.event != kNone) {
      QToolTip::showText(help->globalPos(), tooltipFor(hit), this);
    } else if (row && row->busy && help->pos().x() >= view_.gutter) {
      // A GPU's header row: its utilisation around the cursor (5 px).
      const double x = help->pos().x() - view_.gutter;
      const TimeNs a = view_.axis.timeAt(x - 2), b = view_.axis.timeAt(x + 3);
      const double share =
          b > a ? static_cast<double>(row->busy->busyIn(a, b)) / static_cast<double>(b - a) : 0.0;
      QToolTip::showText(help->globalPos(),
                         tr("%1<br>busy %2 % of %3 around %4 (a kernel running)")
                             .arg(QString::fromStdString(row->label).toHtmlEscaped())
                             .arg(share * 100, 0, 'f', share < 0.1 ? 1 : 0)
                             .arg(QString::fromStdString(formatDuration(b - a)),
                                  QString::fromStdString(formatTimestamp(
                                      view_.axis.timeAt(x) - view_.session->startTime(),
                                      std::max<TimeNs>(1, b - a)))),
                         this);
    } else if (row && row->counter && row->counter->size() && help->pos().x() >= view_.gutter) {
      // A counter: its value at the cursor (a sample holds until the next), and the most it
      // reached within the pixel around it (a narrow peak folds into one column).
      const CounterColumns& c = row->counter->samples;
      const double x = help->pos().x() - view_.gutter;
      const TimeNs at = view_.axis.timeAt(x), a = view_.axis.timeAt(x - 1),
                   b = view_.axis.timeAt(x + 1);
      auto sampleAt = [&](TimeNs t) -> std::optional<size_t> {
        auto it = std::upper_bound(c.time.begin(), c.time.end(), t);
        if (it == c.time.begin()) return std::nullopt;
        return static_cast<size_t>(it - c.time.begin() - 1);
      };
      auto format = [&](double v) {
        return row->counter->unit == "bytes" ? QString::fromStdString(formatBytes(bytesOfValue(v)))
                                             : QString::number(v, 'g', 6) + QLatin1Char(' ') +
                                                   QString::fromStdString(row->counter->unit);
      };
      const std::optional<size_t> sample = sampleAt(at);
      const double now = sample ? c.value[*sample] : 0.0;
      double peak = now;
      // At most 64 k samples read (a pixel of a fully zoomed-out counter can hold millions):
      // past that the peak is the counter row's own drawing.
      const auto from =
          static_cast<size_t>(std::upper_bound(c.time.begin(), c.time.end(), a) - c.time.begin());
      for (size_t i = from; i < c.time.size() && c.time[i] < b && i < from + 65536; ++i)
        peak = std::max(peak, c.value[i]);
      QString tip = QString::fromStdString(row->label).toHtmlEscaped() + QStringLiteral("<br>");
      tip += sample ? tr("%1 at %2")
                          .arg(format(now),
                               QString::fromStdString(formatTimestamp(
                                   at - view_.session->startTime(), std::max<TimeNs>(1, b - a))))
                    : tr("no sample yet");
      if (sample && peak > now) tip += tr("<br>up to %1 within this pixel").arg(format(peak));
      // What set it: an allocation or a free (PyTorch's [memory] events), or the faults a record
      // counted (unified-memory page faults), with its address.
      if (sample && c.change[*sample] != 0) {
        const int64_t change = c.change[*sample];
        const uint64_t size =
            change < 0 ? 0 - static_cast<uint64_t>(change) : static_cast<uint64_t>(change);
        if (row->counter->unit == "bytes")
          tip += (change > 0 ? tr("<br>after allocating %1") : tr("<br>after freeing %1"))
                     .arg(QString::fromStdString(formatBytes(size)));
        else
          tip += tr("<br>%1%2 %3")
                     .arg(change > 0 ? QStringLiteral("+") : QStringLiteral("-"))
                     .arg(size)
                     .arg(QString::fromStdString(row->counter->unit));
        if (c.address[*sample] != 0)
          tip += tr(" at 0x%1").arg(QString::number(c.address[*sample], 16));
        tip += tr(" (%1)").arg(QString::fromStdString(formatTimestamp(
            c.time[*sample] - view_.session->startTime(), std::max<TimeNs>(1, b - a))));
      }
      QToolTip::showText(help->globalPos(), tip, this);
    } else {
      QToolTip::hideText();
    }
    return true;
  }
  return QWidget::event(e);
}

void TimelineCanvas::wheelEvent(QWheelEvent* e) {
  navigated_ = true;
  double steps = e->angleDelta().y() / 120.0;
  if (e->modifiers() & Qt::ControlModifier) {
    view_.axis.zoomAround(e->position().x() - view_.gutter, std::pow(1.25, steps));
  } else if (e->modifiers() & Qt::ShiftModifier) {
    panBy(-steps * canvasWidth() / 10.0);
  } else {
    view_.scrollY = std::max(0, view_.scrollY - static_cast<int>(steps * 3 * kLaneHeight));
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
      panBy(-canvasWidth() / 10.0);
      break;
    case Qt::Key_D:
    case Qt::Key_Right:
      panBy(canvasWidth() / 10.0);
      break;
    case Qt::Key_Up:
      view_.scrollY = std::max(0, view_.scrollY - kLaneHeight * 3);
      break;
    case Qt::Key_Down:
      view_.scrollY += kLaneHeight * 3;
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
    dragAxis_ = view_.axis;
    return;
  }
  if (e->button() != Qt::LeftButton) return;
  if (onGutterEdge(pos)) {  // the label column's edge: dragged wider or narrower
    drag_ = Drag::Gutter;
    return;
  }
  if (pos.y() < kRulerHeight && pos.x() >= view_.gutter) {  // range selection on the ruler
    // The range starts when the mouse moves: a click inside the range keeps it (a double-click
    // there zooms to it), a click elsewhere drops it on release.
    drag_ = Drag::Select;
    dragFrom_ = pos;
    selectMoved_ = false;
    selectFrom_ = clampToSession(view_.axis.timeAt(pos.x() - view_.gutter));
    return;
  }
  if (pos.x() < view_.gutter) {  // a click on a group label folds or unfolds it
    for (const VisibleRow& vr : visibleRows(view_)) {
      const TimelineRow& row = (*view_.rows)[vr.row];
      if (pos.y() < vr.y || pos.y() >= vr.y + vr.height) continue;
      const int indent = 8 + row.depth * 14;
      bool onArrow =
          row.kind == TimelineRow::Kind::Group || (row.expandable && pos.x() < indent + 16);
      if (onArrow)
        setRowCollapsed(vr.row, !view_.collapsed[vr.row]);
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
  double x = pos.x() >= view_.gutter ? pos.x() - view_.gutter : -1.0;
  if (x != view_.cursorX) {
    view_.cursorX = x;
    update(QRect(0, 0, view_.gutter, kRulerHeight));  // the readout only
  }
  if (drag_ == Drag::None) {
    if (onGutterEdge(pos))
      setCursor(Qt::SplitHCursor);
    else
      unsetCursor();
  }
  if (drag_ == Drag::Gutter) {
    setGutter(pos.x());
  } else if (drag_ == Drag::Pan) {
    view_.axis = dragAxis_;
    panBy(dragFrom_.x() - pos.x());
    view_.scrollY = std::max(0, view_.scrollY - (pos.y() - dragFrom_.y()));
    dragFrom_.setY(pos.y());
    update();
    emit viewChanged();
  } else if (drag_ == Drag::Select) {
    selectMoved_ = selectMoved_ || std::abs(pos.x() - dragFrom_.x()) >= 3;
    if (!selectMoved_) return;
    TimeNs at = clampToSession(view_.axis.timeAt(std::max(0, pos.x() - view_.gutter)));
    view_.selection = std::pair(std::min(selectFrom_, at), std::max(selectFrom_, at));
    update();
  }
}

void TimelineCanvas::mouseReleaseEvent(QMouseEvent*) {
  if (drag_ == Drag::Gutter) QSettings().setValue(QLatin1String(kGutterKey), view_.gutter);
  if (drag_ == Drag::Select && !selectMoved_) {
    const bool inside = view_.selection && selectFrom_ >= view_.selection->first &&
                        selectFrom_ <= view_.selection->second;
    if (!inside && view_.selection) {
      view_.selection.reset();
      summarizeSelection();
      update();
      emit rangeCleared();
    }
  } else if (drag_ == Drag::Select) {
    if (view_.selection && view_.selection->second - view_.selection->first <= 0)
      view_.selection.reset();
    summarizeSelection();
    update();
    if (view_.selection)
      emit rangeSelected(view_.selection->first, view_.selection->second);
    else
      emit rangeCleared();
  }
  drag_ = Drag::None;
}

void TimelineCanvas::summarizeSelection() {
  view_.selectionSummary.clear();
  if (!view_.selection) {
    summaryJob_.supersede();
    return;
  }
  const auto [from, to] = *view_.selection;
  view_.selectionSummary =
      QString::fromStdString(formatDuration(to - from)) + QStringLiteral("  ·  …");
  summaryJob_.start([session = view_.session, from, to](const Progress& progress) {
    return summarizeRange(*session, from, to, progress);
  });
}

void TimelineCanvas::showSelectionSummary(const RangeSummary& r) {
  if (!view_.selection) return;
  QStringList parts;
  parts << QString::fromStdString(formatDuration(r.end - r.start));
  parts << (r.kernels == 1 ? tr("1 kernel")
                           : tr("%1 kernels").arg(QString::fromStdString(formatCount(r.kernels))));
  for (size_t d = 0; d < r.gpuBusy.size(); ++d) {
    if (r.gpuBusy[d] > 0) {
      // A small share keeps a digit (0.1 %, not 0 %); below that it is said to be small.
      const double pct = r.gpuBusy[d] * 100;
      parts << tr("GPU %1 busy %2 %")
                   .arg(view_.session->devices[d].ordinal)
                   .arg(pct < 0.05 ? QStringLiteral("< 0.1")
                        : pct < 10 ? QString::number(pct, 'f', 1)
                                   : QString::number(pct, 'f', 0));
    }
  }
  for (int k = 0; k < kCopyKindCount; ++k) {
    if (r.copyBytes[static_cast<size_t>(k)]) {
      parts << QStringLiteral("%1 %2").arg(
          QString::fromUtf8(toString(static_cast<CopyKind>(k)).data()),
          QString::fromStdString(formatBytes(r.copyBytes[static_cast<size_t>(k)])));
    }
  }
  view_.selectionSummary = parts.join(QStringLiteral("  ·  "));
  update();
  emit selectionSummarized();
}

void TimelineCanvas::mouseDoubleClickEvent(QMouseEvent* e) {
  TimeNs at = view_.axis.timeAt(e->position().x() - view_.gutter);
  if (view_.selection && at >= view_.selection->first && at <= view_.selection->second)
    zoomTo(view_.selection->first, view_.selection->second);
}

}  // namespace ts
