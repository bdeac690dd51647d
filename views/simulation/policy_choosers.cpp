#include "views/simulation/policy_choosers.h"

#include <algorithm>

#include "memsim/formats/run_tiers.h"

namespace ts {

PolicyBox::PolicyBox(QWidget* parent) : QComboBox(parent) {
  for (memsim::Policy p : memsim::allPolicies()) addItem(QString::fromLatin1(memsim::toString(p)));
}

memsim::Policy PolicyBox::policy() const {
  const auto policies = memsim::allPolicies();
  return policies[std::min(static_cast<size_t>(std::max(0, currentIndex())), policies.size() - 1)];
}

TierPresetBox::TierPresetBox(const Session* run, QWidget* parent) : QComboBox(parent) {
  if (run) {
    const memsim::RunTiers fromRun = memsim::tiersForRun(*memsim::tierPreset("g10-default"), *run);
    if (fromRun.gpuFromRun || fromRun.linkFromRun) {
      runTiers_ = fromRun.tiers;
      addItem(runPresetName());  // first, so chosen
      setItemData(0, QString::fromStdString(fromRun.note), Qt::ToolTipRole);
    }
  }
  for (const std::string& name : memsim::tierPresetNames()) addItem(QString::fromStdString(name));
}

QString TierPresetBox::runPresetName() {
  return tr("this run's GPU");
}

std::optional<memsim::TierConfig> TierPresetBox::tiers() const {
  if (runTiers_ && currentText() == runPresetName()) return runTiers_;
  return memsim::tierPreset(currentText().toStdString());
}

}  // namespace ts
