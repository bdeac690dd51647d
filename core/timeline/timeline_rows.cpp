#include "timeline/timeline_rows.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace ts {

namespace {

// "a", "a + b", "a, b + c": a row named by what it holds.
std::string joinRowParts(const std::vector<std::string>& parts) {
  std::string name = parts.front();
  for (size_t i = 1; i < parts.size(); ++i)
    name += (i + 1 == parts.size() ? " + " : ", ") + parts[i];
  return name;
}

}  // namespace

std::string annotationRowName(const Session& s, const std::vector<uint32_t>& tracks) {
  bool ops = false, annotations = false, nvtx = false, marks = false;
  for (uint32_t ti : tracks) {
    const Track& t = s.tracks[ti];
    if (t.kind != EventKind::Nvtx) continue;
    StringId last = kNone;  // domains come in long runs: look each up once per run
    for (StringId d : t.nvtx.domain) {
      if (d == last) continue;
      last = d;
      const std::string_view domain = s.str(d);
      if (domain == "cpu_op" || domain == "Operator")
        ops = true;
      else if (domain == "user_annotation")
        annotations = true;
      else if (domain == "instant")  // a trace's instant events of no category
        marks = true;
      else
        nvtx = true;
    }
  }
  std::vector<std::string> parts;
  if (ops) parts.emplace_back("CPU ops");
  if (annotations) parts.emplace_back("annotations");
  if (nvtx) parts.emplace_back("NVTX");
  if (marks) parts.emplace_back("marks");
  if (parts.empty()) return "NVTX";
  std::string name = joinRowParts(parts);
  if (name[0] >= 'a' && name[0] <= 'z') name[0] = static_cast<char>(name[0] - 'a' + 'A');
  return name;
}

std::string rangeTrackName(const Session& s, const Track& track) {
  bool state = false, osrt = false, python = false, other = false;
  StringId last = kNone;
  for (StringId c : track.ranges.category) {
    if (c == last) continue;
    last = c;
    const std::string_view category = s.str(c);
    if (category == kThreadStateCategory)
      state = true;
    else if (category == kOsRuntimeCategory)
      osrt = true;
    else if (category == kPythonStackCategory)
      python = true;
    else
      other = true;
  }
  std::vector<std::string> parts;
  if (state) parts.emplace_back("Thread state");
  if (osrt) parts.emplace_back(parts.empty() ? "OS runtime libraries" : "OS runtime");
  if (python) parts.emplace_back("Python stack");
  if (other || parts.empty()) parts.emplace_back(parts.empty() ? "Ranges" : "other ranges");
  return joinRowParts(parts);
}

void TimelineRows::addCounterRows(uint32_t device, uint32_t process, int depth) {
  for (size_t ci = 0; ci < session_->counters.size(); ++ci) {
    const CounterTrack& c = session_->counters[ci];
    if (c.device != device || c.process != process || c.size() == 0) continue;
    if (overlay_ && ci < overlay_->ownsCounter.size() && overlay_->ownsCounter[ci]) continue;
    counterSummaries_.push_back(std::make_unique<CounterSummary>(summarizeCounter(c)));
    TimelineRow row{TimelineRow::Kind::Counter,
                    c.unit.empty() ? c.name : c.name + " (" + c.unit + ")",
                    depth,
                    {},
                    device,
                    -1,
                    c.size()};
    row.counter = &c;
    row.counterSummary = counterSummaries_.back().get();
    add(std::move(row));
  }
}

std::optional<size_t> TimelineRows::extendsFrom(uint32_t ti) const {
  if (!previous_) return std::nullopt;
  if (ti >= previous_->laid_.size()) return 0;  // new since
  const Laid& was = previous_->laid_[ti];
  const Track& t = session_->tracks[ti];
  // Nothing was laid out from it: whatever its indexing since (a track published empty is
  // indexed afresh when its first events come), everything is new.
  if (was.size == 0) return 0;
  if (was.lineage == 0 || was.lineage != t.lineage() || was.size > t.size()) return std::nullopt;
  return was.size;
}

