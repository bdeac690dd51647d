// The rows of the timeline, in the Nsight layout: per rank, per GPU a Compute row (all kernels),
// a row per stream and a row per copy kind and for memsets; per process, per thread its CUDA API
// calls, NVTX and other ranges. Group rows (rank, GPU, process, thread) can collapse.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "session/session.h"
#include "timeline/busy_index.h"
#include "timeline/counter_fold.h"
#include "timeline/event_style.h"
#include "timeline/lane_fold.h"

namespace ts {

// A thread's annotation row (its NVTX-kind tracks) named by what it holds: "CPU ops" (PyTorch's
// ops), "annotations" (its user_annotation ranges), "NVTX", "marks" (a trace's instant events),
// or several of them ("CPU ops + annotations").
std::string annotationRowName(const Session& session, const std::vector<uint32_t>& tracks);
// A thread's track of ranges as named in the session tree: "Thread state + OS runtime",
// "Ranges", ...
std::string rangeTrackName(const Session& s, const Track& track);

struct TimelineRow {
  // Extension rows come from other modules (the simulation overlay, below): `extension` names
  // what they are, and the views draw them with what is registered for that name
  // (views/row_extensions.h), so a module adds rows without a change here.
  enum class Kind {
    Group,
    Compute,
    KernelName,
    Stream,
    Copy,
    Memset,
    Api,
    Nvtx,
    Range,
    Counter,
    Extension
  };
  Kind kind = Kind::Group;
  std::string label;
  int depth = 0;                             // nesting under group rows
  std::vector<std::vector<LaneView>> lanes;  // visual lanes, top to bottom; each draws its views
  uint32_t device = kNone;                   // for GPU rows
  int copyKind = -1;                         // Copy rows
  size_t events = 0;                         // events the row shows (all lanes)
  bool expandable = false;                   // has child rows (deeper rows that follow it)
  bool startsCollapsed = false;              // the Compute row's per-name rows start folded
  const CounterTrack* counter = nullptr;     // Counter rows
  const CounterSummary* counterSummary = nullptr;
  double capacity = 0;    // Counter rows of a memory tier: its size (drawn as a line)
  std::string info = {};  // extension rows: what the row shows, for its tooltip
  // Extension rows: the events the row's subject is tied to (a tensor's kernels), outlined when
  // one of its events is selected.
  const std::vector<std::pair<uint32_t, uint32_t>>* uses = nullptr;
  std::string extension = {};  // Extension rows: the module's name for them
  // A GPU's group row: when a kernel ran, drawn in the row as the GPU's utilisation per pixel.
  const BusyIndex* busy = nullptr;
};

// Rows a module adds to a measured timeline (a simulation, a diagnosis), placed under each GPU
// right after its Compute rows, or above them. Their tracks and counters live in the same session
// (an overlaid copy), owned here so the ordinary layout leaves them out.
struct TimelineOverlay {
  struct Row {
    TimelineRow::Kind kind = TimelineRow::Kind::Group;
    std::string label;
    int depth = 0;                 // 0: beside Compute
    std::vector<uint32_t> tracks;  // each track's lanes, stacked
    uint32_t counter = kNone;
    double capacity = 0;
    std::string info;
    std::vector<std::pair<uint32_t, uint32_t>> uses;
    bool startsCollapsed = false;
    std::string extension = {};  // with Kind::Extension
    bool aboveCompute = false;   // placed right under the GPU's header, before its Compute row
  };
  struct Gpu {
    uint32_t device = kNone;
    std::vector<Row> rows;
  };
  std::vector<Gpu> gpus;          // rows per GPU
  std::vector<bool> ownsTrack;    // by track index
  std::vector<bool> ownsCounter;  // by counter index
  // Events tied to an event (track << 32 | event): a migration to the kernel that needed it, a
  // simulated kernel to the measured kernels of its layer and back.
  std::unordered_map<uint64_t, std::vector<std::pair<uint32_t, uint32_t>>> links;
  // How the overlay's range categories are drawn (by the category's string id).
  std::unordered_map<StringId, EventStyle> styles;
  EventStyle styleOf(StringId category) const {
    auto it = styles.find(category);
    return it == styles.end() ? EventStyle::Default : it->second;
  }
  const std::vector<std::pair<uint32_t, uint32_t>>* linksOf(uint32_t track, uint32_t event) const {
    auto it = links.find((uint64_t{track} << 32) | event);
    return it == links.end() ? nullptr : &it->second;
  }
};

// Kernel-name rows under Compute: the names with the most GPU time (the rest are summed up in the
// Compute row itself).
inline constexpr size_t kMaxKernelNameRows = 30;

class TimelineRows {
 public:
  explicit TimelineRows(SessionPtr session,
                        std::shared_ptr<const TimelineOverlay> overlay = nullptr);
  TimelineRows(const TimelineRows&) = delete;
  TimelineRows& operator=(const TimelineRows&) = delete;

  const Session& session() const { return *session_; }
  const std::vector<TimelineRow>& rows() const { return rows_; }
  size_t size() const { return rows_.size(); }
  const TimelineRow& operator[](size_t i) const { return rows_[i]; }
  const TimelineOverlay* overlay() const { return overlay_.get(); }
  // The capacity of the counter rows named `counter` (a memory tier's size: drawn as a line, the
  // label "peak X of Y"), set by who knows it — a simulation knows its tiers; the session does
  // not store them.
  void setCounterCapacity(std::string_view counter, double capacity);

 private:
  void add(TimelineRow row) { rows_.push_back(std::move(row)); }
  const std::vector<uint32_t>* subset(std::vector<uint32_t> events);
  // A thread's ranges as Nsight shows them (thread state, OS runtime calls, the rest), when it
  // has those categories; false (nothing added) otherwise.
  bool threadRangeRows(const std::vector<uint32_t>& tracks, int depth);
  template <class Keep>
  void filtered(TimelineRow& row, const std::vector<uint32_t>& tracks, EventKind kind, Keep keep,
                bool keepLanes = false);

  void addOverlayRows(const TimelineOverlay::Gpu& gpu, int depth, bool aboveCompute);
  bool owned(uint32_t track) const {
    return overlay_ && track < overlay_->ownsTrack.size() && overlay_->ownsTrack[track];
  }

  SessionPtr session_;
  std::shared_ptr<const TimelineOverlay> overlay_;
  std::vector<TimelineRow> rows_;
  std::vector<std::unique_ptr<std::vector<uint32_t>>> subsets_;  // owned filtered lanes
  std::vector<std::unique_ptr<LaneSummary>> summaries_;          // block summaries of big lanes
  std::vector<std::unique_ptr<CounterSummary>> counterSummaries_;
  std::vector<std::unique_ptr<BusyIndex>> busy_;  // per GPU with kernels (its group row's lane)
  void addCounterRows(uint32_t device, uint32_t process, int depth);
};

}  // namespace ts
