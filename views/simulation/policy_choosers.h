// The two choosers both simulation panes (a run's Simulation tab, the what-if tab) offer, so they
// list and resolve the same things: every memory policy, and the tier presets — led, for a run
// that says which GPU it ran on, by "this run's GPU" (G10's defaults with the run's GPU memory
// and host link, its tooltip saying where each came from).
#pragma once

#include <QComboBox>
#include <QString>
#include <optional>

#include "memsim/engine/plan.h"
#include "memsim/engine/tier_config.h"
#include "session/session.h"

namespace ts {

class PolicyBox : public QComboBox {
  Q_OBJECT
 public:
  explicit PolicyBox(QWidget* parent = nullptr);
  memsim::Policy policy() const;
};

class TierPresetBox : public QComboBox {
  Q_OBJECT
 public:
  // `run` may be null (a model or a G10 workload on its own): the named presets only.
  explicit TierPresetBox(const Session* run, QWidget* parent = nullptr);
  // The tiers the chosen entry stands for (none for an entry that is no preset).
  std::optional<memsim::TierConfig> tiers() const;
  static QString runPresetName();  // "this run's GPU"

 private:
  std::optional<memsim::TierConfig> runTiers_;
};

}  // namespace ts