template <class Keep>
const Column<uint32_t>* TimelineRows::subset(uint64_t what, uint32_t ti, uint32_t lane, Keep keep) {
  const Track& t = session_->tracks[ti];
  const LaneKey key{what, ti, lane};
  auto s = std::make_unique<Subset>();
  if (what != kLoose && extendsFrom(ti)) {
    auto was = previous_->subsets_.find(key);
    if (was != previous_->subsets_.end()) *s = *was->second, ++extended_;  // shares its blocks
  }
  const uint32_t n = t.laneSize(lane);
  for (uint32_t p = s->scanned; p < n; ++p) {
    const uint32_t e = t.laneEvent(lane, p);
    if (keep(t, e)) s->events.grow(e);
  }
  s->scanned = n;
  const Column<uint32_t>* events = &s->events;
  if (what == kLoose) {
    looseSubsets_.push_back(std::move(s));
  } else {
    subsets_[key] = std::move(s);
    keyOf_[events] = key;
  }
  return events;
}

const std::unordered_map<StringId, TimeNs>& TimelineRows::kernelTime(
    uint32_t d, const std::vector<uint32_t>& kernels) {
  std::unordered_map<StringId, TimeNs>& total = kernelTime_[d];
  std::vector<size_t> from(kernels.size(), 0);
  bool extend = previous_ && previous_->kernelTime_.count(d);
  for (size_t k = 0; extend && k < kernels.size(); ++k) {
    const std::optional<size_t> f = extendsFrom(kernels[k]);
    extend = f.has_value();
    from[k] = f.value_or(0);
  }
  if (extend)
    total = previous_->kernelTime_.at(d), ++extended_;
  else
    from.assign(kernels.size(), 0);
  for (size_t k = 0; k < kernels.size(); ++k) {
    const Track& t = session_->tracks[kernels[k]];
    for (size_t i = from[k]; i < t.size(); ++i)
      total[t.hot.name[i]] += t.hot.end[i] - t.hot.start[i];
  }
  return total;
}

const BusyIndex* TimelineRows::busyIndex(uint32_t d, const std::vector<uint32_t>& kernels) {
  std::vector<size_t> from(kernels.size(), 0);
  bool extend = previous_ && previous_->busy_.count(d);
  for (size_t k = 0; extend && k < kernels.size(); ++k) {
    const std::optional<size_t> f = extendsFrom(kernels[k]);
    extend = f.has_value();
    from[k] = f.value_or(0);
  }
  auto index = std::make_unique<BusyIndex>();
  if (extend) {
    *index = *previous_->busy_.at(d);  // shares its blocks
    ++extended_;
    extendBusyIndex(*index, *session_, kernels, from);
  } else {
    *index = buildBusyIndex(*session_, kernels);
  }
  const BusyIndex* out = index.get();
  busy_[d] = std::move(index);
  return out;
}

void TimelineRows::summarize(LaneView& view) {
  auto loose = [&] {
    looseSummaries_.push_back(std::make_unique<LaneSummary>(summarizeLane(view)));
    view.summary = looseSummaries_.back().get();
  };
  LaneKey key{kWholeLane, static_cast<uint32_t>(view.track - session_->tracks.data()), view.lane};
  if (view.subset) {
    auto it = keyOf_.find(view.subset);
    if (it == keyOf_.end()) return loose();
    key = it->second;
  }
  std::unique_ptr<Summary>& mine = summaries_[key];
  if (!mine) {  // the first view of this lane (a lane is drawn in Compute and in its stream's row)
    mine = std::make_unique<Summary>();
    std::optional<size_t> from = extendsFrom(std::get<1>(key));
    auto was = from ? previous_->summaries_.find(key) : summaries_.end();
    if (from && was != previous_->summaries_.end() && was->second->positions <= view.size()) {
      *mine = *was->second;  // shares its blocks
      ++extended_;
      extendLaneSummary(mine->summary, view, mine->positions);
    } else {
      mine->summary = summarizeLane(view);
    }
    mine->positions = view.size();
  }
  view.summary = &mine->summary;
}

