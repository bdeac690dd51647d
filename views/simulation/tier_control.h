// TierControl: one tier setting of the what-if (a size or a bandwidth) as a logarithmic slider
// with ticks and a spin box beside it, both in the product's one unit system (GiB, GiB/s). A value
// set from a preset stays exact (143,771 MiB is not rounded to 140.4 GiB) until the user moves
// either control.
#pragma once

#include <QWidget>

class QDoubleSpinBox;
class QSlider;

namespace ts {

class TierControl : public QWidget {
  Q_OBJECT
 public:
  // `unit` is "GiB" (sizes) or "GiB/s" (bandwidths); [min, max] and `step` in that unit.
  TierControl(const QString& unit, double min, double max, double step, QWidget* parent = nullptr);

  void setExact(double base);   // bytes or bytes/s (a preset's value), without `changed`
  double exact() const;         // bytes or bytes/s: the preset's value unless the user moved it
  void setValue(double units);  // in the unit shown, as the user would type it (emits `changed`)
  double value() const;         // in the unit shown
  bool edited() const { return edited_; }  // moved by the user since the preset
  QSlider* slider() const { return slider_; }
  QDoubleSpinBox* spinBox() const { return spin_; }

 signals:
  void changed();

 private:
  void fromSpin(double units);
  double offset() const;
  int positionOf(double units) const;  // the slider's position for a value
  double unitsAt(int position) const;  // the value at a position, on the step
  double factor_ = 1;                  // bytes (or bytes/s) per unit
  double step_ = 1;
  double min_ = 0, max_ = 1;
  double exact_ = 0;
  bool edited_ = false;
  QSlider* slider_ = nullptr;
  QDoubleSpinBox* spin_ = nullptr;
};

}  // namespace ts
