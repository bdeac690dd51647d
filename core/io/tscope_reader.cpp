// Reads a .tscope file into a Session, trusting nothing it has not checked.
#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

#include "io/column_codec.h"
#include "io/sqlite_db.h"
#include "io/tscope_file.h"
#include "io/tscope_schema.h"

namespace ts {

namespace {

namespace fs = std::filesystem;

constexpr char kSqliteMagic[] = "SQLite format 3";

uint32_t bigEndian(const unsigned char* p, int bytes) {
  uint32_t v = 0;
  for (int i = 0; i < bytes; ++i) v = (v << 8) | p[i];
  return v;
}

// Checks the file before SQLite sees it: SQLite reads a truncated file without complaint until
// it touches a missing page, so compare the size the header promises with the size on disk.
Status checkHeader(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return Error::notFound("no such file");
  if (fs::is_directory(path, ec)) return Error{"is a directory"};
  auto size = fs::file_size(path, ec);
  if (ec) return Error::io("cannot read: " + ec.message());
  if (size == 0) return Error{"the file is empty"};
  std::ifstream in(path, std::ios::binary);
  std::array<unsigned char, 100> header{};
  in.read(reinterpret_cast<char*>(header.data()), header.size());
  if (!in && static_cast<size_t>(in.gcount()) < sizeof kSqliteMagic) {
    return Error{"not a Tensorscope session (not an SQLite database: too short)"};
  }
  if (std::memcmp(header.data(), kSqliteMagic, sizeof kSqliteMagic) != 0) {
    return Error{"not a Tensorscope session (not an SQLite database)"};
  }
  if (static_cast<size_t>(in.gcount()) < header.size()) {
    return Error{"truncated: the SQLite header is incomplete"};
  }
  uint64_t pageSize = bigEndian(header.data() + 16, 2);
  if (pageSize == 1) pageSize = 65536;
  uint64_t pages = bigEndian(header.data() + 28, 4);
  bool pagesValid = bigEndian(header.data() + 24, 4) == bigEndian(header.data() + 92, 4);
  if (pagesValid && pages > 0 && size < pageSize * pages) {
    return Error{"truncated: " + std::to_string(size) +
                 " bytes on disk, the database header "
                 "says " +
                 std::to_string(pageSize * pages)};
  }
  return {};
}

// A destination for one named column of one owner.
struct ColumnSlot {
  std::string name;
  std::string_view type;
  void* data = nullptr;
  size_t elementSize = 0;
  size_t count = 0;   // rows the column must hold
  size_t filled = 0;  // rows written so far
  bool required = false;
  std::vector<bool> chunks = {};  // chunks seen
};

template <class Columns>
void addSlots(Columns& columns, size_t count, bool required, std::vector<ColumnSlot>& slots) {
  columns.visit([&](const char* name, auto& values) {
    using T = typename std::remove_reference_t<decltype(values)>::value_type;
    values.assign(count, T{});
    slots.push_back({name, columnTypeName<T>(), values.data(), sizeof(T), count, 0, required,
                     std::vector<bool>((count + kChunkEvents - 1) / kChunkEvents)});
  });
}

// One compressed chunk waiting to be decoded into its place in a column.
struct DecodeTask {
  std::vector<uint8_t> blob;
  std::string encoding;
  void* dest;
  size_t bytes;
  std::string where;
};

// Decodes a batch of chunks on `threads` threads (the calling one included); chunks write to
// disjoint parts of the columns, so they need no locking. Returns the first error.
Status decodeBatch(std::vector<DecodeTask>& tasks, unsigned threads, const Progress& progress) {
  std::atomic<size_t> next{0};
  std::mutex errorMutex;
  std::string error;
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < tasks.size();) {
      if (progress.cancelled()) return;
      DecodeTask& t = tasks[i];
      Status st = decodeBytes(t.blob, t.encoding, t.dest, t.bytes);
      if (!st) {
        std::lock_guard lock(errorMutex);
        if (error.empty()) error = t.where + ": " + st.error();
      }
    }
  };
  std::vector<std::thread> helpers;
  for (unsigned i = 1; i < threads && i < tasks.size(); ++i) helpers.emplace_back(work);
  work();
  for (std::thread& h : helpers) h.join();
  if (progress.cancelled()) return Error::cancelled();
  tasks.clear();
  return error.empty() ? Status{} : Status{Error{error}};
}

