// Column layouts of events. Hot columns (time, name, lane) are shared by every track; each kind
// adds detail columns in a side table. Columns are listed once, as X-macros, so the in-memory
// structs, the builder and the .tscope reader/writer cannot drift apart.
//
// Column names are stored in .tscope files: add new columns freely (old files lack them and read
// as zeros); never rename or retype one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "session/column.h"
#include "session/types.h"

namespace ts {

// Hot columns: 8 + 8 + 4 + 2 = 22 bytes per event (+ 4 for the lane index of multi-lane tracks).
#define TS_HOT_COLUMNS(X)   \
  X(TimeNs, start, "start") \
  X(TimeNs, end, "end")     \
  X(StringId, name, "name") \
  X(uint16_t, lane, "lane")

// A kernel launch as importers give it and files store it (KernelDetail). In memory the fields
// that repeat from launch to launch — the launch configuration and the profiler's estimates,
// the same for every launch of a kernel with the same inputs — are kept once per distinct value
// (KernelColumns below): a kernel costs 24 bytes of details instead of 70.
#define TS_KERNEL_OWN_COLUMNS(X)          \
  X(StringId, mangled, "mangled")         \
  X(uint32_t, correlation, "correlation") \
  X(uint32_t, context, "context")         \
  X(uint32_t, graphId, "graph_id")        \
  X(uint32_t, externalId, "external_id")

#define TS_LAUNCH_FIELDS(X)                                                                    \
  X(uint32_t, gridX, "grid_x")                                                                 \
  X(uint32_t, gridY, "grid_y")                                                                 \
  X(uint32_t, gridZ, "grid_z")                                                                 \
  X(uint32_t, blockX, "block_x")                                                               \
  X(uint32_t, blockY, "block_y")                                                               \
  X(uint32_t, blockZ, "block_z")                                                               \
  X(uint16_t, registersPerThread, "registers_per_thread")                                      \
  X(uint32_t, staticSharedMemory, "static_shared_memory")                                      \
  X(uint32_t, dynamicSharedMemory, "dynamic_shared_memory")                                    \
  X(uint32_t, localMemoryPerThread, "local_memory_per_thread")                                 \
  X(uint8_t, launchType, "launch_type")                                                        \
  /* What the PyTorch profiler reports (Kineto args), with a bit each in reportedStats:    */  \
  /* 1 est. achieved occupancy (in hundredths of a percent), 2 blocks and 4 warps per SM    */ \
  /* (in thousandths), 8 the op's external id.                                             */  \
  X(uint8_t, reportedStats, "reported_stats")                                                  \
  X(uint16_t, estOccupancyX100, "est_occupancy_x100")                                          \
  X(uint32_t, blocksPerSmX1000, "blocks_per_sm_x1000")                                         \
  X(uint32_t, warpsPerSmX1000, "warps_per_sm_x1000")

#define TS_KERNEL_COLUMNS(X) \
  TS_KERNEL_OWN_COLUMNS(X)   \
  TS_LAUNCH_FIELDS(X)

#define TS_MEMCPY_COLUMNS(X)                           \
  X(uint64_t, bytes, "bytes")                          \
  X(CopyKind, copyKind, "copy_kind")                   \
  X(MemoryKind, srcKind, "src_kind")                   \
  X(MemoryKind, dstKind, "dst_kind")                   \
  X(int32_t, srcDevice, "src_device")                  \
  X(int32_t, dstDevice, "dst_device")                  \
  X(uint8_t, async, "async")                           \
  X(uint32_t, correlation, "correlation")              \
  X(uint32_t, context, "context")                      \
  X(uint8_t, migration, "migration")                   \
  X(MigrationCause, migrationCause, "migration_cause") \
  X(uint64_t, address, "address")                      \
  X(uint32_t, externalId, "external_id")               \
  X(uint8_t, hasExternalId, "has_external_id") /* the PyTorch op's id, when reported */

#define TS_MEMSET_COLUMNS(X)              \
  X(uint64_t, bytes, "bytes")             \
  X(uint32_t, value, "value")             \
  X(MemoryKind, memKind, "mem_kind")      \
  X(uint32_t, correlation, "correlation") \
  X(uint32_t, context, "context")         \
  X(uint32_t, externalId, "external_id")  \
  X(uint8_t, hasExternalId, "has_external_id")

#define TS_API_COLUMNS(X)                 \
  X(uint32_t, correlation, "correlation") \
  X(int32_t, returnCode, "return_code")   \
  X(ApiDomain, domain, "domain")

#define TS_NVTX_COLUMNS(X)      \
  X(StringId, domain, "domain") \
  X(uint32_t, color, "color")   \
  X(uint8_t, isMark, "is_mark") \
  X(StringId, inputs, "inputs") /* a PyTorch op's recorded inputs (session/op_inputs.h) */

#define TS_RANGE_COLUMNS(X)         \
  X(StringId, category, "category") \
  X(StringId, args, "args")

#define TS_DECLARE_FIELD(type, member, column) type member{};
#define TS_DECLARE_VECTOR(type, member, column) Column<type> member;
#define TS_PUSH_FIELD(type, member, column) member.push_back(row.member);
#define TS_GET_FIELD(type, member, column) row.member = member[i];
#define TS_VISIT_FIELD(type, member, column) f(column, member);
#define TS_RESIZE_FIELD(type, member, column) member.resize(n);
#define TS_RESERVE_FIELD(type, member, column) member.reserve(n);
#define TS_BYTES_FIELD(type, member, column) +sizeof(type)

// One row (Row) and its columnar table (Columns) for a list of columns.
#define TS_DEFINE_TABLE(Row, Columns, COLUMNS)                                  \
  struct Row {                                                                  \
    COLUMNS(TS_DECLARE_FIELD)                                                   \
  };                                                                            \
  struct Columns {                                                              \
    COLUMNS(TS_DECLARE_VECTOR)                                                  \
    static constexpr size_t kRowBytes = 0 COLUMNS(TS_BYTES_FIELD);              \
    void push(const Row& row){COLUMNS(TS_PUSH_FIELD)} Row row(size_t i) const { \
      Row row;                                                                  \
      COLUMNS(TS_GET_FIELD)                                                     \
      return row;                                                               \
    }                                                                           \
    void resize(size_t n) {                                                     \
      COLUMNS(TS_RESIZE_FIELD)                                                  \
    }                                                                           \
    void reserve(size_t n) {                                                    \
      COLUMNS(TS_RESERVE_FIELD)                                                 \
    }                                                                           \
    /* f(const char* column, std::vector<T>& values) for every column */        \
    template <class F>                                                          \
    void visit(F&& f) {                                                         \
      COLUMNS(TS_VISIT_FIELD)                                                   \
    }                                                                           \
    template <class F>                                                          \
    void visit(F&& f) const {                                                   \
      COLUMNS(TS_VISIT_FIELD)                                                   \
    }                                                                           \
  };

TS_DEFINE_TABLE(HotRow, HotColumns, TS_HOT_COLUMNS)
// Every field of every launch, column by column: what a .tscope file stores.
TS_DEFINE_TABLE(KernelDetail, KernelFileColumns, TS_KERNEL_COLUMNS)

// What repeats from launch to launch of a kernel.
struct LaunchConfig {
  TS_LAUNCH_FIELDS(TS_DECLARE_FIELD)
  bool operator==(const LaunchConfig&) const = default;
};
struct LaunchConfigHash {
  size_t operator()(const LaunchConfig& c) const;
};

// The kernels of a track: per launch its own fields and the index of its configuration in
// `launches` (distinct, numbered in order of first use once the track is built: renumber()).
// push() and row() take and give whole KernelDetails; visit() visits the per-launch columns.
class KernelColumns {
 public:
  TS_KERNEL_OWN_COLUMNS(TS_DECLARE_VECTOR)
  Column<uint32_t> launch;             // index into launches
  std::vector<LaunchConfig> launches;  // each distinct configuration once
  // Per launch; the configurations are counted apart (sharedBytes).
  static constexpr size_t kRowBytes = 0 TS_KERNEL_OWN_COLUMNS(TS_BYTES_FIELD) + sizeof(uint32_t);

