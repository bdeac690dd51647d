#include "views/session/stats_table_model.h"

#include "session/kernel_name.h"
#include "views/session/name_style.h"

namespace ts {

void StatsTableModel::setTable(StatsTable table) {
  beginResetModel();
  table_ = std::move(table);
  short_.assign(table_.columns.size(), {});
  for (size_t c = 0; c < table_.columns.size(); ++c) {
    if (table_.columns[c].unit != StatsUnit::Text) continue;
    std::vector<std::string> cells;
    cells.reserve(table_.rows.size());
    for (size_t r = 0; r < table_.rows.size(); ++r) cells.push_back(table_.text(r, c));
    const std::vector<std::string> shown =
        distinctShortNames(std::vector<std::string_view>(cells.begin(), cells.end()));
    short_[c].reserve(shown.size());
    for (const std::string& s : shown) short_[c].push_back(QString::fromStdString(s));
  }
  endResetModel();
}

int StatsTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(table_.rows.size());
}

int StatsTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(table_.columns.size());
}

StatsTableModel::StatsTableModel(QObject* parent) : QAbstractTableModel(parent) {
  connect(&NameStyle::instance(), &NameStyle::changed, this, [this] {
    if (rowCount() > 0) emit dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1));
  });
}

QVariant StatsTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid()) return {};
  auto r = static_cast<size_t>(index.row()), c = static_cast<size_t>(index.column());
  const StatsColumn& column = table_.columns[c];
  const bool text = column.unit == StatsUnit::Text;
  switch (role) {
    case Qt::DisplayRole:
      if (text && NameStyle::instance().shortNames()) return short_[c][r];
      return QString::fromStdString(table_.text(r, c));
    case FilterRole:
      return QString::fromStdString(table_.text(r, c));
    case Qt::ToolTipRole:
      // Kernel names run long: the whole name on hover.
      return text ? QString::fromStdString(table_.text(r, c)) : QVariant();
    case SortRole:
      if (text) return QString::fromStdString(table_.text(r, c));
      return table_.number(r, c);
    case Qt::TextAlignmentRole:
      return QVariant::fromValue(Qt::Alignment(text ? Qt::AlignLeft | Qt::AlignVCenter
                                                    : Qt::AlignRight | Qt::AlignVCenter));
    default:
      return {};
  }
}

QVariant StatsTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || section < 0 || section >= columnCount()) return {};
  const StatsColumn& column = table_.columns[static_cast<size_t>(section)];
  if (role == Qt::DisplayRole) return QString::fromStdString(column.title);
  if (role == Qt::ToolTipRole) {
    if (!column.description.empty())
      return QStringLiteral("%1: %2").arg(QString::fromStdString(column.title),
                                          QString::fromStdString(column.description));
    return QStringLiteral("%1 (%2)").arg(
        QString::fromStdString(column.key),
        QString::fromStdString(std::string(toString(column.unit))));
  }
  return {};
}

}  // namespace ts
