#include "stats_pane.h"

#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QFileDialog>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <fstream>

#include "io/atomic_file.h"
#include "stats_table_model.h"
#include "util/format.h"

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
};

}  // namespace

StatsPane::StatsPane(SessionPtr session, QWidget* parent) : QWidget(parent), session_(std::move(session)) {
  setObjectName(QStringLiteral("statsPane"));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  auto* bar = new QHBoxLayout;
  report_ = new QComboBox(this);
  report_->setObjectName(QStringLiteral("statsReport"));
  for (const Choice& c : kChoices) report_->addItem(tr(c.title), QString::fromLatin1(c.name));
  device_ = new QComboBox(this);
  device_->setObjectName(QStringLiteral("statsDevice"));
  device_->addItem(tr("All GPUs"), QVariant::fromValue<uint>(kNone));
  for (uint32_t d = 0; d < session_->devices.size(); ++d) {
    device_->addItem(QString::fromStdString(session_->deviceLabel(d)), QVariant::fromValue<uint>(d));
  }
  perGpu_ = new QCheckBox(tr("Per GPU"), this);
  perGpu_->setToolTip(tr("Kernels and copies: one row per GPU and name"));
  filter_ = new QLineEdit(this);
  filter_->setObjectName(QStringLiteral("statsFilter"));
  filter_->setPlaceholderText(tr("Filter rows"));
  filter_->setClearButtonEnabled(true);
  auto* copy = new QToolButton(this);
  copy->setText(tr("Copy"));
  copy->setToolTip(tr("Copy the selected rows (all shown rows when none is selected) as CSV"));
  auto* exportButton = new QToolButton(this);
  exportButton->setText(tr("Export…"));
  exportButton->setToolTip(tr("Save the shown rows as CSV or JSON"));
  bar->addWidget(report_);
  bar->addWidget(device_);
  bar->addWidget(perGpu_);
  bar->addWidget(filter_, 1);
  bar->addWidget(copy);
  bar->addWidget(exportButton);
  layout->addLayout(bar);
  scope_ = new QLabel(this);
  scope_->setObjectName(QStringLiteral("statsScope"));
  layout->addWidget(scope_);

  model_ = new StatsTableModel(this);
  proxy_ = new QSortFilterProxyModel(this);
  proxy_->setSourceModel(model_);
  proxy_->setSortRole(StatsTableModel::SortRole);
  proxy_->setFilterKeyColumn(-1);
  proxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);
  view_ = new QTableView(this);
  view_->setObjectName(QStringLiteral("statsTable"));
  view_->setModel(proxy_);
  view_->setSortingEnabled(true);
  view_->setSelectionBehavior(QAbstractItemView::SelectRows);
  view_->verticalHeader()->setDefaultSectionSize(18);
  view_->verticalHeader()->hide();
  view_->horizontalHeader()->setStretchLastSection(true);
  layout->addWidget(view_, 1);
  notes_ = new QLabel(this);
  notes_->setWordWrap(true);
  notes_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(notes_);

  connect(report_, &QComboBox::currentIndexChanged, this, [this] { recompute(); });
  connect(device_, &QComboBox::currentIndexChanged, this, [this] {
    options_.device = device_->currentData().toUInt();
    recompute();
  });
  connect(perGpu_, &QCheckBox::toggled, this, [this](bool on) {
    options_.perGpu = on;
    recompute();
  });
  connect(filter_, &QLineEdit::textChanged, proxy_, &QSortFilterProxyModel::setFilterFixedString);
  connect(view_, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
    const StatsTable& t = model_->table();
    int row = proxy_->mapToSource(index).row();
    std::optional<size_t> start, duration;
    for (size_t c = 0; c < t.columns.size(); ++c) {
      if (t.columns[c].key == "start_ns") start = c;
      if (t.columns[c].key == "duration_ns") duration = c;
    }
    if (!start || !duration || row < 0) return;
    auto at = static_cast<TimeNs>(t.number(static_cast<size_t>(row), *start)) + session_->startTime();
    auto length = static_cast<TimeNs>(t.number(static_cast<size_t>(row), *duration));
    // A margin of a tenth on each side shows the work before and after the gap.
    emit zoomRequested(at - length / 10, at + length + length / 10);
  });
  connect(copy, &QToolButton::clicked, this, &StatsPane::copyRows);
  connect(exportButton, &QToolButton::clicked, this, &StatsPane::exportDialog);
  connect(&watcher_, &QFutureWatcher<Result<std::vector<StatsTable>>>::finished, this, [this] {
    if (watcher_.property("generation").toInt() != generation_) return;  // superseded
    busy_ = false;
    auto result = watcher_.result();
    const Choice& c = kChoices[report_->currentIndex()];
    if (!result.ok()) {
      model_->setTable({});
      notes_->setText(QString::fromStdString(result.error()));
    } else {
      StatsTable table = c.table < result->size() ? std::move((*result)[c.table]) : StatsTable{};
      QString notes;
      for (const std::string& n : table.notes) notes += QString::fromStdString(n) + QLatin1Char(' ');
      notes_->setText(notes.trimmed());
      model_->setTable(std::move(table));
      // Each report comes in its own order (by total, by GPU then stream, longest gap first):
      // show that until the user sorts.
      view_->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
      proxy_->sort(-1);
      view_->resizeColumnsToContents();
      // Names can be thousands of characters: keep the columns before them readable.
      for (int col = 0; col < model_->columnCount(); ++col) {
        view_->setColumnWidth(col, std::min(view_->columnWidth(col), 480));
      }
    }
    emit updated();
  });
  setRange(std::nullopt);
}

