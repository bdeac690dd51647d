#include "views/advisor/advise_view.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <QValueAxis>
#include <cctype>
#include <map>

#include "advisor/consolidate.h"
#include "advisor/hetero.h"
#include "advisor/hetero_inputs.h"
#include "advisor/hetero_timeline.h"
#include "advisor/model_estimate.h"
#include "advisor/multiplex_advice.h"
#include "model/device_preset.h"
#include "model/model_zoo.h"
#include "util/format.h"
#include "views/charts/chart_view.h"
#include "views/charts/session_charts.h"

namespace ts {

namespace {

QString html(const std::string& text) {
  return QString::fromStdString(text).toHtmlEscaped();
}
QString dur(TimeNs ns) {
  return QString::fromStdString(formatDuration(ns));
}
QString bytes(int64_t b) {
  return QString::fromStdString(formatBytes(static_cast<uint64_t>(std::max<int64_t>(0, b))));
}
QString row(const QStringList& cells, bool head = false) {
  QString out = QStringLiteral("<tr>");
  for (const QString& c : cells)
    out += (head ? QStringLiteral("<th align=left>%1</th>") : QStringLiteral("<td>%1</td>")).arg(c);
  return out + QStringLiteral("</tr>");
}
QString list(const std::vector<std::string>& items) {
  QString out = QStringLiteral("<ul>");
  for (const std::string& i : items) out += QStringLiteral("<li>%1</li>").arg(html(i));
  return out + QStringLiteral("</ul>");
}

// The intra-node link presets (the same for a job's ring and a pipeline's stages).
const char* kLinks[] = {"nvlink3", "nvlink2", "nvlink4", "pcie3", "pcie4", "pcie5"};

}  // namespace

AdviseView::AdviseView(SessionSource sessions, QWidget* parent)
    : QWidget(parent),
      sessions_(std::move(sessions)),
      job_(this, [this](Outcome o) { present(std::move(o)); }) {
  setObjectName(QStringLiteral("adviseView"));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  tabs_ = new QTabWidget(this);
  tabs_->setObjectName(QStringLiteral("adviseTabs"));
  layout->addWidget(tabs_);

  // Share a GPU.
  {
    auto* form = new QWidget;
    auto* f = new QFormLayout(form);
    jobs_ = new QListWidget(form);
    jobs_->setObjectName(QStringLiteral("adviseJobs"));
    jobs_->setToolTip(tr("Tick the open sessions to pack, one job each."));
    f->addRow(tr("Jobs"), jobs_);
    copies_ = new QSpinBox(form);
    copies_->setRange(1, 16);
    copies_->setToolTip(tr("2 or more: that many copies of the one ticked session."));
    f->addRow(tr("Copies of one job"), copies_);
    mig_ = new QComboBox(form);
    mig_->addItem(tr("as measured"), QString());
    for (const model::DevicePreset& d : model::devicePresets()) {
      const QString name = QString::fromStdString(d.name);
      mig_->addItem(advisor::migGpu(d.name) ? tr("%1 (MIG judged too)").arg(name) : name, name);
    }
    mig_->setToolTip(
        tr("The GPU to share: its memory bounds the jobs; an A100, H100 or H200 "
           "also judges MIG. The jobs' times are replayed as measured."));
    f->addRow(tr("GPU"), mig_);
    jobModels_ = new QLineEdit(form);
    jobModels_->setPlaceholderText(tr("1=resnet50:32, 2=bert.onnx:8"));
    jobModels_->setToolTip(
        tr("A job's model at its batch (an ONNX file or a built-in model's name), when its "
           "session records no memory: its peak is then the simulated training step's, an upper "
           "bound. Jobs are numbered as ticked, from 1."));
    f->addRow(tr("Models of jobs"), jobModels_);
    tabs_->addTab(page(Multiplex, form), tr("Share a GPU"));
  }
  // Fewer machines.
  {
    auto* form = new QWidget;
    auto* f = new QFormLayout(form);
    run_ = new QComboBox(form);
    run_->setObjectName(QStringLiteral("adviseRun"));
    f->addRow(tr("Job (all its ranks)"), run_);
    gpusPerNode_ = new QSpinBox(form);
    gpusPerNode_->setRange(1, 1024);
    gpusPerNode_->setValue(8);
    f->addRow(tr("GPUs per machine"), gpusPerNode_);
    world_ = new QSpinBox(form);
    world_->setRange(0, 1 << 20);
    world_->setSpecialValueText(tr("as the traces say"));
    world_->setToolTip(
        tr("The job's rank count. Default: its traces' distributedInfo.world_size, else the "
           "session's ranks."));
    f->addRow(tr("Ranks in the job"), world_);
    nodesNow_ = new QSpinBox(form);
    nodesNow_->setRange(0, 1 << 20);
    nodesNow_->setSpecialValueText(tr("as the hosts say"));
    nodesNow_->setToolTip(
        tr("The machines the job runs on now. Default: those its ranks' hosts name; needed "
           "when the session holds a sample of a larger job."));
    f->addRow(tr("Machines now"), nodesNow_);
    hosts_ = new QLineEdit(form);
    hosts_->setPlaceholderText(tr("0=nodeA, 1=nodeB"));
    hosts_->setToolTip(
        tr("Each rank's machine (rank number = host), when the trace does not "
           "name them."));
    f->addRow(tr("Each rank's machine"), hosts_);
    intra_ = new QComboBox(form);
    for (const char* l : kLinks) intra_->addItem(QString::fromLatin1(l));
    f->addRow(tr("Link in a machine"), intra_);
    machines_ = new QSpinBox(form);
    machines_->setRange(0, 1 << 20);
    machines_->setSpecialValueText(tr("the fewest"));
    f->addRow(tr("Machines after"), machines_);
    inter_ = new QComboBox(form);
    inter_->addItem(tr("as the run got it"), QString());
    for (const char* l : {"25g", "100g", "200g", "400g"})
      inter_->addItem(QString::fromStdString(advisor::interNodeLink(l)->name),
                      QString::fromLatin1(l));
    f->addRow(tr("Link between machines"), inter_);
    gradientModel_ = new QLineEdit(form);
    gradientModel_->setPlaceholderText(tr("if the trace has no sizes"));
    gradientModel_->setToolTip(
        tr("An ONNX file or a built-in model's name (resnet50, …) whose gradients size the "
           "all-reduces, when the trace records none: a data-parallel step all-reduces each "
           "gradient once."));
    f->addRow(tr("Model for gradient sizes"), gradientModel_);
    connect(run_, &QComboBox::currentIndexChanged, this, [this](int i) {
      if (i < 0 || static_cast<size_t>(i) >= open_.size()) return;
      QStringList known;
      for (const Rank& r : open_[static_cast<size_t>(i)].session->ranks) {
        if (!r.host.empty())
          known << QStringLiteral("%1=%2").arg(r.rank).arg(QString::fromStdString(r.host));
      }
      hosts_->setText(known.join(QStringLiteral(", ")));
    });
    tabs_->addTab(page(Consolidate, form), tr("Fewer machines"));
  }
  // Mixed GPUs.
  {
    auto* form = new QWidget;
    auto* f = new QFormLayout(form);
    auto* pick = new QWidget(form);
    auto* pickLayout = new QHBoxLayout(pick);
    pickLayout->setContentsMargins(0, 0, 0, 0);
    model_ = new QComboBox(pick);
    model_->setEditable(true);
    model_->addItem(tr("(none: throughputs only)"), QString());
    for (const std::string& m : model::zooModels()) model_->addItem(QString::fromStdString(m));
    model_->setCurrentText(QStringLiteral("resnet50"));
    auto* browse = new QPushButton(tr("ONNX…"), pick);
    connect(browse, &QPushButton::clicked, this, [this] {
      const QString path = QFileDialog::getOpenFileName(this, tr("Model"), {},
                                                        tr("ONNX models (*.onnx);;All files (*)"));
      if (!path.isEmpty()) model_->setCurrentText(path);
    });
    pickLayout->addWidget(model_, 1);
    pickLayout->addWidget(browse);
    f->addRow(tr("Model"), pick);
    batch_ = new QSpinBox(form);
    batch_->setRange(1, 1 << 20);
    batch_->setValue(64);
    f->addRow(tr("Global batch"), batch_);
    devices_ = new QLineEdit(QStringLiteral("K80:2, V100:2"), form);
    devices_->setToolTip(
        tr("Device presets with counts: V100, A100-40GB, A100-80GB, H100, "
           "H200, K80, P100."));
    f->addRow(tr("Devices"), devices_);
    throughput_ = new QLineEdit(form);
    throughput_->setPlaceholderText(tr("optional: K80=1, V100=2"));
    throughput_->setToolTip(
        tr("Measured or known samples per second (any common unit); wins "
           "over the model's estimate."));
    f->addRow(tr("Throughput"), throughput_);
    parallel_ = new QComboBox(form);
    parallel_->addItem(tr("data parallel"), QStringLiteral("data"));
    parallel_->addItem(tr("pipeline (layers)"), QStringLiteral("pipeline"));
    f->addRow(tr("Parallelism"), parallel_);
    layers_ = new QSpinBox(form);
    layers_->setRange(0, 100000);
    layers_->setSpecialValueText(tr("the model's"));
    layers_->setToolTip(tr("Pipeline without a model: that many equal layers."));
    f->addRow(tr("Layers"), layers_);
    link_ = new QComboBox(form);
    for (const char* l : {"pcie4", "pcie3", "pcie5", "nvlink2", "nvlink3", "nvlink4"})
      link_->addItem(QString::fromLatin1(l));
    f->addRow(tr("Link between devices"), link_);
    tabs_->addTab(page(Hetero, form), tr("Mixed GPUs"));
  }
  refreshSessions();
}

AdviseView::~AdviseView() = default;

QWidget* AdviseView::page(Tab tab, QWidget* form) {
  auto* split = new QSplitter(Qt::Horizontal);
  auto* left = new QWidget(split);
  auto* leftLayout = new QVBoxLayout(left);
  leftLayout->addWidget(form);
  auto* predictButton = new QPushButton(tr("Predict"), left);
  predictButton->setObjectName(QStringLiteral("advisePredict%1").arg(tab));
  connect(predictButton, &QPushButton::clicked, this, [this, tab] { predict(tab); });
  leftLayout->addWidget(predictButton);
  leftLayout->addStretch(1);
  // The answer over its chart, and under both (never squeezed away) the button that opens the
  // predicted run.
  auto* rightPane = new QWidget(split);
  auto* rightLayout = new QVBoxLayout(rightPane);
  rightLayout->setContentsMargins(0, 0, 0, 0);
  auto* right = new QSplitter(Qt::Vertical, rightPane);
  Page& p = pages_[tab];
  p.result = new QTextBrowser(right);
  p.result->setObjectName(QStringLiteral("adviseResult%1").arg(tab));
  p.result->setHtml(tr("<p>Choose the inputs on the left and press <b>Predict</b>.</p>"));
  p.chart = new ChartView(right);
  p.chart->suggestedName = QStringLiteral("advice");
  right->setStretchFactor(0, 3);
  right->setStretchFactor(1, 2);
  right->setSizes({360, 240});  // the chart readable from the start, not squeezed by the text
  right->setChildrenCollapsible(false);
  rightLayout->addWidget(right, 1);
  auto* bottomLayout = new QHBoxLayout;
  p.open = new QPushButton(tr("Open predicted timeline"), rightPane);
  p.open->setEnabled(false);
  p.open->setToolTip(tr("The predicted run as a session tab, beside the measured ones."));
  connect(p.open, &QPushButton::clicked, this, [this, tab] {
    if (pages_[tab].timeline) emit timelineReady(pages_[tab].timeline, pages_[tab].timelineTitle);
  });
  bottomLayout->addWidget(p.open);
  bottomLayout->addStretch(1);
  rightLayout->addLayout(bottomLayout);
  // One width on every tab, above each form's own hint (they differ, and the answer would jump
  // sideways between tabs), wide enough for a trace's name in the lists.
  left->setMinimumWidth(460);
  split->setStretchFactor(0, 0);
  split->setStretchFactor(1, 1);
  return split;
}

void AdviseView::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  refreshSessions();
}

