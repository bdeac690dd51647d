#include "views/charts/chart_view.h"

#include <QApplication>
#include <QChart>
#include <QClipboard>
#include <QFileDialog>
#include <QMenu>
#include <QMessageBox>

#include "views/charts/chart_export.h"

namespace ts {

ChartView::ChartView(QWidget* parent) : QChartView(parent) {
  setRenderHint(QPainter::Antialiasing);
  setContextMenuPolicy(Qt::CustomContextMenu);
  connect(this, &QWidget::customContextMenuRequested, this, &ChartView::contextMenu);
}

void ChartView::replaceChart(QChart* chart) {
  QChart* old = this->chart();
  setChart(chart);
  delete old;
}

Status ChartView::exportTo(const QString& path, double scale) const {
  TS_ASSIGN_OR_RETURN(const ImageFormat format, imageFormatOfPath(path));
  return exportChart(chart(), size(), format, path, scale);
}

void ChartView::contextMenu(const QPoint& at) {
  QMenu menu(this);
  menu.addAction(tr("Export…"), this, [this] {
    QString path = QFileDialog::getSaveFileName(
        this, tr("Export chart"),
        (suggestedName.isEmpty() ? QStringLiteral("chart") : suggestedName) +
            QStringLiteral(".png"),
        tr("PNG image (*.png);;SVG (*.svg);;PDF (*.pdf)"));
    if (path.isEmpty()) return;
    if (Status st = exportTo(path, path.endsWith(QLatin1String(".png")) ? 2.0 : 1.0); !st.ok())
      QMessageBox::warning(this, tr("Export failed"), QString::fromStdString(st.error()));
  });
  menu.addAction(tr("Copy image"), this, [this] { QApplication::clipboard()->setPixmap(grab()); });
  menu.exec(mapToGlobal(at));
}

}  // namespace ts
