#include "views/simulation/tier_control.h"

#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QSignalBlocker>
#include <QSlider>
#include <cmath>

namespace ts {

TierControl::TierControl(const QString& unit, double min, double max, double step, QWidget* parent)
    : QWidget(parent), factor_(double(1 << 30)), step_(step) {
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  slider_ = new QSlider(Qt::Horizontal, this);
  slider_->setRange(static_cast<int>(std::lround(min / step)),
                    static_cast<int>(std::lround(max / step)));
  // About eight ticks, at a round number of units.
  const double span = max - min;
  double tick = std::pow(10.0, std::floor(std::log10(span / 8)));
  for (double m : {2.0, 5.0, 10.0}) {
    if (span / tick <= 10) break;
    tick = std::pow(10.0, std::floor(std::log10(span / 8))) * m;
  }
  slider_->setTickPosition(QSlider::TicksBelow);
  slider_->setTickInterval(std::max(1, static_cast<int>(std::lround(tick / step))));
  slider_->setPageStep(slider_->tickInterval());
  slider_->setMinimumWidth(140);
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
  connect(slider_, &QSlider::valueChanged, this, [this](int v) {
    const QSignalBlocker block(spin_);
    spin_->setValue(v * step_);
    edited_ = true;
    emit changed();
  });
  connect(spin_, &QDoubleSpinBox::valueChanged, this, &TierControl::fromSpin);
}

void TierControl::fromSpin(double units) {
  const QSignalBlocker block(slider_);
  slider_->setValue(static_cast<int>(std::lround(units / step_)));
  edited_ = true;
  emit changed();
}

void TierControl::setExact(double base) {
  exact_ = base;
  edited_ = false;
  const QSignalBlocker a(slider_), b(spin_);
  spin_->setValue(base / factor_);
  slider_->setValue(static_cast<int>(std::lround(base / factor_ / step_)));
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
