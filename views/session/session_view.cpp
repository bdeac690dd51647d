#include "views/session/session_view.h"

#include <QCheckBox>
#include <QClipboard>
#include <QFileInfo>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHash>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPointer>
#include <QScopedValueRollback>
#include <QScrollBar>
#include <QSettings>
#include <QShortcut>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QTimer>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>
#include <utility>

#include "memsim/reports/measured_rows.h"
#include "session/session_summary.h"
#include "util/format.h"
#include "views/charts/charts_pane.h"
#include "views/session/diagnosis_pane.h"
#include "views/session/event_details.h"
#include "views/session/events_table_model.h"
#include "views/session/session_tree_model.h"
#include "views/session/stats_pane.h"
#include "views/simulation/overlay_pane.h"
#include "views/timeline/overview_strip.h"
#include "views/timeline/qt_text.h"
#include "views/timeline/timeline_canvas.h"

namespace ts {

namespace {
QString row(const QString& key, const QString& value) {
  return QStringLiteral("<tr><td style='padding-right:16px'><b>%1</b></td><td>%2</td></tr>")
      .arg(key, value);
}
}  // namespace

SessionView::SessionView(SessionPtr session, QString path, QWidget* parent,
                         std::shared_ptr<const TimelineRows> rows)
    : QWidget(parent),
      session_(std::move(session)),
      path_(std::move(path)),
      diagnosisRowsJob_(this,
                        [this](std::shared_ptr<const DiagnosisDrawing> drawn) {
                          diagnosisDrawn(std::move(drawn));
                        }),
      measuredJob_(this,
                   [this](std::shared_ptr<const MeasuredDrawing> drawn) {
                     if (!drawn || drawn->run != session_) return;  // of an older snapshot
                     measured_ = std::move(drawn);
                     refreshTimeline();
                   }),
      search_(this, [this](Search done) { searchDone(std::move(done)); }) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* splitter = new QSplitter(Qt::Horizontal, this);
  layout->addWidget(splitter);

  model_ = new SessionTreeModel(session_, this);
  tree_ = new QTreeView(splitter);
  tree_->setObjectName(QStringLiteral("trackTree"));
  tree_->setModel(model_);
  tree_->setUniformRowHeights(true);
  tree_->setAlternatingRowColors(true);
  tree_->header()->setStretchLastSection(false);
  tree_->header()->setSectionResizeMode(SessionTreeModel::NameColumn, QHeaderView::Stretch);
  tree_->header()->setSectionResizeMode(SessionTreeModel::CountColumn,
                                        QHeaderView::ResizeToContents);
  tree_->expandToDepth(session_->multiRank() ? 2 : 1);

