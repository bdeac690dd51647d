// Writes a Session as a .tscope file, atomically.
#include <algorithm>
#include <functional>

#include "io/atomic_file.h"
#include "io/column_codec.h"
#include "io/sqlite_db.h"
#include "io/tscope_file.h"
#include "io/tscope_schema.h"

namespace ts {

namespace {

class Writer {
 public:
  Writer(SqliteDb& db, const Progress& progress, size_t totalRows)
      : db_(db), progress_(progress), total_(std::max<size_t>(totalRows, 1)) {}

  Status prepare() {
    auto stmt = db_.prepare(
        "INSERT INTO columns(owner_kind, owner, name, type, chunk, count, encoding, data) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
    if (!stmt) return stmt.failure();
    insert_ = std::move(stmt.value());
    return {};
  }

  // The column's values, or with `order` its values in that order (values[order[0]], ...).
  template <class T>
  Status column(ColumnOwner owner, uint32_t id, const char* name, const Column<T>& values,
                const std::vector<uint32_t>* order = nullptr) {
    std::vector<T> scratch;  // a file chunk that spans blocks of a live column, or reordered
    for (size_t first = 0, chunk = 0; first < values.size(); first += kChunkEvents, ++chunk) {
      if (progress_.cancelled()) return Error::cancelled();
      size_t count = std::min(kChunkEvents, values.size() - first);
      std::span<const T> chunkValues;
      if (order) {
        scratch.resize(count);
        for (size_t i = 0; i < count; ++i) scratch[i] = values[(*order)[first + i]];
        chunkValues = scratch;
      } else {
        chunkValues = values.span(first, count, scratch);
      }
      std::string_view encoding = encodeColumn(chunkValues, buffer_);
      if (buffer_.empty() && count > 0) return Error{"compression failed"};
      insert_.reset();
      insert_.bind(1, static_cast<int64_t>(owner));
      insert_.bind(2, static_cast<int64_t>(id));
      insert_.bind(3, std::string_view(name));
      insert_.bind(4, columnTypeName<T>());
      insert_.bind(5, static_cast<int64_t>(chunk));
      insert_.bind(6, static_cast<int64_t>(count));
      insert_.bind(7, encoding);
      insert_.bindBlob(8, buffer_);
      insert_.step();
      if (Status s = insert_.status(); !s) return s;
      written_ += count;
      progress_.update(0.1 + 0.9 * static_cast<double>(written_) / static_cast<double>(total_));
    }
    return {};
  }

 private:
  SqliteDb& db_;
  const Progress& progress_;
  SqliteStatement insert_;
  std::vector<uint8_t> buffer_;
  size_t written_ = 0;
  size_t total_;
};

Status insertRows(SqliteDb& db, std::string_view sql, size_t rows,
                  const std::function<void(SqliteStatement&, size_t)>& bindRow) {
  auto stmt = db.prepare(sql);
  if (!stmt) return stmt.failure();
  for (size_t i = 0; i < rows; ++i) {
    stmt->reset();
    bindRow(stmt.value(), i);
    stmt->step();
    if (Status s = stmt->status(); !s) return s;
  }
  return {};
}

Status writeMetadata(SqliteDb& db, const Session& s) {
  const Provenance& p = s.provenance;
  std::vector<std::pair<std::string, std::string>> meta = {
      {"format", std::string(kTscopeFormatName)},
      {"schema_version", std::to_string(kTscopeSchemaVersion)},
      {"tool_version", p.toolVersion},
      {"created_utc", p.createdUtc},
      {"capture_command", p.captureCommand},
      {"profiler", p.profiler},
      {"incomplete", p.incomplete ? "1" : "0"},
      {"flow_count", std::to_string(s.flows.srcTrack.size())},
  };
  if (!p.incompleteReason.empty()) meta.emplace_back("incomplete_reason", p.incompleteReason);
  if (p.exitCode) meta.emplace_back("exit_code", std::to_string(*p.exitCode));
  if (p.droppedRecords) meta.emplace_back("dropped_records", std::to_string(p.droppedRecords));
  if (p.worldSize > 0) meta.emplace_back("world_size", std::to_string(p.worldSize));
  for (const auto& [what, n] : p.skipped) meta.emplace_back("skipped:" + what, std::to_string(n));
  for (const auto& [why, n] : p.lost) meta.emplace_back("lost:" + why, std::to_string(n));
  if (p.simulation) {
    std::string policies;
    for (const std::string& policy : p.simulation->policies)
      policies += (policies.empty() ? "" : ",") + policy;
    meta.emplace_back("simulated_workload", p.simulation->workload);
    meta.emplace_back("simulated_policies", policies);
  }
  Status st = insertRows(db, "INSERT INTO tscope_meta(key, value) VALUES (?1, ?2)", meta.size(),
                         [&](SqliteStatement& q, size_t i) {
                           q.bind(1, std::string_view(meta[i].first));
                           q.bind(2, std::string_view(meta[i].second));
                         });
  if (!st) return st;
  st = insertRows(db, "INSERT INTO strings(id, value) VALUES (?1, ?2)", s.strings.size(),
                  [&](SqliteStatement& q, size_t i) {
                    q.bind(1, static_cast<int64_t>(i));
                    q.bind(2, s.strings.get(static_cast<StringId>(i)));
                  });
  if (!st) return st;
  st = insertRows(db, "INSERT INTO sources(id, path, format) VALUES (?1, ?2, ?3)", p.sources.size(),
                  [&](SqliteStatement& q, size_t i) {
                    q.bind(1, static_cast<int64_t>(i));
                    q.bind(2, std::string_view(p.sources[i].path));
                    q.bind(3, std::string_view(p.sources[i].format));
                  });
  if (!st) return st;
  st = insertRows(db,
                  "INSERT INTO ranks(id, rank, host, label, clock_offset_ns) "
                  "VALUES (?1, ?2, ?3, ?4, ?5)",
                  s.ranks.size(), [&](SqliteStatement& q, size_t i) {
                    const Rank& r = s.ranks[i];
                    q.bind(1, static_cast<int64_t>(i));
                    q.bind(2, static_cast<int64_t>(r.rank));
                    q.bind(3, std::string_view(r.host));
                    q.bind(4, std::string_view(r.label));
                    q.bind(5, r.clockOffsetNs);
                  });
  if (!st) return st;
  st = insertRows(
      db,
      "INSERT INTO devices(id, rank, ordinal, name, uuid, compute_major, compute_minor, sm_count, "
      "memory_bytes, memory_bandwidth_bytes_per_s, clock_khz, max_warps_per_sm, "
      "max_blocks_per_sm, max_threads_per_block, max_registers_per_sm, max_registers_per_block, "
      "max_shared_memory_per_sm, max_shared_memory_per_block, warp_size) VALUES (?1, ?2, ?3, ?4, "
      "?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19)",
      s.devices.size(), [&](SqliteStatement& q, size_t i) {
        const Device& d = s.devices[i];
        q.bind(1, static_cast<int64_t>(i));
        q.bind(2, static_cast<int64_t>(d.rank));
        q.bind(3, static_cast<int64_t>(d.ordinal));
        q.bind(4, std::string_view(d.name));
        q.bind(5, std::string_view(d.uuid));
        const int64_t numbers[] = {d.computeMajor,
                                   d.computeMinor,
                                   d.smCount,
                                   static_cast<int64_t>(d.memoryBytes),
                                   static_cast<int64_t>(d.memoryBandwidthBytesPerSecond),
                                   d.clockKHz,
                                   d.maxWarpsPerSm,
                                   d.maxBlocksPerSm,
                                   d.maxThreadsPerBlock,
                                   d.maxRegistersPerSm,
                                   d.maxRegistersPerBlock,
                                   d.maxSharedMemoryPerSm,
                                   d.maxSharedMemoryPerBlock,
                                   d.warpSize};
        for (int c = 0; c < 14; ++c) q.bind(6 + c, numbers[c]);
      });
  if (!st) return st;
  st = insertRows(
      db, "INSERT INTO processes(id, rank, pid, name, sort_index) VALUES (?1, ?2, ?3, ?4, ?5)",
      s.processes.size(), [&](SqliteStatement& q, size_t i) {
        q.bind(1, static_cast<int64_t>(i));
        q.bind(2, static_cast<int64_t>(s.processes[i].rank));
        q.bind(3, s.processes[i].pid);
        q.bind(4, std::string_view(s.processes[i].name));
        q.bind(5, s.processes[i].sortIndex);
      });
  if (!st) return st;
  st = insertRows(
      db, "INSERT INTO threads(id, process, tid, name, sort_index) VALUES (?1, ?2, ?3, ?4, ?5)",
      s.threads.size(), [&](SqliteStatement& q, size_t i) {
        q.bind(1, static_cast<int64_t>(i));
        q.bind(2, static_cast<int64_t>(s.threads[i].process));
        q.bind(3, s.threads[i].tid);
        q.bind(4, std::string_view(s.threads[i].name));
        q.bind(5, s.threads[i].sortIndex);
      });
  if (!st) return st;
  st = insertRows(db,
                  "INSERT INTO contexts(id, device, context_id, process) VALUES (?1, ?2, ?3, ?4)",
                  s.contexts.size(), [&](SqliteStatement& q, size_t i) {
                    q.bind(1, static_cast<int64_t>(i));
                    q.bind(2, static_cast<int64_t>(s.contexts[i].device));
                    q.bind(3, static_cast<int64_t>(s.contexts[i].contextId));
                    q.bindRef(4, s.contexts[i].process);
                  });
  if (!st) return st;
  st = insertRows(db,
                  "INSERT INTO streams(id, device, stream_id, context, priority, name) "
                  "VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                  s.streams.size(), [&](SqliteStatement& q, size_t i) {
                    const Stream& x = s.streams[i];
                    q.bind(1, static_cast<int64_t>(i));
                    q.bind(2, static_cast<int64_t>(x.device));
                    q.bind(3, static_cast<int64_t>(x.streamId));
                    q.bindRef(4, x.context);
                    q.bind(5, static_cast<int64_t>(x.priority));
                    q.bind(6, std::string_view(x.name));
                  });
  if (!st) return st;
  st = insertRows(db,
                  "INSERT INTO tracks(id, kind, device, stream, thread, event_count) "
                  "VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                  s.tracks.size(), [&](SqliteStatement& q, size_t i) {
                    const Track& t = s.tracks[i];
                    q.bind(1, static_cast<int64_t>(i));
                    q.bind(2, static_cast<int64_t>(t.kind));
                    q.bindRef(3, t.device);
                    q.bindRef(4, t.stream);
                    q.bindRef(5, t.thread);
                    q.bind(6, static_cast<int64_t>(t.size()));
                  });
  if (!st) return st;
  return insertRows(db,
                    "INSERT INTO counters(id, name, unit, device, process, sample_count) "
                    "VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                    s.counters.size(), [&](SqliteStatement& q, size_t i) {
                      const CounterTrack& c = s.counters[i];
                      q.bind(1, static_cast<int64_t>(i));
                      q.bind(2, std::string_view(c.name));
                      q.bind(3, std::string_view(c.unit));
                      q.bindRef(4, c.device);
                      q.bindRef(5, c.process);
                      q.bind(6, static_cast<int64_t>(c.size()));
                    });
}