  void push(const KernelDetail& row);
  KernelDetail row(size_t i) const;
  const LaunchConfig& launchOf(size_t i) const { return launches[launch[i]]; }
  size_t size() const { return launch.size(); }
  void reserve(size_t n);
  size_t sharedBytes() const { return launches.size() * sizeof(LaunchConfig); }
  // Configurations numbered in order of first use, unused ones dropped: the same columns for
  // the same launches, whatever order they were pushed in (builders sort events by time).
  void renumber();
  // Every launch's whole row, as a save writes them (visitFileColumns); and back.
  KernelFileColumns toFile() const;
  static KernelColumns fromFile(const KernelFileColumns& file);
  // f(const char* column, const std::vector<T>&) for each column a file stores, the shared
  // fields written out one column at a time (a save holds one such column, not all of them).
  template <class F>
  void visitFileColumns(F&& f) const {
    TS_KERNEL_OWN_COLUMNS(TS_VISIT_FIELD)
#define TS_VISIT_LAUNCH_FIELD(type, member, column)                                 \
  {                                                                                 \
    Column<type> values(launch.size());                                             \
    type* out = values.data();                                                      \
    for (size_t i = 0; i < launch.size(); ++i) out[i] = launches[launch[i]].member; \
    f(column, values);                                                              \
  }
    TS_LAUNCH_FIELDS(TS_VISIT_LAUNCH_FIELD)
#undef TS_VISIT_LAUNCH_FIELD
  }

