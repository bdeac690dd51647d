// ASTRA-sim workload inputs from a model: the legacy text format (one line per layer, 12 fields)
// and the layer grouping both formats share. A layer starts at an op with a weight tensor (Conv,
// ConvTranspose, Gemm, MatMul with a weight, an embedding Gather); normalisation ops, bias
// additions and weightless ops belong to the layer before them.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/model_graph.h"
#include "model/training_step.h"
#include "util/result.h"

namespace ts::model {

enum class Parallelism { Data, Model, HybridDataModel, HybridModelData };
std::optional<Parallelism> parallelismFromString(std::string_view s);  // "DATA", "MODEL", ...
const char* toString(Parallelism p);

struct Layer {
  std::string name;
  int firstOp = 0, lastOp = 0;  // ops [firstOp, lastOp]
  int64_t forwardNs = 0, inputGradNs = 0, weightGradNs = 0, updateNs = 0;
  double forwardFlops = 0, inputGradFlops = 0, weightGradFlops = 0;
  int64_t parameters = 0;      // trainable elements of all its ops
  int64_t mainWeight = 0;      // elements of the starting op's weight
  int64_t outputElements = 0;  // of its last op's first output
  int64_t inputElements = 0;   // of its starting op's activation input
};

std::vector<Layer> modelLayers(const ModelGraph& graph, const TrainingStep& step);

struct AstraOptions {
  Parallelism parallelism = Parallelism::Data;
  int npus = 1;
  int modelDim = 0;          // hybrids: NPUs per model-parallel group (0: 2)
  bool weightsOnly = false;  // weight-gradient size from the main weight tensor only
};

// The whole file. Compute times in ns (ASTRA-sim cycles at 1 GHz), sizes in bytes at fp32.
Result<std::string> astraText(const ModelGraph& graph, const TrainingStep& step,
                              const AstraOptions& options);

}  // namespace ts::model
