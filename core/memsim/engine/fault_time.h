// What a kernel that page-faults costs, as G10's unified-memory simulator charges it
// (G10 src/simulationEvents.cc, performance_model and KernelBeginEvent::getPageFaultTime): from
// the kernel's measured times with no operand faulting, with its outputs faulting, and with every
// operand faulting, the share of its input and output pages that fault now (pages already on
// their way count as not faulting), where they come from, the bandwidths and the latencies.
// The measured times give the rate at which this kernel's faults are served (its bytes over the
// extra time); an SSD fault is served at that rate times the share of the system latency in the
// SSD's whole latency, capped by the SSD's bandwidth; host faults share PCIe with it.
#pragma once

#include <cstdint>

#include "memsim/engine/tier_config.h"
#include "memsim/engine/workload.h"

namespace ts::memsim {

struct KernelFaults {
  int64_t inputPages = 0, outputPages = 0;  // every page of the kernel's inputs / outputs
  // Faulting now, by where the page is: host memory, SSD, nowhere yet (first touch).
  int64_t inputHost = 0, inputSsd = 0, inputNew = 0;
  int64_t outputHost = 0, outputSsd = 0, outputNew = 0;
  bool any() const {
    return inputHost + inputSsd + inputNew + outputHost + outputSsd + outputNew > 0;
  }
};

struct FaultTimeInputs {
  double plainMs = 0;      // no faults
  double outputsPfMs = 0;  // outputs faulting (G10's InputPF trace)
  double allPfMs = 0;      // every operand faulting (G10's PF trace)
  double pcieBytesPerMs = 0;
  double ssdBytesPerMs = 0;
  double systemLatencyUs = 0;  // G10 passes both latencies as whole microseconds
  double ssdLatencyUs = 0;
  int64_t pageBytes = 4096;
};

// The time the faults add to the kernel, in ms (G10's ΔT_PF).
double g10FaultDelayMs(const FaultTimeInputs& in, const KernelFaults& f);

// What G10's simulator of unified memory derives from the tiers (BatcherEvent,
// src/resources/genconfigs.py), for both readings of it (g10_um_simulator.cpp and the page-by-page
// reference of the tests).
inline constexpr int kG10BatchPages = 50;  // PCIe_batch_size_page
struct G10UnifiedSettings {
  double hz = 1.2e9;
  double pcieBytesPerCycle = 0, ssdBytesPerCycle = 0;
  int64_t batchCycles = 1;          // a batch every 50 pages' worth of PCIe time
  int hostBatch = 0, ssdBatch = 0;  // each tier's share of a batch's 50 pages
  int allocBatch = 0;               // first-touch pages a batch allocates
  int64_t gpuPages = 0, hostLine = 0;
};
G10UnifiedSettings g10UnifiedSettings(const TierConfig& tiers, bool hostAllowed);

// A faulting kernel's time in cycles: its own and the faults' delay, as G10 computes it.
int64_t g10FaultedCycles(const SimWorkload& w, int kernel, const KernelFaults& f,
                         const G10UnifiedSettings& s, const TierConfig& tiers);

}  // namespace ts::memsim
