// Basic vocabulary of a session: time, string ids, event and copy kinds.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "util/time_ns.h"

namespace ts {

// TimeNs (util/time_ns.h): nanoseconds; every timestamp in Tensorscope is one of these
// (conversions happen at the edges).
// Index into a session's StringTable; 0 is the empty string.
using StringId = uint32_t;
// "No entity" for optional indices into the session's entity tables.
inline constexpr uint32_t kNone = 0xFFFFFFFFu;

// What a track holds. Values are stored in .tscope files: append only, never renumber.
enum class EventKind : uint8_t {
  Kernel = 0,
  Memcpy = 1,
  Memset = 2,
  Api = 3,    // CUDA runtime / driver API calls on a CPU thread
  Nvtx = 4,   // NVTX ranges and marks (and annotation ranges from other tools)
  Range = 5,  // generic ranges of categories Tensorscope does not model (kept, not dropped)
};
inline constexpr int kEventKindCount = 6;

// Copy direction. Stored in files: append only.
enum class CopyKind : uint8_t { HtoD = 0, DtoH = 1, DtoD = 2, PtoP = 3, HtoH = 4, Other = 5 };
inline constexpr int kCopyKindCount = 6;

// Where copied or set memory lives (CUPTI's numbering). Stored in files: append only.
enum class MemoryKind : uint8_t {
  Unknown = 0,
  Pageable = 1,
  Pinned = 2,
  Device = 3,
  Array = 4,
  Managed = 5,
  DeviceStatic = 6,
  ManagedStatic = 7,
};
inline constexpr int kMemoryKindCount = 8;

enum class ApiDomain : uint8_t { Runtime = 0, Driver = 1, Other = 2 };

// Why the driver migrated unified memory (CUPTI's CUpti_ActivityUnifiedMemoryMigrationCause,
// which Nsight exports keep). Stored in files: append only.
enum class MigrationCause : uint8_t {
  Unknown = 0,
  User = 1,            // an explicit prefetch (cudaMemPrefetchAsync)
  Coherence = 2,       // a page fault: the data was needed where it was not
  Prefetch = 3,        // the driver's speculative prefetch
  Eviction = 4,        // made room on the destination
  AccessCounters = 5,  // access-counter-driven migration
};
inline constexpr int kMigrationCauseCount = 6;

std::string_view toString(EventKind kind);
std::string_view toString(CopyKind kind);
std::string_view toString(MemoryKind kind);
std::string_view toString(ApiDomain domain);
std::string_view toString(MigrationCause cause);  // "page fault", "prefetch (user)", ...
// A copy's kind as tables show it: "HtoD", or "Unified memory HtoD" for a migration.
std::string copyLabel(CopyKind kind, bool migration);
std::optional<CopyKind> copyKindFromString(std::string_view text);

}  // namespace ts
