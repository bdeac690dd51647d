// A folder of G10's own inputs (memsim/formats/g10_inputs.h): the first byte picks the model (so
// the CNN block wiring of each family and the transformer records are all reached), the rest is
// cut into its net file and its four traces at batch 8. What loads is planned and simulated under
// every policy when small, as the G10 workload target does.
#include <filesystem>

#include "fuzz_support.h"
#include "memsim/engine/simulation.h"
#include "memsim/engine/tier_config.h"
#include "memsim/formats/g10_inputs.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const auto& models = ts::memsim::g10Models();
  const ts::memsim::G10ModelInfo& m = models[data[0] % models.size()];
  auto parts = ts::fuzz::splitParts({reinterpret_cast<const char*>(data) + 1, size - 1}, 5);
  namespace fs = std::filesystem;
  const std::string root = ts::fuzz::scratchDir() + "/g10in";
  fs::remove_all(root);
  fs::create_directories(root + "/frontend/Nets");
  fs::create_directories(root + "/results/" + m.results);
  ts::fuzz::writeFile("g10in/frontend/Nets/" + std::string(m.net) + ".txt", parts[0]);
  const char* kinds[] = {"", "PF", "InputPF", "Workspace"};
  for (int i = 0; i < 4; ++i)
    ts::fuzz::writeFile("g10in/results/" + std::string(m.results) + "/cudnn8" + kinds[i] + ".txt",
                        parts[static_cast<size_t>(i) + 1]);
  auto g = ts::memsim::loadG10Inputs(root, m.experiment, 8);
  if (g && g->workload.kernels.size() <= 300 && g->workload.tensors.size() <= 3000) {
    (void)ts::memsim::runPolicies(g->workload, ts::memsim::allPolicies(),
                                  *ts::memsim::tierPreset("g10-default"));
  }
  return 0;
}
