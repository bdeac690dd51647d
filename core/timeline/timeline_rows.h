// The rows of the timeline, in the Nsight layout: per rank, per GPU a Compute row (all kernels),
// a row per stream and a row per copy kind and for memsets; per process, per thread its CUDA API
// calls, NVTX and other ranges. Group rows (rank, GPU, process, thread) can collapse.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "session/session.h"
#include "timeline/counter_fold.h"
#include "timeline/lane_fold.h"

namespace ts {

struct TimelineRow {
  enum class Kind { Group, Compute, KernelName, Stream, Copy, Memset, Api, Nvtx, Range, Counter };
  Kind kind = Kind::Group;
  std::string label;
  int depth = 0;                              // nesting under group rows
  std::vector<std::vector<LaneView>> lanes;   // visual lanes, top to bottom; each draws its views
  uint32_t device = kNone;                    // for GPU rows
  int copyKind = -1;                          // Copy rows
  size_t events = 0;                          // events the row shows (all lanes)
  bool expandable = false;                    // has child rows (deeper rows that follow it)
  bool startsCollapsed = false;               // the Compute row's per-name rows start folded
  const CounterTrack* counter = nullptr;      // Counter rows
  const CounterSummary* counterSummary = nullptr;
};

// Kernel-name rows under Compute: the names with the most GPU time (the rest are summed up in the
// Compute row itself).
inline constexpr size_t kMaxKernelNameRows = 30;

class TimelineRows {
 public:
  explicit TimelineRows(SessionPtr session);
  TimelineRows(const TimelineRows&) = delete;
  TimelineRows& operator=(const TimelineRows&) = delete;

  const Session& session() const { return *session_; }
  const std::vector<TimelineRow>& rows() const { return rows_; }
  size_t size() const { return rows_.size(); }
  const TimelineRow& operator[](size_t i) const { return rows_[i]; }

 private:
  void add(TimelineRow row) { rows_.push_back(std::move(row)); }
  const std::vector<uint32_t>* subset(std::vector<uint32_t> events);
  template <class Keep>
  void filtered(TimelineRow& row, const std::vector<uint32_t>& tracks, EventKind kind, Keep keep);

  SessionPtr session_;
  std::vector<TimelineRow> rows_;
  std::vector<std::unique_ptr<std::vector<uint32_t>>> subsets_;  // owned filtered lanes
  std::vector<std::unique_ptr<LaneSummary>> summaries_;           // block summaries of big lanes
  std::vector<std::unique_ptr<CounterSummary>> counterSummaries_;
  void addCounterRows(uint32_t device, uint32_t process, int depth);
};

}  // namespace ts