StatsPane::~StatsPane() {
  if (cancel_) cancel_->store(true);
  watcher_.waitForFinished();
}

void StatsPane::setRange(std::optional<std::pair<TimeNs, TimeNs>> range) {
  if (range) {
    options_.start = range->first;
    options_.end = range->second;
    scope_->setText(tr("Range %1 to %2 from the session start (%3). Click the ruler to show the whole session.")
                        .arg(QString::fromStdString(formatDuration(range->first - session_->startTime())),
                             QString::fromStdString(formatDuration(range->second - session_->startTime())),
                             QString::fromStdString(formatDuration(range->second - range->first))));
  } else {
    options_.start = std::numeric_limits<TimeNs>::min();
    options_.end = std::numeric_limits<TimeNs>::max();
    scope_->setText(tr("Whole session (%1). Drag on the timeline's ruler to summarise a range.")
                        .arg(QString::fromStdString(formatDuration(session_->duration()))));
  }
  recompute();
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

void StatsPane::recompute() {
  if (cancel_) cancel_->store(true);
  cancel_ = std::make_shared<std::atomic<bool>>(false);
  ++generation_;
  busy_ = true;
  notes_->setText(tr("Computing…"));
  const Choice& c = kChoices[std::max(0, report_->currentIndex())];
  watcher_.setProperty("generation", generation_);
  watcher_.setFuture(QtConcurrent::run([session = session_, report = c.report, options = options_, cancel = cancel_] {
    Progress progress;
    progress.cancel = cancel.get();
    return computeStats(*session, report, options, progress);
  }));
}

StatsTable StatsPane::shownTable(bool selectedOnly) const {
  StatsTable out = model_->table();
  out.rows.clear();
  QList<int> rows;
  if (selectedOnly) {
    for (const QModelIndex& i : view_->selectionModel()->selectedRows()) rows << i.row();
    std::sort(rows.begin(), rows.end());
  }
  if (rows.isEmpty()) {
    for (int r = 0; r < proxy_->rowCount(); ++r) rows << r;
  }
  for (int r : rows) {
    int source = proxy_->mapToSource(proxy_->index(r, 0)).row();
    out.rows.push_back(model_->table().rows[static_cast<size_t>(source)]);
  }
  return out;
}

void StatsPane::copyRows() {
  QGuiApplication::clipboard()->setText(QString::fromStdString(statsToCsv(shownTable(true))));
}

QString StatsPane::exportTo(const QString& path) const {
  StatsTable table = shownTable();
  const bool json = path.endsWith(QLatin1String(".json"), Qt::CaseInsensitive);
  std::string text = json ? statsToJson({table}) : statsToCsv(table);
  std::string file = path.toStdString();
  Status st = writeFileAtomically(file, [&](const std::string& temp) -> Status {
    std::ofstream out(temp, std::ios::binary);
    out << text;
    out.flush();
    if (!out) return Error{file + ": cannot write"};
    return {};
  });
  return st ? QString() : QString::fromStdString(st.error());
}

void StatsPane::exportDialog() {
  QString name = QString::fromStdString(model_->table().report.empty() ? "stats" : model_->table().report);
  QString path = QFileDialog::getSaveFileName(this, tr("Export statistics"), name + QStringLiteral(".csv"),
                                              tr("CSV (*.csv);;JSON (*.json)"));
  if (path.isEmpty()) return;
  if (QString error = exportTo(path); !error.isEmpty()) QMessageBox::warning(this, tr("Export failed"), error);
}

}  // namespace ts
