// Reads ONNX models into a ModelGraph with Debian's libonnx: the checker, shape inference at a
// chosen batch size, weights found whether stored as initializers (with data, with external data,
// or with shapes only) or declared as graph inputs.
#pragma once

#include <string>

#include "model/model_graph.h"
#include "util/result.h"

namespace ts::model {

struct LoadOptions {
  int64_t batch = 1;  // replaces a symbolic (or zero) leading dimension of the data inputs
  bool check = true;  // run onnx::checker first
  // Run the ONNX library (parsing, checker, shape inference) in a child process, so that a file
  // that crashes it is an error, not the end of the program. Off only to measure what it costs.
  bool isolate = true;
};

// Errors name the file and the problem (not protobuf, truncated, checker message, ...).
Result<ModelGraph> loadOnnxModel(const std::string& path, const LoadOptions& options = {});
// The same from serialized bytes (`name` is used in errors and as the graph's path).
Result<ModelGraph> loadOnnxBytes(const std::string& bytes, const std::string& name,
                                 const LoadOptions& options = {});

}  // namespace ts::model
