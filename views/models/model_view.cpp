#include "views/models/model_view.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QSpinBox>
#include <QTabWidget>
#include <QVBoxLayout>

#include "io/atomic_file.h"
#include "memsim/formats/from_model.h"
#include "memsim/reports/memory_report.h"
#include "model/astra_workload.h"
#include "model/chakra_workload.h"
#include "model/layer_table.h"
#include "model/onnx_loader.h"
#include "views/session/table_panel.h"

namespace ts {

ModelView::ModelView(QString path, QWidget* parent) : QWidget(parent), path_(std::move(path)) {
  setObjectName(QStringLiteral("modelView"));
  auto* layout = new QVBoxLayout(this);
  auto* bar = new QHBoxLayout;
  batch_ = new QSpinBox(this);
  batch_->setRange(1, 1 << 16);
  batch_->setValue(1);
  batch_->setPrefix(tr("Batch "));
  device_ = new QComboBox(this);
  for (const model::DevicePreset& d : model::devicePresets())
    device_->addItem(QString::fromStdString(d.name));
  device_->setCurrentText(QStringLiteral("A100-40GB"));
  device_->setToolTip(tr("Device preset for the roofline kernel times"));
  optimizer_ = new QComboBox(this);
  optimizer_->addItem(tr("SGD with momentum"));
  optimizer_->addItem(tr("Adam"));
  // A push button with a menu: the style leaves room for its arrow (a tool button's instant
  // popup drew the arrow over the text).
  auto* exportButton = exportButton_ = new QPushButton(tr("Export"), this);
  exportButton->setObjectName(QStringLiteral("modelExport"));
  exportButton->setEnabled(false);  // until a model is loaded
  auto* menu = new QMenu(exportButton);
  menu->addAction(tr("ASTRA-sim workload (text)…"), this, [this] { exportDialog(false); });
  menu->addAction(tr("Chakra execution traces…"), this, [this] { exportDialog(true); });
  exportButton->setMenu(menu);
  bar->addWidget(batch_);
  bar->addWidget(device_);
  bar->addWidget(optimizer_);
  bar->addStretch(1);
  bar->addWidget(exportButton);
  layout->addLayout(bar);
  summary_ = new QLabel(tr("Loading %1…").arg(path_), this);
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(summary_);
  tabs_ = new QTabWidget(this);
  layers_ = new TablePanel(tabs_);
  kernels_ = new TablePanel(tabs_);
  memory_ = new TablePanel(tabs_);
  tabs_->addTab(layers_, tr("Layers"));
  tabs_->addTab(kernels_, tr("Training step"));
  tabs_->addTab(memory_, tr("Memory"));
  layout->addWidget(tabs_, 1);

  connect(batch_, &QSpinBox::valueChanged, this, [this] { recompute(); });
  connect(device_, &QComboBox::currentIndexChanged, this, [this] { recompute(); });
  connect(optimizer_, &QComboBox::currentIndexChanged, this, [this] { recompute(); });
  recompute();
}

ModelView::~ModelView() = default;

void ModelView::present(Result<Computed> result) {
  if (!result.ok()) {
    error_ = QString::fromStdString(result.error());
    summary_->setText(error_);
    // Nothing to export from a model that did not load (the previous batch's graph is stale).
    graph_.reset();
    exportButton_->setEnabled(false);
    emit updated();
    return;
  }
  error_.clear();
  exportButton_->setEnabled(true);
  graph_ = result->graph;
  QString text;
  for (const auto& row : result->summary.rows) {
    const std::string& what = std::get<std::string>(row[0]);
    if (what == "file" || what == "ops") continue;
    text += QStringLiteral("<b>%1</b> %2 &nbsp; ")
                .arg(QString::fromStdString(what).toHtmlEscaped(),
                     QString::fromStdString(std::get<std::string>(row[1])).toHtmlEscaped());
  }
  text += QStringLiteral("<br><b>%1</b> %2")
              .arg(tr("training step memory"),
                   QString::fromStdString(result->memorySentence).toHtmlEscaped());
  summary_->setText(text);
  layers_->setTable(std::move(result->layers));
  kernels_->setTable(std::move(result->kernels));
  memory_->setTable(std::move(result->memory));
  emit updated();
}

void ModelView::setBatch(int batch) {
  batch_->setValue(batch);
}
void ModelView::setDevice(const QString& preset) {
  device_->setCurrentText(preset);
}

model::StepOptions ModelView::stepOptions() const {
  model::StepOptions o;
  if (auto d = model::devicePreset(device_->currentText().toStdString())) o.device = *d;
  o.optimizer =
      optimizer_->currentIndex() == 1 ? model::Optimizer::Adam : model::Optimizer::SgdMomentum;
  return o;
}

void ModelView::recompute() {
  job_.start([path = path_.toStdString(), batch = batch_->value(),
              options = stepOptions()](const Progress&) -> Result<Computed> {
    model::LoadOptions load;
    load.batch = batch;
    auto g = model::loadOnnxModel(path, load);
    if (!g) return g.failure();
    Computed c;
    c.layers = model::layerTable(*g);
    const model::TrainingStep step = model::expandTrainingStep(*g, options);
    c.kernels = model::stepTable(step);
    const memsim::SimWorkload workload = memsim::workloadFromModel(*g, step);
    const memsim::StepMemory memory = memsim::stepMemory(workload);
    c.memory = memsim::stepMemoryTable(workload, memory);
    c.memorySentence = memsim::stepMemorySentence(workload, memory);
    c.summary = model::modelSummary(*g);
    c.graph = std::make_shared<const model::ModelGraph>(std::move(*g));
    return c;
  });
}

Status ModelView::exportAstra(const QString& path, const QString& parallelism, int npus,
                              bool weightsOnly) const {
  if (!graph_) return Error{tr("the model is not loaded").toStdString()};
  model::AstraOptions a;
  auto p = model::parallelismFromString(parallelism.toStdString());
  if (!p) return Error{tr("unknown parallelism %1").arg(parallelism).toStdString()};
  a.parallelism = *p;
  a.npus = npus;
  a.weightsOnly = weightsOnly;
  TS_ASSIGN_OR_RETURN(
      const std::string text,
      model::astraText(*graph_, model::expandTrainingStep(*graph_, stepOptions()), a));
  return writeBytesAtomically(path.toStdString(), text);
}

Status ModelView::exportChakra(const QString& prefix, int npus, bool weightsOnly) const {
  if (!graph_) return Error{tr("the model is not loaded").toStdString()};
  auto layers = model::modelLayers(*graph_, model::expandTrainingStep(*graph_, stepOptions()));
  if (layers.empty()) return Error{tr("the model has no layer with weights").toStdString()};
  TS_RETURN_IF_ERROR(model::writeChakra(model::chakraDataParallel(layers, weightsOnly),
                                        prefix.toStdString(), npus));
  return {};
}

void ModelView::exportDialog(bool chakra) {
  QDialog dialog(this);
  dialog.setWindowTitle(chakra ? tr("Export Chakra traces") : tr("Export ASTRA-sim workload"));
  auto* form = new QFormLayout(&dialog);
  auto* parallel = new QComboBox(&dialog);
  parallel->addItems({QStringLiteral("DATA"), QStringLiteral("MODEL"),
                      QStringLiteral("HYBRID_DATA_MODEL"), QStringLiteral("HYBRID_MODEL_DATA")});
  parallel->setEnabled(!chakra);  // Chakra traces are data parallel
  auto* npus = new QSpinBox(&dialog);
  npus->setRange(1, 65536);
  npus->setValue(8);
  auto* weightsOnly = new QCheckBox(
      tr("Count only each layer's main weight (as ASTRA-sim's examples do)"), &dialog);
  form->addRow(tr("Parallelism:"), parallel);
  form->addRow(tr("NPUs:"), npus);
  form->addRow(weightsOnly);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
  form->addRow(buttons);
  connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
  if (dialog.exec() != QDialog::Accepted) return;
  QString base = QFileInfo(path_).completeBaseName();
  Status st;
  if (chakra) {
    QString prefix = QFileDialog::getSaveFileName(
        this, tr("Chakra traces: file prefix (PREFIX.<npu>.et)"), base);
    if (prefix.isEmpty()) return;
    st = exportChakra(prefix, npus->value(), weightsOnly->isChecked());
  } else {
    QString file = QFileDialog::getSaveFileName(this, tr("ASTRA-sim workload"),
                                                base + QStringLiteral(".txt"), tr("Text (*.txt)"));
    if (file.isEmpty()) return;
    st = exportAstra(file, parallel->currentText(), npus->value(), weightsOnly->isChecked());
  }
  if (!st.ok()) QMessageBox::warning(this, tr("Export failed"), QString::fromStdString(st.error()));
}

}  // namespace ts
