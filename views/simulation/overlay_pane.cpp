#include "views/simulation/overlay_pane.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include "memsim/reports/mapping_report.h"
#include "memsim/reports/memory_comparison.h"
#include "memsim/reports/sim_report.h"
#include "util/format.h"
#include "views/models/model_title.h"
#include "views/session/stats_table_model.h"
#include "views/session/table_panel.h"
#include "views/simulation/policy_choosers.h"
#include "views/timeline/palette.h"
#include "views/timeline/qt_text.h"

namespace ts {

namespace {

constexpr const char* kSplitKey = "view/simulationSplitter";  // the summary / tables split

// Sizes and rates in the one unit system the product prints (binary: GiB, GiB/s); a field
// left as shown keeps the preset's exact value (OverlayPane::readControls).
QString bytesText(int64_t bytes) {
  return QString::fromStdString(formatBytes(static_cast<uint64_t>(std::max<int64_t>(0, bytes))));
}
QString rateText(double rate) {
  return QString::fromStdString(formatBytes(static_cast<uint64_t>(std::max(0.0, rate)))) +
         QStringLiteral("/s");
}

QLineEdit* field(QWidget* parent, const QString& tip) {
  auto* e = new QLineEdit(parent);
  e->setMinimumWidth(e->fontMetrics().horizontalAdvance(QStringLiteral("15.75 GiB/s")) + 14);
  e->setMaximumWidth(120);
  e->setToolTip(tip);
  return e;
}

}  // namespace

OverlayPane::OverlayPane(SessionPtr run, QString modelPath, int64_t batch, QWidget* parent)
    : QWidget(parent),
      run_(std::move(run)),
      job_(this, [this](std::shared_ptr<const memsim::OverlayRun> r) { present(std::move(r)); }) {
  setObjectName(QStringLiteral("overlayPane"));
  job_.onStage([this](const QString& stage) { stage_->setText(stage + QStringLiteral("…")); });
  request_.source.modelPath = modelPath.toStdString();
  request_.source.session = run_;
  request_.source.batch = batch;
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);

  // What to simulate: policy, tiers, batch.
  auto* controls = new QHBoxLayout;
  // Without a model, the run itself: its kernels and its own allocations (run_workload.h).
  controls->addWidget(new QLabel(modelPath.isEmpty()
                                     ? tr("This run's own tensors")
                                     : tr("Model %1, batch").arg(modelTitle(modelPath)),
                                 this));
  batch_ = new QSpinBox(this);
  batch_->setRange(1, 1 << 16);
  batch_->setValue(static_cast<int>(batch));
  batch_->setVisible(!modelPath.isEmpty());
  controls->addWidget(batch_);
  policy_ = new PolicyBox(this);
  controls->addWidget(new QLabel(tr("Policy"), this));
  controls->addWidget(policy_);
  preset_ = new TierPresetBox(run_.get(), this);  // first and chosen: this run's GPU, if known
  controls->addWidget(new QLabel(tr("Tiers"), this));
  controls->addWidget(preset_);
  gpu_ = field(this, tr("GPU memory: a size with its unit (40 GiB, 42.9 GB, 512 MiB)"));
  host_ = field(this, tr("Host memory for tensors"));
  ssd_ = field(this, tr("SSD capacity"));
  pcie_ = field(this, tr("GPU ↔ host bandwidth, each way (15.75 GiB/s, 16 GB/s)"));
  ssdBw_ = field(this, tr("SSD bandwidth (3.2 GB/s, 2.98 GiB/s)"));
  // The tiers on a row of their own, so the tab stays narrow enough for the track tree beside it.
  auto* fields = new QHBoxLayout;
  for (auto [label, edit] : {std::pair(tr("GPU memory"), gpu_), std::pair(tr("Host memory"), host_),
                             std::pair(tr("SSD"), ssd_), std::pair(tr("PCIe"), pcie_),
                             std::pair(tr("SSD bandwidth"), ssdBw_)}) {
    fields->addWidget(new QLabel(label, this));
    fields->addWidget(edit);
    connect(edit, &QLineEdit::editingFinished, this, [this, edit] {
      if (edit->isModified()) simulate();
      edit->setModified(false);
    });
  }
  progress_ = new QProgressBar(this);
  progress_->setRange(0, 0);  // busy: the stages have no measurable length
  progress_->setMaximumWidth(90);
  progress_->hide();
  fields->addSpacing(8);
  fields->addWidget(progress_);
  stage_ = new QLabel(this);
  stage_->setMinimumWidth(120);
  stage_->setWordWrap(true);
  fields->addWidget(stage_, 1);
  controls->addStretch(1);
  layout->addLayout(controls);
  layout->addLayout(fields);

