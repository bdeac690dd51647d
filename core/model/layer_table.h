// The layer table (as ModTrans prints it): per op its name, type, trainable parameters, weight
// data type and bytes, activation (output) bytes and FLOPs, with a totals row — as a StatsTable,
// so the CLI prints it as text, CSV or JSON and the GUI shows it like the statistics.
#pragma once

#include "analysis/stats_table.h"
#include "model/model_graph.h"
#include "model/training_step.h"

namespace ts::model {

// `layersOnly`: only ops with trainable parameters (the totals still cover the whole model).
StatsTable layerTable(const ModelGraph& graph, bool layersOnly = false);

// The training step's kernels in order: phase, time, FLOPs, bytes, and the tensors read and
// written.
StatsTable stepTable(const TrainingStep& step);

// A few lines about the model: ops, parameters, bytes, FLOPs, inputs and outputs, warnings.
StatsTable modelSummary(const ModelGraph& graph);

}  // namespace ts::model
