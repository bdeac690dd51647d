// A G10 workload directory: tensors.config and kernels.config (the input's two parts). What loads
// is then planned and simulated under every policy with G10's default tiers, so that sizes and
// times from the files (any values the parser lets through) reach the planners' and the
// simulator's arithmetic.
#include <filesystem>

#include "fuzz_support.h"
#include "memsim/engine/simulation.h"
#include "memsim/engine/tier_config.h"
#include "memsim/formats/g10_workload.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto parts = ts::fuzz::splitParts({reinterpret_cast<const char*>(data), size}, 2);
  std::filesystem::create_directories(ts::fuzz::scratchDir() + "/g10");
  ts::fuzz::writeFile("g10/tensors.config", parts[0]);
  ts::fuzz::writeFile("g10/kernels.config", parts[1]);
  auto g = ts::memsim::loadG10Workload(ts::fuzz::scratchDir() + "/g10");
  // Small workloads only: a fuzz input is small, a big one would only slow the campaign.
  if (g && g->workload.kernels.size() <= 300 && g->workload.tensors.size() <= 3000) {
    (void)ts::memsim::runPolicies(g->workload, ts::memsim::allPolicies(),
                                  *ts::memsim::tierPreset("g10-default"));
  }
  return 0;
}
