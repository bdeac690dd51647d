// What heterogeneous training is asked with, as the CLI and the GUI take it: devices as
// "K80:2, V100:2", throughputs as "K80=1, V100=2", a model as an ONNX file or a built-in name.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "model/model_graph.h"
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

}  // namespace ts::advisor
