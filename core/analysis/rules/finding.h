// What an expert rule found: named as `nsys analyze` names its rules (and ours beyond them), with
// the time it costs, where it happens on the timeline and what to do about it; and what every
// rule reads to find it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/launch_index.h"
#include "analysis/steps.h"

namespace ts {

struct Diagnosis;

struct Finding {
  std::string rule;  // "cuda_memcpy_async", "gpu_gaps", "host_bound", ...
  int32_t rank = 0;  // Rank::rank
  size_t count = 0;  // calls, events, gaps or steps it covers
  TimeNs start = 0;  // first occurrence's start to the last one's end (session clock)
  TimeNs end = 0;
  TimeNs cost = 0;                // the time it costs, as each rule defines it (ranked by this)
  std::string message;            // what was seen, with its numbers
  std::string advice;             // what to change
  std::vector<Interval> where;    // occurrences, costliest first (≤ 100)
  std::vector<TimeNs> whereCost;  // what each of them cost
  std::string occurrence = "occurrence";  // what one of `where` is: "call", "gap", "step", …
  std::vector<std::pair<uint32_t, uint32_t>> events;  // (track, event) to highlight (≤ 100)
};

struct RuleOptions {
  TimeNs gapThreshold = 500'000'000;     // gpu_gaps: GPU idle at least this long (nsys)
  double lowUtilisation = 50;            // gpu_time_util: busy % below this (nsys)
  int utilisationChunks = 30;            // gpu_time_util: slices of each GPU's span (nsys)
  double hostBoundShare = 0.10;          // host_bound: host-wait idle above this share of a step
  double exposedCommShare = 0.10;        // exposed_comm: of a step
  double dataLoaderShare = 0.05;         // dataloader: of a step
  double launchBoundShare = 0.50;        // launch_bound: short operations above this share
  uint64_t syncCopyMinHtoD = 64 * 1024;  // cuda_memcpy_sync ignores HtoD copies up to this (nsys)
  // Set when the session is one rank of a job's files diagnosed alone (rank by rank): its GPUs
  // are named as the job's session names them, "rank 3 / host · GPU 0: H100".
  std::string jobRankLabel;
};

// Merged GPU busy time (kernels, copies, memsets) clipped to the range, per device and per rank.
struct GpuBusy {
  std::vector<std::vector<Interval>> byDevice;  // indexed like Session::devices
  std::vector<std::vector<Interval>> byRank;    // indexed like Session::ranks (at least one)
};
GpuBusy gpuBusy(const Session& session, const AnalysisRange& range);

// What every rule reads: the session, the diagnosis's analyses of it and the windows the
// per-step rules judge (the steps, else each rank's whole range as one window).
struct RuleInput {
  const Session& session;
  const Diagnosis& diagnosis;
  const LaunchIndex& launches;
  const RuleOptions& options;
  const AnalysisRange& range;
  const GpuBusy& busy;
  const std::vector<Step>& windows;
  bool windowsAreSteps = true;
  // What whole steps are judged against: the session's gaps and busy time (a range keeps the
  // steps at least half inside it, measured whole); without steps, the range's own.
  const std::vector<IdleGap>& stepGaps;
  const GpuBusy& stepBusy;
};

// What a rule could not judge: how many of what it reads (calls, operations, gaps) it could not
// place; counts add up over ranks judged apart. ruleNoteText says it.
struct RuleNote {
  std::string rule;
  uint64_t count = 0;
};

struct RuleOutput {
  std::vector<Finding> findings;
  std::vector<RuleNote> notes;  // at most one per rule, in rule order
};

// Occurrences collected one by one, then summarised into a finding.
class FindingBuilder {
 public:
  FindingBuilder(std::string rule, int32_t rank) { f_.rule = std::move(rule), f_.rank = rank; }
  void add(TimeNs start, TimeNs end, TimeNs cost, uint32_t track = kNone, uint32_t event = 0);
  // Another event to highlight for the last occurrence (a copy beside its launching call).
  void highlight(uint32_t track, uint32_t event);
  void setOccurrence(std::string what) { f_.occurrence = std::move(what); }
  bool empty() const { return f_.count == 0; }
  size_t count() const { return f_.count; }
  TimeNs cost() const { return f_.cost; }
  // The finding, with its message and advice; `where` keeps the 100 costliest occurrences.
  Finding finish(std::string message, std::string advice);

 private:
  Finding f_;
};

// One builder per rank of the session (at least one), indexed like Session::ranks.
std::vector<FindingBuilder> buildersPerRank(const Session& session, std::string_view rule);

// A CUDA API name without its version suffix ("cudaMemcpyAsync_v3020" → "cudaMemcpyAsync").
std::string_view baseApiName(std::string_view name);

// Visits every GPU operation of `kind` starting inside the range whose launching call is known:
// f(track, event, apiTrack, apiEvent, base API name). Returns how many had no known launch.
template <class F>
size_t forEachLaunched(const RuleInput& in, EventKind kind, F f) {
  const Session& s = in.session;
  size_t unknown = 0;
  for (uint32_t t = 0; t < s.tracks.size(); ++t) {
    const Track& track = s.tracks[t];
    if (track.kind != kind) continue;
    for (uint32_t i = 0; i < track.size(); ++i) {
      TimeNs at = track.hot.start[i];
      if (at < in.range.start || at >= in.range.end) continue;
      LaunchRef l = in.launches.launchOf(t, i);
      if (!l.known()) {
        ++unknown;
        continue;
      }
      f(t, i, l.track, l.event, baseApiName(s.str(s.tracks[l.track].hot.name[l.event])));
    }
  }
  return unknown;
}

// The windows (steps) where value(window) is above `share` of the window's time, one builder per
// rank, each such window an occurrence costing min(value, its time). Windows that launched no
// GPU work are not judged.
struct WindowJudgement {
  std::vector<FindingBuilder> builders;  // per rank
  std::vector<size_t> judged;            // per rank: windows judged
  std::vector<TimeNs> flaggedTime;       // per rank: time of the flagged windows
  // "in 3 of 10 steps", or "over the range" when the trace marks no steps.
  std::string where(const RuleInput& in, size_t rank) const;
  // The cost as a share of the flagged windows' time: "23.4 %".
  std::string share(size_t rank) const;
};
WindowJudgement windowsAbove(const RuleInput& in, std::string_view rule, double share,
                             const std::function<TimeNs(const Step&)>& value);

// An operation whose launching call blocked the CPU, as an occurrence of its rank's builder: from
// the call's start to the later of its end and the operation's, costing the call's time, the call
// and the operation outlined. Returns the builder's index.
size_t addBlockingCall(const RuleInput& in, std::vector<FindingBuilder>& builders, uint32_t track,
                       uint32_t event, uint32_t apiTrack, uint32_t apiEvent);

// "3 steps", "1 call": a count and its noun, plural as needed.
std::string countOf(size_t n, std::string_view noun);
// "12.5 %" of a share in [0, 1].
std::string percentOf(double share);

}  // namespace ts
