// BarNames: the names of a horizontal bar chart's bars, drawn left of its plot area, each at its
// bar's height, elided to the room there is; the full name is the tooltip over it.
// QBarCategoryAxis is not used for them: it shrinks every label to "…" once the axis height over
// (bars + 2), less padding, is under a line of text — fifteen kernels in a pane of usual height —
// though each bar has the line it needs.
#pragma once

#include <QFont>
#include <QGraphicsObject>
#include <QStringList>

class QChart;
class QAbstractSeries;

namespace ts {

class BarNames : public QGraphicsObject {
 public:
  // `names` and `tips` bottom-up, one per category of the series' vertical axis (index 0 at the
  // bottom). Takes the chart's left margin for the names and keeps it fitted as the chart resizes.
  BarNames(QChart* chart, QAbstractSeries* series, QStringList names, QStringList tips);

  QRectF boundingRect() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

  // What paint draws, bottom-up: each name as elided to the room, "" for a name left out where
  // bars are thinner than a line of text (every k-th is drawn then).
  QStringList shownNames() const;
  const QFont& font() const { return font_; }  // the largest the names are drawn in
  QFont shownFont() const;                     // what they are drawn in at the chart's height

 protected:
  void hoverMoveEvent(QGraphicsSceneHoverEvent* event) override;

 private:
  void fitMargin();
  int nameWidth() const;  // the room left of the plot area
  int every() const;      // draw each k-th name
  double centre(int index) const;

  QChart* chart_;
  QAbstractSeries* series_;
  QStringList names_, tips_;
  QFont font_;
  int widest_ = 0;  // what the longest name needs
};

}  // namespace ts
