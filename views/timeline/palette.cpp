#include "views/timeline/palette.h"

#include <algorithm>
#include <array>

namespace ts::palette {

QRgb nameColor(StringId id, bool dark) {
  // Converted to RGB once: colour-space conversions per event would cost more than the drawing.
  static const auto table = [] {
    std::array<std::array<QRgb, 64>, 2> t{};
    for (int i = 0; i < 64; ++i) {
      int hue = (i * 157) % 360;  // neighbours in the table are far apart on the wheel
      t[0][static_cast<size_t>(i)] = QColor::fromHsv(hue, 120, 225).rgb();
      t[1][static_cast<size_t>(i)] = QColor::fromHsv(hue, 150, 200).rgb();
    }
    return t;
  }();
  return table[dark ? 1 : 0][(id * 2654435761u) >> 26];
}

QRgb copyColor(CopyKind kind) {
  switch (kind) {
    case CopyKind::HtoD:
      return qRgb(0x59, 0xa1, 0x4f);
    case CopyKind::DtoH:
      return qRgb(0xe1, 0x57, 0x59);
    case CopyKind::DtoD:
      return qRgb(0xf2, 0x8e, 0x2b);
    case CopyKind::PtoP:
      return qRgb(0xb0, 0x7a, 0xa1);
    case CopyKind::HtoH:
      return qRgb(0x9c, 0x75, 0x5f);
    case CopyKind::Other:
      break;
  }
  return qRgb(0xba, 0xb0, 0xac);
}

QRgb memsetColor() {
  return qRgb(0x76, 0xb7, 0xb2);
}

QRgb apiColor(ApiDomain domain) {
  return domain == ApiDomain::Driver ? qRgb(0x6b, 0x8e, 0xc6) : qRgb(0x4e, 0x79, 0xa7);
}

std::optional<QRgb> styleColor(EventStyle style) {
  switch (style) {
    case EventStyle::Default:
      return std::nullopt;
    case EventStyle::InGpuMemory:
      return qRgb(0x59, 0xa1, 0x4f);
    case EventStyle::InHostMemory:
      return qRgb(0x4e, 0x79, 0xa7);
    case EventStyle::OnSsd:
      return qRgb(0xb0, 0x7a, 0xa1);
    case EventStyle::Moving:
      return qRgb(0xf2, 0x8e, 0x2b);
    case EventStyle::Stall:
      return qRgb(0x9e, 0x2a, 0x2b);
    case EventStyle::HostToGpu:
      return copyColor(CopyKind::HtoD);
    case EventStyle::GpuToHost:
      return copyColor(CopyKind::DtoH);
    case EventStyle::SsdToGpu:
      return memsetColor();
    case EventStyle::GpuToSsd:
      return copyColor(CopyKind::PtoP);
    case EventStyle::SsdToHost:
    case EventStyle::HostToSsd:
      return copyColor(CopyKind::HtoH);
    // The diagnosis: the step chart's idle colours (views/charts/step_chart.cpp), so a bar and the
    // timeline read alike.
    case EventStyle::OutlierStep:  // near black among the steps' name colours
      return qRgb(0x33, 0x33, 0x33);
    case EventStyle::IdleHostWait:
      return qRgb(0xc4, 0x3b, 0x3b);
    case EventStyle::IdleKernelWait:
      return qRgb(0xe0, 0xa0, 0xa0);
    case EventStyle::IdleOther:
      return qRgb(0x99, 0x99, 0x99);
    case EventStyle::IdleUnknown:
      return qRgb(0xcc, 0xcc, 0xcc);
  }
  return std::nullopt;
}

QRgb scaled(QRgb c, double factor) {
  const int f = static_cast<int>(factor * 256);
  auto channel = [f](int v) {
    return f <= 256 ? (v * f) >> 8 : v + (((255 - v) * (f - 256)) >> 8);
  };
  return qRgb(std::min(channel(qRed(c)), 255), std::min(channel(qGreen(c)), 255),
              std::min(channel(qBlue(c)), 255));
}

int luma(QRgb c) {
  return (qRed(c) * 299 + qGreen(c) * 587 + qBlue(c) * 114) / 1000;
}

QString swatchHtml(EventStyle style, const QString& label) {
  const QColor c(styleColor(style).value_or(qRgb(0x7f, 0x7f, 0x7f)));
  return QStringLiteral("<span style='color:%1'>■</span> %2").arg(c.name(), label);
}

}  // namespace ts::palette
