#include "views/simulation/simulation_view.h"

#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include "memsim/formats/g10_inputs.h"
#include "memsim/reports/mapping_report.h"
#include "util/format.h"
#include "views/simulation/policy_choosers.h"
#include "views/simulation/tier_control.h"
#include "views/timeline/qt_text.h"
#include "views/timeline/timeline_canvas.h"

namespace ts {

SimulationView::SimulationView(memsim::WorkloadSource source, QWidget* parent)
    : QWidget(parent),
      source_(std::move(source)),
      job_(this, [this](Outcome o) { present(std::move(o)); }) {
  setObjectName(QStringLiteral("simulationView"));
  base_ = *memsim::tierPreset("g10-default");
  auto* layout = new QHBoxLayout(this);
  auto* panel = new QWidget(this);
  auto* form = new QFormLayout(panel);
  policy_ = new PolicyBox(panel);
  // A measured run's model: G10's defaults with the run's own GPU first, as on the timeline.
  preset_ = new TierPresetBox(source_.session.get(), panel);
  gpu_ = new TierControl(QStringLiteral("GiB"), 0.5, 1024, 0.5, panel);
  host_ = new TierControl(QStringLiteral("GiB"), 0, 2048, 1, panel);
  ssd_ = new TierControl(QStringLiteral("GiB/s"), 0.1, 64, 0.1, panel);
  gpu_->setObjectName(QStringLiteral("gpuMemory"));
  host_->setObjectName(QStringLiteral("hostMemory"));
  ssd_->setObjectName(QStringLiteral("ssdBandwidth"));
  batch_ = new QSpinBox(panel);
  batch_->setRange(1, 1 << 16);
  batch_->setValue(static_cast<int>(source_.batch));
  batch_->setToolTip(tr("Batch size of the model's training step"));
  values_ = new QLabel(panel);
  values_->setObjectName(QStringLiteral("tierValues"));
  values_->setWordWrap(true);
  form->addRow(tr("Policy"), policy_);
  form->addRow(tr("Tiers preset"), preset_);
  form->addRow(tr("GPU memory"), gpu_);
  form->addRow(tr("Host memory"), host_);
  form->addRow(tr("SSD bandwidth"), ssd_);
  if (source_.isModel()) {
    form->addRow(tr("Batch"), batch_);
  } else if (source_.isG10Inputs()) {
    // G10's inputs: the batch sizes G10 traced this model at.
    batch_->hide();
    tracedBatch_ = new QComboBox(panel);
    tracedBatch_->setObjectName(QStringLiteral("tracedBatch"));
    tracedBatch_->setToolTip(tr("The batch sizes G10 measured this model's kernels at"));
    const memsim::G10ModelInfo* model = memsim::findG10Model(source_.g10Model);
    if (auto listed = memsim::listG10Inputs(source_.g10Inputs)) {
      for (const memsim::G10InputsModel& m : *listed) {
        if (m.info != model) continue;
        for (int64_t b : m.batches)
          tracedBatch_->addItem(QString::number(b), QVariant::fromValue<qlonglong>(b));
      }
    }
    const int at = tracedBatch_->findData(QVariant::fromValue<qlonglong>(source_.batch));
    if (at >= 0) tracedBatch_->setCurrentIndex(at);
    form->addRow(tr("Batch"), tracedBatch_);
    connect(tracedBatch_, &QComboBox::currentIndexChanged, this, &SimulationView::schedule);
  } else {
    // A G10 workload was traced at one batch (its directory is named MODEL-BATCH, as G10 ships
    // them): say so rather than show a disabled box with a meaningless value.
    batch_->hide();
    const QString dir =
        QFileInfo(QDir::cleanPath(QString::fromStdString(source_.g10Dir))).fileName();
    const QString n = dir.section(QLatin1Char('-'), -1);
    bool numeric = false;
    n.toInt(&numeric);
    auto* fixed = new QLabel(
        numeric ? tr("%1, fixed by the workload").arg(n) : tr("fixed by the workload"), panel);
    fixed->setObjectName(QStringLiteral("fixedBatch"));
    fixed->setToolTip(tr("A G10 workload holds the kernels and tensors of one traced batch"));
    form->addRow(tr("Batch"), fixed);
  }
  form->addRow(values_);
  if (source_.session || !source_.sessionPath.empty()) {
    compare_ = new QPushButton(tr("Compare with the measured run"), panel);
    compare_->setToolTip(tr(
        "The run and this simulation stacked on one time axis, kernels and layers side by side"));
    compare_->setEnabled(false);
    connect(compare_, &QPushButton::clicked, this, [this] {
      if (current_.session) emit compareRequested(current_.session);
    });
    form->addRow(compare_);
    mapping_ = new QLabel(panel);
    mapping_->setWordWrap(true);
    mapping_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    form->addRow(mapping_);
  }
  panel->setMaximumWidth(420);
  layout->addWidget(panel);
  auto* right = new QWidget(this);
  body_ = new QVBoxLayout(right);
  body_->setContentsMargins(0, 0, 0, 0);
  summary_ = new QLabel(tr("Simulating…"), right);
  summary_->setWordWrap(true);  // a caveat can be long: wrapped, never widening the window
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  body_->addWidget(summary_);
  layout->addWidget(right, 1);

  applyPreset();
  connect(preset_, &QComboBox::currentTextChanged, this, [this] {
    applyPreset();
    schedule();
  });
  for (TierControl* c : {gpu_, host_, ssd_})
    connect(c, &TierControl::changed, this, &SimulationView::schedule);
  connect(policy_, &QComboBox::currentIndexChanged, this, &SimulationView::schedule);
  connect(batch_, &QSpinBox::valueChanged, this, &SimulationView::schedule);
  schedule();
}

// Sliders start from a preset; the preset's other fields (bandwidths, latencies) stay.
void SimulationView::applyPreset() {
  auto preset = preset_->tiers();
  if (!preset) return;
  base_ = *preset;
  gpu_->setExact(static_cast<double>(preset->gpuBytes));
  host_->setExact(static_cast<double>(preset->hostBytes));
  ssd_->setExact(preset->ssdGpuBandwidth);
}

memsim::TierConfig SimulationView::tiers() const {
  memsim::TierConfig t = base_;
  t.gpuBytes = static_cast<int64_t>(std::llround(gpu_->exact()));
  t.hostBytes = static_cast<int64_t>(std::llround(host_->exact()));
  t.ssdGpuBandwidth = t.ssdHostBandwidth = ssd_->exact();
  // Moved off the preset: it no longer is the preset, and the summary says so.
  if (gpu_->edited() || host_->edited() || ssd_->edited()) t.name += " (edited)";
  return t;
}

void SimulationView::schedule() {
  // Every tier, the ones without a control too, in the units the controls use.
  values_->setText(QString::fromStdString(memsim::tiersSentence(tiers())).toHtmlEscaped());
  sinceChange_.start();
  if (running_) {
    pending_ = true;  // merged: the newest values run when this one ends
    return;
  }
  start();
}

void SimulationView::start() {
  running_ = true;
  pending_ = false;
  const memsim::Policy policy = policy_->policy();
  memsim::WorkloadSource source = source_;
  source.batch = tracedBatch_ && tracedBatch_->currentIndex() >= 0
                     ? tracedBatch_->currentData().toLongLong()
                     : batch_->value();
  std::shared_ptr<const memsim::SimWorkload> workload =
      (source.isModel() || source.isG10Inputs()) && source.batch != workloadBatch_ ? nullptr
                                                                                   : workload_;
  job_.start([source, workload, policy, tiers = tiers()](const Progress&) mutable {
    Outcome o;
    o.batch = source.batch;
    if (!workload) {
      memsim::MappingSummary mapping;
      auto loaded = memsim::loadWorkload(source, &mapping);
      o.mapping = mapping;
      if (!loaded) {
        o.load = std::move(loaded).failure();
        return o;
      }
      workload = std::make_shared<const memsim::SimWorkload>(std::move(*loaded));
    }
    o.workload = workload;
    o.whatIf = memsim::runWhatIf(*workload, policy, tiers);
    return o;
  });
}

void SimulationView::present(Outcome o) {
  running_ = false;
  if (o.workload) {
    workload_ = o.workload;
    workloadBatch_ = o.batch;
    if (o.mapping) measured_ = o.mapping->mapped ? o.mapping : std::nullopt;  // reloaded
  }
  current_ = std::move(o.whatIf);
  const memsim::SimResult& r = current_.result;
  if (!o.load.ok()) {
    summary_->setText(
        tr("Cannot load the workload: %1").arg(QString::fromStdString(o.load.error())));
  } else if (!current_.status.ok()) {
    summary_->setText(QString::fromStdString(current_.status.error()));
  } else if (!r.feasible) {
    summary_->setText(tr("%1 is infeasible here: %2")
                          .arg(QString::fromLatin1(memsim::toString(r.policy)),
                               QString::fromStdString(r.problem)));
  } else {
    if (timeline_) timeline_->show();
    const memsim::SimSummary& s = r.summary;
    int64_t moved = 0;
    for (int64_t b : s.linkBytes) moved += b;
    summary_->setText(
        tr("<b>%1</b> — %2: iteration %3 (ideal %4, slowdown %5×), %6, %7 faults, %8 moved")
            .arg(QString::fromLatin1(memsim::toString(r.policy)),
                 QString::fromStdString(workload_ ? workload_->name : std::string()),
                 QString::fromStdString(formatDuration(s.iteration)),
                 QString::fromStdString(formatDuration(s.ideal)))
            .arg(s.slowdown, 0, 'f', 2)  // as the Simulation tab prints it
            // "stall 0 ns" beside an iteration in seconds reads as a rounding; none is none.
            .arg(s.stall > 0 ? tr("stall %1").arg(QString::fromStdString(formatDuration(s.stall)))
                             : tr("no stall"))
            .arg(s.faults)
            .arg(QString::fromStdString(formatBytes(static_cast<uint64_t>(moved)))) +
        (current_.planNote.empty()
             ? QString()
             : QStringLiteral("<br>") +
                   tr("Plan: %1").arg(QString::fromStdString(current_.planNote).toHtmlEscaped())) +
        (r.caveat.empty()
             ? QString()
             : QStringLiteral("<br>") + QString::fromStdString(r.caveat).toHtmlEscaped()));
    // A new canvas on the new session, at the old zoom when the user had zoomed in.
    auto* canvas = new TimelineCanvas(current_.session, current_.rows, this);
    if (timeline_) {
      const TimeAxis& axis = timeline_->axis();
      const Session& old = *timeline_->session();
      TimeNs t0 = axis.start(), t1 = axis.end(timeline_->canvasWidth());
      delete body_->replaceWidget(timeline_, canvas);  // the layout item is ours to delete
      canvas->resize(timeline_->size());
      canvas->show();
      if (t0 > old.startTime() || t1 < old.endTime())
        canvas->zoomTo(t0, t1);
      else
        canvas->fitAll();
      timeline_->deleteLater();
    } else {
      body_->addWidget(canvas, 1);
      canvas->fitAll();
    }
    timeline_ = canvas;
  }
  // No timeline of an earlier result under a failure: it would read as this one's.
  if (timeline_ && (!o.load.ok() || !current_.status.ok() || !r.feasible)) timeline_->hide();
  if (compare_) compare_->setEnabled(current_.session != nullptr);
  if (mapping_ && o.mapping && o.mapping->mapped) {
    const memsim::MappingSummary& m = *o.mapping;
    auto list = [](const std::vector<std::string>& names) {
      QStringList out;
      for (size_t i = 0; i < names.size() && i < 12; ++i) out << QString::fromStdString(names[i]);
      if (names.size() > 12) out << tr("… %1 more").arg(names.size() - 12);
      return out.join(QStringLiteral(", "));
    };
    QString text = tr("<b>Measured times</b> %1.").arg(htmlText(memsim::mappingSentence(m)));
    if (!m.timed.unmapped.empty()) text += tr(" Roofline for: %1.").arg(list(m.timed.unmapped));
    if (!m.timed.unknown.empty()) text += tr(" Not in the model: %1.").arg(list(m.timed.unknown));
    mapping_->setText(text);
  }
  lastLatencyMs_ = static_cast<double>(sinceChange_.nsecsElapsed()) / 1e6;
  if (pending_) start();
  emit updated();
}

}  // namespace ts
