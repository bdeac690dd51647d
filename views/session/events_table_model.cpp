#include "views/session/events_table_model.h"

#include <algorithm>

#include "util/csv.h"
#include "util/format.h"
#include "views/session/name_style.h"

namespace ts {

EventsTableModel::EventsTableModel(SessionPtr session, QObject* parent)
    : QAbstractTableModel(parent), session_(std::move(session)) {
  connect(&NameStyle::instance(), &NameStyle::changed, this, [this] {
    if (!rows_.empty()) emit dataChanged(index(0, Name), index(rowCount() - 1, Name));
  });
}

EventsTableModel::~EventsTableModel() {
  stopWorker();
}

void EventsTableModel::stopWorker() {
  if (!worker_.joinable()) return;
  cancel_->store(true);
  worker_.join();
}

void EventsTableModel::setSession(SessionPtr session) {
  stopWorker();
  ++generation_;
  if (busy_) {
    busy_ = false;
    emit busyChanged(false);
  }
  beginResetModel();
  session_ = std::move(session);
  all_.clear();
  rows_.clear();
  endResetModel();
}

void EventsTableModel::setRange(TimeNs t0, TimeNs t1, const std::vector<LaneView>* views) {
  stopWorker();  // it reads all_
  all_.clear();
  truncated_ = false;
  const Session& s = *session_;
  auto addLane = [&](const Track& t, uint32_t trackIndex, const LaneView& v) {
    // Positions intersecting the range: binary searches in the lane; a subset (one copy kind, one
    // kernel name) keeps its own events only.
    LaneSpan span = t.laneRange(v.lane, t0, t1);
    for (uint32_t p = span.begin; p < span.end && all_.size() < kMaxRows; ++p) {
      uint32_t e = t.laneEvent(v.lane, p);
      if (v.subset && !std::binary_search(v.subset->begin(), v.subset->end(), e)) continue;
      all_.push_back({trackIndex, e});
    }
    if (all_.size() >= kMaxRows) truncated_ = true;
  };
  if (views) {
    for (const LaneView& v : *views)
      addLane(*v.track, static_cast<uint32_t>(v.track - s.tracks.data()), v);
  } else {
    for (uint32_t ti = 0; ti < s.tracks.size(); ++ti) {
      const Track& t = s.tracks[ti];
      for (uint32_t l = 0; l < t.laneCount(); ++l)
        addLane(t, ti, LaneView{&t, l, nullptr, nullptr});
    }
  }
  rebuild(true);
}

void EventsTableModel::setFilter(const QString& text) {
  stopWorker();  // it reads filter_
  filter_ = text;
  rebuild(true);
}

void EventsTableModel::rebuild(bool reset) {
  stopWorker();
  const uint64_t generation = ++generation_;
  const auto column = static_cast<EventsColumn>(sortColumn_);
  const bool descending = sortOrder_ == Qt::DescendingOrder;
  if (all_.size() <= kRowsOffThread) {
    const std::atomic<bool> never{false};
    std::vector<Ref> rows;
    filterAndOrderEvents(*session_, all_, filter_, column, descending, never, rows);
    show(std::move(rows), reset);
    return;
  }
  // The old list would be wrong meanwhile (another range, filter or order): empty until then.
  beginResetModel();
  rows_.clear();
  endResetModel();
  if (!busy_) {
    busy_ = true;
    emit busyChanged(true);
  }
  cancel_ = std::make_shared<std::atomic<bool>>(false);
  // all_, filter_ and session_ stay as they are until stopWorker() has returned.
  worker_ = std::thread([this, generation, column, descending, cancel = cancel_] {
    std::vector<Ref> rows;
    if (!filterAndOrderEvents(*session_, all_, filter_, column, descending, *cancel, rows)) return;
    QMetaObject::invokeMethod(
        this,
        [this, generation, rows = std::move(rows)]() mutable {
          if (generation == generation_) show(std::move(rows), true);
        },
        Qt::QueuedConnection);
  });
}

void EventsTableModel::show(std::vector<Ref> rows, bool reset) {
  if (reset) {
    beginResetModel();
    rows_ = std::move(rows);
    endResetModel();
  } else {
    emit layoutAboutToBeChanged();
    rows_ = std::move(rows);
    emit layoutChanged();
  }
  if (busy_) {
    busy_ = false;
    emit busyChanged(false);
  }
}

int EventsTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int EventsTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QString EventsTableModel::whereOf(uint32_t track) const {
  const Session& s = *session_;
  const Track& t = s.tracks[track];
  return QString::fromStdString(t.thread != kNone
                                    ? s.threadLabel(t.thread)
                                    : s.deviceLabel(t.device) + " · " + s.streamLabel(t.stream));
}

QString EventsTableModel::text(const Ref& r, int column) const {
  const Session& s = *session_;
  const Track& t = s.tracks[r.track];
  switch (column) {
    case Name: {
      std::string_view name = s.str(t.hot.name[r.event]);
      return QString::fromUtf8(name.data(), static_cast<int>(name.size()));
    }
    case Start:
      // As Details prints it: to the digits the event's duration needs.
      return QString::fromStdString(
          formatTimestamp(t.hot.start[r.event] - s.startTime(),
                          std::max<TimeNs>(1, t.hot.end[r.event] - t.hot.start[r.event])));
    case Duration:
      return QString::fromStdString(formatDuration(t.hot.end[r.event] - t.hot.start[r.event]));
    case Kind:
      return QString::fromUtf8(toString(t.kind).data());
    case Where:
      return whereOf(r.track);
    case Correlation: {
      uint32_t c = eventCorrelation(s, r);
      return c ? QString::number(c) : QString();
    }
  }
  return {};
}

QVariant EventsTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= static_cast<int>(rows_.size())) return {};
  const Ref& r = rows_[static_cast<size_t>(index.row())];
  if (index.column() == Name && session_->tracks[r.track].kind == EventKind::Kernel &&
      (role == Qt::DisplayRole || role == Qt::ToolTipRole)) {
    // Kernels as View → Short Kernel Names says, in full in the tooltip (and in CSV, sorting and
    // the filter, which use text()).
    const std::string_view name = session_->str(session_->tracks[r.track].hot.name[r.event]);
    return role == Qt::DisplayRole ? NameStyle::instance().shown(name)
                                   : QString::fromUtf8(name.data(), static_cast<int>(name.size()));
  }
  if (role == Qt::DisplayRole) return text(r, index.column());
  if (role == Qt::TextAlignmentRole &&
      (index.column() == Start || index.column() == Duration || index.column() == Correlation)) {
    return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  }
  return {};
}

