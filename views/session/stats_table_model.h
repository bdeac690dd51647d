// StatsTableModel: one statistics table (core StatsTable) as a Qt model. Cells show human units;
// sorting uses the raw numbers (SortRole), so "2 ms" sorts after "900 µs".
#pragma once

#include <QAbstractTableModel>

#include "analysis/stats_table.h"

namespace ts {

class StatsTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  static constexpr int SortRole = Qt::UserRole + 1;

  explicit StatsTableModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}

  void setTable(StatsTable table);
  const StatsTable& table() const { return table_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  StatsTable table_;
};

}  // namespace ts
