// The diagnosis's figures as statistics tables (analysis/stats_table.h), so that
// `tensorscope-cli diagnose`, `stats --report temporal,…` and the GUI show the same numbers.
// Column keys are the JSON keys `diagnose --json` documents (HTA's names where it has them).
#pragma once

#include "analysis/diagnosis.h"
#include "analysis/stats_table.h"

namespace ts {

enum class DiagnosisTable {
  Steps,
  Temporal,
  KernelTypes,
  Idle,
  CommOverlap,
  Launch,
  Queue,
  Findings
};

StatsTable diagnosisTable(const Diagnosis& diagnosis, DiagnosisTable which);

}  // namespace ts
