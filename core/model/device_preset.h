// GPU presets for the roofline: peak arithmetic rate and memory bandwidth as the vendor
// publishes them (dense, no sparsity), and memory capacity.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ts::model {

struct DevicePreset {
  std::string name;            // "A100-40GB"
  double fp32Flops = 0;        // FLOP/s, CUDA cores
  double tensorFlops = 0;      // FLOP/s, FP16/BF16 tensor cores, dense
  double memoryBandwidth = 0;  // bytes/s
  double memoryBytes = 0;
};

const std::vector<DevicePreset>& devicePresets();
std::optional<DevicePreset> devicePreset(std::string_view name);  // case-insensitive

// Roofline time of `flops` over `bytes` of memory traffic, in ns (at least 1). `tensorCores`
// uses the tensor-core rate (half-precision models), else the FP32 rate.
int64_t rooflineNs(const DevicePreset& d, double flops, double bytes, bool tensorCores = false);

}  // namespace ts::model