void AdviseView::refreshSessions() {
  // Keep the ticks and the choice of those still open.
  std::vector<SessionPtr> ticked;
  for (int i = 0; i < jobs_->count(); ++i) {
    if (jobs_->item(i)->checkState() == Qt::Checked && static_cast<size_t>(i) < open_.size())
      ticked.push_back(open_[static_cast<size_t>(i)].session);
  }
  const SessionPtr chosen =
      run_->currentIndex() >= 0 && static_cast<size_t>(run_->currentIndex()) < open_.size()
          ? open_[static_cast<size_t>(run_->currentIndex())].session
          : nullptr;
  open_ = sessions_ ? sessions_() : std::vector<OpenSession>{};
  jobs_->clear();
  run_->blockSignals(true);
  run_->clear();
  for (const OpenSession& s : open_) {
    auto* item = new QListWidgetItem(s.title, jobs_);
    const bool was = std::find(ticked.begin(), ticked.end(), s.session) != ticked.end();
    item->setCheckState(was ? Qt::Checked : Qt::Unchecked);
    run_->addItem(QStringLiteral("%1 (%2 rank%3)")
                      .arg(s.title)
                      .arg(s.session->ranks.size())
                      .arg(s.session->ranks.size() == 1 ? QString() : QStringLiteral("s")));
    if (s.session == chosen) run_->setCurrentIndex(run_->count() - 1);
  }
  run_->blockSignals(false);
  if (!chosen && run_->count() > 0) emit run_->currentIndexChanged(run_->currentIndex());
}

