// Exports of charts and of the timeline as PNG (with a scale factor for print), SVG and PDF
// (vector), from the GUI and headless from the CLI (offscreen platform).
#pragma once

#include <QSize>
#include <QString>
#include <functional>
#include <optional>

#include "util/result.h"

class QChart;
class QPainter;

namespace ts {

enum class ImageFormat { Png, Svg, Pdf };
std::optional<ImageFormat> imageFormatFromName(const QString& name);  // "png", "svg", "pdf"
// By the file's extension; the error names the file and the formats there are.
Result<ImageFormat> imageFormatOfPath(const QString& path);

// Draws with `paint(painter, size)` into a file of `size` logical pixels (PNG: times `scale`).
// Written atomically; the error names the file.
Status exportPainting(const std::function<void(QPainter&, QSize)>& paint, QSize size,
                      ImageFormat format, const QString& path, double scale = 1.0,
                      const QString& title = {});

// A chart drawn at `size` (it is resized to fit).
Status exportChart(QChart* chart, QSize size, ImageFormat format, const QString& path,
                   double scale = 1.0);

}  // namespace ts
