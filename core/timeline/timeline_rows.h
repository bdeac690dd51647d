// The rows of the timeline, in the Nsight layout: per rank, per GPU a Compute row (all kernels),
// a row per stream and a row per copy kind and for memsets; per process, per thread its CUDA API
// calls, NVTX and other ranges. Group rows (rank, GPU, process, thread) can collapse.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
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
  // The layout of a live capture's snapshot, extending `previous`, an earlier snapshot's of the
  // same capture: what it computed for tracks that have only grown since (Track::lineage) — the
  // kernel-name, copy-kind and category subsets, the lane summaries, the GPUs' busy index, the
  // kernel time per name — takes in their new events only, so a snapshot's layout costs what
  // is new rather than the whole capture. The rows are those made afresh (tested); what cannot
  // be extended (a track put in order again) is made afresh. `previous` may go once this is made.
  TimelineRows(SessionPtr session, const TimelineRows& previous);
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
  // How many subsets, summaries, busy indexes and kernel-time tables were extended from the
  // previous layout rather than made afresh (tests and benchmarks check the live path is taken).
  size_t extended() const { return extended_; }

 private:
  void build();
  void add(TimelineRow row) { rows_.push_back(std::move(row)); }
  void addComputeRows(uint32_t device, int depth, const std::vector<uint32_t>& tracks,
                      const std::vector<uint32_t>& kernels);
  void addCopyRows(uint32_t device, int depth, const std::vector<uint32_t>& tracks,
                   const std::vector<std::vector<uint32_t>>& byStream);
  // The events of lane `lane` of track `ti` that `keep` accepts. `what` names the test (same
  // `what`, same test, in every layout of a session), so a later layout extends this one's;
  // kLoose: a test that may change (not extended).
  static constexpr uint64_t kLoose = 0;
  template <class Keep>
  const Column<uint32_t>* subset(uint64_t what, uint32_t ti, uint32_t lane, Keep keep);
  // How many of track ti's events the previous layout took in (0: a track it did not have), or
  // nothing when the track is not that one grown (made afresh).
  std::optional<size_t> extendsFrom(uint32_t ti) const;
  // A thread's ranges as Nsight shows them (thread state, OS runtime calls, the rest), when it
  // has those categories; false (nothing added) otherwise.
  bool threadRangeRows(const std::vector<uint32_t>& tracks, int depth);
  template <class Keep>
  void filtered(TimelineRow& row, const std::vector<uint32_t>& tracks, EventKind kind,
                uint64_t what, Keep keep, bool keepLanes = false);
  // Kernel time per name on device d, and when its kernels ran (its group row's lane).
  const std::unordered_map<StringId, TimeNs>& kernelTime(uint32_t d,
                                                         const std::vector<uint32_t>& kernels);
  const BusyIndex* busyIndex(uint32_t d, const std::vector<uint32_t>& kernels);
  void summarize(LaneView& view);

  void addOverlayRows(const TimelineOverlay::Gpu& gpu, int depth, bool aboveCompute);
  bool owned(uint32_t track) const {
    return overlay_ && track < overlay_->ownsTrack.size() && overlay_->ownsTrack[track];
  }

  SessionPtr session_;
  std::shared_ptr<const TimelineOverlay> overlay_;
  const TimelineRows* previous_ = nullptr;  // while the constructor extends it
  std::vector<TimelineRow> rows_;
  // What the rows point to, kept by what a later layout looks it up by. Keys: (what, track, lane)
  // — summaries of whole lanes under kWholeLane.
  using LaneKey = std::tuple<uint64_t, uint32_t, uint32_t>;
  static constexpr uint64_t kWholeLane = ~uint64_t{0};
  struct Subset {
    Column<uint32_t> events;
    uint32_t scanned = 0;  // lane positions looked at
  };
  struct Summary {
    LaneSummary summary;
    uint32_t positions = 0;  // of the lane view summarised
  };
  std::map<LaneKey, std::unique_ptr<Subset>> subsets_;
  std::unordered_map<const Column<uint32_t>*, LaneKey> keyOf_;  // a kept subset's key
  std::map<LaneKey, std::unique_ptr<Summary>> summaries_;
  std::vector<std::unique_ptr<Subset>> looseSubsets_;         // kLoose: not kept for later
  std::vector<std::unique_ptr<LaneSummary>> looseSummaries_;  // of those
  std::vector<std::unique_ptr<CounterSummary>> counterSummaries_;
  std::map<uint32_t, std::unique_ptr<BusyIndex>> busy_;                  // per GPU with kernels
  std::map<uint32_t, std::unordered_map<StringId, TimeNs>> kernelTime_;  // per GPU, per name
  struct Laid {
    uint64_t lineage = 0;
    size_t size = 0;
  };
  std::vector<Laid> laid_;  // per track: what this layout took in
  size_t extended_ = 0;
  void addCounterRows(uint32_t device, uint32_t process, int depth);
};

}  // namespace ts
