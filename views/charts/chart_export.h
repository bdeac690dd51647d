// Exports of charts and of the timeline as PNG (with a scale factor for print), SVG and PDF
// (vector), from the GUI and headless from the CLI (offscreen platform).
#pragma once

#include <QSize>
#include <QString>
#include <functional>

#include "util/result.h"

class QChart;
class QPainter;

namespace ts {

enum class ImageFormat { Png, Svg, Pdf };
bool imageFormatFromName(const QString& name, ImageFormat& out);  // "png", "svg", "pdf"

// Draws with `paint(painter, size)` into a file of `size` logical pixels (PNG: times `scale`).
// Written atomically; the error names the file.
Status exportPainting(const std::function<void(QPainter&, QSize)>& paint, QSize size,
                      ImageFormat format, const QString& path, double scale = 1.0,
                      const QString& title = {});

// A chart drawn at `size` (it is resized to fit).
Status exportChart(QChart* chart, QSize size, ImageFormat format, const QString& path,
                   double scale = 1.0);

}  // namespace ts