template <class Keep>
void TimelineRows::filtered(TimelineRow& row, const std::vector<uint32_t>& tracks, EventKind kind,
                            uint64_t what, Keep keep, bool keepLanes) {
  // Each lane of each track of `kind`, cut down to the events `keep` accepts: a lane view over a
  // subset, drawn on the row's single lane, or (keepLanes: nested ranges) on the lane it had,
  // the lanes no kept event uses dropped.
  for (uint32_t ti : tracks) {
    const Track& t = session_->tracks[ti];
    if (t.kind != kind) continue;
    for (uint32_t l = 0; l < t.laneCount(); ++l) {
      const Column<uint32_t>* events = subset(what, ti, l, keep);
      if (events->empty()) continue;
      row.events += events->size();
      const uint32_t to = keepLanes ? l : 0;
      if (row.lanes.size() <= to) row.lanes.resize(to + 1);
      row.lanes[to].push_back({&t, l, events});
    }
  }
  if (keepLanes) {
    row.lanes.erase(std::remove_if(row.lanes.begin(), row.lanes.end(),
                                   [](const auto& lane) { return lane.empty(); }),
                    row.lanes.end());
    if (row.lanes.empty()) row.lanes.resize(1);
  }
}

bool TimelineRows::threadRangeRows(const std::vector<uint32_t>& tracks, int depth) {
  // Nsight's rows of a thread: its state (time on a CPU) and its OS runtime calls, each apart
  // from the ranges of other categories. Only when the thread has them: other sessions keep one
  // "Ranges" row without the cost of a subset.
  const Session& s = *session_;
  const StringId state = s.strings.find(kThreadStateCategory).value_or(kNone),
                 osrt = s.strings.find(kOsRuntimeCategory).value_or(kNone),
                 python = s.strings.find(kPythonStackCategory).value_or(kNone);
  if (state == kNone && osrt == kNone && python == kNone) return false;
  auto isOwn = [&](StringId c) { return c == state || c == osrt || c == python; };
  bool own = false, other = false;
  for (uint32_t ti : tracks) {
    const Track& t = s.tracks[ti];
    if (t.kind != EventKind::Range) continue;
    for (StringId c : t.ranges.category) (isOwn(c) ? own : other) = true;
  }
  if (!own) return false;
  const std::pair<StringId, const char*> rows[] = {
      {state, "Thread state"}, {osrt, "OS runtime libraries"}, {python, "Python stack"}};
  for (auto [category, label] : rows) {
    if (category == kNone) continue;
    // A thread of one category alone keeps its lanes (the Python stack nests).
    if (!other && std::all_of(tracks.begin(), tracks.end(), [&, c = category](uint32_t ti) {
          const Track& t = s.tracks[ti];
          return t.kind != EventKind::Range ||
                 std::all_of(t.ranges.category.begin(), t.ranges.category.end(),
                             [&](StringId x) { return x == c; });
        })) {
      TimelineRow row{TimelineRow::Kind::Range, label, depth, {}, kNone, -1, 0};
      for (uint32_t ti : tracks) {
        const Track& t = s.tracks[ti];
        if (t.kind != EventKind::Range) continue;
        row.events += t.size();
        if (row.lanes.size() < t.laneCount()) row.lanes.resize(t.laneCount());
        for (uint32_t l = 0; l < t.laneCount(); ++l) row.lanes[l].push_back({&t, l, nullptr});
      }
      if (row.events) add(std::move(row));
      return true;
    }
    TimelineRow row{TimelineRow::Kind::Range, label, depth, {{}}, kNone, -1, 0};
    filtered(
        row, tracks, EventKind::Range, (uint64_t{4} << 32) | category,
        [c = category](const Track& t, uint32_t e) { return t.ranges.category[e] == c; }, true);
    if (row.events) add(std::move(row));
  }
  if (other) {
    TimelineRow row{TimelineRow::Kind::Range, "Ranges", depth, {{}}, kNone, -1, 0};
    // kLoose: which categories are "own" may change as a live session's strings grow.
    filtered(
        row, tracks, EventKind::Range, kLoose,
        [&](const Track& t, uint32_t e) { return !isOwn(t.ranges.category[e]); }, true);
    if (row.events) add(std::move(row));
  }
  return true;
}

