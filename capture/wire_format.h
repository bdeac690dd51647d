// The record stream from a captured process to the launcher: frames of [u32 type][u32 length]
// [payload], host byte order (both ends run on one machine). Payloads are fixed-layout structs
// followed by length-prefixed strings. The injection library writes them; RecordSink reads them.
// A frame is only used once complete, so a target that dies mid-write loses only that frame.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace ts::capture {

inline constexpr uint32_t kWireVersion = 2;
inline constexpr uint32_t kMaxFrameBytes = 1u << 20;  // a name longer than this is cut
// The one message the launcher sends back: flush CUPTI's buffers now (before a stop). The target
// answers with a FlushDone frame once everything recorded until then is on its way.
inline constexpr char kFlushRequest = 'F';

enum class FrameType : uint32_t {
  Hello = 1,  // first frame of every connection
  Kernel = 2,
  Memcpy = 3,
  Memset = 4,
  Api = 5,
  Marker = 6,  // NVTX: start, end or instant
  Device = 7,
  Context = 8,
  Stream = 9,
  Sync = 10,
  Dropped = 11,  // records CUPTI could not keep
  Message = 12,  // an error or warning from the target side, for the user
  Overhead = 13,
  Unknown = 14,    // CUPTI record kinds we do not decode: counted
  End = 15,        // the target flushed everything and is exiting
  FlushDone = 16,  // the answer to kFlushRequest: every record before it has been sent
  Memory = 17,     // an allocation or a free (cudaMalloc, cudaFree, memory pools)
};

// Why records were dropped (CountFrame.detail of a Dropped frame).
enum class DropCause : uint32_t {
  Cupti = 0,       // CUPTI could not keep them (its buffers were full)
  Backlog = 1,     // the launcher did not keep up and the target's queue was full
  Unreadable = 2,  // CUPTI handed back a record it could not read (incomplete or invalid)
};

// Natural alignment (no packing): frames are copied with memcpy at both ends, which are one
// build on one machine, and kept in vectors whose fields are then safe to reference.
struct HelloFrame {
  uint32_t version = kWireVersion;
  int32_t pid = 0;
  int32_t ppid = 0;
  int32_t rank = -1;               // from RANK / OMPI_COMM_WORLD_RANK / PMI_RANK / SLURM_PROCID
  uint32_t cuptiVersion = 0;       // cuptiGetVersion of the library loaded; 0 when none was
  uint32_t cuptiBuiltVersion = 0;  // CUPTI_API_VERSION of the headers the injection was built with
  int64_t clockStartNs = 0;        // CUPTI timestamp when the library started
  // then: string host, string command line
};

struct KernelFrame {
  int64_t start = 0, end = 0;
  uint32_t deviceId = 0, contextId = 0, streamId = 0, correlationId = 0;
  int32_t gridX = 0, gridY = 0, gridZ = 0, blockX = 0, blockY = 0, blockZ = 0;
  uint16_t registersPerThread = 0;
  uint32_t staticSharedMemory = 0, dynamicSharedMemory = 0, localMemoryPerThread = 0;
  uint32_t graphId = 0;
  // then: string mangled name
};

struct MemcpyFrame {
  int64_t start = 0, end = 0;
  uint32_t deviceId = 0, contextId = 0, streamId = 0, correlationId = 0, runtimeCorrelationId = 0;
  uint64_t bytes = 0;
  uint8_t copyKind = 0;              // CUPTI_ACTIVITY_MEMCPY_KIND_*
  uint8_t srcKind = 0, dstKind = 0;  // CUPTI_ACTIVITY_MEMORY_KIND_*
  uint8_t async = 0;
  uint8_t peer = 0;  // from a MEMCPY2 (peer) record
  uint32_t srcDeviceId = 0, dstDeviceId = 0;
};

struct MemsetFrame {
  int64_t start = 0, end = 0;
  uint32_t deviceId = 0, contextId = 0, streamId = 0, correlationId = 0;
  uint64_t bytes = 0;
  uint32_t value = 0;
  uint8_t memoryKind = 0;
};

struct ApiFrame {
  int64_t start = 0, end = 0;
  uint32_t processId = 0, threadId = 0, correlationId = 0, cbid = 0;
  uint8_t driver = 0;  // 0 runtime, 1 driver
  int32_t returnValue = 0;
  // then: string name
};

