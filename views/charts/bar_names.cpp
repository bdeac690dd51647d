#include "views/charts/bar_names.h"

#include <QAbstractAxis>
#include <QAbstractSeries>
#include <QChart>
#include <QFontMetrics>
#include <QGraphicsSceneHoverEvent>
#include <QPainter>
#include <algorithm>
#include <cmath>

namespace ts {

namespace {

constexpr int kGap = 6;             // between a name and the plot area
constexpr double kMostShare = 0.4;  // of the chart's width, at most, for the names

}  // namespace

BarNames::BarNames(QChart* chart, QAbstractSeries* series, QStringList names, QStringList tips)
    : QGraphicsObject(chart),
      chart_(chart),
      series_(series),
      names_(std::move(names)),
      tips_(std::move(tips)) {
  font_ = chart->font();
  font_.setPixelSize(11);
  const QFontMetrics fm(font_);
  for (const QString& n : names_) widest_ = std::max(widest_, fm.horizontalAdvance(n));
  setAcceptHoverEvents(true);
  // Drawn again when the plot moves; the margin follows the chart's width.
  connect(chart, &QChart::plotAreaChanged, this, [this] {
    prepareGeometryChange();
    update();
  });
  connect(chart, &QGraphicsWidget::geometryChanged, this, [this] { fitMargin(); });
  fitMargin();
}

void BarNames::fitMargin() {
  const int room = nameWidth() + kGap;
  QMargins m = chart_->margins();
  if (m.left() == room) return;
  m.setLeft(room);
  chart_->setMargins(m);
}

int BarNames::nameWidth() const {
  // Before the chart has a size, what a pane of usual width would give.
  const double width = chart_->size().width() > 0 ? chart_->size().width() : 800;
  return std::min(widest_, static_cast<int>(width * kMostShare));
}

QFont BarNames::shownFont() const {
  // As large as 11 px, down to 8 px so that a short pane still names every bar.
  QFont f = font_;
  if (names_.isEmpty()) return f;
  const double band = chart_->plotArea().height() / names_.size();
  // A line's height includes the font's leading: two pixels of it may overlap the next name's.
  for (int px = 11; px > 8; --px) {
    f.setPixelSize(px);
    if (QFontMetrics(f).height() <= band + 2) return f;
  }
  f.setPixelSize(8);
  return f;
}

int BarNames::every() const {
  if (names_.isEmpty()) return 1;
  const double band = chart_->plotArea().height() / names_.size();
  const int line = QFontMetrics(shownFont()).height() - 2;
  return band >= line ? 1 : static_cast<int>(std::ceil(line / std::max(band, 1.0)));
}

double BarNames::centre(int index) const {
  return chart_->mapToPosition(QPointF(0, index), series_).y();
}

QRectF BarNames::boundingRect() const {
  const QRectF plot = chart_->plotArea();
  return {0, plot.top() - 20, plot.left(), plot.height() + 40};
}

QStringList BarNames::shownNames() const {
  QStringList shown;
  const QFontMetrics fm(shownFont());
  const int width = nameWidth(), k = every();
  for (int i = 0; i < names_.size(); ++i) {
    // Counted from the top, so the largest (the top bar) is always named.
    const bool drawn = (names_.size() - 1 - i) % k == 0;
    // Cut in the middle, as the tables cut names: both the function and what tells it apart.
    shown << (drawn ? fm.elidedText(names_[i], Qt::ElideMiddle, width) : QString());
  }
  return shown;
}

void BarNames::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
  const QRectF plot = chart_->plotArea();
  if (plot.isEmpty()) return;
  const QStringList shown = shownNames();
  const double band = plot.height() / std::max<qsizetype>(names_.size(), 1);
  const int width = nameWidth();
  QColor ink = chart_->titleBrush().color();  // the theme's text colour
  auto axes = chart_->axes(Qt::Horizontal, series_);
  if (!axes.isEmpty()) ink = axes.front()->labelsBrush().color();
  painter->setPen(ink);
  const QFont font = shownFont();
  painter->setFont(font);
  const double line = QFontMetrics(font).height();
  for (int i = 0; i < shown.size(); ++i) {
    if (shown[i].isEmpty()) continue;
    const double h = std::max(band, line);
    painter->drawText(QRectF(plot.left() - kGap - width, centre(i) - h / 2, width, h),
                      Qt::AlignRight | Qt::AlignVCenter | Qt::TextDontClip,
                      shown[i]);  // underscores
  }
}

void BarNames::hoverMoveEvent(QGraphicsSceneHoverEvent* event) {
  // The bar whose centre is nearest the pointer.
  int best = -1;
  double nearest = 1e18;
  for (int i = 0; i < names_.size(); ++i) {
    const double d = std::abs(centre(i) - event->pos().y());
    if (d < nearest) nearest = d, best = i;
  }
  setToolTip(best >= 0 ? tips_.value(best) : QString());
  QGraphicsObject::hoverMoveEvent(event);
}

}  // namespace ts
