// The things events happen on: ranks, devices, processes, threads, contexts, streams.
// Entities are referred to by their index in the session's tables (uint32_t, kNone = absent).
#pragma once

#include <cstdint>
#include <string>

#include "session/types.h"

namespace ts {

// One host process group of a multi-rank run (a single-file session has rank 0).
struct Rank {
  int32_t rank = 0;
  std::string host;
  std::string label;         // "rank r / host" unless a source gave a better one
  TimeNs clockOffsetNs = 0;  // added to this rank's timestamps when the files were aligned
};

struct Device {
  uint32_t rank = 0;    // index into ranks
  int32_t ordinal = 0;  // the device id in the source (CUDA ordinal / CUPTI deviceId)
  std::string name;
  std::string uuid;
  int32_t computeMajor = 0;
  int32_t computeMinor = 0;
  int32_t smCount = 0;
  uint64_t memoryBytes = 0;
  uint64_t memoryBandwidthBytesPerSecond = 0;
  int32_t clockKHz = 0;
  int32_t maxWarpsPerSm = 0;
  int32_t maxBlocksPerSm = 0;
  int32_t maxThreadsPerBlock = 0;
  int32_t maxRegistersPerSm = 0;
  int32_t maxRegistersPerBlock = 0;
  int32_t maxSharedMemoryPerSm = 0;     // bytes
  int32_t maxSharedMemoryPerBlock = 0;  // bytes
  int32_t warpSize = 32;
};

struct Process {
  uint32_t rank = 0;
  int64_t pid = 0;  // negative: no number in the source (a trace's string pid; see name)
  std::string name;
  int64_t sortIndex = 0;  // display order a trace asked for (Chrome process_sort_index), 0 if none
};

struct Thread {
  uint32_t process = 0;  // index into processes
  int64_t tid = 0;       // negative: no number in the source (see name)
  std::string name;
  int64_t sortIndex = 0;  // Chrome thread_sort_index, 0 if none
};

struct Context {
  uint32_t device = 0;  // index into devices
  uint32_t contextId = 0;
  uint32_t process = kNone;
};

// CUPTI's stream id for work on no particular stream (context-wide synchronisation).
inline constexpr uint32_t kDeviceWideStream = 0xFFFFFFFFu;
// Tensorscope's stream id for unified-memory migrations: the driver moves pages on no stream of
// the program's (Nsight exports file them under stream 0), so a GPU's migrations get a stream of
// their own, drawn as its "Unified memory" row.
inline constexpr uint32_t kUnifiedMemoryStream = 0xFFFFFFFEu;
// Counters of unified-memory page faults: a GPU's (groups of faults the GPU raised, each sample
// adding its count) and a process's (faults of its CPU threads on managed memory).
inline constexpr const char* kGpuPageFaultCounter = "GPU page faults";
inline constexpr const char* kCpuPageFaultCounter = "CPU page faults";
// Categories of a thread's ranges that have rows of their own (Nsight exports): OS runtime
// library calls, and the thread's time on a CPU.
inline constexpr const char* kOsRuntimeCategory = "OS runtime";
inline constexpr const char* kThreadStateCategory = "thread state";
// PyTorch's Python call stack (with_stack=True), a row of its own too.
inline constexpr const char* kPythonStackCategory = "python_function";

struct Stream {
  uint32_t device = 0;  // index into devices
  uint32_t streamId = 0;
  uint32_t context = kNone;
  int32_t priority = 0;
  std::string name;  // user-given name (NVTX naming, Kineto stream labels), may be empty
};

}  // namespace ts
