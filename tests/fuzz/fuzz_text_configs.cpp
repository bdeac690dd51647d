// The small text files users hand the simulator: a tier config, a sweep CSV, kernel-mapping
// corrections, G10's published table. The first byte picks the reader.
#include "fuzz_support.h"
#include "memsim/engine/tier_config.h"
#include "memsim/formats/g10_published.h"
#include "memsim/formats/sweep_table.h"
#include "model/kernel_mapping.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string path =
      ts::fuzz::writeFile("input.txt", {reinterpret_cast<const char*>(data) + 1, size - 1});
  switch (data[0] % 4) {
    case 0:
      (void)ts::memsim::loadTierConfig(path);
      break;
    case 1:
      (void)ts::memsim::loadSweepCsv(path);
      break;
    case 2:
      (void)ts::model::loadCorrections(path);
      break;
    default:
      (void)ts::memsim::loadG10Published(path);
      break;
  }
  return 0;
}
