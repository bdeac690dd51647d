// How kernel names are listed: short, as Nsight Systems shows them (the function's name alone),
// or in full. One setting for every table, toggled from View → Short Kernel Names and remembered
// across runs; the full name is always in the tooltip, the filter, Copy and Export.
#pragma once

#include <QObject>
#include <QString>
#include <string_view>

namespace ts {

class NameStyle : public QObject {
  Q_OBJECT
 public:
  static NameStyle& instance();
  bool shortNames() const { return short_; }
  void setShortNames(bool on);
  // `name` as it is to be shown.
  QString shown(std::string_view name) const;

 signals:
  void changed();

 private:
  NameStyle();
  bool short_ = true;
};

}  // namespace ts
