// Theoretical occupancy of a kernel launch on a device, as the CUDA occupancy calculator computes
// it: resident blocks per SM limited by warps, the block slot count, registers and shared memory.
#pragma once

#include <optional>
#include <string_view>

#include "session/entities.h"
#include "session/event_columns.h"

namespace ts {

struct Occupancy {
  double theoretical = 0;    // active warps / max warps per SM, in [0, 1]
  int blocksPerSm = 0;       // resident blocks per SM
  int warpsPerSm = 0;        // resident warps per SM
  std::string_view limiter;  // "warps", "blocks", "registers", "shared memory"
};

// Resident block slots per SM by compute capability (CUDA programming guide, table of limits).
int32_t maxBlocksPerSmFor(int computeMajor, int computeMinor);

// nullopt when the launch configuration or the device limits are unknown.
std::optional<Occupancy> theoreticalOccupancy(const Device& device, const KernelDetail& kernel);

// The theoretical value capped by how many warps the grid can put on each SM; the PyTorch
// profiler's "est. achieved occupancy %" is this number (rounded).
std::optional<double> estimatedAchievedOccupancy(const Device& device, const KernelDetail& kernel);

}  // namespace ts
