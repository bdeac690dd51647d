// Tensorscope's colours, in one place: event kinds, copy kinds, the styles core modules give their
// events (timeline/event_style.h), and their swatches for legends. The timeline canvas, the
// legends beside it and the image export all draw from here, so a legend cannot disagree with
// what it explains.
#pragma once

#include <QColor>
#include <QString>
#include <optional>

#include "session/types.h"
#include "timeline/event_style.h"

namespace ts::palette {

// One of 64 distinct, stable hues per name (kernels, ranges), for light or dark backgrounds.
QRgb nameColor(StringId id, bool dark);
QRgb copyColor(CopyKind kind);
QRgb memsetColor();
QRgb apiColor(ApiDomain domain);
// Null for EventStyle::Default (the kind decides).
std::optional<QRgb> styleColor(EventStyle style);

// Towards black (factor < 1) or white (factor > 1), in integer arithmetic (runs are coloured per
// frame, so no HSV round trips).
QRgb scaled(QRgb c, double factor);
int luma(QRgb c);  // 0..255, for black or white text on a colour

// "■ label" in the style's colour, for rich-text legends.
QString swatchHtml(EventStyle style, const QString& label);

}  // namespace ts::palette
