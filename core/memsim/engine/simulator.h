// Executes a migration plan against the memory tiers, kernel by kernel, for two iterations, and
// reports the second (the steady state, as G10 does). Bookkeeping is per tensor, never per page:
// the cost grows with kernels × tensors used, not with bytes. (Workloads read from G10's traces
// run the demand-paged plans in G10's own simulator of unified memory instead, and FlashNeuron
// and the GPUDirect variants in its simulator of explicit copies: declared below.) Links are FIFO
// queues with their own bandwidth and latency; a kernel starts when its previous kernel has ended
// and all its tensors are on the GPU — the wait is its stall.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "memsim/engine/plan.h"
#include "memsim/engine/tier_config.h"
#include "memsim/engine/workload.h"

namespace ts::memsim {

enum class Link : uint8_t { HostToGpu, GpuToHost, SsdToGpu, GpuToSsd, SsdToHost, HostToSsd };
inline constexpr int kLinkCount = 6;
const char* toString(Link l);   // "host-to-gpu", ... (keys of files and JSON)
const char* linkLabel(Link l);  // "host → GPU", ... (for people)
// The links to and from the GPU, in the order reports list them (no policy uses SSD ↔ host).
inline constexpr Link kGpuLinks[] = {Link::HostToGpu, Link::GpuToHost, Link::SsdToGpu,
                                     Link::GpuToSsd};

struct SimKernelTime {
  TimeNs start = 0;  // from the start of the reported iteration
  TimeNs end = 0;
  TimeNs stall = 0;  // waiting for data before it could start
};

struct Migration {
  int tensor = 0;
  Tier from = Tier::Gpu;
  Tier to = Tier::Host;
  Link link = Link::GpuToHost;
  TimeNs start = 0;
  TimeNs end = 0;
  int64_t bytes = 0;
  bool demand = false;  // a fault (or an on-demand copy), not planned
};

// Which tier held a tensor during the reported iteration — the tier whose capacity it counts
// against, from the moment a move is decided; the copy itself (a Migration) may start later on a
// busy link and ends after. The overlay draws the bytes where they are (see overlay.cpp).
struct Residency {
  int tensor = 0;
  Tier tier = Tier::Gpu;
  TimeNs start = 0;
  TimeNs end = 0;
};

struct TierUsage {
  TimeNs time = 0;
  int64_t gpu = 0, host = 0, ssd = 0;
};

struct SimSummary {
  TimeNs iteration = 0;
  TimeNs ideal = 0;
  double slowdown = 1;
  TimeNs compute = 0;       // kernel time with no transfer running
  TimeNs overlap = 0;       // kernel time with a transfer running
  TimeNs stall = 0;         // waiting for data
  int64_t faults = 0;       // demand fetches of tensors not on the GPU
  int64_t demandBytes = 0;  // moved by faults and LRU evictions rather than by the plan
  std::array<int64_t, kLinkCount> linkBytes{};
};

struct SimResult {
  Policy policy = Policy::Ideal;
  bool feasible = true;
  std::string problem;
  std::string caveat;  // what a feasible result rests on, when the report must say it
  SimSummary summary;
  std::vector<SimKernelTime> kernels;
  std::vector<Migration> migrations;
  std::vector<Residency> residency;
  std::vector<TierUsage> usage;  // at each kernel start, and at the end
};

// The plan's feasibility is carried over; the simulation itself never fails: what cannot fit on
// the GPU is a plan the caller has already rejected (see checkWorkingSets).
SimResult simulate(const SimWorkload& workload, const Plan& plan, const TierConfig& tiers);
// G10's simulator of explicit copies (plan.g10Copies; simulate() dispatches to it): one
// iteration, contiguous page runs, one copy at a time per stream (g10_copy_simulator.cpp).
SimResult simulateG10Copies(const SimWorkload& workload, const Plan& plan, const TierConfig& tiers);
// G10's simulator of unified memory, its pages held as runs (g10_um_simulator.cpp): simulate()
// dispatches to it for the demand-paged plans (g10, lru, deepum) of workloads read from G10's
// traces, which hold the fault times it needs.
SimResult simulateG10Unified(const SimWorkload& workload, const Plan& plan,
                             const TierConfig& tiers);

}  // namespace ts::memsim
