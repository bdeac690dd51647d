// SessionBuilder: collects events in any order from an importer, a generator or a live capture,
// then publishes an immutable Session (sorted tracks, lanes, flows from correlation ids).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "session/session.h"
#include "util/progress.h"
#include "util/result.h"

namespace ts {

// An event as added to the builder; addFlow() takes two of them.
struct EventRef {
  uint32_t track = kNone;  // the builder's track
  uint32_t index = 0;      // arrival order within that track
};

// Now, as a provenance's createdUtc holds it ("2026-12-05T08:30:00Z").
std::string utcNowIso();

class SessionBuilder {
 public:
  SessionBuilder();

  // Entities are created on first mention and referred to by index afterwards.
  uint32_t rank(int32_t rank);
  uint32_t device(uint32_t rank, int32_t ordinal);
  uint32_t process(uint32_t rank, int64_t pid);
  uint32_t thread(uint32_t process, int64_t tid);
  uint32_t context(uint32_t device, uint32_t contextId);
  uint32_t stream(uint32_t device, uint32_t streamId);
  // A stream of one process (an index): CUPTI numbers streams per process, so two processes on
  // one GPU may both have a stream 7 and must not share its row.
  uint32_t stream(uint32_t device, uint32_t streamId, uint32_t process);
  Rank& rankInfo(uint32_t rank) { return s_->ranks[rank]; }
  Device& deviceInfo(uint32_t device) { return s_->devices[device]; }
  Process& processInfo(uint32_t process) { return s_->processes[process]; }
  Thread& threadInfo(uint32_t thread) { return s_->threads[thread]; }
  Context& contextInfo(uint32_t context) { return s_->contexts[context]; }
  Stream& streamInfo(uint32_t stream) { return s_->streams[stream]; }
  Provenance& provenance() { return s_->provenance; }
  uint32_t processCount() const { return static_cast<uint32_t>(s_->processes.size()); }
  uint32_t threadCount() const { return static_cast<uint32_t>(s_->threads.size()); }

  StringId intern(std::string_view text) { return s_->strings.intern(text); }

  // GPU work on a stream. end < start is clamped to start.
  EventRef addKernel(uint32_t stream, TimeNs start, TimeNs end, StringId name,
                     const KernelDetail& d);
  EventRef addMemcpy(uint32_t stream, TimeNs start, TimeNs end, StringId name,
                     const MemcpyDetail& d);
  EventRef addMemset(uint32_t stream, TimeNs start, TimeNs end, StringId name,
                     const MemsetDetail& d);
  // CPU work on a thread.
  EventRef addApi(uint32_t thread, TimeNs start, TimeNs end, StringId name, const ApiDetail& d);
  EventRef addNvtx(uint32_t thread, TimeNs start, TimeNs end, StringId text, const NvtxDetail& d);
  EventRef addRange(uint32_t thread, TimeNs start, TimeNs end, StringId name, const RangeDetail& d);
  // Annotation ranges that a tool placed on a GPU stream (Kineto's gpu_user_annotation).
  EventRef addStreamNvtx(uint32_t stream, TimeNs start, TimeNs end, StringId text,
                         const NvtxDetail& d);

  // Ranges of other categories that a tool placed on a GPU stream (Kineto's cuda_sync).
  EventRef addStreamRange(uint32_t stream, TimeNs start, TimeNs end, StringId name,
                          const RangeDetail& d);

  void addFlow(EventRef from, EventRef to);
  // A flow whose ends are known only by owner and time (Chrome 's'/'t'/'f' events): resolved at
  // build() to the deepest event covering `time` (enclosing) or the first starting at or after it.
  struct FlowEnd {
    uint32_t thread = kNone;  // one of thread or stream
    uint32_t stream = kNone;
    TimeNs time = 0;
    bool enclosing = true;
  };
  void addFlow(const FlowEnd& from, const FlowEnd& to);
  // Counter samples; the counter is keyed by (name, device or process).
  void addCounterSample(std::string_view name, std::string_view unit, uint32_t device,
                        uint32_t process, TimeNs time, double value);
  void addCounterSample(std::string_view name, std::string_view unit, uint32_t device,
                        uint32_t process, const CounterSample& sample);

  size_t eventCount() const { return events_; }

  // For a session that grows in place instead of being built once (session/live_session.h): the
  // session being made (entities and strings; its tracks are the live session's to fill), the
  // track of (kind, stream or thread), made on first mention, and the process a context belongs
  // to (kNone when unknown).
  Session& draft() { return *s_; }
  uint32_t track(EventKind kind, uint32_t stream, uint32_t thread) {
    return trackFor(kind, stream, thread);
  }
  uint32_t processOfContext(uint32_t device, uint32_t context) const;

  // Rank clock offsets (Rank::clockOffsetNs) are added to every timestamp of that rank at build():
  // importers add raw times and set the offset when they learn it (Kineto's baseTimeNanoseconds,
  // multi-rank alignment, a manual shift).
  // Sorts, assigns lanes, links API calls to the GPU work they launched (by correlation id within
  // a process, or within a rank when the GPU work's process is unknown and the id is unique),
  // validates and publishes. The builder is empty afterwards.
  Result<SessionPtr> build(const Progress& progress = {});

 private:
  struct Key {
    uint64_t hi, lo;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      return std::hash<uint64_t>()(k.hi * 0x9E3779B97F4A7C15ull ^ k.lo);
    }
  };

  uint32_t trackFor(EventKind kind, uint32_t stream, uint32_t thread);
  template <class Detail>
  EventRef add(EventKind kind, uint32_t stream, uint32_t thread, TimeNs start, TimeNs end,
               StringId name, const Detail& d);
  Track& push(uint32_t track, TimeNs start, TimeNs end, StringId name);
  uint32_t lookup(const Key& key, size_t next);

  std::unique_ptr<Session> s_;
  std::unordered_map<Key, uint32_t, KeyHash> index_;  // entity and track keys → index
  std::vector<std::pair<EventRef, EventRef>> flows_;
  std::vector<std::pair<FlowEnd, FlowEnd>> timedFlows_;
  size_t events_ = 0;
};

}  // namespace ts
