#include "views/session/diagnosis_pane.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <limits>

#include "analysis/diagnosis_tables.h"
#include "analysis/rules/rules.h"
#include "util/format.h"
#include "views/charts/chart_view.h"
#include "views/charts/step_chart.h"
#include "views/session/stats_table_model.h"
#include "views/session/table_panel.h"
#include "views/timeline/palette.h"

namespace ts {

namespace {

QString html(const std::string& text) {
  return QString::fromStdString(text).toHtmlEscaped();
}

// The findings table without the advice column: the explanation below shows it whole.
StatsTable findingsShown(const Diagnosis& d) {
  StatsTable t = diagnosisTable(d, DiagnosisTable::Findings);
  for (size_t c = 0; c < t.columns.size(); ++c) {
    if (t.columns[c].key != "advice") continue;
    t.columns.erase(t.columns.begin() + static_cast<std::ptrdiff_t>(c));
    for (auto& row : t.rows) {
      if (c < row.size()) row.erase(row.begin() + static_cast<std::ptrdiff_t>(c));
    }
    break;
  }
  return t;
}

}  // namespace

DiagnosisPane::DiagnosisPane(SessionPtr session, QWidget* parent)
    : QWidget(parent),
      session_(std::move(session)),
      job_(this, [this](Result<std::shared_ptr<const Diagnosis>> result) {
        present(std::move(result));
      }) {
  setObjectName(QStringLiteral("diagnosisPane"));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  scope_ = new QLabel(this);
  scope_->setObjectName(QStringLiteral("diagnosisScope"));
  summary_ = new QLabel(this);
  summary_->setObjectName(QStringLiteral("diagnosisSummary"));
  summary_->setWordWrap(true);
  layout->addWidget(scope_);
  layout->addWidget(summary_);
  // The diagnosis on the timeline, with the colours its idle gaps take there.
  auto* drawn = new QHBoxLayout;
  onTimeline_ = new QCheckBox(tr("Show on timeline: steps, idle gaps by cause, queue depth"), this);
  onTimeline_->setObjectName(QStringLiteral("diagnosisOnTimeline"));
  onTimeline_->setChecked(
      QSettings().value(QStringLiteral("diagnosis/timelineRows"), true).toBool());
  legend_ = QStringList{palette::swatchHtml(EventStyle::IdleHostWait, tr("host wait")),
                        palette::swatchHtml(EventStyle::IdleKernelWait, tr("kernel wait")),
                        palette::swatchHtml(EventStyle::IdleOther, tr("other")),
                        palette::swatchHtml(EventStyle::IdleUnknown, tr("unknown")),
                        palette::swatchHtml(EventStyle::OutlierStep, tr("outlier step"))}
                .join(QStringLiteral("&nbsp;&nbsp;")) +
            tr(" (folded runs darker)");
  // The legend and what was drawn, wrapped: a long note must not widen the pane (and squeeze the
  // track tree beside the timeline).
  timelineNote_ = new QLabel(legend_, this);
  timelineNote_->setObjectName(QStringLiteral("diagnosisTimelineNote"));
  timelineNote_->setWordWrap(true);
  drawn->addWidget(onTimeline_);
  drawn->addWidget(timelineNote_, 1);
  layout->addLayout(drawn);
  connect(onTimeline_, &QCheckBox::toggled, this, [this](bool on) {
    QSettings().setValue(QStringLiteral("diagnosis/timelineRows"), on);
    if (!on) setTimelineNote({});
    emit timelineRowsWanted(on);
  });

  // The findings with the pane's whole height on the left; on the right the chosen finding's
  // explanation, the steps chart and the steps table, each with the whole height too (stacked,
  // none was readable at 1280 × 800).
  auto* split = new QSplitter(Qt::Horizontal, this);
  split->setObjectName(QStringLiteral("diagnosisSplit"));
  findings_ = new TablePanel(split);
  findings_->view()->setObjectName(QStringLiteral("findingsTable"));
  findings_->view()->setSelectionMode(QAbstractItemView::SingleSelection);
  right_ = new QTabWidget(split);
  right_->setObjectName(QStringLiteral("stepTabs"));
  explanation_ = new QTextBrowser(right_);
  explanation_->setObjectName(QStringLiteral("findingExplanation"));
  chart_ = new ChartView(right_);
  chart_->setObjectName(QStringLiteral("stepChart"));
  chart_->suggestedName = QStringLiteral("steps");
  steps_ = new TablePanel(right_);
  steps_->view()->setObjectName(QStringLiteral("stepsTable"));
  right_->addTab(explanation_, tr("Finding"));
  right_->addTab(chart_, tr("Steps chart"));
  right_->addTab(steps_, tr("Steps table"));
  right_->setCurrentWidget(chart_);
  split->addWidget(findings_);
  split->addWidget(right_);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 1);
  split->setChildrenCollapsible(false);
  layout->addWidget(split, 1);

