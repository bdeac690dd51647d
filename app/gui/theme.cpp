#include "app/gui/theme.h"

#include <QApplication>
#include <QPalette>
#include <QProxyStyle>
#include <QSettings>
#include <QStyle>
#include <QStyleFactory>

namespace ts {

namespace {

constexpr char kKey[] = "view/theme";

// What the platform gave before any theme was applied: "System" goes back to it.
struct SystemLook {
  QString style;
  QPalette palette;
};
const SystemLook& systemLook() {
  static const SystemLook look{QApplication::style()->name(), QApplication::palette()};
  return look;
}

// The platform's or Fusion's look, with combo boxes that drop their list below them: Fusion
// opens it over the box with the current item under the mouse, so a click meant to open the list
// of policies could choose one.
class DropDownCombos : public QProxyStyle {
 public:
  using QProxyStyle::QProxyStyle;
  int styleHint(StyleHint hint, const QStyleOption* option, const QWidget* widget,
                QStyleHintReturn* returned) const override {
    if (hint == QStyle::SH_ComboBox_Popup) return 0;
    return QProxyStyle::styleHint(hint, option, widget, returned);
  }
};

void setStyleNamed(const QString& name) {
  QApplication::setStyle(new DropDownCombos(QStyleFactory::create(name)));
}

QPalette darkPalette() {
  QPalette p;
  const QColor window(0x2b, 0x2d, 0x30), base(0x1e, 0x1f, 0x22), text(0xdf, 0xe1, 0xe5);
  const QColor disabled(0x7f, 0x84, 0x8e);
  p.setColor(QPalette::Window, window);
  p.setColor(QPalette::WindowText, text);
  p.setColor(QPalette::Base, base);
  p.setColor(QPalette::AlternateBase, QColor(0x27, 0x29, 0x2d));
  p.setColor(QPalette::ToolTipBase, QColor(0x3c, 0x3f, 0x41));
  p.setColor(QPalette::ToolTipText, text);
  p.setColor(QPalette::PlaceholderText, disabled);
  p.setColor(QPalette::Text, text);
  p.setColor(QPalette::Button, QColor(0x3c, 0x3f, 0x41));
  p.setColor(QPalette::ButtonText, text);
  p.setColor(QPalette::BrightText, QColor(0xff, 0x6b, 0x68));
  p.setColor(QPalette::Light, QColor(0x4a, 0x4d, 0x51));
  p.setColor(QPalette::Midlight, QColor(0x3f, 0x42, 0x46));
  p.setColor(QPalette::Mid, QColor(0x55, 0x58, 0x5c));
  p.setColor(QPalette::Dark, QColor(0x19, 0x1a, 0x1c));
  p.setColor(QPalette::Shadow, Qt::black);
  p.setColor(QPalette::Highlight, QColor(0x35, 0x74, 0xf0));
  p.setColor(QPalette::HighlightedText, Qt::white);
  p.setColor(QPalette::Link, QColor(0x6f, 0xa8, 0xff));
  p.setColor(QPalette::LinkVisited, QColor(0xb0, 0x8c, 0xff));
  for (QPalette::ColorRole role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
    p.setColor(QPalette::Disabled, role, disabled);
  return p;
}

}  // namespace

QString themeName(Theme theme) {
  switch (theme) {
    case Theme::Light:
      return QStringLiteral("light");
    case Theme::Dark:
      return QStringLiteral("dark");
    case Theme::System:
      break;
  }
  return QStringLiteral("system");
}

Theme savedTheme() {
  const QString name = QSettings().value(QLatin1String(kKey)).toString();
  if (name == themeName(Theme::Light)) return Theme::Light;
  if (name == themeName(Theme::Dark)) return Theme::Dark;
  return Theme::System;
}

void applyTheme(Theme theme) {
  const SystemLook& system = systemLook();  // captured before the first change
  if (theme == Theme::System) {
    setStyleNamed(system.style);
    QApplication::setPalette(system.palette);
  } else {
    setStyleNamed(QStringLiteral("Fusion"));
    QApplication::setPalette(theme == Theme::Dark ? darkPalette()
                                                  : QApplication::style()->standardPalette());
  }
  QSettings().setValue(QLatin1String(kKey), themeName(theme));
}

}  // namespace ts