struct MarkerFrame {
  int64_t timestamp = 0;
  uint64_t id = 0;
  uint32_t flags = 0;  // CUPTI_ACTIVITY_FLAG_MARKER_*
  uint32_t processId = 0, threadId = 0;
  // then: string name (empty on END), string domain
};

struct DeviceFrame {
  uint32_t id = 0;
  int32_t computeMajor = 0, computeMinor = 0, smCount = 0;
  uint64_t globalMemoryBytes = 0, globalMemoryBandwidthKBs = 0;
  int32_t coreClockKHz = 0;
  int32_t maxWarpsPerSm = 0, maxBlocksPerSm = 0, maxThreadsPerBlock = 0;
  int32_t maxRegistersPerSm = 0, maxRegistersPerBlock = 0;
  int32_t maxSharedMemoryPerSm = 0, maxSharedMemoryPerBlock = 0;
  // then: string name, string uuid (hex)
};

struct ContextFrame {
  uint32_t contextId = 0, deviceId = 0;
  uint32_t nullStreamId = 0;
};

struct StreamFrame {
  uint32_t contextId = 0, streamId = 0;
  int32_t priority = 0;
  uint32_t flags = 0;
};

struct SyncFrame {
  int64_t start = 0, end = 0;
  uint32_t contextId = 0, streamId = 0, correlationId = 0;
  uint32_t type = 0;  // CUpti_ActivitySynchronizationType
};

// CUPTI's memory activity record (CUPTI_ACTIVITY_KIND_MEMORY2): one allocation or free.
struct MemoryFrame {
  int64_t timestamp = 0;
  uint64_t address = 0, bytes = 0;
  uint32_t deviceId = 0, contextId = 0, streamId = 0, processId = 0, correlationId = 0;
  uint8_t operation = 0;   // CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_*: 1 allocation, 2 release
  uint8_t memoryKind = 0;  // CUPTI_ACTIVITY_MEMORY_KIND_*
  uint8_t poolType = 0;    // CUPTI_ACTIVITY_MEMORY_POOL_TYPE_*: 0 none (cudaMalloc), else a pool
};

struct CountFrame {  // Dropped, Overhead, Unknown
  uint64_t count = 0;
  uint32_t detail = 0;  // Dropped: the DropCause; Unknown: the CUPTI kind
};

// Appends frames to a byte buffer.
class FrameWriter {
 public:
  // A frame with no fixed part (Message: only a string; End: nothing).
  FrameWriter& begin(FrameType type) {
    start_ = buf_.size();
    put(static_cast<uint32_t>(type));
    put(uint32_t{0});  // length, set by end()
    return *this;
  }
  template <class T>
  FrameWriter& begin(FrameType type, const T& fixed) {
    begin(type);
    buf_.append(reinterpret_cast<const char*>(&fixed), sizeof(T));
    return *this;
  }
  FrameWriter& string(std::string_view s) {
    if (s.size() > kMaxFrameBytes / 2) s = s.substr(0, kMaxFrameBytes / 2);
    put(static_cast<uint32_t>(s.size()));
    buf_.append(s);
    return *this;
  }
  void end() {
    auto length = static_cast<uint32_t>(buf_.size() - start_ - 8);
    std::memcpy(buf_.data() + start_ + 4, &length, 4);
  }
  std::string& bytes() { return buf_; }
  void clear() { buf_.clear(); }
  // The frames written so far, leaving the writer empty.
  std::string take() {
    std::string out = std::move(buf_);
    buf_.clear();
    return out;
  }

 private:
  template <class U>
  void put(U v) {
    buf_.append(reinterpret_cast<const char*>(&v), sizeof(U));
  }
  std::string buf_;
  size_t start_ = 0;
};

// Reads one frame's payload: the fixed part, then strings.
class FrameReader {
 public:
  explicit FrameReader(std::string_view payload) : p_(payload) {}
  template <class T>
  bool fixed(T& out) {
    if (p_.size() < sizeof(T)) return false;
    std::memcpy(&out, p_.data(), sizeof(T));
    p_.remove_prefix(sizeof(T));
    return true;
  }
  bool string(std::string& out) {
    uint32_t n = 0;
    if (!fixed(n) || p_.size() < n) return false;
    out.assign(p_.data(), n);
    p_.remove_prefix(n);
    return true;
  }

 private:
  std::string_view p_;
};

}  // namespace ts::capture
