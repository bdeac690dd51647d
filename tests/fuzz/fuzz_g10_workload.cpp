// A G10 workload directory: tensors.config and kernels.config (the input's two parts).
#include <filesystem>

#include "fuzz_support.h"
#include "memsim/formats/g10_workload.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto parts = ts::fuzz::splitParts({reinterpret_cast<const char*>(data), size}, 2);
  std::filesystem::create_directories(ts::fuzz::scratchDir() + "/g10");
  ts::fuzz::writeFile("g10/tensors.config", parts[0]);
  ts::fuzz::writeFile("g10/kernels.config", parts[1]);
  (void)ts::memsim::loadG10Workload(ts::fuzz::scratchDir() + "/g10");
  return 0;
}
