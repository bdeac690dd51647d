// StatsPane: the Statistics tab — the nsys-stats-like reports of core/analysis for the whole
// session or the timeline's selected range, one GPU or all. Reports run off the GUI thread; a
// newer request cancels the one still running; a hidden pane computes nothing until shown. Tables
// sort on raw values, filter on any text, copy as CSV and export to CSV or JSON.
#pragma once

#include <QWidget>
#include <atomic>
#include <memory>
#include <optional>

#include "analysis/stats_reports.h"
#include "session/session.h"
#include "util/result.h"
#include "views/jobs/job_runner.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace ts {

class StatsTableModel;
class TablePanel;

class StatsPane : public QWidget {
  Q_OBJECT
 public:
  explicit StatsPane(SessionPtr session, QWidget* parent = nullptr);
  ~StatsPane() override;

  // A newer snapshot of the same capture (SessionView::showSnapshot). While `live`, the table
  // shown stays until the user asks for another (range, report, GPU) or comes back to the tab;
  // else (the capture's last snapshot) it is made again now when shown.
  void setSession(SessionPtr session, bool live);

  // The range the tables cover (session clock), or the whole session.
  void setRange(std::optional<std::pair<TimeNs, TimeNs>> range);
  // "kern_sum", "mem_time", "mem_size", "api_sum", "gpu_util", "gpu_gaps" or "overlap".
  void setTableName(const QString& name);
  void setDevice(uint32_t device);  // kNone: all GPUs

  StatsTableModel* model() const;
  QTableView* view() const;
  QSortFilterProxyModel* proxy() const;
  bool busy() const { return job_.busy(); }
  // The table as shown (filtered, in view order); `selectedOnly` keeps the selected rows.
  StatsTable shownTable(bool selectedOnly = false) const;
  // Writes the shown table as CSV or JSON (by extension), atomically; an error message or empty.
  Status exportTo(const QString& path) const;

 signals:
  void updated();  // a new table is in the model
  // A row with a time span (an idle gap) was double-clicked: show it on the timeline.
  void zoomRequested(TimeNs start, TimeNs end);

 private:
  void recompute();
  void showScope();  // what the table covers: the range or the whole session, at what time
  void present(Result<std::vector<StatsTable>> result);
  void showEvent(QShowEvent* event) override;

  SessionPtr session_;
  StatsOptions options_;
  QComboBox* report_ = nullptr;
  QComboBox* device_ = nullptr;
  QCheckBox* perGpu_ = nullptr;
  QLabel* scope_ = nullptr;
  TablePanel* table_ = nullptr;
  JobRunner<Result<std::vector<StatsTable>>> job_;
  bool stale_ = true;  // changed while hidden: recompute when shown
  bool live_ = false;  // a snapshot of a capture still running
};

}  // namespace ts