Status writeDatabase(const Session& s, const std::string& path, const Progress& progress) {
  auto opened = SqliteDb::open(path, false);
  if (!opened) return opened.failure();
  SqliteDb& db = opened.value();
  // The file is private until renamed into place, so no journal is needed: a crash leaves only
  // a stray temporary file.
  // Large pages keep the overflow chains of big column chunks short; small sessions stay small
  // with the default page (every table takes at least one page).
  const bool large = s.eventCount() >= 200'000;
  Status st = db.exec(std::string("PRAGMA page_size = ") + (large ? "65536" : "4096") +
                      "; PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; BEGIN;");
  if (!st) return st;
  if (st = db.exec(kTscopeSchemaSql); !st) return st;
  if (st = writeMetadata(db, s); !st) return st;

  size_t total = s.eventCount() + s.flows.srcTrack.size();
  for (const CounterTrack& c : s.counters) total += c.size();
  {  // the writer's statement must be finalized before the database closes
    Writer writer(db, progress, total);
    if (st = writer.prepare(); !st) return st;
    for (size_t i = 0; i < s.tracks.size() && st; ++i) {
      visitTrackColumns(s.tracks[i], [&](const char* name, const auto& values) {
        if (st) st = writer.column(ColumnOwner::Track, static_cast<uint32_t>(i), name, values);
      });
    }
    for (size_t i = 0; i < s.counters.size() && st; ++i) {
      s.counters[i].samples.visit([&](const char* name, const auto& values) {
        if (st) st = writer.column(ColumnOwner::Counter, static_cast<uint32_t>(i), name, values);
      });
    }
    // Files hold flows sorted. A live snapshot's are in the order they were linked: written in
    // sorted order without a sorted copy of them (a long capture's are GBs).
    std::vector<uint32_t> order;
    if (!s.sortedFlows()) order = flowOrderBySource(s.flows);
    s.flows.visit([&](const char* name, const auto& values) {
      if (st)
        st = writer.column(ColumnOwner::Flows, 0, name, values, s.sortedFlows() ? nullptr : &order);
    });
  }
  if (!st) return st;
  if (st = db.exec("COMMIT;"); !st) return st;
  return db.close();
}

}  // namespace

Status saveSession(const Session& session, const std::string& path, const Progress& progress) {
  progress.update(0.0);
  Status st = writeFileAtomically(
      path, [&](const std::string& temp) { return writeDatabase(session, temp, progress); });
  if (st) progress.update(1.0);
  return st;
}

}  // namespace ts
