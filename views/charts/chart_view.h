// A chart view whose right-click menu exports the chart (PNG at twice its size, SVG, PDF) or
// copies its image: the one behaviour every chart in the application shares.
#pragma once

#include <QChartView>

#include "util/result.h"

namespace ts {

class ChartView : public QChartView {
  Q_OBJECT
 public:
  explicit ChartView(QWidget* parent = nullptr);
  // Takes the chart and deletes the one shown before.
  void replaceChart(QChart* chart);
  // Writes the chart (format by extension: .png, .svg, .pdf): an error message or empty.
  Status exportTo(const QString& path, double scale = 1.0) const;
  QString suggestedName;  // the file name the export dialog proposes, without extension

 private:
  void contextMenu(const QPoint& at);
};

}  // namespace ts