void AdviseView::predict(Tab tab) {
  Outcome start;
  start.tab = tab;
  if (tab == Multiplex) {
    std::vector<OpenSession> picked;
    for (int i = 0; i < jobs_->count(); ++i) {
      if (jobs_->item(i)->checkState() == Qt::Checked)
        picked.push_back(open_[static_cast<size_t>(i)]);
    }
    const int copies = copies_->value();
    if (copies > 1 && picked.size() > 1) {
      start.ok = false;
      start.html = tr("Copies of one job: tick one session to pack copies of it (%1 are ticked), "
                      "or set the copies back to 1.")
                       .arg(picked.size());
      present(start);
      return;
    }
    if (copies > 1 && picked.size() == 1) picked.assign(static_cast<size_t>(copies), picked[0]);
    if (picked.size() < 2) {
      start.ok = false;
      start.html = tr("Tick two or more sessions, or one and two or more copies.");
      present(start);
      return;
    }
    const std::string migName = mig_->currentData().toString().toStdString();
    auto models = advisor::parseJobModels(jobModels_->text().toStdString(), picked.size());
    if (!models) {
      start.ok = false;
      start.html =
          tr("Models of jobs: %1").arg(QString::fromStdString(models.error()).toHtmlEscaped());
      present(start);
      return;
    }
    job_.start([picked, migName, models = *models](const Progress& progress) {
      Outcome o;
      o.tab = Multiplex;
      std::vector<advisor::Job> jobs;
      std::string gpuName, measuredOn, firstGpu;
      int64_t gpuMemory = 0;
      for (size_t i = 0; i < picked.size(); ++i) {
        if (progress.cancelled()) return o;
        auto job = advisor::jobFromSession(
            *picked[i].session, "#" + std::to_string(i + 1) + " " + picked[i].title.toStdString());
        if (!job) {
          o.ok = false;
          o.html = html(job.error());
          return o;
        }
        for (const Device& d : picked[i].session->devices) {
          if (!d.name.empty() && measuredOn.find(d.name) == std::string::npos)
            measuredOn += (measuredOn.empty() ? "" : " and ") + d.name;
          if (firstGpu.empty()) firstGpu = d.name;
          if (gpuMemory == 0) gpuMemory = static_cast<int64_t>(d.memoryBytes);
        }
        jobs.push_back(std::move(*job));
      }
      for (const advisor::JobModel& m : models) {
        if (progress.cancelled()) return o;
        auto graph = advisor::loadModelAt(m.model, m.batch);
        if (!graph) {
          o.ok = false;
          o.html = html(graph.error());
          return o;
        }
        advisor::estimatePeakFromModel(jobs[m.job - 1], advisor::stepPeakBytes(*graph),
                                       m.model + " at batch " + std::to_string(m.batch));
      }
      const advisor::MigGpu* mig = migName.empty() ? nullptr : advisor::migGpu(migName);
      if (mig) gpuMemory = mig->memoryBytes;
      if (auto preset = model::devicePreset(migName); !mig && preset)
        gpuMemory = static_cast<int64_t>(preset->memoryBytes);
      gpuName = !migName.empty() ? migName : (firstGpu.empty() ? "GPU" : firstGpu);
      const advisor::MultiplexAdvice a =
          advisor::adviseMultiplex(jobs, mig, gpuMemory, measuredOn, {}, migName);
      QString h = QObject::tr("<h3>%1 jobs on one %2</h3>").arg(jobs.size()).arg(html(gpuName));
      h += QStringLiteral("<table cellspacing=6>") +
           row({QObject::tr("job"), QObject::tr("pass alone"), QObject::tr("step alone"),
                QObject::tr("GPU busy"), QObject::tr("SM demand"),
                QObject::tr("from launch configurations"), QObject::tr("peak memory")},
               true);
      for (const advisor::Job& j : jobs) {
        h += row({html(j.name), dur(j.span), j.step ? dur(*j.step) : QObject::tr("no steps"),
                  QString::number(100 * j.busyShare(), 'f', 1) + " %",
                  QString::number(100 * advisor::meanSmDemand(j), 'f', 1) + " %",
                  QStringLiteral("%1 of %2 kernels").arg(j.demandKnown).arg(j.kernels),
                  j.peakMemory ? bytes(*j.peakMemory) : QObject::tr("unknown")});
      }
      h += QStringLiteral("</table><table cellspacing=6>") +
           row({QObject::tr("sharing"), QObject::tr("Σ (normalised throughput)"),
                QObject::tr("a pass of each job, packed")},
               true);
      for (size_t r = 0; r < a.runs.size(); ++r) {
        const advisor::PackedRun& run = a.runs[r];
        QStringList passes;
        for (size_t j = 0; j < jobs.size(); ++j) {
          QString p = dur(run.span[j]);
          if (jobs[j].step && run.rate[j] > 0)
            p += QObject::tr(" (step %1)")
                     .arg(dur(
                         static_cast<TimeNs>(static_cast<double>(*jobs[j].step) / run.rate[j])));
          if (run.sharing == advisor::Sharing::Mig && a.profiles)
            p += QObject::tr(" on %1").arg(QString::fromStdString((*a.profiles)[j].name));
          passes << p;
        }
        h += row({QString::fromLatin1(toString(run.sharing)) +
                      (static_cast<int>(r) == a.best ? QObject::tr(" (best)") : QString()),
                  QString::number(run.normalisedThroughput, 'f', 2), passes.join(", ")});
        o.bars.emplace_back(QString::fromLatin1(toString(run.sharing)), run.normalisedThroughput);
      }
      if (!a.migUnfit.empty())
        h += row({QStringLiteral("MIG"), QStringLiteral("—"),
                  QObject::tr("not possible: %1").arg(html(a.migUnfit))});
      h += QStringLiteral("</table>");
      h += QObject::tr("<p>Memory: %1</p>")
               .arg(a.memoryKnown
                        ? bytes(a.memoryTotal) +
                              (a.gpuMemory > 0 ? (a.fits ? QObject::tr(" together, fits")
                                                         : QObject::tr(" together, does not fit"))
                                               : QString())
                        : QObject::tr("unknown for some jobs"));
      std::vector<std::string> sources;  // where each job's peak came from
      for (const advisor::Job& j : jobs) sources.push_back(j.name + ": " + j.memorySource);
      h += list(sources);
      h += QObject::tr("<p><b>Recommendation:</b> %1</p>").arg(html(a.recommendation));
      h += QObject::tr("<p>Caveats:</p>") + list(a.caveats);
      o.html = h;
      o.chartTitle = QObject::tr("Normalised throughput Σ (above 1: packing gains)");
      const advisor::PackedRun& shown =
          a.best >= 0 ? a.runs[static_cast<size_t>(a.best)] : a.runs[1];
      if (auto s = advisor::packedSession(jobs, shown, gpuName, a.profiles); s.ok()) {
        o.timeline = *s;
        o.timelineTitle =
            QObject::tr("packed on %1 (%2)")
                .arg(QString::fromStdString(gpuName), QString::fromLatin1(toString(shown.sharing)));
      }
      return o;
    });
  } else if (tab == Consolidate) {
    const int index = run_->currentIndex();
    if (index < 0 || static_cast<size_t>(index) >= open_.size()) {
      start.ok = false;
      start.html = tr("Open the job's session (its ranks) first.");
      present(start);
      return;
    }
    const SessionPtr session = open_[static_cast<size_t>(index)].session;
    advisor::ConsolidationInput in;
    in.gpusPerNode = gpusPerNode_->value();
    in.world = world_->value();
    in.nodesNow = nodesNow_->value();
    in.intra = *advisor::intraNodeLink(intra_->currentText().toStdString());
    in.machinesAfter = machines_->value();
    if (const QString inter = inter_->currentData().toString(); !inter.isEmpty())
      in.inter = advisor::interNodeLink(inter.toStdString());
    for (const Rank& r : session->ranks) in.hosts.push_back(r.host);
    for (const QString& item : hosts_->text().split(QLatin1Char(','), Qt::SkipEmptyParts)) {
      const QStringList kv = item.trimmed().split(QLatin1Char('='));
      bool ok = false;
      const int rank = kv.value(0).trimmed().toInt(&ok);
      if (kv.size() != 2 || !ok || kv[1].trimmed().isEmpty()) {
        start.ok = false;
        start.html =
            tr("Each rank's machine: write RANK=HOST pairs, as 0=nodeA, 1=nodeB (not “%1”).")
                .arg(item.trimmed().toHtmlEscaped());
        present(start);
        return;
      }
      bool found = false;
      for (size_t r = 0; r < session->ranks.size(); ++r) {
        if (session->ranks[r].rank == rank)
          in.hosts[r] = kv[1].trimmed().toStdString(), found = true;
      }
      if (!found) {
        start.ok = false;
        start.html = tr("Each rank's machine: the session has no rank %1.").arg(rank);
        present(start);
        return;
      }
    }
    const std::string gradientModel = gradientModel_->text().trimmed().toStdString();
    job_.start([session, in, gradientModel](const Progress& progress) mutable {
      Outcome o;
      o.tab = Consolidate;
      if (!gradientModel.empty()) {
        auto graph = advisor::loadModelAt(gradientModel, 1);
        if (!graph) {
          o.ok = false;
          o.html = html(graph.error());
          return o;
        }
        in.gradientBytes = graph->parameterBytes();
        in.gradientSource = graph->name.empty() ? gradientModel : graph->name;
      }
      DiagnoseOptions d;
      d.runRules = false;
      auto diagnosis = diagnose(*session, d, progress);
      if (!diagnosis) {
        o.ok = false;
        o.html = html(diagnosis.error());
        return o;
      }
      const LaunchIndex launches(*session);
      auto p = advisor::planConsolidation(*session, *diagnosis, launches, in);
      if (!p) {
        o.ok = false;
        o.html = html(p.error());
        return o;
      }
      QString h = QObject::tr("<h3>%1 ranks on %2 machine(s) → %3 machine(s) of %4 GPUs</h3>")
                      .arg(p->world)
                      .arg(p->hostsNow)
                      .arg(p->hostsAfter)
                      .arg(in.gpusPerNode);
      h += QStringLiteral("<table cellspacing=6>") +
           row({QObject::tr("fit of the run's collectives"), QObject::tr("value")}, true);
      h += row({QObject::tr("collectives with sizes"), QString::number(p->fit.samples)});
      h += row({QObject::tr("T = a + b · bytes"),
                dur(static_cast<TimeNs>(p->fit.interceptNs)) + " + " +
                    QString::number(p->fit.nsPerByte, 'g', 4) + " ns/B"});
      h += row({QObject::tr("mean error, R²"), QString::number(p->fit.meanAbsErrorPct, 'f', 1) +
                                                   " %, " + QString::number(p->fit.r2, 'f', 3)});
      h += row({QObject::tr("bandwidth, latency a hop"),
                p->ringBandwidthNow > 0
                    ? QString::fromStdString(formatBandwidth(p->ringBandwidthNow)) + ", " +
                          dur(static_cast<TimeNs>(p->ringLatencyNow))
                    : QObject::tr("none to read: the times do not grow with the sizes")});
      if (p->fitByKind.size() > 1) {  // each kind's own fit, as the CLI lists them
        for (const auto& [kind, f] : p->fitByKind) {
          h += row({QObject::tr("  %1: %2 with sizes").arg(html(kind)).arg(f.samples),
                    dur(static_cast<TimeNs>(f.interceptNs)) + " + " +
                        QString::number(f.nsPerByte, 'g', 4) + " ns/B, " +
                        QString::number(f.meanAbsErrorPct, 'f', 1) + " % mean error"});
        }
      }
      h += row({QObject::tr("step now / after"), dur(p->stepNow) + " / " + dur(p->stepAfter())});
      h += row({QObject::tr("exposed communication now / after"),
                dur(p->exposedNow) + " / " + dur(p->exposedAfter)});
      h += QStringLiteral("</table>");
      for (const auto& [rank, machine] : p->moves)
        h += QObject::tr("rank %1 → machine %2<br>").arg(rank).arg(machine);
      const QString advice = html(advisor::consolidationAdvice(*p, in));
      h += QObject::tr("<p><b>Recommendation:</b> %1</p>").arg(advice);
      h += QObject::tr("<p>Assumptions:</p>") + list(p->assumptions);
      o.html = h;
      o.chartTitle = QObject::tr("Step time (ms)");
      o.bars = {{QObject::tr("now"), static_cast<double>(p->stepNow) / 1e6},
                {QObject::tr("after"), static_cast<double>(p->stepAfter()) / 1e6}};
      return o;
    });
  } else {
    auto types = advisor::parseDevices({devices_->text().toStdString()});
    auto given = advisor::parseThroughputs(throughput_->text().toStdString());
    if (!types || !given || types->size() < 2) {
      start.ok = false;
      start.html = html(!types   ? types.error()
                        : !given ? given.error()
                                 : std::string("give two or more devices, as K80:2, V100:2"));
      present(start);
      return;
    }
    QString modelText = model_->currentText().trimmed();
    if (modelText == model_->itemText(0)) modelText.clear();
    const std::string modelName = modelText.toStdString();
    const int64_t batch = batch_->value();
    const bool pipeline = parallel_->currentData().toString() == QStringLiteral("pipeline");
    const int layerCount = layers_->value();
    const auto l = *advisor::intraNodeLink(link_->currentText().toStdString());
    const advisor::Interconnect link{l.name, l.bytesPerSecond, l.latencyNs};
    job_.start([types = *types, given = *given, modelName, batch, pipeline, layerCount,
                link](const Progress& progress) {
      Outcome o;
      o.tab = Hetero;
      auto fail = [&o](const std::string& why) {
        o.ok = false;
        o.html = html(why);
        return o;
      };
      auto setup =
          advisor::heteroSetup(types, modelName, batch, model::Optimizer::SgdMomentum, given, {});
      if (!setup) return fail(setup.error());
      if (progress.cancelled()) return o;
      std::vector<advisor::HeteroDevice>& devices = setup->devices;
      std::vector<advisor::PipelineLayer>& layers = setup->layers;
      const std::vector<int64_t>& memory = setup->memory;
      const int64_t gradientBytes = setup->gradientBytes;
      std::vector<std::string>& assumptions = setup->assumptions;
      QString h;
      if (!pipeline) {
        if (!setup->allReduceAssumption.empty()) assumptions.push_back(setup->allReduceAssumption);
        auto plan = advisor::planDataParallel(devices, batch, gradientBytes, link);
        if (!plan) return fail(plan.error());
        h = QObject::tr("<h3>Data parallel, global batch %1, %2</h3>")
                .arg(batch)
                .arg(html(link.name));
        h += QStringLiteral("<table cellspacing=6>") +
             row({QObject::tr("device"), QObject::tr("samples/s"), QObject::tr("source"),
                  QObject::tr("max batch"), QObject::tr("batch"), QObject::tr("compute"),
                  QObject::tr("even split")},
                 true);
        for (size_t i = 0; i < devices.size(); ++i) {
          const advisor::HeteroDevice& d = devices[i];
          h += row({html(d.type), QString::number(d.samplesPerSecond, 'g', 4),
                    QString::fromLatin1(advisor::toString(d.source)),
                    d.maxBatch ? QString::number(*d.maxBatch) : QObject::tr("unknown"),
                    QString::number(plan->balanced.batch[i]), dur(plan->balanced.computeNs[i]),
                    QString::number(plan->even.batch[i])});
          o.bars.emplace_back(QString::fromStdString(d.type) + " #" + QString::number(i + 1),
                              static_cast<double>(plan->balanced.computeNs[i]) / 1e6);
        }
        h += QStringLiteral("</table>");
        // The step's parts, so that they add up: the slowest device, the all-reduce, the update.
        if (gradientBytes > 0)
          h += QObject::tr("<p>All-reduce of %1: %2; optimizer update (after it): %3</p>")
                   .arg(bytes(gradientBytes), dur(plan->balanced.allReduceNs),
                        dur(plan->balanced.updateNs));
        else if (plan->balanced.updateNs > 0)
          h += QObject::tr("<p>Optimizer update: %1</p>").arg(dur(plan->balanced.updateNs));
        h += QObject::tr("<p>Predicted step %1 (even split %2): <b>%3×</b></p>")
                 .arg(dur(plan->balanced.stepNs), dur(plan->even.stepNs))
                 .arg(plan->speedup, 0, 'f', 2);
        h += QObject::tr("<p><b>Recommendation:</b> %1</p>")
                 .arg(html(advisor::dataParallelAdvice(*plan)));
        o.chartTitle = QObject::tr("Each device's forward and backward (ms), balanced split");
        std::string title = modelName.empty() ? "given throughputs" : modelName;
        title += ", batch " + std::to_string(batch);
        if (auto s = advisor::dataParallelTimeline(devices, plan->balanced, batch, layers,
                                                   gradientBytes, title);
            s.ok()) {
          o.timeline = *s;
          o.timelineTitle = QObject::tr("predicted: %1").arg(QString::fromStdString(title));
        }
      } else {
        if (layers.empty()) {
          if (layerCount <= 0) return fail("a pipeline without a model needs a number of layers");
          for (int i = 0; i < layerCount; ++i) {
            advisor::PipelineLayer layer;
            layer.name = "layer " + std::to_string(i + 1);
            for (const advisor::HeteroDevice& d : devices)
              layer.nsOnDevice.push_back(static_cast<int64_t>(
                  static_cast<double>(batch) / d.samplesPerSecond / layerCount * 1e9));
            layers.push_back(std::move(layer));
          }
          assumptions.push_back("equal layers that hand on no activation");
        }
        auto plan = advisor::planPipeline(layers, devices, memory, link);
        if (!plan) return fail(plan.error());
        assumptions.push_back(advisor::kPipelineAssumption);
        h = QObject::tr("<h3>Pipeline, %1 layers over %2 devices, %3</h3>")
                .arg(layers.size())
                .arg(devices.size())
                .arg(html(link.name));
        h += QStringLiteral("<table cellspacing=6>") +
             row({QObject::tr("device"), QObject::tr("layers"), QObject::tr("from … to"),
                  QObject::tr("compute"), QObject::tr("transfer"), QObject::tr("memory"),
                  QObject::tr("even split")},
                 true);
        for (size_t i = 0; i < plan->balanced.stages.size(); ++i) {
          const advisor::PipelineStage& s = plan->balanced.stages[i];
          h += row(
              {html(devices[s.device].type), QString::number(s.endLayer - s.firstLayer),
               html(layers[s.firstLayer].name + " … " + layers[s.endLayer - 1].name),
               dur(s.computeNs), dur(s.transferNs),
               s.memoryBytes > 0 ? bytes(s.memoryBytes) : QObject::tr("unknown"),
               QString::number(plan->even.stages[i].endLayer - plan->even.stages[i].firstLayer)});
          o.bars.emplace_back(
              QString::fromStdString(devices[s.device].type) + " #" + QString::number(i + 1),
              static_cast<double>(s.stageNs()) / 1e6);
        }
        h += QStringLiteral("</table>");
        h += QObject::tr("<p>Predicted step (slowest stage) %1 (even split %2)</p>")
                 .arg(dur(plan->balanced.stepNs), dur(plan->even.stepNs));
        h += QObject::tr("<p><b>Recommendation:</b> %1</p>")
                 .arg(html(advisor::pipelineAdvice(*plan)));
        o.chartTitle = QObject::tr("Each stage's time (ms), balanced split");
        const std::string title =
            (modelName.empty() ? std::string("equal layers") : modelName) + ", pipeline";
        if (auto s = advisor::pipelineTimeline(devices, plan->balanced, layers, 4, title); s.ok()) {
          o.timeline = *s;
          o.timelineTitle = QObject::tr("predicted: %1").arg(QString::fromStdString(title));
        }
      }
      h += QObject::tr("<p>Assumptions:</p>") + list(assumptions);
      o.html = h;
      return o;
    });
  }
  pages_[tab].result->setHtml(tr("<p>Predicting…</p>"));
}

