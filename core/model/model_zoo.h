// The built-in model zoo: well-known networks built in code as ONNX graphs without weight data
// (weights are declared as graph inputs with their shapes), so that tables, training workloads
// and simulator inputs are available without downloads. Parameter counts equal the published
// (torchvision / Hugging Face) ones exactly; tests hold them.
#pragma once

#include <string>
#include <vector>

#include "model/onnx_loader.h"
#include "util/result.h"

namespace ts::model {

std::vector<std::string> zooModels();  // "alexnet", "resnet50", ...

// The serialized ONNX model. `batch` > 0 fixes the batch dimension; 0 leaves it symbolic
// ("batch"), resolved when the model is loaded.
Result<std::string> zooModelBytes(const std::string& name, int64_t batch = 0);

// An ONNX file, or when no file has that name a built-in model of the zoo (at options.batch); an
// error naming both and listing the built-in models otherwise.
Result<ModelGraph> loadModelOrZoo(const std::string& fileOrName, const LoadOptions& options = {});

}  // namespace ts::model