void TimelineRows::addOverlayRows(const TimelineOverlay::Gpu& gpu, int depth, bool aboveCompute) {
  const size_t first = rows_.size();
  for (const TimelineOverlay::Row& spec : gpu.rows) {
    if (spec.aboveCompute != aboveCompute) continue;
    TimelineRow row{spec.kind, spec.label, depth + spec.depth, {}, gpu.device, -1, 0};
    row.capacity = spec.capacity;
    row.info = spec.info;
    row.uses = spec.uses.empty() ? nullptr : &spec.uses;
    row.startsCollapsed = spec.startsCollapsed;
    row.extension = spec.extension;
    for (uint32_t ti : spec.tracks) {
      const Track& t = session_->tracks[ti];
      row.events += t.size();
      for (uint32_t l = 0; l < t.laneCount(); ++l) {
        if (row.lanes.size() <= l) row.lanes.resize(l + 1);
        row.lanes[l].push_back({&t, l, nullptr});
      }
    }
    if (spec.counter != kNone) {
      const CounterTrack& c = session_->counters[spec.counter];
      counterSummaries_.push_back(std::make_unique<CounterSummary>(summarizeCounter(c)));
      row.counter = &c;
      row.counterSummary = counterSummaries_.back().get();
      row.events = c.size();
    }
    add(std::move(row));
  }
  // A row is expandable when deeper rows follow it (the groups of tensors by layer).
  for (size_t i = first; i + 1 < rows_.size(); ++i) {
    if (rows_[i].kind == TimelineRow::Kind::Group) continue;
    if (rows_[i + 1].depth > rows_[i].depth) rows_[i].expandable = true;
  }
}

TimelineRows::TimelineRows(SessionPtr session, std::shared_ptr<const TimelineOverlay> overlay)
    : session_(std::move(session)), overlay_(std::move(overlay)) {
  build();
}

TimelineRows::TimelineRows(SessionPtr session, const TimelineRows& previous)
    : session_(std::move(session)) {
  // An overlay's rows are not extended (a live capture has none).
  if (!previous.overlay_) previous_ = &previous;
  build();
  previous_ = nullptr;
}

namespace {

// A GPU with no work of its own is still shown when it holds memory records (a memory snapshot)
// or an overlay's rows.
bool shownWithoutWork(const Session& s, const TimelineOverlay* overlay, uint32_t device) {
  for (const CounterTrack& c : s.counters)
    if (c.device == device) return true;
  if (overlay)
    for (const TimelineOverlay::Gpu& gpu : overlay->gpus)
      if (gpu.device == device) return true;
  return false;
}

}  // namespace

