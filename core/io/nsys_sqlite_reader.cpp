#include "io/nsys_sqlite_reader.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <vector>

namespace ts {

namespace {

constexpr const char* kKernelTable = "CUPTI_ACTIVITY_KIND_KERNEL";
constexpr const char* kMemcpyTable = "CUPTI_ACTIVITY_KIND_MEMCPY";
constexpr const char* kMemsetTable = "CUPTI_ACTIVITY_KIND_MEMSET";
constexpr const char* kRuntimeTable = "CUPTI_ACTIVITY_KIND_RUNTIME";
constexpr const char* kDriverTable = "CUPTI_ACTIVITY_KIND_DRIVER";
constexpr const char* kNvtxTable = "NVTX_EVENTS";
constexpr const char* kGpuFaultTable = "CUDA_UM_GPU_PAGE_FAULT_EVENTS";
constexpr const char* kCpuFaultTable = "CUDA_UM_CPU_PAGE_FAULT_EVENTS";
constexpr const char* kOsrtTable = "OSRT_API";
constexpr const char* kSchedTable = "SCHED_EVENTS";
// Tables of lookups and descriptions, not of events: never "left out".
bool isLookupTable(std::string_view table) {
  return table.starts_with("ENUM_") || table.starts_with("TARGET_INFO_") ||
         table.starts_with("META_DATA_") || table.starts_with("sqlite_") ||
         table.starts_with("ANALYSIS_") || table == "EXPORT_META_DATA" || table == "StringIds" ||
         table == "ThreadNames" || table == "PROCESSES" || table == "ProcessStreams";
}

// NVTX_EVENTS.eventType values.
constexpr int64_t kNvtxMark = 34, kNvtxPushPop = 59, kNvtxStartEnd = 60, kNvtxDomainCreate = 75;

// nsys packs ids: PID = (global >> 24) & 0xFFFFFF, TID = global & 0xFFFFFF.
int64_t pidOf(int64_t global) {
  return (global >> 24) & 0xFFFFFF;
}
int64_t tidOf(int64_t global) {
  return global & 0xFFFFFF;
}

// nsys memory kinds: 0 pageable, 1 pinned, 2 device, 3 array, 4 managed, 5 device static,
// 6 managed static, 7 unknown (not CUPTI's numbering).
bool memoryKindFromNsys(int64_t v, MemoryKind& out) {
  if (v < 0 || v > 7) return false;
  out = v == 7 ? MemoryKind::Unknown : static_cast<MemoryKind>(v + 1);
  return true;
}

const char* memoryKindWord(MemoryKind k) {
  switch (k) {
    case MemoryKind::Pageable:
      return "Pageable";
    case MemoryKind::Pinned:
      return "Pinned";
    case MemoryKind::Device:
    case MemoryKind::DeviceStatic:
      return "Device";
    case MemoryKind::Array:
      return "Array";
    case MemoryKind::Managed:
    case MemoryKind::ManagedStatic:
      return "Managed";
    case MemoryKind::Unknown:
      break;
  }
  return "Unknown";
}

// CUPTI copy kinds as nsys stores them, plus 11-13 for unified-memory migrations.
bool copyKindFromNsys(int64_t v, CopyKind& out, bool& uvm) {
  uvm = v >= 11 && v <= 13;
  switch (v) {
    case 1:
    case 11:
      out = CopyKind::HtoD;
      return true;
    case 2:
    case 12:
      out = CopyKind::DtoH;
      return true;
    case 8:
    case 13:
      out = CopyKind::DtoD;
      return true;
    case 9:
      out = CopyKind::HtoH;
      return true;
    case 10:
      out = CopyKind::PtoP;
      return true;
    case 0:
    case 3:
    case 4:
    case 5:
    case 6:
    case 7:
      out = CopyKind::Other;
      return true;
    default:
      return false;
  }
}

// "cudaLaunchKernel_v7000" → "cudaLaunchKernel".
std::string_view withoutVersion(std::string_view name) {
  auto v = name.rfind("_v");
  if (v == std::string_view::npos || v + 2 >= name.size()) return name;
  for (size_t i = v + 2; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return name;
  }
  return name.substr(0, v);
}

class NsysImporter {
 public:
  NsysImporter(const std::string& path, SqliteDb& db, SessionBuilder& b, uint32_t rank,
               const Progress& progress)
      : path_(path), db_(db), b_(b), rank_(rank), progress_(progress) {}

