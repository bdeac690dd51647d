#include "views/charts/chart_export.h"

#include <QChart>
#include <QCoreApplication>
#include <QGraphicsLayout>
#include <QGraphicsScene>
#include <QImage>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgGenerator>
#include <QTextDocumentFragment>

#include "io/atomic_file.h"

namespace ts {

std::optional<ImageFormat> imageFormatFromName(const QString& name) {
  if (name == QLatin1String("png")) return ImageFormat::Png;
  if (name == QLatin1String("svg")) return ImageFormat::Svg;
  if (name == QLatin1String("pdf")) return ImageFormat::Pdf;
  return std::nullopt;
}

Result<ImageFormat> imageFormatOfPath(const QString& path) {
  if (auto format = imageFormatFromName(path.section(QLatin1Char('.'), -1).toLower()))
    return *format;
  return Error{QCoreApplication::translate("ts::ChartExport", "%1: choose .png, .svg or .pdf")
                   .arg(path)
                   .toStdString()};
}

Status exportPainting(const std::function<void(QPainter&, QSize)>& paint, QSize size,
                      ImageFormat format, const QString& path, double scale, const QString& title) {
  if (size.width() < 16 || size.height() < 16)
    return Error{QObject::tr("%1: the image is too small").arg(path).toStdString()};
  Status st = writeFileAtomically(path.toStdString(), [&](const std::string& temp) -> Status {
    const QString file = QString::fromStdString(temp);
    switch (format) {
      case ImageFormat::Png: {
        QImage image((QSizeF(size) * scale).toSize(), QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::white);
        {
          QPainter p(&image);
          p.setRenderHint(QPainter::Antialiasing);
          p.scale(scale, scale);
          paint(p, size);
        }
        if (!image.save(file, "PNG")) return Error{path.toStdString() + ": cannot write the PNG"};
        return {};
      }
      case ImageFormat::Svg: {
        QSvgGenerator svg;
        svg.setFileName(file);
        svg.setSize(size);
        svg.setViewBox(QRect(QPoint(0, 0), size));
        svg.setTitle(title);
        QPainter p;
        if (!p.begin(&svg)) return Error{path.toStdString() + ": cannot write the SVG"};
        paint(p, size);
        p.end();
        return {};
      }
      case ImageFormat::Pdf: {
        // One page of exactly the drawing's size, one point per pixel: vector output.
        QPdfWriter pdf(file);
        pdf.setResolution(72);
        pdf.setPageSize(QPageSize(size, QPageSize::Point));
        pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
        pdf.setTitle(title);
        QPainter p;
        if (!p.begin(&pdf)) return Error{path.toStdString() + ": cannot write the PDF"};
        paint(p, size);
        p.end();
        return {};
      }
    }
    return {};
  });
  return st;
}

Status exportChart(QChart* chart, QSize size, ImageFormat format, const QString& path,
                   double scale) {
  // A chart draws through a scene; it goes back to its owner afterwards.
  QGraphicsScene scene;
  QGraphicsScene* previous = chart->scene();
  if (previous) previous->removeItem(chart);
  scene.addItem(chart);
  chart->setGeometry(0, 0, size.width(), size.height());
  // What the new size changed (margins fitted to it) is laid out now, not at the next event.
  if (QGraphicsLayout* layout = chart->layout()) layout->activate();
  Status st = exportPainting(
      [&](QPainter& p, QSize s) {
        scene.render(&p, QRectF(0, 0, s.width(), s.height()), QRectF(0, 0, s.width(), s.height()));
      },
      size, format, path, scale,
      QTextDocumentFragment::fromHtml(chart->title()).toPlainText());  // metadata: plain text
  scene.removeItem(chart);
  if (previous) previous->addItem(chart);
  return st;
}

}  // namespace ts