QVariant EventsTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Name:
      return tr("Name");
    case Start:
      return tr("Start");
    case Duration:
      return tr("Duration");
    case Kind:
      return tr("Kind");
    case Where:
      return tr("Stream / thread");
    case Correlation:
      return tr("Correlation");
  }
  return {};
}

void EventsTableModel::sort(int column, Qt::SortOrder order) {
  if (column < 0 || column >= ColumnCount) return;
  stopWorker();
  sortColumn_ = column;
  sortOrder_ = order;
  rebuild(false);
}

QString EventsTableModel::toCsv(const QList<int>& rows) const {
  std::string out;
  for (int c = 0; c < ColumnCount; ++c) {
    if (c) out += ',';
    appendCsvField(out, headerData(c, Qt::Horizontal, Qt::DisplayRole).toString().toStdString());
  }
  out += "\r\n";
  auto emitRow = [&](int row) {
    for (int c = 0; c < ColumnCount; ++c) {
      if (c) out += ',';
      appendCsvField(out, text(rows_[static_cast<size_t>(row)], c).toStdString());
    }
    out += "\r\n";
  };
  if (rows.isEmpty()) {
    for (int r = 0; r < static_cast<int>(rows_.size()); ++r) emitRow(r);
  } else {
    for (int r : rows) emitRow(r);
  }
  return QString::fromStdString(out);
}

}  // namespace ts