  connect(findings_->view()->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) {
            if (!current.isValid()) return;
            int row = findings_->proxy()->mapToSource(current).row();
            if (row >= 0) activateFinding(static_cast<size_t>(row));
          });
  // A double-click shows the current one again (after the user moved the timeline).
  connect(findings_->view(), &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
    int row = findings_->proxy()->mapToSource(index).row();
    if (row >= 0) activateFinding(static_cast<size_t>(row));
  });
  connect(steps_->view(), &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
    int row = steps_->proxy()->mapToSource(index).row();
    if (!diagnosis_ || row < 0 || static_cast<size_t>(row) >= diagnosis_->steps.steps.size())
      return;
    const Step& s = diagnosis_->steps.steps[static_cast<size_t>(row)];
    // CPU start (or GPU start, if earlier) to GPU end, with a twentieth more each side.
    const TimeNs start = s.ops ? std::min(s.start, s.gpuStart) : s.start;
    const TimeNs end = std::max(s.end, s.ops ? s.gpuEnd : s.end);
    const TimeNs margin = std::max<TimeNs>((end - start) / 20, 1);
    emit zoomRequested(start - margin, end + margin);
  });
  setRange(std::nullopt);
}

DiagnosisPane::~DiagnosisPane() = default;

void DiagnosisPane::setRange(std::optional<std::pair<TimeNs, TimeNs>> range) {
  options_.range = range ? AnalysisRange{range->first, range->second} : AnalysisRange{};
  showScope();  // also when hidden (then again when computed)
  recompute();
}

void DiagnosisPane::setSession(SessionPtr session, bool live) {
  session_ = std::move(session);
  live_ = live;
  stale_ = true;
  if (!live_) recompute();  // computes only when shown
}

void DiagnosisPane::showScope() {
  QString text;
  if (!options_.range.whole()) {
    const TimeNs t0 = options_.range.start, t1 = options_.range.end;
    const auto [from, to] = formatEnds(t0 - session_->startTime(), t1 - session_->startTime());
    text = tr("Range %1 to %2 from the session start (%3). Click the ruler to diagnose the whole "
              "session.")
               .arg(QString::fromStdString(from), QString::fromStdString(to),
                    QString::fromStdString(formatDuration(t1 - t0)));
  } else {
    text = tr("Whole session (%1). Drag on the timeline's ruler to diagnose a range.")
               .arg(QString::fromStdString(formatDuration(session_->duration())));
  }
  if (live_)
    text +=
        tr(" A snapshot: the capture runs on. Diagnosed again from the newest when you change "
           "the range or come back to this tab.");
  scope_->setText(text);
}

void DiagnosisPane::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (stale_) recompute();
  if (!shownOnce_) {
    shownOnce_ = true;
    if (onTimeline_->isChecked()) emit timelineRowsWanted(true);
  }
}

void DiagnosisPane::setTimelineNote(const QString& note) {
  timelineNote_->setText(note.isEmpty() ? legend_
                                        : legend_ + QStringLiteral(" — ") + note.toHtmlEscaped());
}

void DiagnosisPane::recompute() {
  if (!isVisible()) {
    stale_ = true;
    return;
  }
  stale_ = false;
  showScope();
  summary_->setText(tr("Diagnosing…"));
  job_.start([session = session_, options = options_](
                 const Progress& progress) -> Result<std::shared_ptr<const Diagnosis>> {
    auto d = diagnose(*session, options, progress);
    if (!d) return std::move(d).failure();
    return std::make_shared<const Diagnosis>(std::move(*d));
  });
}

