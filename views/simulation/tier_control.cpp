#include "views/simulation/tier_control.h"

#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QSignalBlocker>
#include <QSlider>
#include <algorithm>
#include <cmath>

namespace ts {

namespace {
constexpr int kPositions = 1000;  // the slider's resolution: 0.8 % of the value per step at most
}  // namespace

TierControl::TierControl(const QString& unit, double min, double max, double step, QWidget* parent)
    : QWidget(parent), factor_(double(1 << 30)), step_(step), min_(min), max_(max) {
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  // Logarithmic: 16 to 80 GiB is where GPUs are, 0.5 to 1024 GiB what one may try; on a linear
  // scale the first would be a few pixels (one click jumped 24 → 224 GiB).
  slider_ = new QSlider(Qt::Horizontal, this);
  slider_->setRange(0, kPositions);
  slider_->setTickPosition(QSlider::TicksBelow);
  slider_->setTickInterval(kPositions / 8);  // equal ratios apart
  slider_->setPageStep(kPositions / 16);
  slider_->setSingleStep(1);
  slider_->setMinimumWidth(140);
  slider_->setToolTip(tr("Logarithmic: each tick multiplies the value by the same factor"));
  spin_ = new QDoubleSpinBox(this);
  spin_->setRange(min, max);
  spin_->setDecimals(step < 1 ? 2 : 1);
  spin_->setSingleStep(step);
  spin_->setSuffix(QLatin1Char(' ') + unit);
  spin_->setKeyboardTracking(false);  // typed values count when entered, not at each digit
  spin_->setMinimumWidth(spin_->fontMetrics().horizontalAdvance(QString::number(max, 'f', 2) +
                                                                QLatin1Char(' ') + unit) +
                         36);
  layout->addWidget(slider_, 1);
  layout->addWidget(spin_);
  connect(slider_, &QSlider::valueChanged, this, [this](int p) {
    const QSignalBlocker block(spin_);
    spin_->setValue(unitsAt(p));
    edited_ = true;
    emit changed();
  });
  connect(spin_, &QDoubleSpinBox::valueChanged, this, &TierControl::fromSpin);
}

// Positions are logarithmic in the value (shifted by one step when the range starts at 0).
double TierControl::offset() const {
  return min_ <= 0 ? step_ : 0;
}

int TierControl::positionOf(double units) const {
  const double o = offset(), lo = std::log(min_ + o), hi = std::log(max_ + o);
  const double f = (std::log(std::clamp(units, min_, max_) + o) - lo) / (hi - lo);
  return static_cast<int>(std::lround(f * kPositions));
}

double TierControl::unitsAt(int position) const {
  const double o = offset(), lo = std::log(min_ + o), hi = std::log(max_ + o);
  const double v = std::exp(lo + (hi - lo) * position / kPositions) - o;
  const double grain = step_ < 1 ? 0.01 : 0.1;  // as the spin box shows it
  return std::clamp(std::round(v / grain) * grain, min_, max_);
}

void TierControl::fromSpin(double units) {
  const QSignalBlocker block(slider_);
  slider_->setValue(positionOf(units));
  edited_ = true;
  emit changed();
}

void TierControl::setExact(double base) {
  exact_ = base;
  edited_ = false;
  const QSignalBlocker a(slider_), b(spin_);
  spin_->setValue(base / factor_);
  slider_->setValue(positionOf(base / factor_));
}
double TierControl::exact() const {
  return edited_ ? spin_->value() * factor_ : exact_;
}

void TierControl::setValue(double units) {
  if (spin_->valueFromText(spin_->textFromValue(units)) != spin_->value())
    spin_->setValue(units);  // emits valueChanged: fromSpin
  else
    fromSpin(units);  // the same number typed again: it counts as the user's, no longer exact
}

double TierControl::value() const {
  return spin_->value();
}

}  // namespace ts
