#include "views/charts/step_chart.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QStackedBarSeries>
#include <QValueAxis>
#include <algorithm>
#include <array>

#include "views/charts/session_charts.h"
#include "views/timeline/palette.h"

namespace ts {

QChart* makeStepChart(const StepTable& table, bool multiRank, bool dark, size_t maxSteps) {
  const std::vector<Step>& steps = table.steps;
  const size_t shown = std::min(steps.size(), maxSteps);
  QString title = QObject::tr("Step time on the GPU (ms)");
  if (shown < steps.size())
    title += QObject::tr(" — the first %1 of %2 steps").arg(shown).arg(steps.size());
  QChart* chart = newChart(title, dark);
  // Disjoint parts of the step's time on the GPU (from the previous step's GPU end to its own),
  // so that the bar is that time: the idle time is the part with none of its operations running,
  // split by the causes of the gaps before them — as measured where they fit (one stream: they
  // are the idle time), in proportion where per-stream gaps overlap and add up to more; what no
  // gap explains (before a rank's first operation) is unknown.
  // Short names: seven lines of legend must fit beside a chart 170 px high (1280 × 800).
  std::array<QBarSet*, 7> sets = {new QBarSet(QObject::tr("Compute")),
                                  new QBarSet(QObject::tr("Exposed comm.")),
                                  new QBarSet(QObject::tr("Memory, other busy")),
                                  new QBarSet(QObject::tr("Idle: host wait")),
                                  new QBarSet(QObject::tr("Idle: kernel wait")),
                                  new QBarSet(QObject::tr("Idle: other")),
                                  new QBarSet(QObject::tr("Idle: unknown"))};
  QStringList names;
  double top = 0;
  for (size_t i = 0; i < shown; ++i) {
    const Step& s = steps[i];
    names << (multiRank ? QStringLiteral("r%1 #%2").arg(s.rankNumber).arg(s.number)
                        : QString::number(s.number));
    auto ms = [](TimeNs ns) { return static_cast<double>(ns) / 1e6; };
    const TimeNs compute = s.byType[static_cast<int>(OpType::Computation)];
    const TimeNs rest = std::max<TimeNs>(0, s.busy - compute - s.exposedCommunication);
    const TimeNs idle = s.gpuIdle();
    TimeNs causes = 0;
    for (TimeNs c : s.idle) causes += c;
    *sets[0] << ms(compute);
    *sets[1] << ms(s.exposedCommunication);
    *sets[2] << ms(rest);
    const double scale =
        causes > idle ? static_cast<double>(idle) / static_cast<double>(causes) : 1;
    const TimeNs unexplained = std::max<TimeNs>(0, idle - causes);
    for (int c = 0; c < kIdleCauseCount; ++c) {
      double part = ms(s.idle[c]) * scale;
      if (c == static_cast<int>(IdleCause::Unknown)) part += ms(unexplained);
      *sets[3 + c] << part;
    }
    top = std::max(top, ms(std::max(s.gpuTime(), s.busy)));
  }
  // Beside the bars, one entry a line: under them seven names were cut to "Idle: …".
  chart->legend()->setAlignment(Qt::AlignRight);
  QFont small = chart->legend()->font();
  small.setPointSizeF(small.pointSizeF() * 0.85);
  chart->legend()->setFont(small);
  auto* series = new QStackedBarSeries;
  // Idle causes as the timeline colours their gaps.
  auto idle = [](EventStyle style) { return QColor(*palette::styleColor(style)); };
  const std::array<QColor, 7> colours = {
      QColor(0x4c, 0x9a, 0x2a),       QColor(0xd9, 0x82, 0x1e),         QColor(0x3b, 0x78, 0xc4),
      idle(EventStyle::IdleHostWait), idle(EventStyle::IdleKernelWait), idle(EventStyle::IdleOther),
      idle(EventStyle::IdleUnknown)};
  for (size_t i = 0; i < sets.size(); ++i) {
    sets[i]->setColor(colours[i]);
    sets[i]->setBorderColor(colours[i]);
    series->append(sets[i]);
  }
  chart->addSeries(series);
  auto* x = new QBarCategoryAxis;
  x->append(names);
  x->setTitleText(multiRank ? QObject::tr("rank and step") : QObject::tr("step"));
  // Many bars: their names upright, else each is cut to "…".
  if (names.size() > (multiRank ? 2 : 12)) x->setLabelsAngle(-90);
  chart->addAxis(x, Qt::AlignBottom);
  series->attachAxis(x);
  auto* y = new QValueAxis;
  y->setRange(0, top > 0 ? top * 1.05 : 1);
  y->applyNiceNumbers();  // ticks at 50, 100, 150 rather than 47.6, 95.2, 143
  y->setLabelFormat(QStringLiteral("%.4g"));
  chart->addAxis(y, Qt::AlignLeft);
  series->attachAxis(y);
  return chart;
}

}  // namespace ts
