// A simulated timeline as a session the GUI opens like any capture: per policy a rank with one
// simulated GPU — its kernels on a compute stream (stalls as ranges beside them), a stream per
// link with the migrations, tier usage as counters — and a "simulation" process whose threads hold
// the spans each tensor spent in host memory and on the SSD, and (for a model's training step)
// the layers as NVTX ranges forward/<layer>, backward/<layer>, update/<layer>.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "memsim/engine/simulation.h"
#include "session/session.h"

namespace ts::memsim {

// The tier-usage counters' names: written here, read back by readSimulatedSession, and found
// by the what-if to set each row's capacity.
// The GPU's is the memory model's (bytes allocated on it, step_memory.h); a policy that keeps
// pages resident past a free gets kGpuResidentCounter beside it.
inline constexpr const char* kGpuUsedCounter = "GPU memory used";
inline constexpr const char* kGpuResidentCounter = "GPU pages resident";
inline constexpr const char* kHostUsedCounter = "Host memory used";
inline constexpr const char* kSsdUsedCounter = "SSD used";

Result<SessionPtr> simulationSession(const SimWorkload& workload,
                                     const std::vector<PolicyRun>& runs, const TierConfig& tiers);

// Whether Tensorscope simulated `session` (its provenance says so), and the policy of each rank.
// Sessions saved before the explicit mark are recognised by their sources and rank labels.
bool isSimulated(const Session& session);
std::optional<std::string> simulatedPolicy(const Session& session, uint32_t rank);

// For a transfer (a copy event) of a simulated session: whether the plan moved it (true) or a
// kernel's need did, on demand (false). Empty for any other event, and for copies of a rank that
// was measured (a session may hold both).
std::optional<bool> simulatedTransferPlanned(const Session& session, const Track& track,
                                             uint32_t event);

// One policy read back from a simulated session (what the charts draw).
struct SimulatedRun {
  std::string policy;  // "g10", ...
  std::string workload;
  TimeNs iteration = 0;  // the last kernel's end
  TimeNs ideal = 0;      // the kernels' summed durations
  TimeNs stall = 0;
  int64_t gpuCapacity = 0;
  std::array<int64_t, kLinkCount> linkBytes{};
  std::vector<TierUsage> usage;
};

// Errors when the session is not one `simulate -o` wrote (it names what is missing).
Result<std::vector<SimulatedRun>> readSimulatedSession(const Session& session);

}  // namespace ts::memsim
