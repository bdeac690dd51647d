// StatsTableModel: one statistics table (core StatsTable) as a Qt model. Cells show human units;
// sorting uses the raw numbers (SortRole), so "2 ms" sorts after "900 µs". Kernel names show
// short or in full as NameStyle says, always in full in the tooltip and for sorting and filters;
// short names that would read alike in one column carry what tells them apart.
#pragma once

#include <QAbstractTableModel>
#include <QString>
#include <vector>

#include "analysis/stats_table.h"

namespace ts {

class StatsTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  static constexpr int SortRole = Qt::UserRole + 1;
  static constexpr int FilterRole = Qt::UserRole + 2;  // text cells in full, numbers as shown

  explicit StatsTableModel(QObject* parent = nullptr);

  void setTable(StatsTable table);
  const StatsTable& table() const { return table_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  StatsTable table_;
  std::vector<std::vector<QString>> short_;  // per text column, each row's short name
};

}  // namespace ts
