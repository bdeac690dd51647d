// TablePanel: a StatsTable shown the way every Tensorscope table is — sortable on raw values,
// a filter over any text column, Copy (selected rows or all shown, as CSV) and Export… (CSV or
// JSON, atomically), with the table's notes underneath (at most two lines of them, the rest in
// their tooltip, so that long notes never take the table's rows). Columns are as wide as their
// contents; one text column (the name, else the last text column) takes what width is left, never
// less than its contents.
#pragma once

#include <QWidget>

#include "analysis/stats_table.h"
#include "util/result.h"

class QHBoxLayout;
class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;

namespace ts {

class StatsTableModel;

class TablePanel : public QWidget {
  Q_OBJECT
 public:
  explicit TablePanel(QWidget* parent = nullptr);

  void setTable(StatsTable table);
  StatsTableModel* model() const { return model_; }
  QTableView* view() const { return view_; }
  QSortFilterProxyModel* proxy() const { return proxy_; }
  QLineEdit* filter() const { return filter_; }
  // The table as shown (filtered, in view order); `selectedOnly` keeps the selected rows.
  StatsTable shownTable(bool selectedOnly = false) const;
  // Writes the shown rows as CSV or JSON (by extension), atomically: an error message or empty.
  Status exportTo(const QString& path) const;
  // Widgets placed before the filter (report choosers and the like).
  void addControl(QWidget* control);
  void setNotes(const QString& notes);

 protected:
  // The viewport's and the notes' resizes.
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void fitColumns();
  void fillWidth();  // the filling column: its contents' width or the width left, the larger
  void showNotes();  // notes_ from notes: within two lines at its width
  void copyRows();
  void exportDialog();

  StatsTableModel* model_ = nullptr;
  QSortFilterProxyModel* proxy_ = nullptr;
  QTableView* view_ = nullptr;
  QLineEdit* filter_ = nullptr;
  QLabel* notes_ = nullptr;
  QString notesText_;  // the notes in full
  QHBoxLayout* bar_ = nullptr;
  int fill_ = -1;    // the column that takes the width left over
  int fillMin_ = 0;  // its contents' width
};

}  // namespace ts
