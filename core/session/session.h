// Session: an immutable, columnar record of one profiled run (or several ranks of one).
// Built by SessionBuilder or read from a file, then shared as std::shared_ptr<const Session>;
// several live side by side (tabs, compare, multi-rank). No globals.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "session/entities.h"
#include "session/event_columns.h"
#include "session/string_table.h"
#include "session/track.h"
#include "util/result.h"

namespace ts {

struct CounterTrack {
  std::string name;
  std::string unit;
  uint32_t device = kNone;   // a GPU counter, or
  uint32_t process = kNone;  // a process counter
  CounterColumns samples;    // sorted by time
  size_t size() const { return samples.time.size(); }
  Status finalize() const;
};

struct SourceFile {
  std::string path;
  std::string format;  // "tscope", "kineto-json", "nsys-sqlite", "synthetic", "capture", ...
};

// Where a session came from; stored with it.
struct Provenance {
  std::string toolVersion;  // Tensorscope version that wrote the session
  std::string createdUtc;   // ISO 8601
  std::vector<SourceFile> sources;
  std::string captureCommand;  // argv joined for display, for captured sessions
  std::string profiler;  // what recorded it, with versions ("CUPTI 13.0.1, built with 13.0.1")
  std::optional<int> exitCode;  // of the captured program
  bool incomplete = false;      // capture ended before a final flush (crash, kill), or a damaged
                                // trace was opened without its damaged part (incompleteReason says)
  std::string incompleteReason;
  // Records lost while recording: those the profiler (CUPTI) reported it could not keep, and in a
  // capture also those dropped in the program, unreadable, or without usable timestamps.
  uint64_t droppedRecords = 0;
  // droppedRecords by cause, where the recorder knows them (a capture: "dropped by CUPTI (its
  // buffers were full)" → 7, "without timestamps (CUPTI could not complete them)" → 2).
  std::map<std::string, uint64_t> lost;
  // The job's rank count as its traces state it (Kineto's distributedInfo.world_size), which a
  // session holding a sample of the ranks cannot tell by itself; 0 when no trace says.
  int32_t worldSize = 0;
  // What the readers left out of the source files, by what it was (ImportInfo::skipped, summed
  // over the files): "OSRT_API rows" → 849.
  std::map<std::string, uint64_t> skipped;
  // Set on a session Tensorscope simulated (memsim/sim_session.h): the workload, and each rank's
  // policy. The explicit mark readers go by; rank labels are for people and may change.
  struct Simulation {
    std::string workload;
    std::vector<std::string> policies;  // by rank
  };
  std::optional<Simulation> simulation;
};

class Session {
 public:
  StringTable strings;
  std::vector<Rank> ranks;
  std::vector<Device> devices;
  std::vector<Process> processes;
  std::vector<Thread> threads;
  std::vector<Context> contexts;
  std::vector<Stream> streams;
  std::vector<Track> tracks;
  std::vector<CounterTrack> counters;
  // Sorted by (srcTrack, srcEvent) — except in a live capture's snapshots, where they are in the
  // order they were linked (sortedFlows() says which).
  FlowColumns flows;
  Provenance provenance;

  std::string_view str(StringId id) const { return strings.get(id); }
  TimeNs startTime() const { return start_; }
  TimeNs endTime() const { return end_; }
  TimeNs duration() const { return end_ - start_; }
  size_t eventCount() const;
  bool multiRank() const { return ranks.size() > 1; }

  // "GPU 0: NVIDIA A100-SXM4-40GB", prefixed with the rank label in multi-rank sessions.
  std::string deviceLabel(uint32_t device) const;
  // By device: whether any track (kernels, copies, memsets) or counter is on it. A trace lists
  // every GPU of the machine; those that ran nothing stay out of choosers and tables.
  std::vector<bool> activeDevices() const;
  // "Stream 7" (or its user-given name).
  std::string streamLabel(uint32_t stream) const;
  // "python (1234)" / "Thread 5678: name".
  std::string processLabel(uint32_t process) const;
  std::string threadLabel(uint32_t thread) const;

  // Validates every cross-reference and track, builds track indexes, computes the time span.
  // Readers call it before publishing; an error names the table and row.
  Status finalize();
  // finalize() for a session that grew in place (session/live_session.h): only the events from
  // trackFrom[i] on of track i (a track past the list's end is new) and the flows from
  // `flowsFrom` on are checked and indexed.
  Status extend(const std::vector<size_t>& trackFrom, size_t flowsFrom);
  // A copy that shares the event columns (Column): what a live session publishes, in time
  // bounded by the tracks, blocks and strings, not by the events.
  std::shared_ptr<Session> share() const;

  bool sortedFlows() const { return sortedFlows_; }
  void setUnsortedFlows() { sortedFlows_ = false; }
  void setSortedFlows() { sortedFlows_ = true; }

 private:
  Status check(const std::vector<size_t>* trackFrom, size_t flowsFrom);

  bool sortedFlows_ = true;
  TimeNs start_ = 0;
  TimeNs end_ = 0;
};

using SessionPtr = std::shared_ptr<const Session>;

// The session's flows sorted by (srcTrack, srcEvent) — they are, but for a live snapshot's.
FlowColumns flowsBySource(const Session& s);
// The order that sorts flows by (srcTrack, srcEvent, dstTrack, dstEvent): position i of the
// sorted flows holds flow order[i].
std::vector<uint32_t> flowOrderBySource(const FlowColumns& flows);
// Sorts them in that order, in place (blocks another column shares are copied first).
void sortFlowsBySource(FlowColumns& flows);

// A deep copy to add tracks to (a session is immutable once published). String ids are kept.
// Not finalized: call finalize() after adding.
std::shared_ptr<Session> copySession(const Session& s);

}  // namespace ts
