// The memory tiers a plan runs against: capacities of GPU memory, host memory and SSD, the
// bandwidths between them, latencies, page size and GPU clock. Presets (G10's defaults and three
// GPUs), a small "key = value" text file or JSON, and command-line style values ("40GB",
// "15.754GB/s", "12us").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace ts::memsim {

struct TierConfig {
  std::string name;
  int64_t gpuBytes = 0;
  int64_t hostBytes = 0;
  int64_t ssdBytes = 0;
  double gpuHostBandwidth = 0;  // bytes/s each way (PCIe)
  double ssdGpuBandwidth = 0;   // bytes/s, direct (GPUDirect Storage style)
  double ssdHostBandwidth = 0;  // bytes/s
  int64_t ssdReadLatencyNs = 0;
  int64_t ssdWriteLatencyNs = 0;
  int64_t systemLatencyNs = 0;  // a page fault's host-side handling
  int64_t pageBytes = 4096;
  double gpuClockHz = 1.2e9;

  Status validate() const;  // positive capacities and bandwidths, a power-of-two page, ...
};

// "g10-default", "a100-40", "h100-80", "h200-141".
std::vector<std::string> tierPresetNames();
std::optional<TierConfig> tierPreset(std::string_view name);

// The settings setTierField takes, listed once: the CLI's --KEY options, the sweepable keys and
// the units charts and tables give the swept values come from here.
enum class TierUnit : uint8_t { Bytes, Bandwidth, Latency, Frequency };
struct TierField {
  std::string_view key;  // "gpu-mem"
  TierUnit unit;
  std::string_view example;  // a value setTierField accepts: "40GB"
  bool sweepable = false;    // `simulate --sweep KEY=...`
};
const std::vector<TierField>& tierFields();
const TierField* findTierField(std::string_view key);  // null for an unknown key

// Sets one field from text: gpu-mem / host-mem / ssd (sizes: "40GB", "128GiB", "512MB"),
// pcie-bw / ssd-bw / ssd-host-bw ("15.754GB/s"), ssd-read-latency / ssd-write-latency /
// system-latency ("12us"), page ("4KiB"), gpu-clock ("1.2GHz"). An error names the key.
Status setTierField(TierConfig& config, std::string_view key, std::string_view value);

// A file of "key = value" lines (# comments) or a JSON object with the same keys; "preset"
// first selects the starting values. Errors name the file and line.
Result<TierConfig> loadTierConfig(const std::string& path);

// The tiers in one line, sizes and rates in binary units: "g10-default: GPU 40 GiB, host 128 GiB,
// SSD 2.91 TiB, GPU ↔ host …/s, SSD …/s".
std::string tiersSentence(const TierConfig& config);

// Byte and rate text in decimal (GB = 1e9) or binary (GiB = 2^30) units.
std::optional<int64_t> parseBytes(std::string_view text);
std::optional<double> parseBandwidth(std::string_view text);  // bytes per second

}  // namespace ts::memsim