  template <class F>
  void visit(F&& f) {
    TS_KERNEL_OWN_COLUMNS(TS_VISIT_FIELD)
    f("launch", launch);
  }
  template <class F>
  void visit(F&& f) const {
    TS_KERNEL_OWN_COLUMNS(TS_VISIT_FIELD)
    f("launch", launch);
  }

 private:
  // launches → index, while launches are pushed; dropped once built (renumber, fromFile) and
  // made again if more come.
  std::unordered_map<LaunchConfig, uint32_t, LaunchConfigHash> index_;
};

// KernelDetail::reportedStats bits.
inline constexpr uint8_t kReportedOccupancy = 1, kReportedBlocksPerSm = 2, kReportedWarpsPerSm = 4,
                         kReportedExternalId = 8;
TS_DEFINE_TABLE(MemcpyDetail, MemcpyColumns, TS_MEMCPY_COLUMNS)
TS_DEFINE_TABLE(MemsetDetail, MemsetColumns, TS_MEMSET_COLUMNS)
TS_DEFINE_TABLE(ApiDetail, ApiColumns, TS_API_COLUMNS)
TS_DEFINE_TABLE(NvtxDetail, NvtxColumns, TS_NVTX_COLUMNS)
TS_DEFINE_TABLE(RangeDetail, RangeColumns, TS_RANGE_COLUMNS)

static_assert(HotColumns::kRowBytes <= 32, "hot columns must stay within 32 bytes per event");

// A flow arrow: the API call that launched GPU work (or any source → destination pair).
#define TS_FLOW_COLUMNS(X)           \
  X(uint32_t, srcTrack, "src_track") \
  X(uint32_t, srcEvent, "src_event") \
  X(uint32_t, dstTrack, "dst_track") \
  X(uint32_t, dstEvent, "dst_event")

TS_DEFINE_TABLE(Flow, FlowColumns, TS_FLOW_COLUMNS)

// Counter samples: a value holds from its time until the next sample. A memory counter's sample
// may say what changed it (PyTorch's [memory] events): the allocation's signed size (a free is
// negative) and its address; both 0 for any other counter.
#define TS_COUNTER_COLUMNS(X)  \
  X(TimeNs, time, "time")      \
  X(double, value, "value")    \
  X(int64_t, change, "change") \
  X(uint64_t, address, "address")

TS_DEFINE_TABLE(CounterSample, CounterColumns, TS_COUNTER_COLUMNS)

}  // namespace ts