  auto* right = new QSplitter(Qt::Vertical, splitter);
  auto* top = new QWidget(right);
  auto* topLayout = new QVBoxLayout(top);
  topLayout->setContentsMargins(0, 0, 0, 0);
  topLayout->setSpacing(0);
  createFindBar(top);
  topLayout->addWidget(findBar_);
  shown_ = session_;
  timeline_ = new TimelineCanvas(session_, std::move(rows), top);
  baseRows_ = timeline_->rowsPtr();
  drawMeasuredTensors();
  overviewStrip_ = new OverviewStrip(timeline_, top);
  overviewStrip_->setVisible(overviewStripSaved());
  topLayout->addWidget(overviewStrip_);
  topLayout->addWidget(timeline_, 1);
  bottom_ = new QTabWidget(right);
  bottom_->setDocumentMode(true);
  details_ = new QTextBrowser(bottom_);
  details_->setObjectName(QStringLiteral("details"));
  details_->setHtml(tr("<p>Click an event in the timeline to see all its fields.</p>"));
  // "Launched by" and "Launches" go to the other event: selected, centred, its details shown.
  details_->setOpenLinks(false);
  connect(details_, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
    auto target = parseEventLink(url.toString());
    if (!target || target->first >= shown_->tracks.size() ||
        target->second >= shown_->tracks[target->first].size())
      return;
    timeline_->centerOn(target->first, target->second);
    timeline_->select(target->first, target->second);
  });
  overview_ = new QTextBrowser(bottom_);
  overview_->setObjectName(QStringLiteral("overview"));
  overview_->setOpenLinks(false);
  overview_->setHtml(overviewHtml());
  bottom_->addTab(overview_, tr("Overview"));
  bottom_->addTab(details_, tr("Details"));
  bottom_->addTab(createEventsPane(), tr("Events"));
  stats_ = new StatsPane(session_, bottom_);
  bottom_->addTab(stats_, tr("Statistics"));
  diagnosis_ = new DiagnosisPane(session_, bottom_);
  bottom_->addTab(diagnosis_, tr("Diagnosis"));
  charts_ = new ChartsPane(session_, bottom_);
  charts_->setSessionName(QFileInfo(path_).fileName());
  bottom_->addTab(charts_, tr("Charts"));
  connect(timeline_, &TimelineCanvas::eventSelected, this, [this](uint32_t track, uint32_t event) {
    details_->setHtml(eventDetailsHtml(*shown_, track, event));
    if (!stayOnEvents_) bottom_->setCurrentWidget(details_);
  });
  connect(timeline_, &TimelineCanvas::rangeSelected, this, [this](TimeNs t0, TimeNs t1) {
    showEvents(t0, t1);
    stats_->setRange(std::pair(t0, t1));
    diagnosis_->setRange(std::pair(t0, t1));
    charts_->setRange(std::pair(t0, t1));
  });
  connect(timeline_, &TimelineCanvas::rangeCleared, this, [this] {
    stats_->setRange(std::nullopt);
    diagnosis_->setRange(std::nullopt);
    charts_->setRange(std::nullopt);
  });
  connect(stats_, &StatsPane::zoomRequested, timeline_, &TimelineCanvas::zoomTo);
  connect(diagnosis_, &DiagnosisPane::zoomRequested, timeline_, &TimelineCanvas::zoomTo);
  connect(diagnosis_, &DiagnosisPane::timelineRowsWanted, this, &SessionView::showDiagnosisRows);
  connect(diagnosis_, &DiagnosisPane::findingActivated, this,
          [this](TimeNs t0, TimeNs t1, const std::vector<std::pair<uint32_t, uint32_t>>& events,
                 uint32_t rankTrack) {
            // The finding stays in view: its events are outlined, their details not shown.
            const QScopedValueRollback keepList(stayOnEvents_, true);
            timeline_->zoomTo(t0, t1);
            timeline_->selectOutlined(events);
            if (events.empty() && rankTrack != kNone) timeline_->showTrack(rankTrack);
          });
  connect(timeline_, &TimelineCanvas::rowActivated, this, [this](size_t row) {
    auto range = timeline_->selection();
    TimeNs t0 = range ? range->first : timeline_->axis().start();
    TimeNs t1 = range ? range->second : timeline_->axis().end(timeline_->canvasWidth());
    showEvents(t0, t1, row, range.has_value());
  });
  // The timeline over the tabbed panes: charts and tables need room (their axis labels, more
  // than a row or two), so the panes start at 42 %; handles wide enough to find; sizes remembered
  // (for every session) once the user drags them.
  right->setStretchFactor(0, 3);
  right->setStretchFactor(1, 2);
  right->setSizes({580, 420});
  right->setChildrenCollapsible(false);
  bottom_->setMinimumHeight(140);
  splitter->setStretchFactor(0, 1);
  splitter->setStretchFactor(1, 4);
  splitter->setSizes({280, 1000});
  for (auto [split, key] :
       {std::pair(right, "view/timelineSplitter"), std::pair(splitter, "view/treeSplitter")}) {
    split->setHandleWidth(7);
    split->setObjectName(QLatin1String(key).mid(5));
    split->restoreState(QSettings().value(QLatin1String(key)).toByteArray());
    connect(split, &QSplitter::splitterMoved, this,
            [split, key] { QSettings().setValue(QLatin1String(key), split->saveState()); });
  }
  verticalSplit_ = right;
  timeline_->fitAll();
  // Focus given to the tab goes to its timeline, so its keys work from the start (the track
  // tree would take W, S, H as a keyboard search).
  setFocusProxy(timeline_);
}

// The find bar, hidden until Ctrl+F.
void SessionView::createFindBar(QWidget* parent) {
  findBar_ = new QWidget(parent);
  auto* findLayout = new QHBoxLayout(findBar_);
  findLayout->setContentsMargins(4, 2, 4, 2);
  findLayout->addWidget(new QLabel(tr("Find:"), findBar_));
  findEdit_ = new QLineEdit(findBar_);
  findEdit_->setObjectName(QStringLiteral("findEdit"));
  findEdit_->setPlaceholderText(tr("event name (substring, any case)"));
  findEdit_->setClearButtonEnabled(true);
  findLayout->addWidget(findEdit_, 1);
  findRegex_ = new QCheckBox(tr("Regular expression"), findBar_);
  findRegex_->setObjectName(QStringLiteral("findRegex"));
  findLayout->addWidget(findRegex_);
  auto* previous = new QToolButton(findBar_);
  previous->setText(QStringLiteral("▲"));
  previous->setToolTip(tr("Previous match (Shift+F3)"));
  auto* next = new QToolButton(findBar_);
  next->setText(QStringLiteral("▼"));
  next->setToolTip(tr("Next match (F3)"));
  findLayout->addWidget(previous);
  findLayout->addWidget(next);
  findCount_ = new QLabel(findBar_);
  findCount_->setMinimumWidth(140);
  findLayout->addWidget(findCount_);
  auto* closeFind = new QToolButton(findBar_);
  closeFind->setText(QStringLiteral("✕"));
  closeFind->setToolTip(tr("Close the find bar"));
  findLayout->addWidget(closeFind);
  findBar_->hide();
  connect(findEdit_, &QLineEdit::textChanged, this, &SessionView::resetSearch);
  // The match count while typing: a search once the text rests for 250 ms (off the GUI thread;
  // a newer text supersedes it).
  findDebounce_ = new QTimer(this);
  findDebounce_->setSingleShot(true);
  findDebounce_->setInterval(250);
  connect(findDebounce_, &QTimer::timeout, this, [this] {
    if (!findEdit_->text().isEmpty() && !searched_ && !search_.busy()) runSearch();
  });
  connect(findRegex_, &QCheckBox::toggled, this, &SessionView::resetSearch);
  connect(findEdit_, &QLineEdit::returnPressed, this, [this] { findNext(false); });
  connect(next, &QToolButton::clicked, this, [this] { findNext(false); });
  connect(previous, &QToolButton::clicked, this, [this] { findNext(true); });
  connect(closeFind, &QToolButton::clicked, findBar_, &QWidget::hide);
  // Esc closes it, as in a browser's or an editor's find bar, and gives the timeline the keys.
  auto* escape = new QShortcut(QKeySequence(Qt::Key_Escape), findBar_);
  escape->setContext(Qt::WidgetWithChildrenShortcut);
  connect(escape, &QShortcut::activated, this, [this] {
    findBar_->hide();
    timeline_->setFocus();
  });
}

