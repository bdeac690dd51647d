#include "views/session/stats_pane.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

#include "util/format.h"
#include "views/session/device_chooser.h"
#include "views/session/stats_table_model.h"
#include "views/session/table_panel.h"

namespace ts {

namespace {

// The tables the pane offers: every report, with gpu_util's gaps as a table of their own.
struct Choice {
  const char* name;
  StatsReport report;
  size_t table;  // index in the report's tables
  const char* title;
};
constexpr Choice kChoices[] = {
    {"kern_sum", StatsReport::KernSum, 0, "Kernels by name"},
    {"mem_time", StatsReport::MemTime, 0, "Copies and memsets by time"},
    {"mem_size", StatsReport::MemSize, 0, "Copies and memsets by size"},
    {"api_sum", StatsReport::ApiSum, 0, "CUDA API calls"},
    {"gpu_util", StatsReport::GpuUtil, 0, "GPU utilisation over time"},
    {"gpu_gaps", StatsReport::GpuUtil, 1, "GPU idle gaps"},
    {"overlap", StatsReport::Overlap, 0, "Copy / compute overlap"},
    {"kern_hist", StatsReport::KernHist, 0, "Kernel duration histogram"},
    {"layer_sum", StatsReport::LayerSum, 0, "Kernels by model layer"},
    {"steps", StatsReport::Steps, 0, "Training steps"},
    {"temporal", StatsReport::Temporal, 0, "GPU time: idle, compute, non-compute"},
    {"kernel_types", StatsReport::KernelTypes, 0, "Compute / communication / memory overlap"},
    {"idle", StatsReport::Idle, 0, "Idle time by cause, per stream"},
    {"comm_overlap", StatsReport::CommOverlap, 0, "Communication overlapped by compute"},
    {"launch", StatsReport::Launch, 0, "Launches: CPU time, GPU time, delay"},
    {"queue", StatsReport::Queue, 0, "Outstanding operations per stream"},
};

}  // namespace

StatsPane::StatsPane(SessionPtr session, QWidget* parent)
    : QWidget(parent),
      session_(std::move(session)),
      job_(this, [this](Result<std::vector<StatsTable>> result) { present(std::move(result)); }) {
  setObjectName(QStringLiteral("statsPane"));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  table_ = new TablePanel(this);
  table_->view()->setObjectName(QStringLiteral("statsTable"));
  table_->filter()->setObjectName(QStringLiteral("statsFilter"));
  report_ = new QComboBox(this);
  report_->setObjectName(QStringLiteral("statsReport"));
  for (const Choice& c : kChoices) report_->addItem(tr(c.title), QString::fromLatin1(c.name));
  device_ = new QComboBox(this);
  device_->setObjectName(QStringLiteral("statsDevice"));
  fillDeviceChooser(device_, *session_);
  perGpu_ = new QCheckBox(tr("Per GPU"), this);
  perGpu_->setToolTip(tr("Kernels and copies: one row per GPU and name"));
  table_->addControl(report_);
  table_->addControl(device_);
  table_->addControl(perGpu_);
  scope_ = new QLabel(this);
  scope_->setObjectName(QStringLiteral("statsScope"));
  layout->addWidget(scope_);
  layout->addWidget(table_, 1);

  connect(report_, &QComboBox::currentIndexChanged, this, [this] { recompute(); });
  connect(device_, &QComboBox::currentIndexChanged, this, [this] {
    options_.device = device_->currentData().toUInt();
    recompute();
  });
  connect(perGpu_, &QCheckBox::toggled, this, [this](bool on) {
    options_.perGpu = on;
    recompute();
  });
  connect(table_->view(), &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
    const StatsTable& t = table_->model()->table();
    int row = table_->proxy()->mapToSource(index).row();
    std::optional<size_t> start, duration;
    for (size_t c = 0; c < t.columns.size(); ++c) {
      if (t.columns[c].key == "start_ns") start = c;
      if (t.columns[c].key == "duration_ns") duration = c;
    }
    if (!start || !duration || row < 0) return;
    auto at =
        static_cast<TimeNs>(t.number(static_cast<size_t>(row), *start)) + session_->startTime();
    auto length = static_cast<TimeNs>(t.number(static_cast<size_t>(row), *duration));
    // A margin of a tenth on each side shows the work before and after the gap.
    emit zoomRequested(at - length / 10, at + length + length / 10);
  });
  setRange(std::nullopt);
}