void DiagnosisPane::present(Result<std::shared_ptr<const Diagnosis>> result) {
  if (result.cancelled()) return;  // a newer request follows
  explanation_->clear();
  if (!result.ok()) {
    diagnosis_.reset();
    findings_->setTable({});
    steps_->setTable({});
    summary_->setText(tr("Cannot diagnose: %1").arg(QString::fromStdString(result.error())));
    emit updated();
    return;
  }
  diagnosis_ = std::move(*result);
  const Diagnosis& d = *diagnosis_;
  findings_->setTable(findingsShown(d));
  steps_->setTable(diagnosisTable(d, DiagnosisTable::Steps));
  const bool dark = palette().color(QPalette::Window).lightness() < 128;
  chart_->replaceChart(makeStepChart(d.steps, session_->multiRank(), dark));
  // What the figures rest on, in one line above the tables.
  TimeNs lost = 0;
  for (const Finding& f : d.findings) lost = std::max(lost, f.cost);
  QString text;
  if (d.gpuOps == 0) {
    text = tr("No GPU operations in the range: nothing to diagnose on the GPU.");
  } else if (d.findings.empty()) {
    text = tr("No rule found anything. %1 GPU operations.")
               .arg(QString::fromStdString(formatCount(d.gpuOps)));
  } else {
    text = tr("%1 findings; the largest costs %2. Click one to see it on the timeline.")
               .arg(d.findings.size())
               .arg(QString::fromStdString(formatDuration(lost)));
  }
  if (d.gpuOpsInSession > d.gpuOpsWithLaunch)
    text += tr(" %1 of %2 GPU operations have no known launching call: their idle causes are "
               "unknown, not guessed.")
                .arg(QString::fromStdString(formatCount(d.gpuOpsInSession - d.gpuOpsWithLaunch)),
                     QString::fromStdString(formatCount(d.gpuOpsInSession)));
  // Figures from a damaged trace opened without its damaged part: the missing events (a cut
  // trace may have lost all its GPU work) are no idle time.
  if (session_->provenance.incomplete)
    text += tr(" The session is incomplete (see its Overview): what is missing is not counted.");
  summary_->setText(text);
  if (!d.findings.empty()) {
    explanation_->setHtml(tr("<p>Select a finding to read what was seen and what to change.</p>"));
  }
  emit updated();
}

void DiagnosisPane::activateFinding(size_t index) {
  if (!diagnosis_ || index >= diagnosis_->findings.size()) return;
  const Finding& f = diagnosis_->findings[index];
  QString summary;
  for (const RuleInfo& r : expertRules()) {
    if (r.name == f.rule)
      summary = QString::fromUtf8(r.summary.data(), static_cast<int>(r.summary.size()));
  }
  QString where;
  if (!f.where.empty()) {
    const Interval& costliest = f.where.front();
    const TimeNs cost = f.whereCost.empty() ? costliest.length() : f.whereCost.front();
    const auto [from, to] =
        formatEnds(costliest.start - session_->startTime(), costliest.end - session_->startTime());
    where = tr("<p>Costliest %1: %2 to %3, costing %4.</p>")
                .arg(html(f.occurrence))
                .arg(QString::fromStdString(from), QString::fromStdString(to),
                     QString::fromStdString(formatDuration(cost)));
  }
  explanation_->setHtml(tr("<h3>%1 — rank %2</h3><p><i>%3</i></p><p>%4</p><p><b>What to "
                           "change:</b> %5</p>%6")
                            .arg(html(f.rule))
                            .arg(f.rank)
                            .arg(summary.toHtmlEscaped(), html(f.message), html(f.advice), where));
  right_->setCurrentWidget(explanation_);
  // A margin of a twentieth each side shows what came before and after.
  TimeNs margin = std::max<TimeNs>((f.end - f.start) / 20, 1);
  // Without events to outline (a finding about steps), the rank's first GPU row is shown.
  uint32_t rankTrack = kNone;
  for (uint32_t t = 0; t < session_->tracks.size() && rankTrack == kNone; ++t) {
    const Track& track = session_->tracks[t];
    if (isGpuOp(track.kind) && rankNumberOf(*session_, rankOfTrack(*session_, track)) == f.rank)
      rankTrack = t;
  }
  emit findingActivated(f.start - margin, f.end + margin, f.events, rankTrack);
}

}  // namespace ts