// A GPU's Compute row (every kernel, streams drawn over each other) and, under it, a row per
// kernel name by total time.
void TimelineRows::addComputeRows(uint32_t d, int depth, const std::vector<uint32_t>& tracks,
                                  const std::vector<uint32_t>& kernels) {
  const Session& s = *session_;
  // Compute: every kernel of the GPU on one row, drawn over each other where streams overlap.
  TimelineRow compute{TimelineRow::Kind::Compute, "Compute", depth, {{}}, d, -1, 0};
  for (uint32_t ti : tracks) {
    const Track& t = s.tracks[ti];
    if (t.kind != EventKind::Kernel) continue;
    compute.events += t.size();
    for (uint32_t l = 0; l < t.laneCount(); ++l) compute.lanes[0].push_back({&t, l, nullptr});
  }
  if (compute.events) {
    // One row per kernel name, by total time, labelled with its share of the GPU's kernel time.
    const std::unordered_map<StringId, TimeNs>& total = kernelTime(d, kernels);
    TimeNs all = 0;
    for (const auto& [name, time] : total) all += time;
    std::vector<std::pair<TimeNs, StringId>> ranked;
    for (const auto& [name, time] : total) ranked.emplace_back(time, name);
    std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
      return a.first > b.first || (a.first == b.first && a.second < b.second);
    });
    if (ranked.size() > kMaxKernelNameRows) ranked.resize(kMaxKernelNameRows);
    compute.expandable = !ranked.empty();
    compute.startsCollapsed = true;
    add(std::move(compute));
    for (const auto& [time, name] : ranked) {
      char share[16];
      std::snprintf(share, sizeof share, "%.1f %% ",
                    all > 0 ? 100.0 * static_cast<double>(time) / static_cast<double>(all) : 0.0);
      TimelineRow row{TimelineRow::Kind::KernelName,
                      share + std::string(s.str(name)),
                      depth + 1,
                      {{}},
                      d,
                      -1,
                      0};
      filtered(row, tracks, EventKind::Kernel, (uint64_t{1} << 32) | name,
               [name = name](const Track& t, uint32_t e) { return t.hot.name[e] == name; });
      add(std::move(row));
    }
  }
}

// A GPU's copies: a row per copy kind present, then the driver's page migrations.
void TimelineRows::addCopyRows(uint32_t d, int depth, const std::vector<uint32_t>& tracks,
                               const std::vector<std::vector<uint32_t>>& byStream) {
  const Session& s = *session_;
  for (int k = 0; k < kCopyKindCount; ++k) {
    TimelineRow row{TimelineRow::Kind::Copy,
                    std::string("Memcpy ") + std::string(toString(static_cast<CopyKind>(k))),
                    depth,
                    {{}},
                    d,
                    k,
                    0};
    filtered(row, tracks, EventKind::Memcpy, (uint64_t{2} << 32) | static_cast<uint32_t>(k),
             [k](const Track& t, uint32_t e) {
               return static_cast<int>(t.memcpys.copyKind[e]) == k && !t.memcpys.migration[e];
             });
    if (!row.events) continue;
    // Named streams that hold these copies and nothing else (a simulation's "host → GPU"
    // link) are this row already, under the names their maker gave them: the row would repeat
    // them line for line. Unnamed streams keep the Nsight layout (the kind's row as well).
    std::vector<uint32_t> streamsOfRow;
    for (const LaneView& v : row.lanes[0]) {
      if (std::find(streamsOfRow.begin(), streamsOfRow.end(), v.track->stream) ==
          streamsOfRow.end())
        streamsOfRow.push_back(v.track->stream);
    }
    size_t onStreams = 0;
    bool named = true;
    for (uint32_t st : streamsOfRow) {
      named = named && st != kNone && !s.streams[st].name.empty();
      if (!named) break;
      for (uint32_t ti : byStream[st]) onStreams += s.tracks[ti].size();
    }
    if (named && onStreams == row.events) continue;
    add(std::move(row));
  }
  {  // the driver's page migrations, every direction on one row (Nsight's "Unified memory")
    TimelineRow row{TimelineRow::Kind::Copy, "Unified memory", depth, {{}}, d, -1, 0};
    filtered(row, tracks, EventKind::Memcpy, uint64_t{3} << 32,
             [](const Track& t, uint32_t e) { return t.memcpys.migration[e] != 0; });
    if (row.events) add(std::move(row));
  }
}

