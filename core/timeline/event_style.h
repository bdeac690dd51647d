// How the timeline colours an event beyond what its kind gives it. A module that adds rows to
// the timeline (the simulation overlay; next the diagnosis and the advisor) tags the categories
// of its range events with a style (TimelineOverlay::styles); views/palette gives each style its
// colour. A type, so that core and the views cannot drift apart on a spelling.
#pragma once

#include <cstdint>

namespace ts {

enum class EventStyle : uint8_t {
  Default,       // the kind's own colour: kernels and ranges by name, copies by kind
  InGpuMemory,   // a tensor resident in GPU memory
  InHostMemory,  // ... in host memory
  OnSsd,         // ... on the SSD
  Moving,        // ... on its way between tiers
  Stall,         // the GPU waits (a simulated stall)
  HostToGpu,     // transfers, coloured like the copy kinds they resemble
  GpuToHost,
  SsdToGpu,
  GpuToSsd,
  SsdToHost,
  HostToSsd,
  OutlierStep,   // a training step far slower than the median (the diagnosis)
  IdleHostWait,  // a stream's idle gap by cause (analysis/idle_breakdown.h)
  IdleKernelWait,
  IdleOther,
  IdleUnknown,
};

}  // namespace ts