// Compressed bytes gathered before a batch is decoded: bounds the memory held by copied blobs.
constexpr size_t kBatchBytes = size_t{64} << 20;

class Reader {
 public:
  Reader(SqliteDb& db, const Progress& progress, unsigned threads)
      : db_(db), progress_(progress), threads_(threads) {}

  Result<SessionPtr> read();

 private:
  Status readMeta();
  Status readEntities();
  Status readColumns();
  Status eachRow(std::string_view sql, const std::function<Status(SqliteStatement&, size_t)>& row);

  SqliteDb& db_;
  const Progress& progress_;
  unsigned threads_;
  std::unique_ptr<Session> s_ = std::make_unique<Session>();
  size_t flowCount_ = 0;
  Status checkCounts();
  std::vector<size_t> trackCounts_;
  std::vector<size_t> counterCounts_;
};

Status Reader::eachRow(std::string_view sql,
                       const std::function<Status(SqliteStatement&, size_t)>& row) {
  auto stmt = db_.prepare(sql);
  if (!stmt) return stmt.failure();
  size_t i = 0;
  while (stmt->step()) {
    if (stmt->int64(0) != static_cast<int64_t>(i)) {
      return Error{"ids are not consecutive at row " + std::to_string(i)};
    }
    if (Status s = row(stmt.value(), i); !s) return s;
    ++i;
  }
  return stmt->status();
}

Status Reader::readMeta() {
  if (!db_.hasTable("tscope_meta")) {
    std::string hint;
    if (db_.hasTable("TARGET_INFO_GPU") || db_.hasTable("StringIds")) {
      hint = "; it looks like an Nsight Systems export";
    }
    return Error{"an SQLite database but not a Tensorscope session (no tscope_meta table" + hint +
                 ")"};
  }
  auto stmt = db_.prepare("SELECT key, value FROM tscope_meta");
  if (!stmt) return stmt.failure();
  std::string format;
  int64_t version = -1;
  Provenance& p = s_->provenance;
  auto simulation = [&]() -> Provenance::Simulation& {
    if (!p.simulation) p.simulation.emplace();
    return *p.simulation;
  };
  auto splitList = [](const std::string& text) {  // "g10,lru": policy names hold no commas
    std::vector<std::string> out;
    for (size_t from = 0; from <= text.size() && !text.empty();) {
      const size_t comma = std::min(text.find(',', from), text.size());
      out.push_back(text.substr(from, comma - from));
      from = comma + 1;
    }
    return out;
  };
  while (stmt->step()) {
    std::string key = stmt->text(0), value = stmt->text(1);
    if (key == "format")
      format = value;
    else if (key == "schema_version")
      version = std::atoll(value.c_str());
    else if (key == "tool_version")
      p.toolVersion = value;
    else if (key == "created_utc")
      p.createdUtc = value;
    else if (key == "capture_command")
      p.captureCommand = value;
    else if (key == "profiler")
      p.profiler = value;
    else if (key == "incomplete")
      p.incomplete = value == "1";
    else if (key == "incomplete_reason")
      p.incompleteReason = value;
    else if (key == "exit_code")
      p.exitCode = std::atoi(value.c_str());
    else if (key == "dropped_records")
      p.droppedRecords = std::strtoull(value.c_str(), nullptr, 10);
    else if (key == "world_size")
      p.worldSize =
          static_cast<int32_t>(std::clamp<long long>(std::atoll(value.c_str()), 0, INT32_MAX));
    else if (key.starts_with("skipped:"))
      p.skipped[key.substr(8)] = std::strtoull(value.c_str(), nullptr, 10);
    else if (key.starts_with("lost:"))
      p.lost[key.substr(5)] = std::strtoull(value.c_str(), nullptr, 10);
    else if (key == "simulated_workload")
      simulation().workload = value;
    else if (key == "simulated_policies")
      simulation().policies = splitList(value);
    else if (key == "flow_count")
      flowCount_ = std::strtoull(value.c_str(), nullptr, 10);
  }
  if (Status st = stmt->status(); !st) return st;
  if (format != kTscopeFormatName) {
    return Error{"not a Tensorscope session (tscope_meta has format '" + format + "')"};
  }
  if (version > kTscopeSchemaVersion) {
    return Error{"written by a newer Tensorscope (schema version " + std::to_string(version) +
                 "; this build reads up to " + std::to_string(kTscopeSchemaVersion) +
                 "): update Tensorscope to open it"};
  }
  if (version < 1) return Error{"tscope_meta has no valid schema_version"};
  return {};
}