// Events: a range (drag on the ruler) or a row (click its label), sortable, filterable, copyable.
QWidget* SessionView::createEventsPane() {
  auto* events = new QWidget(bottom_);
  events->setObjectName(QStringLiteral("eventsPane"));
  auto* eventsLayout = new QVBoxLayout(events);
  eventsLayout->setContentsMargins(2, 2, 2, 2);
  auto* eventsBar = new QHBoxLayout;
  eventsFilter_ = new QLineEdit(events);
  eventsFilter_->setObjectName(QStringLiteral("eventsFilter"));
  eventsFilter_->setPlaceholderText(tr("Filter by name"));
  eventsFilter_->setClearButtonEnabled(true);
  auto* copy = new QToolButton(events);
  copy->setText(tr("Copy as CSV"));
  copy->setToolTip(tr("Copy the selected rows (all rows when none is selected) as CSV"));
  eventsStatus_ =
      new QLabel(tr("Drag on the ruler to list a range, or click a row's label."), events);
  eventsStatus_->setObjectName(QStringLiteral("eventsStatus"));
  eventsBar->addWidget(eventsFilter_, 1);
  eventsBar->addWidget(copy);
  eventsBar->addWidget(eventsStatus_, 2);
  eventsLayout->addLayout(eventsBar);
  eventsModel_ = new EventsTableModel(session_, this);
  eventsTable_ = new QTableView(events);
  eventsTable_->setWordWrap(false);  // one line per row: a wrapped name's rest fell out of view
  eventsTable_->setTextElideMode(Qt::ElideMiddle);
  eventsTable_->setObjectName(QStringLiteral("eventsTable"));
  eventsTable_->setModel(eventsModel_);
  eventsTable_->setSortingEnabled(true);
  eventsTable_->sortByColumn(EventsTableModel::Start, Qt::AscendingOrder);
  eventsTable_->setSelectionBehavior(QAbstractItemView::SelectRows);
  eventsTable_->verticalHeader()->setDefaultSectionSize(18);
  eventsTable_->horizontalHeader()->setSectionResizeMode(EventsTableModel::Name,
                                                         QHeaderView::Stretch);
  fitEventsColumns();
  eventsLayout->addWidget(eventsTable_, 1);
  connect(eventsFilter_, &QLineEdit::textChanged, eventsModel_, &EventsTableModel::setFilter);
  connect(eventsFilter_, &QLineEdit::textChanged, this, &SessionView::updateEventsStatus);
  connect(eventsModel_, &EventsTableModel::busyChanged, this, &SessionView::updateEventsStatus);
  connect(copy, &QToolButton::clicked, this, [this] {
    QList<int> rows;
    for (const QModelIndex& i : eventsTable_->selectionModel()->selectedRows()) rows << i.row();
    std::sort(rows.begin(), rows.end());
    QGuiApplication::clipboard()->setText(eventsModel_->toCsv(rows));
  });
  connect(eventsTable_, &QTableView::clicked, this, [this](const QModelIndex& index) {
    const EventsTableModel::Ref& r = eventsModel_->ref(index.row());
    // Centred and selected, its details ready, but the list stays: the user steps through it.
    const QScopedValueRollback keepList(stayOnEvents_, true);
    timeline_->centerOn(r.track, r.event);
    timeline_->select(r.track, r.event);
  });
  return events;
}

bool SessionView::overviewStripSaved() {
  return QSettings().value(QStringLiteral("view/overview"), true).toBool();
}

void SessionView::setOverviewStripShown(bool shown) {
  overviewStrip_->setVisible(shown);
}