void AdviseView::present(Outcome o) {
  Page& p = pages_[o.tab];
  p.result->setHtml(o.ok ? o.html : tr("<p><b>Cannot predict:</b> %1</p>").arg(o.html));
  p.timeline = o.ok ? o.timeline : nullptr;
  p.timelineTitle = o.timelineTitle;
  p.open->setEnabled(p.timeline != nullptr);
  const bool dark = palette().color(QPalette::Window).lightness() < 128;
  if (o.ok && !o.bars.empty()) {
    QChart* chart = newChart(o.chartTitle, dark);
    auto* set = new QBarSet(o.chartTitle);
    QStringList names;
    double top = 0;
    for (const auto& [name, value] : o.bars) {
      *set << value;
      names << name;
      top = std::max(top, value);
    }
    auto* series = new QBarSeries;
    series->append(set);
    chart->addSeries(series);
    chart->legend()->hide();
    auto* x = new QBarCategoryAxis;
    x->append(names);
    chart->addAxis(x, Qt::AlignBottom);
    series->attachAxis(x);
    auto* y = new QValueAxis;
    y->setRange(0, top > 0 ? top * 1.1 : 1);
    y->applyNiceNumbers();
    chart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(y);
    p.chart->replaceChart(chart);
  } else {
    p.chart->replaceChart(newChart(QString(), dark));  // the old figures go
  }
  emit updated(o.tab);
}

}  // namespace ts