Status Reader::readEntities() {
  Session& s = *s_;
  Status st = eachRow("SELECT id, value FROM strings ORDER BY id",
                      [&](SqliteStatement& q, size_t i) -> Status {
                        if (i == 0) return {};  // the empty string is always id 0
                        if (s.strings.intern(q.text(1)) != i) {
                          return Error{"strings: duplicate value at id " + std::to_string(i)};
                        }
                        return {};
                      });
  if (!st) return st.failure().prefixed("strings: ");
  st = eachRow("SELECT id, path, format FROM sources ORDER BY id",
               [&](SqliteStatement& q, size_t) -> Status {
                 s.provenance.sources.push_back({q.text(1), q.text(2)});
                 return {};
               });
  if (!st) return st.failure().prefixed("sources: ");
  st = eachRow(
      "SELECT id, rank, host, label, clock_offset_ns FROM ranks ORDER BY id",
      [&](SqliteStatement& q, size_t) -> Status {
        s.ranks.push_back({static_cast<int32_t>(q.int64(1)), q.text(2), q.text(3), q.int64(4)});
        return {};
      });
  if (!st) return st.failure().prefixed("ranks: ");
  st = eachRow(
      "SELECT id, rank, ordinal, name, uuid, compute_major, compute_minor, sm_count, "
      "memory_bytes, memory_bandwidth_bytes_per_s, clock_khz, max_warps_per_sm, "
      "max_blocks_per_sm, max_threads_per_block, max_registers_per_sm, max_registers_per_block, "
      "max_shared_memory_per_sm, max_shared_memory_per_block, warp_size FROM devices ORDER BY id",
      [&](SqliteStatement& q, size_t) -> Status {
        Device d;
        d.rank = q.ref(1);
        d.ordinal = static_cast<int32_t>(q.int64(2));
        d.name = q.text(3);
        d.uuid = q.text(4);
        auto i32 = [&](int c) { return static_cast<int32_t>(q.int64(c)); };
        d.computeMajor = i32(5);
        d.computeMinor = i32(6);
        d.smCount = i32(7);
        d.memoryBytes = static_cast<uint64_t>(q.int64(8));
        d.memoryBandwidthBytesPerSecond = static_cast<uint64_t>(q.int64(9));
        d.clockKHz = i32(10);
        d.maxWarpsPerSm = i32(11);
        d.maxBlocksPerSm = i32(12);
        d.maxThreadsPerBlock = i32(13);
        d.maxRegistersPerSm = i32(14);
        d.maxRegistersPerBlock = i32(15);
        d.maxSharedMemoryPerSm = i32(16);
        d.maxSharedMemoryPerBlock = i32(17);
        d.warpSize = i32(18);
        s.devices.push_back(std::move(d));
        return {};
      });
  if (!st) return st.failure().prefixed("devices: ");
  st = eachRow("SELECT id, rank, pid, name, sort_index FROM processes ORDER BY id",
               [&](SqliteStatement& q, size_t) -> Status {
                 s.processes.push_back({q.ref(1), q.int64(2), q.text(3), q.int64(4)});
                 return {};
               });
  if (!st) return st.failure().prefixed("processes: ");
  st = eachRow("SELECT id, process, tid, name, sort_index FROM threads ORDER BY id",
               [&](SqliteStatement& q, size_t) -> Status {
                 s.threads.push_back({q.ref(1), q.int64(2), q.text(3), q.int64(4)});
                 return {};
               });
  if (!st) return st.failure().prefixed("threads: ");
  st = eachRow("SELECT id, device, context_id, process FROM contexts ORDER BY id",
               [&](SqliteStatement& q, size_t) -> Status {
                 s.contexts.push_back({q.ref(1), static_cast<uint32_t>(q.int64(2)), q.ref(3)});
                 return {};
               });
  if (!st) return st.failure().prefixed("contexts: ");
  st = eachRow("SELECT id, device, stream_id, context, priority, name FROM streams ORDER BY id",
               [&](SqliteStatement& q, size_t) -> Status {
                 s.streams.push_back({q.ref(1), static_cast<uint32_t>(q.int64(2)), q.ref(3),
                                      static_cast<int32_t>(q.int64(4)), q.text(5)});
                 return {};
               });
  if (!st) return st.failure().prefixed("streams: ");
  st = eachRow("SELECT id, kind, device, stream, thread, event_count FROM tracks ORDER BY id",
               [&](SqliteStatement& q, size_t) -> Status {
                 int64_t kind = q.int64(1), count = q.int64(5);
                 if (kind < 0 || kind >= kEventKindCount) {
                   return Error{"unknown event kind " + std::to_string(kind)};
                 }
                 if (count < 0 || count > 0xFFFFFFF0LL) return Error{"invalid event count"};
                 Track t;
                 t.kind = static_cast<EventKind>(kind);
                 t.device = q.ref(2);
                 t.stream = q.ref(3);
                 t.thread = q.ref(4);
                 s.tracks.push_back(std::move(t));
                 trackCounts_.push_back(static_cast<size_t>(count));
                 return {};
               });
  if (!st) return st.failure().prefixed("tracks: ");
  st = eachRow("SELECT id, name, unit, device, process, sample_count FROM counters ORDER BY id",
               [&](SqliteStatement& q, size_t) -> Status {
                 if (q.int64(5) < 0) return Error{"invalid sample count"};
                 CounterTrack c;
                 c.name = q.text(1);
                 c.unit = q.text(2);
                 c.device = q.ref(3);
                 c.process = q.ref(4);
                 s.counters.push_back(std::move(c));
                 counterCounts_.push_back(static_cast<size_t>(q.int64(5)));
                 return {};
               });
  if (!st) return st.failure().prefixed("counters: ");
  return {};
}

