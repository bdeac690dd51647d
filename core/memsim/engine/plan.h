// A migration plan: what a memory-management policy does at each kernel of an iteration —
// allocate, free, evict to host or SSD, prefetch to the GPU — plus how the runtime behaves when
// the plan falls short (demand paging with LRU eviction, or explicit copies). The planners
// produce one; the simulator executes it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ts::memsim {

enum class Policy { G10, Lru, DeepUm, FlashNeuron, G10Gds, G10Host, Ideal };

// "g10", "lru", "deepum", "flashneuron", "g10-gds", "g10-host", "ideal".
const char* toString(Policy p);
std::optional<Policy> parsePolicy(std::string_view name);
std::vector<Policy> allPolicies();  // best to worst as G10 ranks them is not assumed: a fixed order

enum class Tier : uint8_t { None, Gpu, Host, Ssd };
const char* toString(Tier t);

struct Action {
  enum Kind : uint8_t { Allocate, Free, EvictToHost, EvictToSsd, Prefetch };
  int kernel = 0;  // issued when this kernel starts
  int tensor = 0;
  Kind kind = Allocate;
};
const char* toString(Action::Kind k);

struct Plan {
  Policy policy = Policy::Ideal;
  bool feasible = true;
  std::string problem;              // why it is not feasible
  std::string note;                 // how it was made, for reports
  std::vector<Action> actions;      // sorted by kernel
  bool unifiedMemory = true;        // misses are page faults (UVM); otherwise explicit copies
  bool discardDead = false;         // LRU drops a dead tensor's pages instead of writing them back
  bool infiniteGpu = false;         // ideal
  bool hostAllowed = true;          // g10-gds and FlashNeuron use the SSD only
  int protectNext = 0;              // LRU spares the tensors of the next N kernels (DeepUM)
  bool evictFarthestFirst = false;  // the runtime knows the schedule: evict by next use, not LRU
  // Executed by G10's own simulator of explicit copies (g10_copy_simulator.cpp), as G10 runs
  // FlashNeuron and its GPUDirect variants, rather than by ours.
  bool g10Copies = false;
};

}  // namespace ts::memsim
