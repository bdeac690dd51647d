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

void EventsTableModel::setSession(SessionPtr session) {
  beginResetModel();
  session_ = std::move(session);
  all_.clear();
  rows_.clear();
  endResetModel();
}

void EventsTableModel::setRange(TimeNs t0, TimeNs t1, const std::vector<LaneView>* views) {
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
  rebuild();
}

void EventsTableModel::setFilter(const QString& text) {
  filter_ = text;
  rebuild();
}

void EventsTableModel::rebuild() {
  beginResetModel();
  rows_.clear();
  if (filter_.isEmpty()) {
    rows_ = all_;
  } else {
    // Match each distinct name once.
    std::vector<int8_t> match(session_->strings.size(), -1);
    for (const Ref& r : all_) {
      StringId id = session_->tracks[r.track].hot.name[r.event];
      if (match[id] < 0) {
        std::string_view name = session_->str(id);
        match[id] = QString::fromUtf8(name.data(), static_cast<int>(name.size()))
                        .contains(filter_, Qt::CaseInsensitive);
      }
      if (match[id]) rows_.push_back(r);
    }
  }
  endResetModel();
  sort(sortColumn_, sortOrder_);
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

uint32_t EventsTableModel::correlation(const Ref& r) const {
  const Track& t = session_->tracks[r.track];
  switch (t.kind) {
    case EventKind::Kernel:
      return t.kernels.correlation[r.event];
    case EventKind::Memcpy:
      return t.memcpys.correlation[r.event];
    case EventKind::Memset:
      return t.memsets.correlation[r.event];
    case EventKind::Api:
      return t.apis.correlation[r.event];
    default:
      return 0;
  }
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
      uint32_t c = correlation(r);
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
  sortColumn_ = column;
  sortOrder_ = order;
  const Session& s = *session_;
  auto key = [&](const Ref& r) -> std::tuple<int64_t, std::string_view> {
    const Track& t = s.tracks[r.track];
    switch (column) {
      case Name:
        return {0, s.str(t.hot.name[r.event])};
      case Duration:
        return {t.hot.end[r.event] - t.hot.start[r.event], {}};
      case Kind:
        return {static_cast<int64_t>(t.kind), {}};
      case Where:
        return {static_cast<int64_t>(r.track), {}};
      case Correlation:
        return {correlation(r), {}};
      default:
        return {t.hot.start[r.event], {}};
    }
  };
  emit layoutAboutToBeChanged();
  std::stable_sort(rows_.begin(), rows_.end(), [&](const Ref& a, const Ref& b) {
    auto ka = key(a), kb = key(b);
    return order == Qt::AscendingOrder ? ka < kb : kb < ka;
  });
  emit layoutChanged();
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