void TimelineRows::build() {
  const Session& s = *session_;
  // Tracks by owner.
  std::vector<std::vector<uint32_t>> byDevice(s.devices.size()), byStream(s.streams.size()),
      byThread(s.threads.size());
  for (uint32_t i = 0; i < s.tracks.size(); ++i) {
    const Track& t = s.tracks[i];
    if (owned(i)) continue;  // drawn by the overlay's rows
    if (t.device != kNone) byDevice[t.device].push_back(i);
    if (t.stream != kNone) byStream[t.stream].push_back(i);
    if (t.thread != kNone) byThread[t.thread].push_back(i);
  }
  auto lanesOf = [&](const std::vector<uint32_t>& tracks, auto keep) {
    // Lane k of every kept track shares visual lane k (the tracks of one stream do not overlap).
    std::vector<std::vector<LaneView>> lanes;
    size_t events = 0;
    for (uint32_t ti : tracks) {
      const Track& t = s.tracks[ti];
      if (!keep(t)) continue;
      events += t.size();
      if (lanes.size() < t.laneCount()) lanes.resize(t.laneCount());
      for (uint32_t l = 0; l < t.laneCount(); ++l) lanes[l].push_back({&t, l, nullptr});
    }
    return std::pair(lanes, events);
  };

  for (uint32_t r = 0; r < s.ranks.size(); ++r) {
    int base = 0;
    if (s.multiRank()) {
      add({TimelineRow::Kind::Group, s.ranks[r].label, 0, {}, kNone, -1, 0});
      base = 1;
    }
    for (uint32_t d = 0; d < s.devices.size(); ++d) {
      if (s.devices[d].rank != r ||
          (byDevice[d].empty() && !shownWithoutWork(s, overlay_.get(), d)))
        continue;
      std::string label = "GPU " + std::to_string(s.devices[d].ordinal);
      if (!s.devices[d].name.empty()) label += ": " + s.devices[d].name;
      add({TimelineRow::Kind::Group, label, base, {}, d, -1, 0});
      std::vector<uint32_t> kernels;
      for (uint32_t ti : byDevice[d]) {
        if (s.tracks[ti].kind == EventKind::Kernel) kernels.push_back(ti);
      }
      // The GPU's utilisation, drawn in its header row.
      if (!kernels.empty()) rows_.back().busy = busyIndex(d, kernels);
      auto overlayRows = [&](bool above) {
        if (!overlay_) return;
        for (const TimelineOverlay::Gpu& gpu : overlay_->gpus) {
          if (gpu.device == d) addOverlayRows(gpu, base + 1, above);
        }
      };
      overlayRows(true);
      addComputeRows(d, base + 1, byDevice[d], kernels);
      overlayRows(false);
      // Streams, by id.
      std::map<uint32_t, uint32_t> streams;
      for (uint32_t ti : byDevice[d]) {
        // Unified-memory migrations are on no stream of the program's: their own row below
        // (anything else a file put on that stream keeps a stream row).
        const Track& t = s.tracks[ti];
        if (t.stream != kNone &&
            (s.streams[t.stream].streamId != kUnifiedMemoryStream || t.kind != EventKind::Memcpy))
          streams.emplace(s.streams[t.stream].streamId, t.stream);
      }
      for (const auto& [id, st] : streams) {
        auto [work, n] = lanesOf(byStream[st], [id = id](const Track& t) {
          return t.kind == EventKind::Kernel ||
                 (t.kind == EventKind::Memcpy && id != kUnifiedMemoryStream) ||
                 t.kind == EventKind::Memset;
        });
        auto [notes, m] = lanesOf(byStream[st], [](const Track& t) {
          return t.kind == EventKind::Nvtx || t.kind == EventKind::Range;
        });
        for (auto& lane : notes) work.push_back(std::move(lane));
        add({TimelineRow::Kind::Stream, s.streamLabel(st), base + 1, std::move(work), d, -1,
             n + m});
      }
      // Memory: a row per copy kind present, then memsets.
      addCopyRows(d, base + 1, byDevice[d], byStream);
      auto [sets, n] =
          lanesOf(byDevice[d], [](const Track& t) { return t.kind == EventKind::Memset; });
      if (n) {
        TimelineRow row{TimelineRow::Kind::Memset, "Memset", base + 1, {{}}, d, -1, n};
        for (auto& lane : sets) row.lanes[0].insert(row.lanes[0].end(), lane.begin(), lane.end());
        add(std::move(row));
      }
      addCounterRows(d, kNone, base + 1);
    }
    // Processes and their threads, in the trace's sort order.
    std::vector<uint32_t> processes;
    for (uint32_t p = 0; p < s.processes.size(); ++p) {
      if (s.processes[p].rank == r) processes.push_back(p);
    }
    std::stable_sort(processes.begin(), processes.end(), [&](uint32_t a, uint32_t b) {
      return std::pair(s.processes[a].sortIndex, s.processes[a].pid) <
             std::pair(s.processes[b].sortIndex, s.processes[b].pid);
    });
    for (uint32_t p : processes) {
      std::vector<uint32_t> threads;
      for (uint32_t t = 0; t < s.threads.size(); ++t) {
        if (s.threads[t].process == p && !byThread[t].empty()) threads.push_back(t);
      }
      if (threads.empty()) continue;
      std::stable_sort(threads.begin(), threads.end(), [&](uint32_t a, uint32_t b) {
        return std::pair(s.threads[a].sortIndex, s.threads[a].tid) <
               std::pair(s.threads[b].sortIndex, s.threads[b].tid);
      });
      const Process& proc = s.processes[p];
      std::string label = proc.name.empty() ? "Process" : proc.name;
      if (proc.pid >= 0) label += " (" + std::to_string(proc.pid) + ")";
      add({TimelineRow::Kind::Group, label, base, {}, kNone, -1, 0});
      for (uint32_t t : threads) {
        add({TimelineRow::Kind::Group, s.threadLabel(t), base + 1, {}, kNone, -1, 0});
        const std::pair<EventKind, const char*> kinds[] = {
            {EventKind::Api, "CUDA API"}, {EventKind::Nvtx, "NVTX"}, {EventKind::Range, "Ranges"}};
        for (auto [kind, kindName] : kinds) {
          if (kind == EventKind::Range && threadRangeRows(byThread[t], base + 2)) continue;
          auto [lanes, n] = lanesOf(byThread[t], [kind](const Track& x) { return x.kind == kind; });
          if (!n) continue;
          const std::string name =
              kind == EventKind::Nvtx ? annotationRowName(s, byThread[t]) : kindName;
          TimelineRow::Kind rowKind = kind == EventKind::Api    ? TimelineRow::Kind::Api
                                      : kind == EventKind::Nvtx ? TimelineRow::Kind::Nvtx
                                                                : TimelineRow::Kind::Range;
          add({rowKind, name, base + 2, std::move(lanes), kNone, -1, n});
        }
      }
      addCounterRows(kNone, p, base + 1);
    }
  }
  addCounterRows(kNone, kNone, 0);
  // Lanes big enough to fold at full view get block summaries (built once, ~0.4 B per event).
  for (TimelineRow& row : rows_) {
    for (auto& lane : row.lanes) {
      for (LaneView& view : lane) {
        if (view.size() >= 4 * kSummaryBlock) summarize(view);
      }
    }
  }
  laid_.resize(s.tracks.size());
  for (size_t ti = 0; ti < s.tracks.size(); ++ti)
    laid_[ti] = {s.tracks[ti].lineage(), s.tracks[ti].size()};
}

void TimelineRows::setCounterCapacity(std::string_view counter, double capacity) {
  for (TimelineRow& row : rows_) {
    if (row.kind == TimelineRow::Kind::Counter && row.counter && row.counter->name == counter)
      row.capacity = capacity;
  }
}

}  // namespace ts