  // How to draw it, and what to do with it.
  auto* draw = laneControls();
  draw->addStretch(1);
  gpuChooser_ = new QComboBox(this);
  gpuChooser_->setToolTip(
      tr("The GPU whose mapping and comparison the tables show (each simulated GPU has its rows on "
         "the timeline)"));
  gpuChooser_->hide();
  connect(gpuChooser_, &QComboBox::currentIndexChanged, this, [this] {
    if (current_) showGpu();
  });
  controls->addWidget(gpuChooser_);
  compare_ = new QPushButton(tr("Compare side by side"), this);
  compare_->setToolTip(
      tr("The run and the simulated step stacked on one time axis, with the per-kernel and "
         "per-layer tables"));
  compare_->setEnabled(false);
  connect(compare_, &QPushButton::clicked, this, &OverlayPane::compareRequested);
  controls->addWidget(compare_);
  auto* remove = new QPushButton(tr("Remove overlay"), this);
  connect(remove, &QPushButton::clicked, this, &OverlayPane::removeRequested);
  controls->addWidget(remove);
  layout->addLayout(draw);

  // The summary above the tables, on a splitter: a short pane gives the tables its room once the
  // user drags the summary smaller (remembered).
  auto* split = new QSplitter(Qt::Vertical, this);
  split->setObjectName(QStringLiteral("simulationSplitter"));
  split->setHandleWidth(7);
  summary_ = new QLabel(tr("Simulating…"), split);
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  summary_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
  summary_->setMinimumHeight(summary_->fontMetrics().lineSpacing());
  split->addWidget(summary_);

  // The mapping, with the user's corrections; the comparisons.
  tabs_ = new QTabWidget(split);
  mapping_ = new TablePanel(tabs_);
  addMappingControls();
  kernels_ = new TablePanel(tabs_);
  layers_ = new TablePanel(tabs_);
  tabs_->addTab(mapping_, tr("Mapping"));
  tabs_->addTab(layers_, tr("Per layer"));
  tabs_->addTab(kernels_, tr("Per kernel"));
  memory_ = new TablePanel(tabs_);
  tabs_->addTab(memory_, tr("Memory per layer"));
  tensors_ = new TablePanel(tabs_);
  tabs_->addTab(tensors_, tr("Tensors"));
  // The run planned by itself has no model layers to map its kernels onto.
  if (modelPath.isEmpty()) tabs_->setTabVisible(tabs_->indexOf(mapping_), false);
  split->addWidget(tabs_);
  split->setStretchFactor(1, 1);
  split->setChildrenCollapsible(false);
  // The summary as tall as its text (fitted each time it changes), the rest for the tables —
  // until the user drags the split, which is then kept.
  split_ = split;
  split->setSizes({4 * summary_->fontMetrics().lineSpacing() + 6, 1000});
  splitChosen_ = split->restoreState(QSettings().value(QLatin1String(kSplitKey)).toByteArray());
  connect(split, &QSplitter::splitterMoved, this, [this, split] {
    splitChosen_ = true;
    QSettings().setValue(QLatin1String(kSplitKey), split->saveState());
  });
  layout->addWidget(split, 1);

  applyPreset();
  connect(preset_, &QComboBox::currentTextChanged, this, [this] {
    applyPreset();
    simulate();
  });
  connect(policy_, &QComboBox::currentIndexChanged, this, &OverlayPane::simulate);
  connect(batch_, &QSpinBox::valueChanged, this, &OverlayPane::simulate);
  simulate();
}

QHBoxLayout* OverlayPane::laneControls() {
  auto* draw = new QHBoxLayout;
  draw->addWidget(new QLabel(tr("Tensor lanes:"), this));
  for (memsim::TensorClass role :
       {memsim::TensorClass::Weight, memsim::TensorClass::Activation, memsim::TensorClass::Gradient,
        memsim::TensorClass::OptimizerState, memsim::TensorClass::Workspace,
        memsim::TensorClass::Other}) {
    auto* box = new QCheckBox(QString::fromLatin1(memsim::toString(role)), this);
    box->setChecked(true);
    classes_.emplace_back(role, box);
    draw->addWidget(box);
    connect(box, &QCheckBox::toggled, this, &OverlayPane::simulate);
  }
  sort_ = new QComboBox(this);
  sort_->addItems({tr("by birth"), tr("by size")});
  // The lanes' colours (the canvas's overlay colours).
  auto* legend =
      new QLabel(QStringList{palette::swatchHtml(EventStyle::InGpuMemory, tr("on GPU")),
                             palette::swatchHtml(EventStyle::InHostMemory, tr("in host memory")),
                             palette::swatchHtml(EventStyle::OnSsd, tr("on SSD")),
                             palette::swatchHtml(EventStyle::Moving, tr("moving")),
                             palette::swatchHtml(EventStyle::Stall, tr("stall"))}
                     .join(QLatin1Char(' ')),
                 this);
  draw->addWidget(sort_);
  connect(sort_, &QComboBox::currentIndexChanged, this, &OverlayPane::simulate);
  draw->addSpacing(12);
  draw->addWidget(legend);
  return draw;
}