OverlayPane* SessionView::simulateOnTimeline(const QString& modelPath, int64_t batch) {
  if (overlay_) {
    bottom_->removeTab(bottom_->indexOf(overlay_));
    overlay_->deleteLater();
    showOverlay(false);
  }
  overlay_ = new OverlayPane(session_, modelPath, batch, bottom_);
  overlay_->setSelectionSource([this] { return timeline_->selection(); });
  connect(overlay_, &OverlayPane::updated, this, [this] { showOverlay(true); });
  connect(overlay_, &OverlayPane::compareRequested, this, &SessionView::compareSimulationRequested);
  connect(overlay_, &OverlayPane::removeRequested, this, [this] {
    showOverlay(false);
    bottom_->removeTab(bottom_->indexOf(overlay_));
    overlay_->deleteLater();
    overlay_ = nullptr;
  });
  bottom_->addTab(overlay_, tr("Simulation"));
  bottom_->setCurrentWidget(overlay_);
  // Its controls, summary and tables need more than half the height: grow the panes if they are
  // smaller (now, and once more when a view not yet laid out has its size).
  auto grow = [split = QPointer<QSplitter>(verticalSplit_)] {
    if (!split) return;
    const QList<int> sizes = split->sizes();
    const int total = sizes.value(0) + sizes.value(1), want = total * 11 / 20;
    if (total > 0 && sizes.value(1) < want) split->setSizes({total - want, want});
  };
  grow();
  QTimer::singleShot(0, this, grow);
  return overlay_;
}

void SessionView::showOverlay(bool on) {
  simulationShown_ = on;
  refreshTimeline();
}

void SessionView::showDiagnosisRows(bool on) {
  diagnosisRowsWanted_ = on;
  if (!on) {  // the copy they were drawn on goes (a session's worth of memory)
    drawn_.reset();
    drawing_.reset();
  }
  refreshTimeline();
}

// The timeline, details, events and find switch to the overlaid copy (a superset of the run: its
// tracks keep their indices), or back.
void SessionView::refreshTimeline() {
  const memsim::OverlayRun* run = overlay_ && simulationShown_ ? overlay_->current() : nullptr;
  SessionPtr base = session_;
  std::shared_ptr<const TimelineRows> rows = baseRows_;
  std::shared_ptr<const TimelineOverlay> layout;
  if (run && run->status.ok() && run->overlay.session) {
    base = run->overlay.session;
    rows = run->overlay.rows;
    layout = run->overlay.layout;
  } else if (measured_ && measured_->run == session_ && measured_->session) {
    base = measured_->session;
    rows = measured_->rows;
    layout = measured_->layout;
  }
  SessionPtr next = base;
  if (diagnosisRowsWanted_ && live_) {
    // Diagnosing the whole capture each second would never finish on a long one.
    diagnosis_->setTimelineNote(tr("Drawn on the timeline when the capture ends."));
  } else if (diagnosisRowsWanted_) {
    if (drawn_ && drawn_->base == base) {
      if (drawn_->rows.ok()) {
        next = drawn_->rows->session;
        rows = drawn_->rows->rows;
      }
    } else if (drawing_ != base) {
      // Diagnosed whole (the tab may show a range) and drawn over this base, off the GUI thread;
      // the base stays shown meanwhile.
      drawing_ = base;
      diagnosis_->setTimelineNote(tr("Drawing on the timeline…"));
      diagnosisRowsJob_.start([run = session_, base, layout](const Progress& progress) {
        auto d = diagnose(*run, DiagnoseOptions{}, progress);
        if (!d)
          return std::make_shared<const DiagnosisDrawing>(
              DiagnosisDrawing{base, std::move(d).failure()});
        const LaunchIndex launches(*run);
        return std::make_shared<const DiagnosisDrawing>(
            DiagnosisDrawing{base, buildDiagnosisRows(base, layout, *d, launches, progress)});
      });
    }
  }
  if (next == shown_ && rows == timeline_->rowsPtr()) return;
  shown_ = next;
  timeline_->setRows(shown_, rows);
  if (!takingSnapshot_) followShown();
}

void SessionView::followShown() {
  if (eventsModel_->session() != shown_) {
    eventsModel_->setSession(shown_);
    eventsStatus_->setText(tr("Drag on the ruler to list a range, or click a row's label."));
  }
  fitEventsColumns();
  resetSearch();  // hits (and a search still running) were of the other session
}

