// tensorscope-cli export: a chart or the timeline of a session as PNG, SVG or PDF, without a
// display (Qt's offscreen platform). Built with the GUI libraries.
#include <QApplication>
#include <QChart>
#include <QGuiApplication>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>

#include "app/cli/cli_args.h"
#include "app/cli/cli_open.h"
#include "io/open_session.h"
#include "memsim/engine/tier_config.h"
#include "memsim/formats/run_tiers.h"
#include "memsim/formats/sim_session.h"
#include "memsim/formats/sweep_table.h"
#include "memsim/reports/layer_compare.h"
#include "memsim/reports/overlay_run.h"
#include "util/format.h"
#include "util/result.h"
#include "views/charts/chart_export.h"
#include "views/charts/session_charts.h"
#include "views/charts/sim_charts.h"
#include "views/timeline/timeline_painter.h"

namespace ts::cli {

namespace {

std::string helpText() {
  std::string charts;
  for (const QString& n : sessionChartNames() + simChartNames())
    charts += (charts.empty() ? "" : ", ") + n.toStdString();
  return "Usage: tensorscope-cli export FILE... (--chart NAME | --timeline) --format png|svg|pdf "
         "-o OUT\n"
         "                              [--range T0:T1] [--gpu I] [--width W] [--height H] "
         "[--scale S]\n"
         "                              [--log] [--top N] [--dark]\n"
         "       tensorscope-cli export RUN --timeline --overlay MODEL.onnx [--batch N] [--policy "
         "P]\n"
         "                              [--preset P] [--gpu-mem X] [--unfold] --format png|svg|pdf "
         "-o OUT\n"
         "       tensorscope-cli export --sim SIM.tscope... --chart "
         "tier_usage|link_traffic|policy_performance\n"
         "                              [--policy P] --format png|svg|pdf -o OUT\n"
         "       tensorscope-cli export --sweep SWEEP.csv --chart sweep --format png|svg|pdf -o "
         "OUT\n"
         "       tensorscope-cli export MEASURED --sim SIM.tscope --chart sim_vs_measured "
         "[--policy P] ...\n"
         "\n"
         "Draws a chart or the timeline (track labels, ruler, legend) of a session — several "
         "FILEs\n"
         "open as one multi-rank session — into OUT: PNG (--scale for print resolution), SVG or "
         "PDF\n"
         "(vector, one page). Works without a display.\n"
         "  --chart NAME   " +
         charts +
         "\n"
         "  --range T0:T1  from the session start (ns, us, ms, s): the chart's data, the "
         "timeline's view\n"
         "  --gpu I        only GPU I (charts)\n"
         "  --width, --height  size in pixels (default 1600 × 900), --scale S: PNG at S times "
         "that\n"
         "  --log          histogram with a logarithmic count axis; --top N  top kernels (default "
         "15)\n"
         "  --dark         the dark palette\n"
         "Simulations (sessions written by `simulate -o`, tables by `simulate --sweep -o`):\n"
         "  tier_usage          GPU / host / SSD usage over the iteration, stacked, with the "
         "capacity\n"
         "                      (--policy P, default the first in the file)\n"
         "  link_traffic        GiB per link and policy\n"
         "  policy_performance  ideal time / iteration time per policy, a group per --sim file\n"
         "  sweep               slowdown against the swept parameter, a line per policy\n"
         "  sim_vs_measured     per layer, the measured run (NVTX forward/<layer>, "
         "backward/<layer>)\n"
         "                      beside the simulation of its model (simulate --model M --session "
         "MEASURED)\n"
         "--overlay MODEL.onnx  the timeline with a policy's simulation of the run's model drawn "
         "under its\n"
         "                  GPU (simulated kernels, tier usage, transfers per link, tensor lanes): "
         "--batch\n"
         "                  (default 1), --policy (default g10), --preset and --gpu-mem for the "
         "tiers\n"
         "                  (default: G10's with the run's GPU memory and pinned-copy bandwidth);\n"
         "                  --unfold opens every folded row (the tensors, the kernel names)\n";
}

int usage(const std::string& m) {
  std::fprintf(stderr, "tensorscope-cli export: %s\n\n%s", m.c_str(), helpText().c_str());
  return kExitUsage;
}

// Where and how the image goes.
struct Image {
  ImageFormat format;
  QString path;
  QSize size;
  double scale;
};

// --overlay MODEL with its --batch, --policy, --preset and --gpu-mem: checked before anything is
// opened, so a wrong option is a usage error. The run is added once it is open.
Result<memsim::OverlayRequest> overlayRequest(const Args& args, const std::string& model) {
  memsim::OverlayRequest request;
  request.source.modelPath = model;
  if (auto b = args.option("--batch")) {
    auto n = parseUnsigned(*b);
    if (!n || *n == 0 || *n > (1u << 24)) return Error{"--batch wants a positive number"};
    request.source.batch = static_cast<int64_t>(*n);
  }
  if (auto p = args.option("--policy")) {
    auto policy = memsim::parsePolicy(*p);
    if (!policy) return Error{"unknown policy '" + *p + "'"};
    request.policy = *policy;
  }
  auto tiers = memsim::tierPreset(args.option("--preset").value_or("g10-default"));
  if (!tiers) return Error{"no tier preset '" + args.option("--preset").value_or("") + "'"};
  request.tiers = *tiers;
  if (auto g = args.option("--gpu-mem"))
    TS_RETURN_IF_ERROR(memsim::setTierField(request.tiers, "gpu-mem", *g));
  return request;
}

// The charts of simulations (sessions from `simulate -o`, tables from `simulate --sweep -o`),
// and the per-layer comparison of a measured run with one.
Result<std::unique_ptr<QChart>> simulationChart(const Args& args, const std::string& name,
                                                const std::vector<std::string>& simFiles,
                                                bool dark) {
  std::unique_ptr<QChart> c;
  if (name == "sim_vs_measured") {
    TS_ASSIGN_OR_RETURN(SessionPtr measured, openForCli(args.positional().front()));
    TS_ASSIGN_OR_RETURN(SessionPtr sim, openForCli(simFiles.front()));
    TS_ASSIGN_OR_RETURN(
        StatsTable table,
        memsim::compareLayers(*measured, *sim, args.option("--policy").value_or("")));
    c.reset(makeLayerComparisonChart(table, dark));
    return c;
  }
  if (name == "sweep") {
    TS_ASSIGN_OR_RETURN(memsim::SweepTable sweep, memsim::loadSweepCsv(*args.option("--sweep")));
    c.reset(makeSweepChart(sweep, dark));
    return c;
  }
  std::vector<std::vector<memsim::SimulatedRun>> workloads;
  for (const std::string& f : simFiles) {
    TS_ASSIGN_OR_RETURN(SessionPtr s, openForCli(f));
    auto runs = memsim::readSimulatedSession(*s);
    if (!runs) return runs.failure().prefixed(f + ": ");
    if (runs->empty()) return Error{f + ": no feasible policy in it"};
    workloads.push_back(std::move(*runs));
  }
  if (name == "policy_performance") {
    c.reset(makePolicyPerformanceChart(workloads, dark));
  } else if (name == "link_traffic") {
    c.reset(makeLinkTrafficChart(workloads.front(), dark));
  } else {
    const auto& runs = workloads.front();
    auto it = runs.begin();
    if (auto p = args.option("--policy")) {
      it = std::find_if(runs.begin(), runs.end(),
                        [&](const memsim::SimulatedRun& r) { return r.policy == *p; });
      if (it == runs.end()) return Error{simFiles.front() + ": no policy '" + *p + "' in it"};
    }
    c.reset(makeTierUsageChart(*it, dark));
  }
  return c;
}

// What to draw from which files: the combinations of options that make sense (a usage error
// names the one that does not).
Status checkInputs(const Args& args, const std::optional<std::string>& chartName, bool simChart,
                   const std::vector<std::string>& simFiles) {
  if (!chartName == !args.flag("--timeline"))
    return Error{"give one of --chart NAME or --timeline"};
  if ((args.option("--batch") || args.option("--preset") || args.option("--gpu-mem") ||
       args.flag("--unfold")) &&
      !args.option("--overlay")) {
    return Error{
        "--batch, --preset, --gpu-mem and --unfold go with --timeline --overlay MODEL.onnx"};
  }
  if (args.option("--overlay") && chartName)
    return Error{"--overlay draws on the timeline: use --timeline"};
  const bool layerChart = chartName && *chartName == "sim_vs_measured";
  if (layerChart && (args.positional().size() != 1 || args.all("--sim").size() != 1))
    return Error{"sim_vs_measured needs one measured FILE and one --sim SIM.tscope"};
  if (simChart && *chartName == "sweep" && !args.option("--sweep"))
    return Error{"the sweep chart needs --sweep SWEEP.csv (from simulate --sweep -o)"};
  if (simChart && *chartName != "sweep" && simFiles.empty())
    return Error{"simulation charts need --sim SIM.tscope (from simulate -o)"};
  if (!simChart && args.positional().empty()) return Error{"no file given"};
  return {};
}

// The image: format, file, size in pixels and the PNG scale.
Result<Image> imageOptions(const Args& args) {
  auto formatName = args.option("--format");
  auto format =
      formatName ? imageFormatFromName(QString::fromStdString(*formatName)) : std::nullopt;
  if (!format) return Error{"--format needs png, svg or pdf"};
  auto out = args.option("-o");
  if (!out) return Error{"no output (-o OUT)"};
  Image image{*format, QString::fromStdString(*out), QSize(1600, 900), 1};
  if (auto w = args.option("--width")) {
    auto n = parseUnsigned(*w);
    if (!n || *n < 64 || *n > 20000) return Error{"--width needs 64 to 20000"};
    image.size.setWidth(static_cast<int>(*n));
  }
  if (auto h = args.option("--height")) {
    auto n = parseUnsigned(*h);
    if (!n || *n < 64 || *n > 20000) return Error{"--height needs 64 to 20000"};
    image.size.setHeight(static_cast<int>(*n));
  }
  if (auto s = args.option("--scale")) {
    image.scale = std::atof(s->c_str());
    if (image.scale < 0.25 || image.scale > 8) return Error{"--scale needs 0.25 to 8"};
  }
  return image;
}

// What the chart shows: its range (from the session's start, into `range`), GPU, top N, scale
// and palette, and the session's name under its title.
Result<ChartOptions> chartOptionsOf(const Args& args, RelativeRange& range) {
  ChartOptions options;
  options.logScale = args.flag("--log");
  options.dark = args.flag("--dark");
  if (auto t = args.option("--top")) {
    auto n = parseUnsigned(*t);
    if (!n || *n < 1 || *n > 200) return Error{"--top needs 1 to 200"};
    options.topN = static_cast<int>(*n);
  }
  if (auto r = args.option("--range")) {
    auto parsed = parseRelativeRange(*r);
    if (!parsed) return Error{"--range needs T0:T1, e.g. 1.5ms:20ms"};
    range = *parsed;
  }
  if (!args.positional().empty())  // under the chart's title: what it shows
    options.sessionName = std::filesystem::path(args.positional().front()).filename().string();
  if (auto g = args.option("--gpu")) {
    auto n = parseUnsigned(*g);
    if (!n) return Error{"--gpu needs an index"};
    options.stats.device = static_cast<uint32_t>(*n);
  }
  return options;
}

// The timeline of `run` (with a simulation overlaid when asked), over `range` or all of it.
Status exportTimeline(const SessionPtr& run, std::optional<memsim::OverlayRequest> overlay,
                      bool unfold, const StatsOptions& range, const Image& image) {
  SessionPtr shown = run;
  std::shared_ptr<const TimelineRows> rows;
  if (overlay) {
    overlay->source.session = run;
    memsim::OverlayRun simulated = memsim::runOverlay(*overlay);
    TS_RETURN_IF_ERROR(simulated.status);
    shown = simulated.overlay.session;
    rows = simulated.overlay.rows;
  }
  // The painter the GUI's canvas draws with, on a view set up as the canvas would show it.
  TimelineView view;
  const int width = std::max(1, image.size.width() - kTimelineGutter);
  view.reset(shown, rows, width);
  if (unfold) view.collapsed.assign(view.collapsed.size(), false);
  const TimeNs from = std::max(range.start, run->startTime()),
               to = std::min(range.end, run->endTime());
  if (range.start != std::numeric_limits<TimeNs>::min() ||
      range.end != std::numeric_limits<TimeNs>::max()) {
    if (to <= from)
      return Error{"--range: the run has nothing there (it lasts " +
                   formatDuration(run->endTime() - run->startTime()) + ")"};
    view.axis.fit(from, to, width);
  } else {
    view.fitAll(width);
  }
  TimelinePainter painter;
  const QPalette colours = QGuiApplication::palette();
  return exportPainting([&](QPainter& p, QSize sz) { painter.paint(p, sz, view, colours); },
                        image.size, image.format, image.path, image.scale,
                        QStringLiteral("Timeline"));
}

}  // namespace

int runExport(const std::vector<std::string>& argv) {
  Args args;
  if (std::string e = args.parse(argv,
                                 {"--chart", "--format", "-o", "--range", "--gpu", "--width",
                                  "--height", "--scale", "--top", "--sim", "--sweep", "--policy",
                                  "--overlay", "--batch", "--preset", "--gpu-mem"},
                                 {"--timeline", "--log", "--dark", "--help", "-h", "--unfold"});
      !e.empty()) {
    return usage(e);
  }
  if (args.flag("--help") || args.flag("-h")) {
    std::fputs(helpText().c_str(), stdout);
    return kExitOk;
  }
  auto chartName = args.option("--chart");
  const bool simChart = chartName && simChartNames().contains(QString::fromStdString(*chartName));
  std::vector<std::string> simFiles = args.all("--sim");
  if (simChart && *chartName != "sweep" && simFiles.empty()) simFiles = args.positional();
  if (Status st = checkInputs(args, chartName, simChart, simFiles); !st) return usage(st.error());
  SessionChart chart = SessionChart::KernelHistogram;
  if (chartName && !simChart) {
    auto named = sessionChartFromName(QString::fromStdString(*chartName));
    if (!named) return usage("unknown chart '" + *chartName + "'");
    chart = *named;
  }
  auto image = imageOptions(args);
  if (!image) return usage(image.error());
  RelativeRange range;
  auto chartOptions = chartOptionsOf(args, range);
  if (!chartOptions) return usage(chartOptions.error());
  ChartOptions& options = *chartOptions;

  std::optional<memsim::OverlayRequest> overlay;
  if (auto model = args.option("--overlay")) {
    auto request = overlayRequest(args, *model);
    if (!request) return usage(request.error());
    overlay = std::move(*request);
  }

  // Headless unless a display is there.
  if (!std::getenv("QT_QPA_PLATFORM") && !std::getenv("DISPLAY") &&
      !std::getenv("WAYLAND_DISPLAY")) {
    setenv("QT_QPA_PLATFORM", "offscreen", 1);
  }
  static int qtArgc = 1;
  static char qtName[] = "tensorscope-cli";
  static char* qtArgv[] = {qtName, nullptr};
  QApplication app(qtArgc, qtArgv);

  auto fail = [](const std::string& m) {
    std::fprintf(stderr, "tensorscope-cli export: %s\n", m.c_str());
    return kExitFailure;
  };
  if (simChart) {
    auto c = simulationChart(args, *chartName, simFiles, options.dark);
    if (!c) return fail(c.error());
    Status st = exportChart(c->get(), image->size, image->format, image->path, image->scale);
    return st.ok() ? kExitOk : fail(st.error());
  }

  auto session = openForCli(args.positional());
  if (!session) return fail(session.error());
  const Session& s = **session;
  if (overlay && !args.option("--preset")) {  // G10's defaults with the run's GPU
    overlay->tiers = memsim::tiersForRun(*memsim::tierPreset("g10-default"), s).tiers;
    if (auto g = args.option("--gpu-mem")) {
      if (Status st = memsim::setTierField(overlay->tiers, "gpu-mem", *g); !st)
        return fail(st.error());
    }
  }
  if (range.from) options.stats.start = s.startTime() + *range.from;
  if (range.to) options.stats.end = s.startTime() + *range.to;
  Status st;
  if (chartName) {
    auto c = makeSessionChart(s, chart, options);
    st = c ? exportChart(c->get(), image->size, image->format, image->path, image->scale)
           : Status(std::move(c).failure());
  } else {
    st = exportTimeline(*session, overlay, args.flag("--unfold"), options.stats, *image);
  }
  return st.ok() ? kExitOk : fail(st.error());
}

}  // namespace ts::cli