  Result<ImportInfo> run();

 private:
  Status fail(const std::string& table, int64_t rowid, const std::string& what) const {
    return Error{path_ + ": table " + table + (rowid >= 0 ? " row " + std::to_string(rowid) : "") +
                 ": " + what};
  }
  std::set<std::string> columnsOf(const std::string& table);
  // A SELECT of `wanted` columns (rowid first); missing optional columns read as NULL, missing
  // required ones are an error.
  Result<SqliteStatement> select(const std::string& table, const std::vector<std::string>& required,
                                 const std::vector<std::string>& optional,
                                 const std::string& tail = {});
  Status readStrings();
  Status readMetadata();
  Status readTargets();
  Status readNames();
  Status readKernels();
  Status readMemcpys();
  Status readMemsets();
  Status readPageFaults();
  Status readOsRuntime();
  Status readScheduling();
  Status countUnreadTables();
  Status readApi(const char* table, ApiDomain domain);
  Status readNvtx();

  // The string of an id, or an error naming the table and row.
  Status string(const std::string& table, int64_t rowid, int64_t id, std::string_view& out) const;
  uint32_t device(int64_t globalPid, int64_t deviceId);
  uint32_t stream(int64_t globalPid, int64_t deviceId, int64_t contextId, int64_t streamId);
  uint32_t thread(int64_t globalTid);
  void sawTime(TimeNs t) { first_ = std::min(first_, t); }

