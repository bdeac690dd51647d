// LiveSession: a session that grows while a capture runs and is published as snapshots, each in
// time bounded by what came since the last one — not by everything recorded (issue: a one-hour
// capture at 50 k events/s must publish in ≤ 50 ms).
//
// Events come in any order, as a profiler hands them over. Each publish sorts what came since the
// last one and appends it to its track's columns, after the events already published: the columns
// are chunked (session/column.h), so the snapshot — a Session sharing them — is copied in time
// bounded by tracks and blocks, and the events it holds never move again. Events that came since
// the last publish and start less than `holdback` before the latest time seen wait for the next
// one (never longer), so that records arriving a little out of order still land in order. One
// that arrives later than that (it starts before what its track has published) makes its track be
// put in order again whole: correct, and counted (lateRebuilds()), as such a publish costs the
// track's size.
//
// Lanes are assigned as SessionBuilder assigns them (the lowest lane free at an event's start);
// API calls are linked to the GPU work they launched by correlation id, within the work's process,
// as the builder links them, calls and work waiting for each other for kLinkWindow (so memory
// stays bounded: GPU work that starts more than that after its call, behind a queue of over 10 s,
// is not linked; nor is work of a context whose process is unknown, which a capture never has).
// Otherwise a final publish (holdback 0, final) gives the session SessionBuilder would have built
// from the same events — flows sorted as files hold them.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "session/launch_table.h"
#include "session/session.h"
#include "session/session_builder.h"
#include "util/result.h"

namespace ts {

class LiveSession {
 public:
  // An API call waits for the GPU work it launched (and work for its call) until the latest time
  // seen is this far past it: work CUPTI reports later than that is shown without its link.
  static constexpr TimeNs kLinkWindow = 10'000'000'000;

  // Ranks, devices, processes, threads, contexts, streams and strings, made on first mention.
  SessionBuilder& entities() { return b_; }
  StringId intern(std::string_view text) { return b_.intern(text); }

  // Events, as SessionBuilder's; published from the next publish() on. end < start is clamped.
  void addKernel(uint32_t stream, TimeNs start, TimeNs end, StringId name, const KernelDetail& d);
  void addMemcpy(uint32_t stream, TimeNs start, TimeNs end, StringId name, const MemcpyDetail& d);
  void addMemset(uint32_t stream, TimeNs start, TimeNs end, StringId name, const MemsetDetail& d);
  void addApi(uint32_t thread, TimeNs start, TimeNs end, StringId name, const ApiDetail& d);
  void addNvtx(uint32_t thread, TimeNs start, TimeNs end, StringId name, const NvtxDetail& d);
  void addStreamRange(uint32_t stream, TimeNs start, TimeNs end, StringId name,
                      const RangeDetail& d);
  // An NVTX range whose end is not known yet: it reaches the latest time seen until closeNvtx()
  // (a range never closed keeps that end, as SessionBuilder's callers make it).
  using OpenRange = uint64_t;
  OpenRange openNvtx(uint32_t thread, TimeNs start, StringId name, const NvtxDetail& d);
  void closeNvtx(OpenRange range, TimeNs end);
  // The latest time any record carried: open ranges reach it, the holdback counts back from it.
  void sawTime(TimeNs t);
  TimeNs latestTime() const { return latest_; }

  // Appends what came (all of it when `holdback` is 0; else all but what came since the last
  // publish and starts within `holdback` of the latest time seen) and publishes the session.
  // `final`: flows sorted as a file holds them (O(flows log flows), once).
  Result<SessionPtr> publish(const Provenance& provenance, TimeNs holdback, bool final = false);

  size_t published() const { return published_; }  // events in the last snapshot
  size_t waiting() const;                          // events added, not yet published
  uint64_t lateRebuilds() const { return lateRebuilds_; }
  // Events left out because a time was past ±2^62 ns (no profiler clock gives one).
  uint64_t rejected() const { return rejected_; }
  // Bytes the growing session's columns and the waiting events take (for the memory benchmark).
  size_t heldBytes() const;

 private:
  // Events of one track added since the last publish, in arrival order.
  struct Pending {
    std::vector<HotRow> hot;
    std::vector<OpenRange> open;  // per row: its open range, or 0
    std::vector<KernelDetail> kernels;
    std::vector<MemcpyDetail> memcpys;
    std::vector<MemsetDetail> memsets;
    std::vector<ApiDetail> apis;
    std::vector<NvtxDetail> nvtx;
    std::vector<RangeDetail> ranges;
    size_t waited = 0;  // rows [0, waited) were here at the last publish already
    size_t size() const { return hot.size(); }
  };
  // Per track: what waits, and each lane's end (INT64_MAX while an open range holds it).
  struct Growth {
    Pending pending;
    std::vector<TimeNs> laneEnd;
    // An open range was published: events that came before its end did kept off its lane, so the
    // final publish lays the track's lanes out again as the builder would with every end known.
    bool hadOpen = false;
  };
  struct OpenAt {
    uint32_t track = kNone;
    uint32_t event = kNone;  // in the track once published; else the row in its Pending
    bool published = false;
    TimeNs end = INT64_MIN;  // set by closeNvtx before it was published
    bool closed = false;
  };
  using Launch = LaunchLink;

  bool accept(TimeNs start, TimeNs end);  // counts what it refuses
  uint32_t track(EventKind kind, uint32_t stream, uint32_t thread);
  Pending& pendingOf(EventKind kind, uint32_t stream, uint32_t thread, TimeNs start, TimeNs end,
                     StringId name, OpenRange open = 0);
  // Moves the rows of `order` (in that order) from the track's Pending to its columns.
  void appendRows(uint32_t track, const std::vector<uint32_t>& order);
  // The track's published events and `order`'s waiting rows, sorted again from the first event;
  // the rows' new places into `placed`.
  void rebuild(uint32_t track, const std::vector<uint32_t>& order, std::vector<uint32_t>& placed);
  // Lanes assigned again over the whole track, every end known (the final publish).
  void relane(uint32_t track);
  // Links the events new in this publish: [from[t], size) of each track, or the events
  // `placed[t]` lists for a track rebuilt.
  void link(size_t tracksBefore, const std::vector<size_t>& from,
            const std::unordered_map<uint32_t, std::vector<uint32_t>>& placed);
  void remapTrack(uint32_t track, const std::vector<uint32_t>& newIndex);

  SessionBuilder b_;
  std::vector<Growth> growth_;  // by track
  struct {
    EventKind kind = EventKind::Kernel;
    uint32_t stream = kNone, thread = kNone, track = kNone;
  } last_;  // the track asked for last
  std::unordered_map<OpenRange, OpenAt> open_;
  OpenRange nextOpen_ = 1;
  TimeNs latest_ = INT64_MIN;
  // Launch links: calls by key (the latest per key) and GPU work waiting for its call.
  LaunchTable calls_;
  std::deque<Launch> callOrder_;  // for forgetting calls kLinkWindow old, in publish order
  std::vector<Launch> unlinked_;
  uint64_t publishes_ = 0;
  size_t published_ = 0;
  uint64_t lateRebuilds_ = 0;
  uint64_t rejected_ = 0;
  std::string broken_;  // set when a publish failed its checks: every later one fails too
};

}  // namespace ts
