// Chakra execution-trace files (.et), as `model chakra` writes them and a user may hand back.
#include "fuzz_support.h"
#include "model/chakra_workload.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)ts::model::readChakra(
      ts::fuzz::writeFile("input.et", {reinterpret_cast<const char*>(data), size}));
  return 0;
}