void OverlayPane::addMappingControls() {
  assignTo_ = new QComboBox(mapping_);
  assignTo_->setMinimumContentsLength(18);
  assignTo_->setToolTip(tr("The layer the selected kernels belong to"));
  auto* assignButton = new QPushButton(tr("Assign selected"), mapping_);
  assignButton->setToolTip(
      tr("Every kernel with the selected rows' names goes to the chosen layer (a correction kept "
         "for this run)"));
  connect(assignButton, &QPushButton::clicked, this, [this] {
    QStringList names;
    const QModelIndexList rows = mapping_->view()->selectionModel()->selectedRows();
    for (const QModelIndex& index : rows) {
      QModelIndex source = mapping_->proxy()->mapToSource(index);
      names << QString::fromStdString(
          mapping_->model()->table().text(static_cast<size_t>(source.row()), 3));
    }
    assign(names, assignTo_->currentData().toString());
  });
  auto* clear = new QPushButton(tr("Clear corrections"), mapping_);
  connect(clear, &QPushButton::clicked, this, [this] {
    request_.source.mapping.corrections.clear();
    simulate();
  });
  auto* fromSelection = new QPushButton(tr("Iteration = timeline selection"), mapping_);
  fromSelection->setToolTip(
      tr("Map the kernels that start inside the range dragged on the timeline's ruler"));
  connect(fromSelection, &QPushButton::clicked, this, [this] {
    auto range = selection_ ? selection_() : std::nullopt;
    if (!range) {
      stage_->setText(tr("Drag a range on the timeline's ruler first."));
      return;
    }
    request_.source.mapping.iteration = model::TimeRange{range->first, range->second};
    simulate();
  });
  auto* detect = new QPushButton(tr("Detect iteration"), mapping_);
  connect(detect, &QPushButton::clicked, this, [this] {
    request_.source.mapping.iteration.reset();
    simulate();
  });
  for (QWidget* w :
       std::initializer_list<QWidget*>{assignTo_, assignButton, clear, fromSelection, detect})
    mapping_->addControl(w);
  mapping_->view()->setSelectionBehavior(QAbstractItemView::SelectRows);
}

QCheckBox* OverlayPane::classBox(memsim::TensorClass role) const {
  for (const auto& [r, box] : classes_) {
    if (r == role) return box;
  }
  return nullptr;
}

void OverlayPane::applyPreset() {
  auto preset = preset_->tiers();
  if (!preset) return;
  request_.tiers = *preset;
  gpu_->setText(bytesText(preset->gpuBytes));
  host_->setText(bytesText(preset->hostBytes));
  ssd_->setText(bytesText(preset->ssdBytes));
  pcie_->setText(rateText(preset->gpuHostBandwidth));
  ssdBw_->setText(rateText(preset->ssdGpuBandwidth));
  for (QLineEdit* e : {gpu_, host_, ssd_, pcie_, ssdBw_}) shownPreset_[e] = e->text();
  shownTyped_.clear();  // the preset's values replace what was typed
}