// Which nodes of the track tree are unfolded, by their labels' path: a newer snapshot with a new
// stream or thread resets the tree model, and the user's folding is put back.
static void foldingOf(const QTreeView* tree, const QModelIndex& parent, const QString& path,
                      QHash<QString, bool>& out) {
  const QAbstractItemModel* model = tree->model();
  for (int r = 0; r < model->rowCount(parent); ++r) {
    const QModelIndex i = model->index(r, 0, parent);
    if (model->rowCount(i) == 0) continue;
    const QString p = path + QLatin1Char('/') + i.data().toString();
    out.insert(p, tree->isExpanded(i));
    foldingOf(tree, i, p, out);
  }
}
static void applyFolding(QTreeView* tree, const QModelIndex& parent, const QString& path,
                         const QHash<QString, bool>& folding) {
  const QAbstractItemModel* model = tree->model();
  for (int r = 0; r < model->rowCount(parent); ++r) {
    const QModelIndex i = model->index(r, 0, parent);
    if (model->rowCount(i) == 0) continue;
    const QString p = path + QLatin1Char('/') + i.data().toString();
    if (auto it = folding.find(p); it != folding.end()) tree->setExpanded(i, *it);
    applyFolding(tree, i, p, folding);
  }
}

void SessionView::showSnapshot(SessionPtr session, std::shared_ptr<const TimelineRows> rows,
                               bool live, const QString& path) {
  if (!session) return;
  const QScopedValueRollback taking(takingSnapshot_, true);
  // The end of a capture hands over the last snapshot again: its rows are those shown.
  if (!rows && session == session_) rows = baseRows_;
  const TimelineCanvas& canvas = *timeline_;
  const bool wholeInView = canvas.axis().start() <= session_->startTime() &&
                           canvas.axis().end(canvas.canvasWidth()) >= session_->endTime();
  session_ = std::move(session);
  live_ = live;
  const bool renamed = path != path_;
  path_ = path;
  baseRows_ = rows ? std::move(rows) : std::make_shared<const TimelineRows>(session_);
  drawMeasuredTensors();
  QHash<QString, bool> folding;
  foldingOf(tree_, {}, {}, folding);
  if (model_->setSession(session_)) {
    tree_->expandToDepth(session_->multiRank() ? 2 : 1);
    applyFolding(tree_, {}, {}, folding);
  }
  QScrollBar* scroll = overview_->verticalScrollBar();
  const int scrolled = scroll->value();
  overview_->setHtml(overviewHtml());
  scroll->setValue(scrolled);
  stats_->setSession(session_, live_);
  diagnosis_->setSession(session_, live_);
  charts_->setSession(session_, live_);
  if (renamed) charts_->setSessionName(QFileInfo(path_).fileName());  // draws the chart again
  refreshTimeline();
  // While the capture runs the events listed stay those of the snapshot they were listed from
  // (the list does not empty each second); a new range or row lists from the newest. At the
  // end they follow the saved session.
  if (!live_ && eventsModel_->session() != shown_) followShown();
  if (wholeInView) timeline_->followGrowth();
  overviewStrip_->updateGeometry();  // a GPU that started working adds a lane
  overviewStrip_->update();
}

// Not while a capture runs: pairing every allocation again each second would never catch up.
void SessionView::drawMeasuredTensors() {
  if (live_ || (measured_ && measured_->run == session_)) return;
  measuredJob_.start([run = session_](const Progress&) {
    auto drawing = std::make_shared<MeasuredDrawing>();
    drawing->run = run;
    if (auto o = memsim::buildMeasuredOverlay(run); o.ok()) {
      drawing->session = o->session;
      drawing->layout = o->layout;
      drawing->rows = o->rows;
    }
    return std::shared_ptr<const MeasuredDrawing>(std::move(drawing));
  });
}

void SessionView::diagnosisDrawn(std::shared_ptr<const DiagnosisDrawing> drawn) {
  if (!drawn->rows.ok() && drawn->rows.cancelled()) return;
  drawing_.reset();
  if (!diagnosisRowsWanted_) return;  // turned off while drawing
  drawn_ = std::move(drawn);
  if (!drawn_->rows.ok()) {
    diagnosis_->setTimelineNote(
        tr("Cannot draw on the timeline: %1").arg(QString::fromStdString(drawn_->rows.error())));
  } else {
    const DiagnosisRows& r = *drawn_->rows;
    auto count = [](size_t n, const char* one, const char* many) {
      return QString::fromStdString(formatCount(n)) + QLatin1Char(' ') + tr(n == 1 ? one : many);
    };
    diagnosis_->setTimelineNote(tr("Drawn: %1, %2, %3.")
                                    .arg(count(r.steps, "step projection", "step projections"),
                                         count(r.gaps, "idle gap", "idle gaps"),
                                         count(r.queues, "queue depth row", "queue depth rows")));
  }
  refreshTimeline();
}

// The search is for other text, options or session: drop its hits, a running search and a
// step that waited for it.
void SessionView::resetSearch() {
  search_.supersede();
  hits_.clear();
  searched_ = false;
  pendingStep_.reset();
  current_ = static_cast<size_t>(kNone);
  findCount_->clear();
  if (findDebounce_) findDebounce_->start();
}

void SessionView::setLive(bool live) {
  live_ = live;
  stats_->setSession(session_, live_);  // their scope line says the capture runs
  diagnosis_->setSession(session_, live_);
  charts_->setSession(session_, live_);
  overview_->setHtml(overviewHtml());
}

