#include "views/session/name_style.h"

#include <QSettings>

#include "session/kernel_name.h"

namespace ts {

namespace {
constexpr const char* kKey = "view/shortKernelNames";
}

NameStyle& NameStyle::instance() {
  static NameStyle style;
  return style;
}

NameStyle::NameStyle() : short_(QSettings().value(QLatin1String(kKey), true).toBool()) {}

void NameStyle::setShortNames(bool on) {
  if (on == short_) return;
  short_ = on;
  QSettings().setValue(QLatin1String(kKey), on);
  emit changed();
}

QString NameStyle::shown(std::string_view name) const {
  const std::string_view s = short_ ? shortKernelName(name) : name;
  return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

}  // namespace ts
