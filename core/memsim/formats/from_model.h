// The simulator's workload from a model's training step (core/model): every step tensor with its
// size; weights and optimizer state are global (they outlive the iteration), activations,
// gradients and workspaces are not; kernel durations are the step's (roofline or measured).
#pragma once

#include "memsim/engine/workload.h"
#include "model/model_graph.h"
#include "model/training_step.h"

namespace ts::memsim {

SimWorkload workloadFromStep(const model::TrainingStep& step);

// The same with each kernel grouped by layer (model::modelLayers) the way measured runs are
// annotated: forward/<layer>, backward/<layer>, update/<layer>.
SimWorkload workloadFromModel(const model::ModelGraph& graph, const model::TrainingStep& step);

}  // namespace ts::memsim
