// EventsTableModel: the events of a time range (all rows, or one timeline row) as a table —
// sortable by any column, filtered by name, copyable as CSV. Rows refer to events by (track,
// index); cells are formatted on demand, so a million rows cost 8 bytes each.
#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "session/session.h"
#include "timeline/lane_fold.h"

namespace ts {

class EventsTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Name, Start, Duration, Kind, Where, Correlation, ColumnCount };
  struct Ref {
    uint32_t track, event;
  };
  static constexpr size_t kMaxRows = 2'000'000;

  explicit EventsTableModel(SessionPtr session, QObject* parent = nullptr);
  // The same run with more tracks (a simulation overlaid): the list empties until the next range.
  void setSession(SessionPtr session);

  // The events intersecting [t0, t1): of every track, or only of `views` (one timeline row).
  void setRange(TimeNs t0, TimeNs t1, const std::vector<LaneView>* views = nullptr);
  // Keeps the rows whose name contains `text` (any case).
  void setFilter(const QString& text);
  bool truncated() const { return truncated_; }  // more than kMaxRows matched
  const Ref& ref(int row) const { return rows_[static_cast<size_t>(row)]; }
  // The given rows (all when empty) as RFC 4180 CSV with a header.
  QString toCsv(const QList<int>& rows = {}) const;
  // The Stream / thread cell of a track's events (one per track: the column's width is set from
  // these, not from millions of rows).
  QString whereOf(uint32_t track) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
  void sort(int column, Qt::SortOrder order) override;

 private:
  void rebuild();
  QString text(const Ref& r, int column) const;
  uint32_t correlation(const Ref& r) const;

  SessionPtr session_;
  std::vector<Ref> all_, rows_;
  QString filter_;
  bool truncated_ = false;
  int sortColumn_ = Start;
  Qt::SortOrder sortOrder_ = Qt::AscendingOrder;
};

}  // namespace ts
