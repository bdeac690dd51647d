// What heterogeneous training is asked with, as the CLI and the GUI take it: devices as
// "K80:2, V100:2", throughputs as "K80=1, V100=2", a model as an ONNX file or a built-in name.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "advisor/hetero.h"
#include "model/model_graph.h"
#include "model/training_step.h"
#include "session/session.h"
#include "util/result.h"

namespace ts::advisor {

// "TYPE[:COUNT]" items separated by commas (or given one by one): each count expanded.
Result<std::vector<std::string>> parseDevices(const std::vector<std::string>& items);
// "TYPE=X" items separated by commas, X > 0; keys lower-cased.
Result<std::map<std::string, double>> parseThroughputs(const std::string& text);
// A device's throughput measured in a run of the same training step on it: `batch` samples per
// step over its median step time (the steps the diagnosis finds). Errors: a run without steps.
Result<double> measuredSamplesPerSecond(const Session& run, int64_t batch);

// An ONNX file, or else a built-in model's name, at `batch`.
Result<model::ModelGraph> loadModelAt(const std::string& fileOrName, int64_t batch);

// Everything a split needs, from what the user gave: each device's throughput — given (wins),
// measured, else estimated from the model on its preset — with the model's layers, memory limits
// and gradients when there is a model, and the assumptions all that rests on.
struct HeteroSetup {
  std::vector<HeteroDevice> devices;
  std::vector<PipelineLayer> layers;  // empty without a model
  std::vector<int64_t> memory;        // per device; empty without a model
  int64_t gradientBytes = 0;
  std::string allReduceAssumption;  // data parallel only (a pipeline all-reduces nothing)
  std::string modelName;
  std::vector<std::string> assumptions;
};
// `model`: an ONNX file or a built-in name, or empty; `given` and `measured` by lower-case type.
// Errors: the model, an unknown preset, a device left without a throughput.
Result<HeteroSetup> heteroSetup(const std::vector<std::string>& types, const std::string& model,
                                int64_t batch, model::Optimizer optimizer,
                                const std::map<std::string, double>& given,
                                const std::map<std::string, double>& measured);

}  // namespace ts::advisor
