// The .tscope file: an SQLite database. Metadata lives in plain tables; event columns live in
// the `columns` table as compressed chunks. The full schema is documented in docs/tscope-format.md;
// keep the two in step and bump kTscopeSchemaVersion on any change an older reader would misread.
#pragma once

#include <string_view>

#include "session/track.h"

namespace ts {

inline constexpr int kTscopeSchemaVersion = 1;
inline constexpr std::string_view kTscopeFormatName = "tensorscope-session";
// Events per column chunk: bounds the memory a writer or reader holds per blob.
inline constexpr size_t kChunkEvents = size_t{1} << 20;

// Owner kinds in the `columns` table.
enum class ColumnOwner : int { Track = 0, Counter = 1, Flows = 2 };

inline constexpr std::string_view kTscopeSchemaSql = R"SQL(
CREATE TABLE tscope_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE strings(id INTEGER PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE sources(id INTEGER PRIMARY KEY, path TEXT NOT NULL, format TEXT NOT NULL);
CREATE TABLE ranks(id INTEGER PRIMARY KEY, rank INTEGER NOT NULL, host TEXT NOT NULL,
                   label TEXT NOT NULL, clock_offset_ns INTEGER NOT NULL);
CREATE TABLE devices(id INTEGER PRIMARY KEY, rank INTEGER NOT NULL, ordinal INTEGER NOT NULL,
                     name TEXT NOT NULL, uuid TEXT NOT NULL,
                     compute_major INTEGER, compute_minor INTEGER, sm_count INTEGER,
                     memory_bytes INTEGER, memory_bandwidth_bytes_per_s INTEGER,
                     clock_khz INTEGER, max_warps_per_sm INTEGER, max_blocks_per_sm INTEGER,
                     max_threads_per_block INTEGER, max_registers_per_sm INTEGER,
                     max_registers_per_block INTEGER, max_shared_memory_per_sm INTEGER,
                     max_shared_memory_per_block INTEGER, warp_size INTEGER);
CREATE TABLE processes(id INTEGER PRIMARY KEY, rank INTEGER NOT NULL, pid INTEGER NOT NULL,
                       name TEXT NOT NULL, sort_index INTEGER NOT NULL);
CREATE TABLE threads(id INTEGER PRIMARY KEY, process INTEGER NOT NULL, tid INTEGER NOT NULL,
                     name TEXT NOT NULL, sort_index INTEGER NOT NULL);
CREATE TABLE contexts(id INTEGER PRIMARY KEY, device INTEGER NOT NULL,
                      context_id INTEGER NOT NULL, process INTEGER);
CREATE TABLE streams(id INTEGER PRIMARY KEY, device INTEGER NOT NULL, stream_id INTEGER NOT NULL,
                     context INTEGER, priority INTEGER NOT NULL, name TEXT NOT NULL);
CREATE TABLE tracks(id INTEGER PRIMARY KEY, kind INTEGER NOT NULL, device INTEGER,
                    stream INTEGER, thread INTEGER, event_count INTEGER NOT NULL);
CREATE TABLE counters(id INTEGER PRIMARY KEY, name TEXT NOT NULL, unit TEXT NOT NULL,
                      device INTEGER, process INTEGER, sample_count INTEGER NOT NULL);
CREATE TABLE columns(owner_kind INTEGER NOT NULL, owner INTEGER NOT NULL, name TEXT NOT NULL,
                     type TEXT NOT NULL, chunk INTEGER NOT NULL, count INTEGER NOT NULL,
                     encoding TEXT NOT NULL, data BLOB NOT NULL,
                     PRIMARY KEY(owner_kind, owner, name, chunk));
)SQL";

// Visits the hot columns, then the detail columns of the track's kind: f(name, const vector&),
// as a file stores them.
template <class F>
void visitTrackColumns(const Track& track, F&& f) {
  track.hot.visit(f);
  switch (track.kind) {
    case EventKind::Kernel:
      // Written as every launch's whole row, the format the file has always had (in memory the
      // configurations are shared: KernelColumns).
      track.kernels.visitFileColumns(f);
      break;
    case EventKind::Memcpy:
      track.memcpys.visit(f);
      break;
    case EventKind::Memset:
      track.memsets.visit(f);
      break;
    case EventKind::Api:
      track.apis.visit(f);
      break;
    case EventKind::Nvtx:
      track.nvtx.visit(f);
      break;
    case EventKind::Range:
      track.ranges.visit(f);
      break;
  }
}

}  // namespace ts
