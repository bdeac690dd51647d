// A simulation drawn on the measured timeline: the measured session copied with the simulation's
// tracks added, and the rows that show them under each simulated GPU, right after its Compute rows
// — the simulated kernels (stalls marked) aligned to the measured iteration's start, GPU / host /
// SSD usage with capacity, a row per link with every transfer, and a lane per tensor (grouped by
// layer) coloured by where the tensor is. Clicking ties a transfer to the kernel that needed it,
// a simulated kernel to the measured kernels of its layer, a tensor to the kernels that use it.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "memsim/engine/simulator.h"
#include "model/kernel_mapping.h"
#include "session/session.h"
#include "timeline/timeline_rows.h"

namespace ts::memsim {

struct OverlayOptions {
  enum class SortBy { Birth, Size };
  SortBy sort = SortBy::Birth;
  std::vector<TensorClass> classes = allTensorClasses();  // tensors shown
};

// Categories of the overlay's range events (the canvas colours by them).
inline constexpr const char* kTensorOnGpu = "tensor: GPU";
inline constexpr const char* kTensorInHost = "tensor: host";
inline constexpr const char* kTensorOnSsd = "tensor: SSD";
inline constexpr const char* kTensorMoving = "tensor: moving";
inline constexpr const char* kSimKernel = "simulated kernel";
inline constexpr const char* kSimStall = "simulated stall";
inline constexpr const char* kMigrationPrefix = "migration: ";  // + toString(Link)

// The overlay's extension rows (TimelineRow::Kind::Extension), by name: the views register how to
// draw and explain each.
inline constexpr const char* kSimKernelsRow = "memsim.kernels";  // the simulated kernels
inline constexpr const char* kTransferRow = "memsim.transfers";  // one link's transfers
inline constexpr const char* kTensorRow = "memsim.tensor";       // one tensor's whereabouts

struct Overlay {
  SessionPtr session;  // the measured session with the simulation's tracks added
  std::shared_ptr<const TimelineOverlay> layout;
  std::shared_ptr<const TimelineRows> rows;
  TimeNs origin = 0;  // where the (first) simulated iteration starts on the measured clock
  std::vector<TimeNs> origins;  // per part
  size_t tensorsShown = 0;      // of the first part
};

// One GPU's simulation: `mapping` places it (its device and iteration start) and ties kernels
// across; without a mapped device, the first GPU with kernels not yet taken is used.
struct OverlayPart {
  const model::KernelMapping* mapping;
  const SimWorkload* workload;
  const SimResult* result;
};

Result<Overlay> buildOverlay(const SessionPtr& measured, const std::vector<OverlayPart>& parts,
                             const TierConfig& tiers, const OverlayOptions& options = {});
// One GPU.
Result<Overlay> buildOverlay(const SessionPtr& measured, const model::KernelMapping& mapping,
                             const SimWorkload& workload, const SimResult& result,
                             const TierConfig& tiers, const OverlayOptions& options = {});

}  // namespace ts::memsim