void SessionView::showEvents(TimeNs t0, TimeNs t1, size_t row, bool selected) {
  eventsSelected_ = selected;
  std::vector<LaneView> views;
  QString what = tr("all rows");
  if (row != static_cast<size_t>(kNone)) {
    const TimelineRow& r = timeline_->rows()[row];
    for (const auto& lane : r.lanes) views.insert(views.end(), lane.begin(), lane.end());
    what = QString::fromStdString(r.label);
  }
  if (eventsModel_->session() != shown_) {  // a newer snapshot of a live capture
    eventsModel_->setSession(shown_);
    fitEventsColumns();
  }
  eventsModel_->setRange(t0, t1, row == static_cast<size_t>(kNone) ? nullptr : &views);
  // The stretch as it is within the session (a view's margins lie outside it).
  eventsWhat_ = what;
  eventsSpan_ = std::min(t1, shown_->endTime()) - std::max(t0, shown_->startTime());
  updateEventsStatus();
  // The Statistics and Charts tabs follow the range too: stay there when the user is reading them.
  if (bottom_->currentWidget() != stats_ && bottom_->currentWidget() != charts_ &&
      bottom_->currentWidget() != diagnosis_)
    bottom_->setCurrentIndex(2);
}

void SessionView::updateEventsStatus() {
  const QString shown =
      QString::fromStdString(formatCount(static_cast<uint64_t>(eventsModel_->rowCount())));
  const QString span = QString::fromStdString(formatDuration(std::max<TimeNs>(0, eventsSpan_)));
  const QString cut = eventsModel_->truncated()
                          ? tr(" (first %1 only)").arg(EventsTableModel::kMaxRows)
                          : QString();
  // Which stretch: a row's count here is of the view or selection, not the row's total.
  const QString where =
      eventsSelected_ ? tr("in the selection (%1)").arg(span) : tr("in view (%1)").arg(span);
  if (eventsModel_->busy()) {  // filtered and sorted off the GUI thread: the list follows
    const QString pending =
        QString::fromStdString(formatCount(static_cast<uint64_t>(eventsModel_->pendingRows())));
    eventsStatus_->setText(
        eventsFilter_->text().isEmpty()
            ? tr("Sorting %1 events of %2 %3%4…").arg(pending, eventsWhat_, where, cut)
            : tr("Matching “%1” among %2 events of %3 %4%5…")
                  .arg(eventsFilter_->text(), pending, eventsWhat_, where, cut));
    return;
  }
  eventsStatus_->setText(eventsFilter_->text().isEmpty()
                             ? tr("%1 events of %2 %3%4").arg(shown, eventsWhat_, where, cut)
                             : tr("%1 events matching “%2” of %3 %4%5")
                                   .arg(shown, eventsFilter_->text(), eventsWhat_, where, cut));
}

void SessionView::showFind() {
  findBar_->show();
  findEdit_->setFocus();
  findEdit_->selectAll();
}

// A whole-session scan: off the GUI thread, like every other one.
void SessionView::runSearch() {
  current_ = static_cast<size_t>(kNone);
  findCount_->setStyleSheet({});
  findCount_->setText(tr("searching…"));
  search_.start([session = shown_, pattern = findEdit_->text().toStdString(),
                 regex = findRegex_->isChecked()](const Progress&) {
    return Search{session, findEvents(*session, pattern, regex)};
  });
}

void SessionView::searchDone(Search done) {
  // A search superseded (resetSearch: other text, options or session) never arrives here; one of
  // an earlier snapshot of a live capture still holds the newer snapshot's events (they keep
  // their indices), so it is shown.
  Result<std::vector<SearchHit>>& hits = done.hits;
  searched_ = true;
  const std::optional<bool> pending = std::exchange(pendingStep_, std::nullopt);
  if (!hits) {
    hits_.clear();
    findCount_->setText(QString::fromStdString(hits.error()));
    findCount_->setStyleSheet(QStringLiteral("color: #c0392b"));
    return;
  }
  hits_ = std::move(hits.value());
  findCount_->setStyleSheet({});
  findCount_->setText(
      hits_.empty() ? tr("no match")
                    : tr("%1 matches").arg(QString::fromStdString(formatCount(hits_.size()))));
  if (pending) step(*pending);
}

void SessionView::findNext(bool backwards) {
  if (searched_) {
    step(backwards);
    return;
  }
  pendingStep_ = backwards;  // once the search is done
  if (!search_.busy()) runSearch();
}

void SessionView::step(bool backwards) {
  if (hits_.empty()) return;
  // From the current match, or else from the middle of the view.
  TimeNs from = current_ != static_cast<size_t>(kNone)
                    ? hits_[current_].start
                    : timeline_->axis().timeAt(timeline_->canvasWidth() / 2.0);
  current_ = nextHit(hits_, from, backwards);
  if (current_ != static_cast<size_t>(kNone) && hits_[current_].start == from && hits_.size() > 1 &&
      timeline_->selected().event == hits_[current_].event) {
    current_ = nextHit(hits_, from + (backwards ? -1 : 1), backwards);
  }
  const SearchHit& hit = hits_[current_];
  timeline_->centerOn(hit.track, hit.event);
  timeline_->select(hit.track, hit.event);
  findCount_->setText(tr("%1 of %2")
                          .arg(QString::fromStdString(formatCount(current_ + 1)),
                               QString::fromStdString(formatCount(hits_.size()))));
}

