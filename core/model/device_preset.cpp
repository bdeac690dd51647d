#include "model/device_preset.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace ts::model {

// NVIDIA data sheets (SXM parts; V100 SXM2 32 GB; appended only: indices are used): FP32, FP16
// tensor (dense), HBM bandwidth.
const std::vector<DevicePreset>& devicePresets() {
  static const std::vector<DevicePreset> presets = {
      {"V100", 15.7e12, 125e12, 900e9, 32e9},
      {"A100-40GB", 19.5e12, 312e12, 1555e9, 40e9},
      {"A100-80GB", 19.5e12, 312e12, 2039e9, 80e9},
      {"H100", 67e12, 989.4e12, 3.35e12, 80e9},
      {"H200", 67e12, 989.4e12, 4.8e12, 141e9},
      // Older generations, for heterogeneous training (one GPU of a K80 board: half its 8.73
      // TFLOPS boost, 480 GB/s and 24 GB; no tensor cores, so their rate is the FP32 one).
      {"K80", 4.365e12, 4.365e12, 240e9, 12e9},
      {"P100", 9.3e12, 18.7e12, 732e9, 16e9},  // PCIe 16 GB
  };
  return presets;
}

std::optional<DevicePreset> devicePreset(std::string_view name) {
  auto lower = [](std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
  };
  for (const DevicePreset& d : devicePresets()) {
    if (lower(d.name) == lower(name)) return d;
  }
  return std::nullopt;
}

int64_t rooflineNs(const DevicePreset& d, double flops, double bytes, bool tensorCores) {
  double rate = tensorCores ? d.tensorFlops : d.fp32Flops;
  double seconds = std::max(flops / rate, bytes / d.memoryBandwidth);
  return std::max<int64_t>(1, static_cast<int64_t>(std::llround(seconds * 1e9)));
}

}  // namespace ts::model
