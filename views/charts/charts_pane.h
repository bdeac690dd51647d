// ChartsPane: the Charts tab — one session chart at a time (kernel duration histogram, top
// kernels, GPU utilisation, copy bandwidth; for a simulated session also memory tiers over time
// per policy, traffic per link, normalised performance) for the whole session or the timeline's
// range and one GPU or all, in the widget's light or dark palette; right-click exports it (PNG,
// SVG, PDF) or copies the image. The report behind a chart runs off the GUI thread, and only while
// the tab is shown.
#pragma once

#include <QWidget>
#include <atomic>
#include <memory>
#include <optional>

#include "memsim/formats/sim_session.h"
#include "session/session.h"
#include "views/charts/chart_view.h"
#include "views/charts/session_charts.h"
#include "views/jobs/job_runner.h"

class QCheckBox;
class QComboBox;

namespace ts {

class ChartsPane : public QWidget {
  Q_OBJECT
 public:
  explicit ChartsPane(SessionPtr session, QWidget* parent = nullptr);
  ~ChartsPane() override;

  void setRange(std::optional<std::pair<TimeNs, TimeNs>> range);
  // A newer snapshot of the same capture (SessionView::showSnapshot). While `live`, the chart
  // shown stays until the user asks for another (chart, range, GPU) or comes back to the tab;
  // else (the capture's last snapshot) it is drawn again now when shown.
  void setSession(SessionPtr session, bool live);
  void setChart(const QString& name);
  void setSessionName(const QString& name);  // under each chart's title (and in its exports)
  void setDevice(uint32_t device);           // kNone: all GPUs
  QComboBox* deviceChooser() const { return device_; }
  ChartView* view() const { return view_; }
  bool busy() const { return job_.busy(); }
  // Writes the chart shown (format by extension: .png, .svg, .pdf): an error message or empty.
  Status exportTo(const QString& path, double scale = 1.0) const;

 signals:
  void updated();  // a new chart is shown

 private:
  void rebuild();
  bool showSimulationChart(const QString& name);
  void present(Result<std::vector<StatsTable>> result);
  void showEvent(QShowEvent* event) override;
  void changeEvent(QEvent* event) override;  // a new palette (View → Theme): drawn again

  SessionPtr session_;
  std::vector<memsim::SimulatedRun> simulated_;  // when the session is a simulation
  ChartOptions options_;
  QComboBox* chart_ = nullptr;
  QComboBox* device_ = nullptr;  // the GPU the session charts cover (or all)
  QCheckBox* log_ = nullptr;
  ChartView* view_ = nullptr;
  JobRunner<Result<std::vector<StatsTable>>> job_;
  bool stale_ = true;  // changed while hidden: rebuild when shown
};

}  // namespace ts
