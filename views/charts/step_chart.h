// The per-step stacked bars of the Diagnosis tab: where each training step's time went on its
// GPU — computation, communication not under a computation, the rest of the busy time (memory
// traffic), and the GPU's idle time split by the causes of the gaps before its operations.
#pragma once

#include <QChart>

#include "analysis/steps.h"

namespace ts {

// At most `maxSteps` bars (the first ones); the title says when steps were left out.
QChart* makeStepChart(const StepTable& steps, bool multiRank, bool dark, size_t maxSteps = 200);

}  // namespace ts
