#include "views/session/device_chooser.h"

#include <QCoreApplication>
#include <QSignalBlocker>
#include <algorithm>
#include <utility>
#include <vector>

namespace ts {

void fillDeviceChooser(QComboBox* box, const Session& s) {
  std::vector<std::pair<QString, uint>> items{
      {QCoreApplication::translate("DeviceChooser", "All GPUs"), uint{kNone}}};
  const std::vector<bool> active = s.activeDevices();
  for (uint32_t d = 0; d < s.devices.size(); ++d) {
    if (active[d]) items.emplace_back(QString::fromStdString(s.deviceLabel(d)), uint{d});
  }
  bool same = box->count() == static_cast<int>(items.size());
  for (int i = 0; same && i < box->count(); ++i) {
    const auto& [label, device] = items[static_cast<size_t>(i)];
    same = box->itemText(i) == label && box->itemData(i).toUInt() == device;
  }
  if (same) return;
  const QVariant chosen = box->count() ? box->currentData() : QVariant::fromValue(uint{kNone});
  const QSignalBlocker quiet(box);
  box->clear();
  for (const auto& [label, device] : items) box->addItem(label, QVariant::fromValue(device));
  box->setCurrentIndex(std::max(0, box->findData(chosen)));
}

}  // namespace ts
