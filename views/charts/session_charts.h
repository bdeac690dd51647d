// Charts of a session (QtCharts), built from the same statistics tables the Statistics tab and
// `tensorscope-cli stats` show: kernel duration histogram, top kernels by total time, GPU
// utilisation over time, copy bandwidth by kind. Titles, axis labels with units and legends;
// colours follow the palette (light or dark).
#pragma once

#include <QString>
#include <QStringList>
#include <memory>
#include <optional>

#include "analysis/stats_reports.h"
#include "session/session.h"

class QChart;

namespace ts {

enum class SessionChart { KernelHistogram, TopKernels, GpuUtilisation, CopyBandwidth };

QStringList sessionChartNames();  // "kernel_histogram", "top_kernels", "gpu_util", "copy_bandwidth"
std::optional<SessionChart> sessionChartFromName(const QString& name);

struct ChartOptions {
  StatsOptions stats;     // range and GPU, as for the tables
  bool logScale = false;  // histogram: logarithmic count axis
  int topN = 15;          // top kernels
  bool dark = false;
  std::string sessionName;  // shown under the title (the tab's or the file's name)
};

// The statistics report a chart is drawn from (its first table).
StatsReport chartReport(SessionChart chart);

// What a chart covers, shown under its title: "sample.tscope · 1.2 s – 3.4 s · GPU 0: …".
QString chartSubject(const Session& session, const ChartOptions& options);

// The chart (owned by the caller) from its report's table, already computed: cheap, so it can
// run on the GUI thread while the report runs off it.
QChart* makeChartFromTable(const Session& session, SessionChart chart, const StatsTable& table,
                           const ChartOptions& options);

// An empty chart in the application's style: title, light or dark theme, legend below, no
// animation (charts are redrawn and exported, not watched). Every chart starts from it.
QChart* newChart(const QString& title, bool dark);

// Both steps at once (the CLI, tests); the report's error when it fails.
Result<std::unique_ptr<QChart>> makeSessionChart(const Session& session, SessionChart chart,
                                                 const ChartOptions& options);

}  // namespace ts
