// Kernels mapped to model layers by the PyTorch ops that launched them (a kernel's op: the
// outermost aten:: op, autograd node or optimizer op around its launch).
//
// - Forward ops: the k-th op of a kind (conv2d, batch_norm, add, …) in the iteration is the
//   model's k-th op of that kind. Where the profiler recorded input shapes, they are checked
//   against the model op's weights (or, for ops without weights, its activations, batch aside);
//   a disagreeing op is matched to the next op of its kind that agrees.
// - Backward: autograd nodes (…Backward) the same way, counted from the model's end; a gradient
//   accumulation (AccumulateGrad) goes with the node that produced the gradient, checked against
//   that layer's parameter shapes.
// - Optimizer (kernels inside Optimizer.step#… and Optimizer.zero_grad#… ranges): each op works
//   on one parameter, whose shape the profiler recorded; the parameters are visited in the
//   model's order, so the ops are matched to the model's trainable weights in order and by shape,
//   under update/<layer>. Ops that cannot be matched go under update/(optimizer).
// - Ops that are no model op (a counter such as BatchNorm's num_batches_tracked, an integer or
//   scalar op, a reshape, the loss) are placed with the kernels launched just before them, as
//   guesses.
#pragma once

#include <string>
#include <vector>

#include "model/launch_context.h"
#include "model/layer_group.h"
#include "model/model_graph.h"
#include "model/training_step.h"

namespace ts::model {

struct OpMatch {
  std::string group;  // empty: unmapped
  Certainty certainty = Certainty::None;
};

// One match per kernel of `kernels` (an iteration's, in start order).
std::vector<OpMatch> mapByOps(const ModelGraph& graph, const TrainingStep& step,
                              const std::vector<LaunchedKernel>& kernels,
                              const EnclosingRanges& enclosing);

// The operator family of an aten:: op or autograd node name, or of an ONNX op type ("conv",
// "matmul", "batchnorm", "add", …); "" if none is known.
std::string opFamily(std::string_view name);

}  // namespace ts::model