// The fields on top of the preset; an error names the field.
Status OverlayPane::readControls() {
  auto preset = preset_->tiers();
  memsim::TierConfig tiers = preset ? *preset : request_.tiers;
  const std::pair<const char*, QLineEdit*> fields[] = {{"gpu-mem", gpu_},
                                                       {"host-mem", host_},
                                                       {"ssd", ssd_},
                                                       {"pcie-bw", pcie_},
                                                       {"ssd-bw", ssdBw_}};
  QHash<QLineEdit*, QString> typedNow;  // what each field typed by the user stands for
  for (auto [key, edit] : fields) {
    // As shown for the preset (rounded to three digits): the preset's exact value stays.
    if (preset && edit->text() == shownPreset_.value(edit)) continue;
    QString typed = edit->text().trimmed();
    if (auto shown = shownTyped_.find(edit); shown != shownTyped_.end() && shown->first == typed)
      typed = shown->second;  // as normalised after the last run: what was typed then
    TS_RETURN_IF_ERROR(memsim::setTierField(tiers, key, typed.toStdString()));
    typedNow[edit] = typed;
  }
  TS_RETURN_IF_ERROR(tiers.validate());
  // Typed values shown in the one unit system the pane uses ("3GB" reads "2.79 GiB"), each
  // remembering what was typed so that, left as shown, it keeps its exact value.
  const std::pair<QLineEdit*, QString> shownAs[] = {{gpu_, bytesText(tiers.gpuBytes)},
                                                    {host_, bytesText(tiers.hostBytes)},
                                                    {ssd_, bytesText(tiers.ssdBytes)},
                                                    {pcie_, rateText(tiers.gpuHostBandwidth)},
                                                    {ssdBw_, rateText(tiers.ssdGpuBandwidth)}};
  for (auto [edit, text] : shownAs) {
    if (!typedNow.contains(edit) || edit->text().trimmed() == text) continue;
    shownTyped_[edit] = {text, typedNow[edit]};
    edit->setText(text);
  }
  request_.tiers = tiers;
  request_.policy = policy_->policy();
  request_.source.batch = batch_->value();
  request_.options.sort = sort_->currentIndex() == 1 ? memsim::OverlayOptions::SortBy::Size
                                                     : memsim::OverlayOptions::SortBy::Birth;
  request_.options.classes.clear();
  for (const auto& [role, box] : classes_) {
    if (box->isChecked()) request_.options.classes.push_back(role);
  }
  return {};
}

void OverlayPane::assign(const QStringList& names, const QString& group) {
  if (names.isEmpty()) {
    stage_->setText(tr("Select the kernels to assign in the Mapping table first."));
    return;
  }
  for (const QString& n : names)
    request_.source.mapping.corrections[n.toStdString()] = group.toStdString();
  simulate();
}

void OverlayPane::simulate() {
  if (Status st = readControls(); !st.ok()) {
    stage_->setText(tr("Cannot simulate: %1").arg(QString::fromStdString(st.error())));
    return;
  }
  progress_->show();
  stage_->setText(tr("Mapping kernels…"));
  job_.start([request = request_](const Progress& progress) {
    return std::make_shared<const memsim::OverlayRun>(memsim::runOverlay(request, progress));
  });
}

void OverlayPane::present(std::shared_ptr<const memsim::OverlayRun> run) {
  progress_->hide();
  if (run->status.cancelled()) return;
  current_ = run;
  // The GPU chooser lists the simulated GPUs; the choice survives re-runs when it still exists.
  const uint32_t keep =
      gpuChooser_->currentData().isValid() ? gpuChooser_->currentData().toUInt() : kNone;
  {
    const QSignalBlocker block(gpuChooser_);
    gpuChooser_->clear();
    for (const memsim::GpuRun& g : run->gpus) {
      gpuChooser_->addItem(tr("GPU %1").arg(run_->devices[g.device].ordinal), g.device);
      if (g.device == keep) gpuChooser_->setCurrentIndex(gpuChooser_->count() - 1);
    }
  }
  gpuChooser_->setVisible(run->gpus.size() > 1);
  showGpu();
  fitSummary();
  emit updated();
}

void OverlayPane::fitSummary() {
  if (splitChosen_ || !split_ || split_->height() <= 0) return;
  const int width = summary_->width() > 0 ? summary_->width() : split_->width();
  const int h = summary_->heightForWidth(width) + 4;
  split_->setSizes({h, std::max(1, split_->height() - h - split_->handleWidth())});
}

void OverlayPane::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  fitSummary();
}

const memsim::GpuRun* OverlayPane::shownGpu() const {
  if (!current_ || current_->gpus.empty()) return nullptr;
  const size_t i = static_cast<size_t>(std::max(0, gpuChooser_->currentIndex()));
  return &current_->gpus[std::min(i, current_->gpus.size() - 1)];
}

namespace {

// The run's GPU memory against the simulation's, with its warning in the stalls' colour.
QString memoryLine(const memsim::MemoryVerdict& memory) {
  QString line = htmlText(memory.sentence) + QLatin1Char('.');
  if (!memory.warning.empty())
    line +=
        QStringLiteral("<br><span style=\"color:%1\"><b>%2</b> %3</span>")
            .arg(QColor(palette::styleColor(EventStyle::Stall).value_or(qRgb(0xc0, 0, 0))).name(),
                 QObject::tr("Warning:"), htmlText(memory.warning));
  return line + QStringLiteral("<br>");
}

}  // namespace