StatsTableModel* StatsPane::model() const {
  return table_->model();
}
QTableView* StatsPane::view() const {
  return table_->view();
}
QSortFilterProxyModel* StatsPane::proxy() const {
  return table_->proxy();
}
StatsTable StatsPane::shownTable(bool selectedOnly) const {
  return table_->shownTable(selectedOnly);
}
Status StatsPane::exportTo(const QString& path) const {
  return table_->exportTo(path);
}

StatsPane::~StatsPane() = default;

void StatsPane::present(Result<std::vector<StatsTable>> result) {
  const Choice& c = kChoices[report_->currentIndex()];
  if (!result.ok()) {
    table_->setTable({});
    table_->setNotes(QString::fromStdString(result.error()));
  } else {
    table_->setTable(c.table < result->size() ? std::move((*result)[c.table]) : StatsTable{});
  }
  emit updated();
}

void StatsPane::setRange(std::optional<std::pair<TimeNs, TimeNs>> range) {
  options_.start = range ? range->first : std::numeric_limits<TimeNs>::min();
  options_.end = range ? range->second : std::numeric_limits<TimeNs>::max();
  showScope();  // also when hidden (then again when computed)
  recompute();
}

void StatsPane::setSession(SessionPtr session, bool live) {
  session_ = std::move(session);
  live_ = live;
  fillDeviceChooser(device_, *session_);
  options_.device = device_->currentData().toUInt();
  stale_ = true;
  if (!live_) recompute();  // computes only when shown
}

void StatsPane::showScope() {
  QString text;
  if (options_.start != std::numeric_limits<TimeNs>::min()) {
    // Both ends with the digits the range's length needs ("43.21 s to 43.40 s").
    const auto [from, to] =
        formatEnds(options_.start - session_->startTime(), options_.end - session_->startTime());
    text =
        tr("Range %1 to %2 from the session start (%3). Click the ruler to show the whole session.")
            .arg(QString::fromStdString(from), QString::fromStdString(to),
                 QString::fromStdString(formatDuration(options_.end - options_.start)));
  } else {
    text = tr("Whole session (%1). Drag on the timeline's ruler to summarise a range.")
               .arg(QString::fromStdString(formatDuration(session_->duration())));
  }
  if (live_)
    text +=
        tr(" A snapshot: the capture runs on. The table is made again from the newest when you "
           "change the report, range or GPU, or come back to this tab.");
  // Statistics of a damaged trace opened without its damaged part count what is there only.
  else if (session_->provenance.incomplete)
    text += tr(" Incomplete session (see its Overview): missing events are not counted.");
  scope_->setText(text);
}

void StatsPane::setTableName(const QString& name) {
  for (int i = 0; i < report_->count(); ++i) {
    if (report_->itemData(i).toString() == name) report_->setCurrentIndex(i);
  }
}

void StatsPane::setDevice(uint32_t device) {
  int index = device_->findData(QVariant::fromValue<uint>(device));
  if (index >= 0) device_->setCurrentIndex(index);
}

void StatsPane::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (stale_) recompute();
}

void StatsPane::recompute() {
  if (!isVisible()) {
    stale_ = true;  // a hidden tab computes nothing
    return;
  }
  stale_ = false;
  showScope();
  table_->setNotes(tr("Computing…"));
  const Choice& c = kChoices[std::max(0, report_->currentIndex())];
  job_.start([session = session_, report = c.report, options = options_](const Progress& progress) {
    return computeStats(*session, report, options, progress);
  });
}

}  // namespace ts
