// EventsTableModel: the events of a time range (all rows, or one timeline row) as a table —
// sortable by any column, filtered by name, copyable as CSV. Rows refer to events by (track,
// index); cells are formatted on demand, so a million rows cost 8 bytes each. A long list is
// filtered and sorted on a thread of its own (the window stays responsive; a newer request
// cancels an older one); meanwhile the table is empty and busy() says so.
#pragma once

#include <QAbstractTableModel>
#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "session/session.h"
#include "timeline/lane_fold.h"
#include "views/session/events_order.h"

namespace ts {

class EventsTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Name, Start, Duration, Kind, Where, Correlation, ColumnCount };
  using Ref = ListedEvent;
  static constexpr size_t kMaxRows = 2'000'000;
  // Lists of more events than this are filtered and sorted off the GUI thread (this many take
  // about 10 ms on it).
  static constexpr size_t kRowsOffThread = 50'000;

  explicit EventsTableModel(SessionPtr session, QObject* parent = nullptr);
  ~EventsTableModel() override;  // cancels and waits for a list being made
  // The same run with more tracks (a simulation overlaid): the list empties until the next range.
  void setSession(SessionPtr session);
  const SessionPtr& session() const { return session_; }

  // The events intersecting [t0, t1): of every track, or only of `views` (one timeline row).
  void setRange(TimeNs t0, TimeNs t1, const std::vector<LaneView>* views = nullptr);
  // Keeps the rows whose name contains `text` (any case).
  void setFilter(const QString& text);
  bool truncated() const { return truncated_; }  // more than kMaxRows matched
  // A list is being filtered or sorted off the GUI thread; `pendingRows` events wait.
  bool busy() const { return busy_; }
  size_t pendingRows() const { return busy_ ? all_.size() : 0; }
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

 signals:
  // A list went off to be made (true), or is shown (false).
  void busyChanged(bool busy);

 private:
  // The rows of all_ that the filter and order ask for: made here for short lists, else on the
  // worker (the table emptied meanwhile). `reset`: the set of rows changes (else only its order).
  void rebuild(bool reset);
  void show(std::vector<Ref> rows, bool reset);
  void stopWorker();
  QString text(const Ref& r, int column) const;

  SessionPtr session_;
  std::vector<Ref> all_, rows_;
  QString filter_;
  bool truncated_ = false;
  int sortColumn_ = Start;
  Qt::SortOrder sortOrder_ = Qt::AscendingOrder;
  bool busy_ = false;
  uint64_t generation_ = 0;  // of the latest request: a worker's older list is dropped
  std::thread worker_;
  std::shared_ptr<std::atomic<bool>> cancel_;  // of the worker's request
};

}  // namespace ts