// The summary, the mapping and the comparisons of the GPU chosen.
void OverlayPane::showGpu() {
  const memsim::OverlayRun& r = *current_;
  const memsim::GpuRun* g = shownGpu();
  QString mapping;
  if (g && g->mapping.mapped) {  // shown also when it failed: the user corrects from it
    const model::KernelMapping& k = g->mapping.kernels;
    mapping_->setTable(memsim::mappingTable(*run_, k));
    const QString keep = assignTo_->currentData().toString();
    assignTo_->clear();
    assignTo_->addItem(tr("(leave out)"), QString());
    for (const std::string& group : k.groups)
      assignTo_->addItem(QString::fromStdString(group), QString::fromStdString(group));
    if (int i = assignTo_->findData(keep); i >= 0) assignTo_->setCurrentIndex(i);
    // Counts that are zero go unsaid: the pane is short.
    mapping = tr("Mapping: %1").arg(htmlText(memsim::mappingSentence(g->mapping)));
    if (!k.unmapped.empty()) mapping += tr(", %1 kernel names unmapped").arg(k.unmapped.size());
    if (const size_t n = request_.source.mapping.corrections.size(); n > 0)
      mapping += tr(", corrections: %1").arg(n);
    mapping += QLatin1Char('.');
  }
  for (const std::string& skipped : r.skipped)
    mapping += tr("<br>Not simulated: %1").arg(QString::fromStdString(skipped).toHtmlEscaped());
  if (!r.status.ok() || !g) {
    summary_->setText(tr("<b>Cannot simulate:</b> %1<br>%2")
                          .arg(QString::fromStdString(r.status.error()).toHtmlEscaped(), mapping));
    stage_->setText(tr("Failed."));
    compare_->setEnabled(false);
    return;
  }
  const model::KernelMapping& k = g->mapping.kernels;
  const memsim::SimSummary& s = g->run.result.summary;
  TimeNs measured =
      k.iterations.empty() ? 0 : k.iterations[k.iteration].end - k.iterations[k.iteration].start;
  summary_->setText(
      tr("<b>%1</b> on %2, GPU %3: simulated iteration %4 (ideal %5, slowdown %6×), %7, %8 "
         "· measured iteration %9%10<br>%11")
          .arg(QString::fromLatin1(memsim::toString(g->run.result.policy)),
               QString::fromStdString(g->workload.name))
          .arg(run_->devices[g->device].ordinal)
          .arg(QString::fromStdString(formatDuration(s.iteration)),
               QString::fromStdString(formatDuration(s.ideal)))
          .arg(s.slowdown, 0, 'f', 2)
          .arg(s.stall > 0 ? tr("stall %1 (%n fault(s))", nullptr, static_cast<int>(s.faults))
                                 .arg(QString::fromStdString(formatDuration(s.stall)))
                           : tr("no stall"),
               htmlText(memsim::trafficSentence(s)),
               QString::fromStdString(formatDuration(measured)))
          .arg(r.gpus.size() > 1 ? tr(" · GPUs simulated: %1").arg(r.gpus.size()) : QString())
          .arg(memoryLine(g->memory) + mapping +
               tr("<br>Tiers: %1 (the values above; hover for all) · planned in %2, simulated in "
                  "%3")
                   .arg(QString::fromStdString(r.tiers.name).toHtmlEscaped(),
                        QString::fromStdString(
                            formatDuration(static_cast<TimeNs>(g->run.planSeconds * 1e9))),
                        QString::fromStdString(
                            formatDuration(static_cast<TimeNs>(g->run.simulateSeconds * 1e9))))));
  // The tiers in full where the pane has no room for a fourth line of them.
  summary_->setToolTip(tr("Tiers: %1").arg(QString::fromStdString(tiersSentence(r.tiers))));
  kernels_->setTable(memsim::kernelComparison(g->workload, g->run.result, k));
  layers_->setTable(memsim::layerComparison(g->workload, g->run.result, k));
  memory_->setTable(memsim::layerMemoryComparison(*run_, g->workload, k));
  tensors_->setTable(memsim::tensorComparison(*run_, g->workload, k));
  stage_->clear();  // the times are in the summary: this label is for progress and problems
  compare_->setEnabled(true);
}

}  // namespace ts
