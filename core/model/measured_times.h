// Kernel times from a measured run instead of the roofline: GPU time per layer read from a
// session's NVTX ranges named forward/<layer> and backward/<layer> (the kernels launched by the
// API calls inside each range, averaged over its occurrences), else — when the session holds
// exactly as many kernels as the step's forward (or forward and backward) kernels — by order.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "model/layer_group.h"
#include "model/model_graph.h"
#include "model/training_step.h"
#include "session/session.h"

namespace ts::model {

struct MeasuredTimes {
  std::map<std::string, int64_t> forwardNs;  // per layer name, mean GPU time per occurrence
  std::map<std::string, int64_t> backwardNs;
  std::map<std::string, int64_t> updateNs;  // optimizer time per layer ("(optimizer)": of none)
  std::vector<int64_t> kernelNs;            // every GPU kernel, in start order (the order fallback)
};

MeasuredTimes measureLayerTimes(const Session& session);

struct MappingReport {
  MappingMethod method = MappingMethod::None;  // Nvtx, Order or None (the roofline stays)
  size_t layersMapped = 0, layers = 0;         // layers with any measured time / in the model
  // Of the model's layers, those with measured time in each phase (order: every one mapped).
  size_t forwardTimed = 0, backwardTimed = 0, updateTimed = 0;
  std::vector<std::string> unmapped;  // layers of the model the session did not time
  std::vector<std::string> unknown;   // NVTX layer names that match nothing in the model
};

// Replaces the step's kernel times where the session has them. Within a layer (see
// modelLayers), measured time is shared among its kernels of the phase in proportion to their
// roofline times; update time of no layer ("(optimizer)") among the update kernels of the layers
// without their own.
MappingReport applyMeasuredTimes(const ModelGraph& graph, const MeasuredTimes& measured,
                                 TrainingStep& step);

}  // namespace ts::model