// Counts the metadata claims, checked against the chunks the file really holds before any column
// is allocated: a damaged or crafted count ("4 billion events" in a 9 KB file) must be an error,
// not gigabytes reserved. Each owner's first required column ("start", "time", "src_track") must
// hold exactly the claimed values; no chunk may appear twice or hold more than kChunkEvents
// values; and no column may claim more than its compressed bytes can give — zstd's densest block
// (run-length, 4 bytes for 128 KiB) is 32,768:1, so a 10 KB file cannot stand for 16 GB.
Status Reader::checkCounts() {
  auto q = db_.prepare(
      "SELECT owner_kind, owner, name, max(type), count(*), count(DISTINCT chunk), sum(count), "
      "max(count), min(count), sum(length(data)) FROM columns GROUP BY owner_kind, owner, name");
  if (!q) return q.failure().prefixed("columns: ");
  std::map<std::pair<int64_t, int64_t>, uint64_t> held;  // (owner kind, owner) → first column's
  while (q->step()) {
    const std::string where = "column '" + q->text(2) + "' of owner " + std::to_string(q->int64(1));
    const std::string type = q->text(3);
    const uint64_t size = type == "u8"                     ? 1
                          : type == "u16"                  ? 2
                          : type == "u32" || type == "i32" ? 4
                                                           : 8;
    if (q->int64(4) != q->int64(5)) return Error{where + ": a chunk appears twice"};
    if (q->int64(7) > static_cast<int64_t>(kChunkEvents) || q->int64(8) < 0)
      return Error{where + ": a chunk claims more than " + std::to_string(kChunkEvents) +
                   " values, or fewer than none"};
    const auto values = static_cast<uint64_t>(q->int64(6));
    const auto compressed = static_cast<uint64_t>(std::max<int64_t>(0, q->int64(9)));
    const uint64_t rows = static_cast<uint64_t>(q->int64(4));
    if (values > (32768 * compressed + 64 * rows) / size) {
      return Error{where + " claims " + std::to_string(values) + " values from " +
                   std::to_string(compressed) +
                   " compressed bytes (damaged or not written by "
                   "Tensorscope)"};
    }
    const std::string name = q->text(2);
    if (name == "start" || name == "time" || name == "src_track")
      held[{q->int64(0), q->int64(1)}] = values;
  }
  if (Status st = q->status(); !st) return st.failure().prefixed("columns: ");
  auto check = [&](ColumnOwner kind, size_t owner, size_t claimed,
                   const std::string& what) -> Status {
    if (claimed == 0) return {};
    auto it = held.find({static_cast<int64_t>(kind), static_cast<int64_t>(owner)});
    const uint64_t values = it == held.end() ? 0 : it->second;
    if (values != claimed) {
      return Error{what + " claims " + std::to_string(claimed) + " values but the file holds " +
                   std::to_string(values) + " (damaged or not written by Tensorscope)"};
    }
    return {};
  };
  for (size_t i = 0; i < trackCounts_.size(); ++i)
    TS_RETURN_IF_ERROR(check(ColumnOwner::Track, i, trackCounts_[i], "track " + std::to_string(i)));
  for (size_t i = 0; i < counterCounts_.size(); ++i) {
    TS_RETURN_IF_ERROR(
        check(ColumnOwner::Counter, i, counterCounts_[i], "counter " + std::to_string(i)));
  }
  return check(ColumnOwner::Flows, 0, flowCount_, "flows");
}

