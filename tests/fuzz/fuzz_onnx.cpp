// ONNX models from bytes. The ONNX library runs in its child process as in the product: its own
// crashes end the child and become errors; what the fuzzer watches is ours (the protobuf answer,
// the graph, shapes, FLOPs, the training step built from them).
#include <string>

#include "model/layer_table.h"
#include "model/onnx_loader.h"
#include "model/training_step.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  ts::model::LoadOptions options;
  options.batch = 4;
  auto g = ts::model::loadOnnxBytes(bytes, "fuzz.onnx", options);
  if (g) {
    (void)ts::model::layerTable(*g);
    (void)ts::model::expandTrainingStep(*g);
  }
  return 0;
}
