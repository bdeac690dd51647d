// SweepView: a parameter sweep's results (`tensorscope-cli simulate --sweep`, CSV) as a table and
// the sensitivity chart — slowdown against the swept parameter, a line per policy.
#pragma once

#include <QWidget>

#include "memsim/formats/sweep_table.h"

namespace ts {

class ChartView;
class TablePanel;

class SweepView : public QWidget {
  Q_OBJECT
 public:
  SweepView(memsim::SweepTable sweep, QWidget* parent = nullptr);

  TablePanel* table() const { return table_; }
  ChartView* chart() const { return chart_; }

 private:
  TablePanel* table_ = nullptr;
  ChartView* chart_ = nullptr;
};

}  // namespace ts