Status Reader::readColumns() {
  Session& s = *s_;
  TS_RETURN_IF_ERROR(checkCounts());
  // Every column of every owner gets a slot sized from the metadata; chunks fill the slots.
  std::vector<std::vector<ColumnSlot>> trackSlots(s.tracks.size());
  // Kernels are stored launch by launch; in memory their configurations are shared.
  std::vector<KernelFileColumns> kernelFiles(s.tracks.size());
  for (size_t i = 0; i < s.tracks.size(); ++i) {
    Track& t = s.tracks[i];
    addSlots(t.hot, trackCounts_[i], true, trackSlots[i]);
    switch (t.kind) {
      case EventKind::Kernel:
        addSlots(kernelFiles[i], trackCounts_[i], false, trackSlots[i]);
        break;
      case EventKind::Memcpy:
        addSlots(t.memcpys, trackCounts_[i], false, trackSlots[i]);
        break;
      case EventKind::Memset:
        addSlots(t.memsets, trackCounts_[i], false, trackSlots[i]);
        break;
      case EventKind::Api:
        addSlots(t.apis, trackCounts_[i], false, trackSlots[i]);
        break;
      case EventKind::Nvtx:
        addSlots(t.nvtx, trackCounts_[i], false, trackSlots[i]);
        break;
      case EventKind::Range:
        addSlots(t.ranges, trackCounts_[i], false, trackSlots[i]);
        break;
    }
  }
  std::vector<std::vector<ColumnSlot>> counterSlots(s.counters.size());
  for (size_t i = 0; i < s.counters.size(); ++i) {
    addSlots(s.counters[i].samples, counterCounts_[i], true, counterSlots[i]);
  }
  std::vector<ColumnSlot> flowSlots;
  addSlots(s.flows, flowCount_, true, flowSlots);

  size_t total = 1;
  if (auto count = db_.prepare("SELECT count(*) FROM columns"); count && count->step()) {
    total = std::max<size_t>(1, static_cast<size_t>(count->int64(0)));
  }
  auto stmt = db_.prepare(
      "SELECT owner_kind, owner, name, type, chunk, count, encoding, data FROM columns");
  if (!stmt) return stmt.failure();
  size_t done = 0;
  std::vector<DecodeTask> batch;
  size_t batchBytes = 0;
  while (stmt->step()) {
    if (progress_.cancelled()) return Error::cancelled();
    int64_t ownerKind = stmt->int64(0), owner = stmt->int64(1);
    std::string name = stmt->text(2);
    std::vector<ColumnSlot>* slots = nullptr;
    if (ownerKind == static_cast<int>(ColumnOwner::Track) && owner >= 0 &&
        static_cast<size_t>(owner) < trackSlots.size()) {
      slots = &trackSlots[static_cast<size_t>(owner)];
    } else if (ownerKind == static_cast<int>(ColumnOwner::Counter) && owner >= 0 &&
               static_cast<size_t>(owner) < counterSlots.size()) {
      slots = &counterSlots[static_cast<size_t>(owner)];
    } else if (ownerKind == static_cast<int>(ColumnOwner::Flows) && owner == 0) {
      slots = &flowSlots;
    } else {
      return Error{"columns: chunk for unknown owner " + std::to_string(ownerKind) + "/" +
                   std::to_string(owner)};
    }
    auto slot = std::find_if(slots->begin(), slots->end(),
                             [&](const ColumnSlot& c) { return c.name == name; });
    if (slot == slots->end()) continue;  // a column from a newer minor version: ignore it
    std::string where = "column '" + name + "' of owner " + std::to_string(owner);
    if (stmt->text(3) != slot->type) return Error{where + " has type " + stmt->text(3)};
    int64_t chunk = stmt->int64(4), count = stmt->int64(5);
    if (chunk < 0 || count < 0 || static_cast<uint64_t>(count) > kChunkEvents ||
        static_cast<uint64_t>(chunk) * kChunkEvents + static_cast<uint64_t>(count) > slot->count) {
      return Error{where + ": chunk " + std::to_string(chunk) + " lies outside the column"};
    }
    if (slot->chunks[static_cast<size_t>(chunk)]) {
      return Error{where + ": chunk " + std::to_string(chunk) + " appears twice"};
    }
    slot->chunks[static_cast<size_t>(chunk)] = true;
    auto* dest = static_cast<uint8_t*>(slot->data) +
                 static_cast<size_t>(chunk) * kChunkEvents * slot->elementSize;
    std::span<const uint8_t> blob = stmt->blob(7);
    batch.push_back({std::vector<uint8_t>(blob.begin(), blob.end()), stmt->text(6), dest,
                     static_cast<size_t>(count) * slot->elementSize,
                     where + ", chunk " + std::to_string(chunk)});
    batchBytes += blob.size();
    slot->filled += static_cast<size_t>(count);
    ++done;
    if (batchBytes >= kBatchBytes) {
      if (Status st = decodeBatch(batch, threads_, progress_); !st) return st;
      batchBytes = 0;
      progress_.update(0.05 + 0.9 * static_cast<double>(done) / static_cast<double>(total));
    }
  }
  if (Status st = stmt->status(); !st) return st.failure().prefixed("columns: ");
  if (Status st = decodeBatch(batch, threads_, progress_); !st) return st;

  auto checkFilled = [](const std::vector<ColumnSlot>& slots, const std::string& owner) -> Status {
    for (const ColumnSlot& c : slots) {
      bool absent = c.filled == 0 && !c.required;  // a column older files lack reads as zeros
      if (c.filled != c.count && !absent) {
        return Error{owner + ": column '" + c.name + "' has " + std::to_string(c.filled) + " of " +
                     std::to_string(c.count) + " values (missing chunks)"};
      }
    }
    return {};
  };
  for (size_t i = 0; i < trackSlots.size(); ++i) {
    if (Status st = checkFilled(trackSlots[i], "track " + std::to_string(i)); !st) return st;
    if (s.tracks[i].kind == EventKind::Kernel) {
      s.tracks[i].kernels = KernelColumns::fromFile(kernelFiles[i]);
      kernelFiles[i] = {};
    }
  }
  for (size_t i = 0; i < counterSlots.size(); ++i) {
    if (Status st = checkFilled(counterSlots[i], "counter " + std::to_string(i)); !st) return st;
  }
  return checkFilled(flowSlots, "flows");
}

Result<SessionPtr> Reader::read() {
  TS_RETURN_IF_ERROR(readMeta());
  TS_RETURN_IF_ERROR(readEntities());
  progress_.update(0.05);
  TS_RETURN_IF_ERROR(readColumns());
  TS_RETURN_IF_ERROR(s_->finalize());
  progress_.update(1.0);
  return SessionPtr(s_.release());
}

}  // namespace

bool isSqliteFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char header[sizeof kSqliteMagic] = {};
  in.read(header, sizeof header);
  return in && std::memcmp(header, kSqliteMagic, sizeof kSqliteMagic) == 0;
}

Result<SessionPtr> loadSession(const std::string& path, const Progress& progress,
                               unsigned threads) {
  if (threads == 0) threads = std::clamp(std::thread::hardware_concurrency(), 1u, 8u);
  if (Status st = checkHeader(path); !st) return st.failure().prefixed(path + ": ");
  auto db = SqliteDb::open(path, true);
  if (!db) return db.failure().prefixed(path + ": cannot open: ");
  Reader reader(db.value(), progress, threads);
  auto session = reader.read();
  if (!session) return session.failure().prefixed(path + ": ");
  return session;
}

}  // namespace ts
