// ONNX models, with external data: the input's first part is the model, written to a file, its
// second part a file beside it named "weights.bin" (the name a model's external_data entries
// point at in the seeds). The ONNX library runs in its child process as in the product: its own
// crashes end the child and become errors; what the fuzzer watches is ours (the protobuf answer,
// the graph, shapes, FLOPs, the training step built from them).
#include <string>

#include "fuzz_support.h"
#include "model/layer_table.h"
#include "model/onnx_loader.h"
#include "model/training_step.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto parts = ts::fuzz::splitParts({reinterpret_cast<const char*>(data), size}, 2);
  const std::string path = ts::fuzz::writeFile("model.onnx", parts[0]);
  ts::fuzz::writeFile("weights.bin", parts[1]);
  ts::model::LoadOptions options;
  options.batch = 4;
  auto g = ts::model::loadOnnxModel(path, options);
  if (g) {
    (void)ts::model::layerTable(*g);
    (void)ts::model::expandTrainingStep(*g);
  }
  return 0;
}