  const std::string& path_;
  SqliteDb& db_;
  SessionBuilder& b_;
  uint32_t rank_;
  const Progress& progress_;
  ImportInfo info_;
  TimeNs first_ = INT64_MAX;
  std::unordered_map<int64_t, std::string> strings_;
  std::map<std::pair<int64_t, int64_t>, int64_t> cudaToGpu_;  // (pid, CUDA ordinal) → GPU id
  std::map<int64_t, Device> gpus_;                            // TARGET_INFO_GPU by id
  std::set<uint32_t> filledDevices_;
  std::string schemaVersion_;
};

std::set<std::string> NsysImporter::columnsOf(const std::string& table) {
  std::set<std::string> cols;
  auto q = db_.prepare("PRAGMA table_info(\"" + table + "\")");
  if (!q) return cols;
  while (q->step()) cols.insert(q->text(1));
  return cols;
}

Result<SqliteStatement> NsysImporter::select(const std::string& table,
                                             const std::vector<std::string>& required,
                                             const std::vector<std::string>& optional,
                                             const std::string& tail) {
  std::set<std::string> have = columnsOf(table);
  std::string sql = "SELECT rowid";
  for (const std::string& c : required) {
    if (!have.count(c)) return Error{fail(table, -1, "lacks the column '" + c + "'").error()};
    sql += ", \"" + c + "\"";
  }
  for (const std::string& c : optional) sql += have.count(c) ? ", \"" + c + "\"" : ", NULL";
  sql += " FROM \"" + table + "\" " + tail;
  auto q = db_.prepare(sql);
  if (!q) return Error{fail(table, -1, q.error()).error()};
  return q;
}

Status NsysImporter::string(const std::string& table, int64_t rowid, int64_t id,
                            std::string_view& out) const {
  auto it = strings_.find(id);
  if (it == strings_.end())
    return fail(table, rowid, "string id " + std::to_string(id) + " is not in StringIds");
  out = it->second;
  return {};
}

Status NsysImporter::readStrings() {
  if (!db_.hasTable("StringIds")) return {};
  auto q = select("StringIds", {"id", "value"}, {});
  if (!q) return q.failure();
  while (q->step()) strings_[q->int64(1)] = q->text(2);
  return q->status();
}

Status NsysImporter::readMetadata() {
  for (const char* table : {"META_DATA_EXPORT", "EXPORT_META_DATA"}) {  // newer, older name
    if (!db_.hasTable(table)) continue;
    auto q = select(table, {"name", "value"}, {});
    if (!q) return q.failure();
    while (q->step()) {
      if (q->text(1) == "EXPORT_SCHEMA_VERSION") schemaVersion_ = q->text(2);
    }
    return q->status();
  }
  return {};
}

Status NsysImporter::readTargets() {
  if (db_.hasTable("TARGET_INFO_GPU")) {
    auto q = select(
        "TARGET_INFO_GPU", {"id"},
        {"name", "uuid", "smCount", "totalMemory", "memoryBandwidth", "clockRate", "maxWarpsPerSm",
         "maxBlocksPerSm", "maxShmemPerSm", "maxRegistersPerSm", "computeMajor", "computeMinor"});
    if (!q) return q.failure();
    while (q->step()) {
      Device d;
      d.name = q->text(2);
      d.uuid = q->text(3);
      auto i32 = [&](int c) {
        return static_cast<int32_t>(std::clamp<int64_t>(q->int64(c), 0, INT32_MAX));
      };
      d.smCount = i32(4);
      d.memoryBytes = static_cast<uint64_t>(std::max<int64_t>(q->int64(5), 0));
      d.memoryBandwidthBytesPerSecond = static_cast<uint64_t>(std::max<int64_t>(q->int64(6), 0));
      d.clockKHz = static_cast<int32_t>(std::max<int64_t>(q->int64(7), 0) / 1000);  // Hz in nsys
      d.maxWarpsPerSm = i32(8);
      d.maxBlocksPerSm = i32(9);
      d.maxSharedMemoryPerSm = i32(10);
      d.maxRegistersPerSm = i32(11);
      d.computeMajor = i32(12);
      d.computeMinor = i32(13);
      d.maxThreadsPerBlock = 1024;  // every CUDA GPU since compute capability 2.0
      gpus_[q->int64(1)] = std::move(d);
    }
    if (Status st = q->status(); !st) return fail("TARGET_INFO_GPU", -1, st.error());
  }
  if (db_.hasTable("TARGET_INFO_CUDA_DEVICE")) {
    auto q = select("TARGET_INFO_CUDA_DEVICE", {"gpuId", "cudaId"}, {"pid"});
    if (!q) return q.failure();
    while (q->step()) cudaToGpu_[{q->isNull(3) ? -1 : q->int64(3), q->int64(2)}] = q->int64(1);
    if (Status st = q->status(); !st) return fail("TARGET_INFO_CUDA_DEVICE", -1, st.error());
  }
  return {};
}

uint32_t NsysImporter::device(int64_t globalPid, int64_t deviceId) {
  uint32_t d = b_.device(rank_, static_cast<int32_t>(deviceId));
  if (filledDevices_.insert(d).second) {
    // Activity records carry the CUDA ordinal of their process; TARGET_INFO_CUDA_DEVICE says which
    // GPU that is. Without it, the ordinal is taken as the GPU id.
    int64_t gpu = deviceId;
    auto it = cudaToGpu_.find({pidOf(globalPid), deviceId});
    if (it == cudaToGpu_.end()) it = cudaToGpu_.find({-1, deviceId});
    if (it != cudaToGpu_.end()) gpu = it->second;
    if (auto g = gpus_.find(gpu); g != gpus_.end()) {
      Device& target = b_.deviceInfo(d);
      Device info = g->second;
      info.rank = target.rank;
      info.ordinal = target.ordinal;
      target = std::move(info);
    }
  }
  return d;
}

uint32_t NsysImporter::stream(int64_t globalPid, int64_t deviceId, int64_t contextId,
                              int64_t streamId) {
  uint32_t d = device(globalPid, deviceId);
  uint32_t s = b_.stream(d, static_cast<uint32_t>(streamId));
  Stream& st = b_.streamInfo(s);
  if (st.context == kNone) {
    st.context = b_.context(d, static_cast<uint32_t>(contextId));
    b_.contextInfo(st.context).process = b_.process(rank_, pidOf(globalPid));
  }
  return s;
}

uint32_t NsysImporter::thread(int64_t globalTid) {
  return b_.thread(b_.process(rank_, pidOf(globalTid)), tidOf(globalTid));
}

Status NsysImporter::readNames() {
  if (db_.hasTable("PROCESSES")) {
    auto q = select("PROCESSES", {"globalPid", "pid"}, {"name"});
    if (!q) return q.failure();
    while (q->step()) b_.processInfo(b_.process(rank_, pidOf(q->int64(1)))).name = q->text(3);
    if (Status st = q->status(); !st) return fail("PROCESSES", -1, st.error());
  }
  if (db_.hasTable("ThreadNames")) {
    auto q = select("ThreadNames", {"nameId", "globalTid"}, {});
    if (!q) return q.failure();
    while (q->step()) {
      std::string_view name;
      if (Status st = string("ThreadNames", q->int64(0), q->int64(1), name); !st) return st;
      b_.threadInfo(thread(q->int64(2))).name = std::string(name);
    }
    if (Status st = q->status(); !st) return fail("ThreadNames", -1, st.error());
  }
  return {};
}

Status NsysImporter::readKernels() {
  if (!db_.hasTable(kKernelTable)) return {};
  auto q = select(kKernelTable,
                  {"start", "end", "deviceId", "contextId", "streamId", "gridX", "gridY", "gridZ",
                   "blockX", "blockY", "blockZ", "registersPerThread"},
                  {"correlationId", "globalPid", "demangledName", "shortName", "mangledName",
                   "staticSharedMemory", "dynamicSharedMemory", "localMemoryPerThread",
                   "launchType", "graphId"});
  if (!q) return q.failure();
  while (q->step()) {
    int64_t row = q->int64(0);
    TimeNs start = q->int64(1), end = q->int64(2);
    if (end < start) return fail(kKernelTable, row, "ends before it starts");
    KernelDetail k;
    k.gridX = static_cast<uint32_t>(q->int64(6)), k.gridY = static_cast<uint32_t>(q->int64(7));
    k.gridZ = static_cast<uint32_t>(q->int64(8));
    k.blockX = static_cast<uint32_t>(q->int64(9)), k.blockY = static_cast<uint32_t>(q->int64(10));
    k.blockZ = static_cast<uint32_t>(q->int64(11));
    k.registersPerThread = static_cast<uint16_t>(std::clamp<int64_t>(q->int64(12), 0, 65535));
    k.correlation = static_cast<uint32_t>(q->int64(13));
    int64_t globalPid = q->int64(14);
    // The demangled name, else the short one; the mangled name as it is, when there is one.
    std::string_view name;
    int nameColumn = !q->isNull(15) ? 15 : 16;
    if (q->isNull(nameColumn)) return fail(kKernelTable, row, "has no kernel name");
    if (Status st = string(kKernelTable, row, q->int64(nameColumn), name); !st) return st;
    if (!q->isNull(17)) {
      std::string_view mangled;
      if (Status st = string(kKernelTable, row, q->int64(17), mangled); !st) return st;
      k.mangled = b_.intern(mangled);
    }
    k.staticSharedMemory = static_cast<uint32_t>(std::max<int64_t>(q->int64(18), 0));
    k.dynamicSharedMemory = static_cast<uint32_t>(std::max<int64_t>(q->int64(19), 0));
    k.localMemoryPerThread = static_cast<uint32_t>(std::max<int64_t>(q->int64(20), 0));
    k.launchType = static_cast<uint8_t>(q->int64(21));
    k.graphId = static_cast<uint32_t>(q->int64(22));
    k.context = static_cast<uint32_t>(q->int64(4));
    b_.addKernel(stream(globalPid, q->int64(3), q->int64(4), q->int64(5)), start, end,
                 b_.intern(name), k);
    sawTime(start);
    ++info_.events;
  }
  if (Status st = q->status(); !st) return fail(kKernelTable, -1, st.error());
  return {};
}

Status NsysImporter::readMemcpys() {
  if (!db_.hasTable(kMemcpyTable)) return {};
  auto q = select(kMemcpyTable,
                  {"start", "end", "deviceId", "contextId", "streamId", "bytes", "copyKind"},
                  {"correlationId", "globalPid", "srcKind", "dstKind", "srcDeviceId", "dstDeviceId",
                   "migrationCause", "virtualAddress"});
  if (!q) return q.failure();
  while (q->step()) {
    int64_t row = q->int64(0);
    TimeNs start = q->int64(1), end = q->int64(2);
    if (end < start) return fail(kMemcpyTable, row, "ends before it starts");
    MemcpyDetail m;
    bool uvm = false;
    if (!copyKindFromNsys(q->int64(7), m.copyKind, uvm)) {
      return fail(kMemcpyTable, row, "unknown copyKind " + std::to_string(q->int64(7)));
    }
    if (q->int64(6) < 0) return fail(kMemcpyTable, row, "negative bytes");
    m.bytes = static_cast<uint64_t>(q->int64(6));
    m.correlation = static_cast<uint32_t>(q->int64(8));
    int64_t globalPid = q->int64(9);
    if (!q->isNull(10) && !memoryKindFromNsys(q->int64(10), m.srcKind)) {
      return fail(kMemcpyTable, row, "unknown srcKind " + std::to_string(q->int64(10)));
    }
    if (!q->isNull(11) && !memoryKindFromNsys(q->int64(11), m.dstKind)) {
      return fail(kMemcpyTable, row, "unknown dstKind " + std::to_string(q->int64(11)));
    }
    const int64_t deviceId = q->int64(3);
    auto onDevice = [](MemoryKind k) {
      return k == MemoryKind::Device || k == MemoryKind::DeviceStatic || k == MemoryKind::Array;
    };
    m.srcDevice = !q->isNull(12)        ? static_cast<int32_t>(q->int64(12))
                  : onDevice(m.srcKind) ? static_cast<int32_t>(deviceId)
                                        : -1;
    m.dstDevice = !q->isNull(13)        ? static_cast<int32_t>(q->int64(13))
                  : onDevice(m.dstKind) ? static_cast<int32_t>(deviceId)
                                        : -1;
    m.async = 1;
    m.context = static_cast<uint32_t>(q->int64(4));
    std::string kind(toString(m.copyKind));
    std::string name;
    int64_t streamId = q->int64(5);
    if (uvm) {
      // The driver's page migration, on no stream of the program's: the GPU's own row.
      m.migration = 1;
      const int64_t cause = q->isNull(14) ? 0 : q->int64(14);
      if (cause < 0 || cause >= kMigrationCauseCount)
        return fail(kMemcpyTable, row, "unknown migrationCause " + std::to_string(cause));
      m.migrationCause = static_cast<MigrationCause>(cause);
      m.address = q->isNull(15) ? 0 : static_cast<uint64_t>(q->int64(15));
      name = "Unified memory " + kind;
      streamId = kUnifiedMemoryStream;
    } else {
      name = "Memcpy " + kind + " (" + memoryKindWord(m.srcKind) + " -> " +
             memoryKindWord(m.dstKind) + ")";
    }
    b_.addMemcpy(stream(globalPid, deviceId, q->int64(4), streamId), start, end, b_.intern(name),
                 m);
    sawTime(start);
    ++info_.events;
  }
  if (Status st = q->status(); !st) return fail(kMemcpyTable, -1, st.error());
  return {};
}

// Unified-memory page faults (nsys --cuda-um-gpu-page-faults / --cuda-um-cpu-page-faults):
// counters of faults over time, a GPU's and a process's, each sample adding what one record
// counted (a GPU record is a group of faults, numberOfPageFaults) at its address.
Status NsysImporter::readPageFaults() {
  if (db_.hasTable(kGpuFaultTable)) {
    // In time order: each sample is the running total.
    auto q = select(kGpuFaultTable, {"start"},
                    {"globalPid", "deviceId", "address", "numberOfPageFaults"}, "ORDER BY start");
    if (!q) return q.failure();
    std::map<uint32_t, int64_t> total;  // by device
    while (q->step()) {
      const int64_t row = q->int64(0), faults = q->isNull(5) ? 1 : q->int64(5);
      if (faults < 0) return fail(kGpuFaultTable, row, "negative numberOfPageFaults");
      const uint32_t d = device(q->isNull(2) ? 0 : q->int64(2), q->isNull(3) ? 0 : q->int64(3));
      int64_t& sum = total[d];
      if (__builtin_add_overflow(sum, faults, &sum))
        return fail(kGpuFaultTable, row, "page faults add up past 2^63");
      const TimeNs start = q->int64(1);
      b_.addCounterSample(kGpuPageFaultCounter, "faults", d, kNone,
                          {start, static_cast<double>(sum), faults,
                           q->isNull(4) ? 0 : static_cast<uint64_t>(q->int64(4))});
      sawTime(start);
      ++info_.events;
    }
    if (Status st = q->status(); !st) return fail(kGpuFaultTable, -1, st.error());
  }
  if (db_.hasTable(kCpuFaultTable)) {
    auto q =
        select(kCpuFaultTable, {"start"}, {"globalPid", "globalTid", "address"}, "ORDER BY start");
    if (!q) return q.failure();
    std::map<uint32_t, int64_t> total;  // by process
    while (q->step()) {
      const int64_t global = !q->isNull(2) ? q->int64(2) : q->isNull(3) ? 0 : q->int64(3);
      const uint32_t p = b_.process(rank_, pidOf(global));
      const int64_t sum = ++total[p];
      const TimeNs start = q->int64(1);
      b_.addCounterSample(kCpuPageFaultCounter, "faults", kNone, p,
                          {start, static_cast<double>(sum), 1,
                           q->isNull(4) ? 0 : static_cast<uint64_t>(q->int64(4))});
      sawTime(start);
      ++info_.events;
    }
    if (Status st = q->status(); !st) return fail(kCpuFaultTable, -1, st.error());
  }
  return {};
}

// OS runtime library calls (nsys -t osrt: pthread, poll, read, ioctl, ...): ranges on the thread
// that made them, Nsight's "OS runtime libraries" row.
Status NsysImporter::readOsRuntime() {
  if (!db_.hasTable(kOsrtTable)) return {};
  auto q = select(kOsrtTable, {"start", "end", "globalTid", "nameId"}, {"returnValue"});
  if (!q) return q.failure();
  const StringId category = b_.intern(kOsRuntimeCategory);
  std::unordered_map<int64_t, StringId> names;
  while (q->step()) {
    const int64_t row = q->int64(0);
    const TimeNs start = q->int64(1), end = q->int64(2);
    if (end < start) return fail(kOsrtTable, row, "ends before it starts");
    auto [it, fresh] = names.try_emplace(q->int64(4), 0);
    if (fresh) {
      std::string_view name;
      if (Status st = string(kOsrtTable, row, q->int64(4), name); !st) return st;
      it->second = b_.intern(name);
    }
    const StringId args =
        q->isNull(5) ? 0 : b_.intern("{\"return\": " + std::to_string(q->int64(5)) + "}");
    b_.addRange(thread(q->int64(3)), start, end, it->second, {category, args});
    sawTime(start);
    ++info_.events;
  }
  if (Status st = q->status(); !st) return fail(kOsrtTable, -1, st.error());
  return {};
}

// Thread scheduling (nsys -s / --cpuctxsw): each thread's time on a CPU, from the switch in to
// the switch out, as ranges "Running on CPU n". A thread already running when recording began
// runs from the table's first switch; one still running at the end, to its last.
Status NsysImporter::readScheduling() {
  if (!db_.hasTable(kSchedTable)) return {};
  auto q = select(kSchedTable, {"start", "cpu", "isSchedIn", "globalTid"}, {},
                  "ORDER BY globalTid, start");
  if (!q) return q.failure();
  TimeNs first = 0, last = 0;
  if (auto span = db_.prepare("SELECT min(start), max(start) FROM SCHED_EVENTS");
      span && span->step()) {
    first = span->int64(0), last = span->int64(1);
  }
  const StringId category = b_.intern(kThreadStateCategory);
  std::unordered_map<int64_t, StringId> names;  // by CPU
  auto running = [&](int64_t cpu) {
    auto [it, fresh] = names.try_emplace(cpu, 0);
    if (fresh) it->second = b_.intern("Running on CPU " + std::to_string(cpu));
    return it->second;
  };
  int64_t tid = -1;
  bool firstOfThread = true;
  std::optional<std::pair<TimeNs, int64_t>> in;  // the open switch in: time, CPU
  auto close = [&](TimeNs at) {
    if (!in) return;
    b_.addRange(thread(tid), in->first, std::max(in->first, at), running(in->second),
                {category, 0});
    ++info_.events;
    in.reset();
  };
  while (q->step()) {
    const int64_t row = q->int64(0), global = q->int64(4);
    const TimeNs at = q->int64(1);
    if (global != tid) {
      close(last);
      tid = global;
      firstOfThread = true;
    }
    if (q->int64(3) != 0) {  // switched in
      close(at);             // two ins in a row: the out between them was lost
      in = std::pair(at, q->int64(2));
    } else if (in) {
      close(at);
    } else if (firstOfThread) {  // out without in: running since recording began
      in = std::pair(first, q->int64(2));
      close(at);
    } else {  // an out after an out: its in was lost, and with it when the thread ran
      ++info_.skipped["SCHED_EVENTS switches out without their switch in"];
    }
    firstOfThread = false;
    sawTime(at);
    (void)row;
  }
  close(last);
  if (Status st = q->status(); !st) return fail(kSchedTable, -1, st.error());
  return {};
}

// Every table of events the reader did not read, counted by rows: the session says what the
// export held that Tensorscope leaves out (Perfetto's import stats, by table).
Status NsysImporter::countUnreadTables() {
  static const std::set<std::string_view> read = {
      kKernelTable, kMemcpyTable,   kMemsetTable,   kRuntimeTable, kDriverTable,
      kNvtxTable,   kGpuFaultTable, kCpuFaultTable, kOsrtTable,    kSchedTable};
  auto tables = db_.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
  if (!tables) return Error{path_ + ": " + tables.error()};
  std::vector<std::string> unread;
  while (tables->step()) {
    std::string name = tables->text(0);
    if (!read.count(name) && !isLookupTable(name)) unread.push_back(std::move(name));
  }
  for (const std::string& table : unread) {
    auto count = db_.prepare("SELECT count(*) FROM \"" + table + "\"");
    if (!count || !count->step()) continue;  // unreadable: nothing to count
    if (const int64_t rows = count->int64(0); rows > 0)
      info_.skipped[table + " rows"] += static_cast<uint64_t>(rows);
  }
  return {};
}

Status NsysImporter::readMemsets() {
  if (!db_.hasTable(kMemsetTable)) return {};
  auto q = select(kMemsetTable, {"start", "end", "deviceId", "contextId", "streamId", "bytes"},
                  {"correlationId", "globalPid", "value", "memKind"});
  if (!q) return q.failure();
  while (q->step()) {
    int64_t row = q->int64(0);
    TimeNs start = q->int64(1), end = q->int64(2);
    if (end < start) return fail(kMemsetTable, row, "ends before it starts");
    MemsetDetail m;
    if (q->int64(6) < 0) return fail(kMemsetTable, row, "negative bytes");
    m.bytes = static_cast<uint64_t>(q->int64(6));
    m.correlation = static_cast<uint32_t>(q->int64(7));
    m.value = static_cast<uint32_t>(q->int64(9));
    if (!q->isNull(10) && !memoryKindFromNsys(q->int64(10), m.memKind)) {
      return fail(kMemsetTable, row, "unknown memKind " + std::to_string(q->int64(10)));
    }
    m.context = static_cast<uint32_t>(q->int64(4));
    std::string name = std::string("Memset (") + memoryKindWord(m.memKind) + ")";
    b_.addMemset(stream(q->int64(8), q->int64(3), q->int64(4), q->int64(5)), start, end,
                 b_.intern(name), m);
    sawTime(start);
    ++info_.events;
  }
  if (Status st = q->status(); !st) return fail(kMemsetTable, -1, st.error());
  return {};
}

Status NsysImporter::readApi(const char* table, ApiDomain domain) {
  if (!db_.hasTable(table)) return {};
  auto q = select(table, {"start", "end", "globalTid", "nameId"}, {"correlationId", "returnValue"});
  if (!q) return q.failure();
  while (q->step()) {
    int64_t row = q->int64(0);
    TimeNs start = q->int64(1), end = q->int64(2);
    if (end < start) return fail(table, row, "ends before it starts");
    std::string_view name;
    if (Status st = string(table, row, q->int64(4), name); !st) return st;
    b_.addApi(thread(q->int64(3)), start, end, b_.intern(withoutVersion(name)),
              {static_cast<uint32_t>(q->int64(5)), static_cast<int32_t>(q->int64(6)), domain});
    sawTime(start);
    ++info_.events;
  }
  if (Status st = q->status(); !st) return fail(table, -1, st.error());
  return {};
}

Status NsysImporter::readNvtx() {
  if (!db_.hasTable(kNvtxTable)) return {};
  auto q = select(kNvtxTable, {"start", "eventType"},
                  {"end", "text", "textId", "globalTid", "color", "domainId"},
                  "ORDER BY eventType <> 75");  // domain names first
  if (!q) return q.failure();
  std::unordered_map<int64_t, StringId> domains;
  const StringId defaultDomain = b_.intern("NVTX");
  std::string inlineText;
  while (q->step()) {
    int64_t row = q->int64(0), type = q->int64(2);
    TimeNs start = q->int64(1);
    std::string_view text;
    if (!q->isNull(4)) {
      inlineText = q->text(4);
      text = inlineText;
    } else if (!q->isNull(5)) {
      if (Status st = string(kNvtxTable, row, q->int64(5), text); !st) return st;
    }
    int64_t domainId = q->isNull(8) ? 0 : q->int64(8);
    if (type == kNvtxDomainCreate) {
      domains[domainId] = b_.intern(text);
      continue;
    }
    if (type != kNvtxMark && type != kNvtxPushPop && type != kNvtxStartEnd) {
      // Categories, names of resources, payload-only records.
      ++info_.skipped["NVTX_EVENTS rows of type " + std::to_string(type)];
      continue;
    }
    if (q->isNull(6)) return fail(kNvtxTable, row, "has no globalTid");
    TimeNs end = start;
    if (type != kNvtxMark) {
      if (q->isNull(3)) return fail(kNvtxTable, row, "range without an end");
      end = q->int64(3);
      if (end < start) return fail(kNvtxTable, row, "ends before it starts");
    }
    auto dom = domains.find(domainId);
    NvtxDetail d{dom != domains.end() ? dom->second : defaultDomain,
                 static_cast<uint32_t>(q->int64(7)), static_cast<uint8_t>(type == kNvtxMark)};
    b_.addNvtx(thread(q->int64(6)), start, end, b_.intern(text), d);
    sawTime(start);
    ++info_.events;
  }
  if (Status st = q->status(); !st) return fail(kNvtxTable, -1, st.error());
  return {};
}

Result<ImportInfo> NsysImporter::run() {
  using Step = Status (NsysImporter::*)();
  const Step steps[] = {
      &NsysImporter::readStrings,   &NsysImporter::readMetadata,   &NsysImporter::readTargets,
      &NsysImporter::readNames,     &NsysImporter::readKernels,    &NsysImporter::readMemcpys,
      &NsysImporter::readMemsets,   &NsysImporter::readPageFaults, &NsysImporter::readNvtx,
      &NsysImporter::readOsRuntime, &NsysImporter::readScheduling};
  size_t done = 0;
  for (Step step : steps) {
    if (progress_.cancelled()) return Error::cancelled(path_ + ": cancelled");
    TS_RETURN_IF_ERROR((this->*step)());
    progress_.update(static_cast<double>(++done) / (std::size(steps) + 2.0));
  }
  TS_RETURN_IF_ERROR(readApi(kRuntimeTable, ApiDomain::Runtime));
  TS_RETURN_IF_ERROR(readApi(kDriverTable, ApiDomain::Driver));
  TS_RETURN_IF_ERROR(countUnreadTables());
  progress_.update(1.0);
  info_.firstTimestamp = first_ == INT64_MAX ? 0 : first_;
  info_.absoluteClock = false;  // nsys times count from the session start
  b_.provenance().sources.push_back(
      {path_, schemaVersion_.empty() ? "nsys-sqlite" : "nsys-sqlite " + schemaVersion_});
  return info_;
}

}  // namespace

bool isNsysExport(SqliteDb& db) {
  for (const char* table :
       {"StringIds", "TARGET_INFO_GPU", kKernelTable, kMemcpyTable, kRuntimeTable, kNvtxTable}) {
    if (db.hasTable(table)) return true;
  }
  return false;
}

Result<ImportInfo> importNsysSqlite(const std::string& path, SqliteDb& db, SessionBuilder& builder,
                                    uint32_t rank, const Progress& progress) {
  NsysImporter importer(path, db, builder, rank, progress);
  return importer.run();
}

}  // namespace ts