QString SessionView::findStatus() const {
  return findCount_->text();
}

void SessionView::fitEventsColumns() {
  const QFontMetrics fm(eventsTable_->font());
  const int pad = 2 * fm.averageCharWidth() + 8;
  auto set = [&](int column, int textWidth) {
    eventsTable_->setColumnWidth(column, std::min(textWidth + pad, 420));
  };
  // The widest times and kinds the table prints; the stream or thread of every track (a few
  // hundred labels, not the events).
  // A start carries the digits its duration needs: up to nanoseconds of seconds.
  set(EventsTableModel::Start, fm.horizontalAdvance(QStringLiteral("999.999999999 s")));
  set(EventsTableModel::Duration, fm.horizontalAdvance(QStringLiteral("999.999 ms")));
  set(EventsTableModel::Kind, fm.horizontalAdvance(QStringLiteral("memcpy")));
  set(EventsTableModel::Correlation, fm.horizontalAdvance(QStringLiteral("Correlation")));
  int where = fm.horizontalAdvance(QStringLiteral("Stream / thread"));
  for (uint32_t t = 0; t < shown_->tracks.size(); ++t)
    where = std::max(where, fm.horizontalAdvance(eventsModel_->whereOf(t)));
  set(EventsTableModel::Where, where);
}

QString SessionView::overviewHtml() const {
  const Session& s = *session_;
  SessionSummary r = summarize(s);
  QString html = QStringLiteral("<h2>%1</h2>").arg(path_.toHtmlEscaped());
  if (live_) {
    html +=
        tr("<p><b>Capture in progress:</b> this view shows what had arrived a second ago (the "
           "newest records wait a second, so that those the profiler hands over out of order "
           "land in order) and takes in what arrived since every second, keeping your place in "
           "it.</p>");
  } else if (!s.provenance.incompleteReason.empty()) {
    html += tr("<p style='color:#c0392b'><b>Incomplete session:</b> opened without the damaged "
               "part of its trace: %1.</p>")
                .arg(QString::fromStdString(s.provenance.incompleteReason)
                         .toHtmlEscaped()
                         .replace(QLatin1Char('\n'), QStringLiteral("<br>")));
  } else if (s.provenance.incomplete) {
    html +=
        tr("<p style='color:#c0392b'><b>Incomplete session:</b> the capture ended before its "
           "last flush; events after that point are missing.</p>");
  }
  if (s.provenance.droppedRecords) {
    html +=
        (s.provenance.droppedRecords == 1 ? tr("<p style='color:#c0392b'><b>%1 record lost</b>")
                                          : tr("<p style='color:#c0392b'><b>%1 records lost</b>"))
            .arg(QString::fromStdString(formatCount(s.provenance.droppedRecords)));
    if (s.provenance.lost.empty()) {  // a capture saved before the causes were kept
      html +=
          tr(" while recording (dropped by CUPTI when its buffers were full, dropped in the "
             "program when the launcher fell behind, unreadable, or without usable "
             "timestamps): some events are missing.</p>");
    } else {  // the causes that occurred, as the capture counted them
      html += tr(" while recording: some events are missing.</p><table>");
      for (const auto& [why, n] : s.provenance.lost)
        html += row(htmlText(formatCount(n)), htmlText(why));
      html += QStringLiteral("</table>");
    }
  }
  html += QStringLiteral("<table>");
  html += row(tr("Duration"), htmlText(formatDuration(s.duration())));
  html += row(tr("Events"), htmlText(formatCount(r.events)));
  html += row(tr("Kernels"), htmlText(formatCount(r.kernels)));
  for (int k = 0; k < kCopyKindCount; ++k) {
    if (r.memcpyCount[static_cast<size_t>(k)] == 0) continue;
    html += row(tr("Memcpy %1").arg(QString::fromUtf8(toString(static_cast<CopyKind>(k)).data())),
                htmlText(formatCount(r.memcpyCount[static_cast<size_t>(k)]) + " · " +
                         formatBytes(r.memcpyBytes[static_cast<size_t>(k)])));
  }
  for (int k = 0; k < kCopyKindCount; ++k) {
    if (r.migrationCount[static_cast<size_t>(k)] == 0) continue;
    html += row(
        tr("Unified memory %1").arg(QString::fromUtf8(toString(static_cast<CopyKind>(k)).data())),
        htmlText(
            formatCount(r.migrationCount[static_cast<size_t>(k)]) +
            (r.migrationCount[static_cast<size_t>(k)] == 1 ? " migration · " : " migrations · ") +
            formatBytes(r.migrationBytes[static_cast<size_t>(k)])));
  }
  if (r.gpuPageFaults || r.cpuPageFaults) {
    html += row(tr("Page faults (unified memory)"),
                htmlText(formatCount(r.gpuPageFaults) + " on GPUs · " +
                         formatCount(r.cpuPageFaults) + " on CPUs"));
  }
  if (r.memsets)
    html +=
        row(tr("Memsets"), htmlText(formatCount(r.memsets) + " · " + formatBytes(r.memsetBytes)));
  html += row(tr("CUDA API calls"), htmlText(formatCount(r.apiCalls)));
  html += row(tr("NVTX ranges"), htmlText(formatCount(r.nvtxRanges)));
  if (r.nvtxMarks) html += row(tr("NVTX marks"), htmlText(formatCount(r.nvtxMarks)));
  if (r.otherRanges) html += row(tr("Other ranges"), htmlText(formatCount(r.otherRanges)));
  html += row(tr("Streams / threads"), QStringLiteral("%1 / %2").arg(r.streams).arg(r.threads));
  if (s.provenance.worldSize > 0) {
    html += row(tr("Job"), tr("%1 of its %2 ranks here (the traces' distributedInfo.world_size)")
                               .arg(s.ranks.size())
                               .arg(s.provenance.worldSize));
  }
  html += QStringLiteral("</table>");
  // What the readers left out of the files, by what it was: counted, never silent.
  if (!s.provenance.skipped.empty()) {
    html += tr("<p><b>Left out of the files:</b></p><table>");
    for (const auto& [what, n] : s.provenance.skipped)
      html += row(htmlText(formatCount(n)), htmlText(what));
    html += QStringLiteral("</table>");
  }

  html += tr("<h3>Devices</h3>");
  if (s.devices.empty()) html += tr("<p>No GPU in this session.</p>");
  // GPUs the trace lists but that ran nothing get one line, not a table each.
  const std::vector<bool> active = s.activeDevices();
  QStringList idle;
  for (uint32_t d = 0; d < s.devices.size(); ++d) {
    if (!active[d]) idle << htmlText(s.deviceLabel(d));
  }
  for (uint32_t d = 0; d < s.devices.size(); ++d) {
    if (!active[d]) continue;
    const Device& dev = s.devices[d];
    html += QStringLiteral("<p><b>%1</b></p><table>").arg(htmlText(s.deviceLabel(d)));
    if (!dev.uuid.empty()) html += row(tr("UUID"), htmlText(dev.uuid));
    if (dev.computeMajor) {
      html += row(tr("Compute capability"),
                  QStringLiteral("%1.%2").arg(dev.computeMajor).arg(dev.computeMinor));
    }
    if (dev.smCount) html += row(tr("SMs"), QString::number(dev.smCount));
    if (dev.memoryBytes) html += row(tr("Memory"), htmlText(formatBytes(dev.memoryBytes)));
    if (dev.memoryBandwidthBytesPerSecond) {
      // In the units of the tables (binary), and as the datasheet quotes it (decimal).
      html += row(
          tr("Memory bandwidth"),
          htmlText(formatBandwidth(dev.memoryBandwidthBytesPerSecond)) +
              QStringLiteral(" (%1 GB/s)").arg(dev.memoryBandwidthBytesPerSecond / 1e9, 0, 'f', 0));
    }
    if (dev.clockKHz) html += row(tr("Clock"), QStringLiteral("%1 MHz").arg(dev.clockKHz / 1000));
    if (dev.maxWarpsPerSm) {
      html += row(tr("Per SM"),
                  tr("%1 warps, %2 blocks, %3 registers, %4 shared memory")
                      .arg(dev.maxWarpsPerSm)
                      .arg(dev.maxBlocksPerSm)
                      .arg(dev.maxRegistersPerSm)
                      .arg(htmlText(formatBytes(static_cast<uint64_t>(dev.maxSharedMemoryPerSm)))));
    }
    html += QStringLiteral("</table>");
  }
  if (!idle.isEmpty()) html += tr("<p>Without events: %1</p>").arg(idle.join(QStringLiteral(", ")));

  html += tr("<h3>Provenance</h3><table>");
  const Provenance& p = s.provenance;
  html += row(tr("Written by"),
              tr("Tensorscope %1 on %2").arg(htmlText(p.toolVersion), htmlText(p.createdUtc)));
  for (const SourceFile& src : p.sources)
    html += row(tr("Source"), htmlText(src.path + " (" + src.format + ")"));
  if (!p.captureCommand.empty()) html += row(tr("Command"), htmlText(p.captureCommand));
  if (p.exitCode) html += row(tr("Exit code"), QString::number(*p.exitCode));
  if (!p.profiler.empty()) html += row(tr("Recorded by"), htmlText(p.profiler));
  html += QStringLiteral("</table>");
  return html;
}

}  // namespace ts
