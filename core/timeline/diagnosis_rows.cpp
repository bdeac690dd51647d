#include "timeline/diagnosis_rows.h"

#include <algorithm>
#include <array>
#include <limits>
#include <unordered_map>

#include "analysis/gpu_ops.h"
#include "timeline/range_track.h"
#include "util/format.h"

namespace ts {

std::string idleCategory(IdleCause cause) {
  return "idle: " + std::string(toString(cause));
}

namespace {

constexpr TimeNs kNoTime = std::numeric_limits<TimeNs>::max();

// Where each step of a GPU's rank ran on that GPU: the first operation it launched there to the
// last one's end (an operation belongs to the step whose CPU range holds its launch, its own
// start when the launch is unknown — as measureSteps counts it). Per device, per step.
std::vector<std::vector<std::pair<TimeNs, TimeNs>>> projections(const Session& s,
                                                                const LaunchIndex& launches,
                                                                const StepTable& table) {
  const std::vector<Step>& steps = table.steps;
  std::vector<std::vector<std::pair<TimeNs, TimeNs>>> out(
      s.devices.size(), std::vector<std::pair<TimeNs, TimeNs>>(steps.size(), {kNoTime, 0}));
  // Steps by rank, in time order (the table is sorted by rank, then start).
  std::vector<std::vector<uint32_t>> byRank(std::max<size_t>(s.ranks.size(), 1));
  for (uint32_t i = 0; i < steps.size(); ++i) {
    if (steps[i].rank < byRank.size()) byRank[steps[i].rank].push_back(i);
  }
  for (uint32_t ti = 0; ti < s.tracks.size(); ++ti) {
    const Track& t = s.tracks[ti];
    if (!isGpuOp(t.kind) || t.device >= s.devices.size()) continue;
    const std::vector<uint32_t>& mine =
        byRank[std::min<size_t>(rankOfTrack(s, t), byRank.size() - 1)];
    if (mine.empty()) continue;
    auto& proj = out[t.device];
    for (uint32_t e = 0; e < t.size(); ++e) {
      const LaunchRef l = launches.launchOf(ti, e);
      const TimeNs at = l.known() ? s.tracks[l.track].hot.start[l.event] : t.hot.start[e];
      // The last step starting at or before the launch, if the launch falls inside it.
      auto it = std::upper_bound(mine.begin(), mine.end(), at, [&](TimeNs time, uint32_t step) {
        return time < steps[step].start;
      });
      if (it == mine.begin()) continue;
      const uint32_t step = *std::prev(it);
      if (at >= steps[step].end) continue;
      proj[step].first = std::min(proj[step].first, t.hot.start[e]);
      proj[step].second = std::max(proj[step].second, t.hot.end[e]);
    }
  }
  return out;
}

std::string stepName(const StepTable& table, const Step& step) {
  return (table.source == "profiler steps" ? "ProfilerStep#" : "step ") +
         std::to_string(step.number);
}

// What a step's tooltip says: its times and where they went (the step table's row, in words).
std::string stepText(TimeNs origin, const StepTable& table, const Step& st, TimeNs gpu0,
                     TimeNs gpu1) {
  auto at = [&](TimeNs t) { return formatTimestamp(t - origin, 1000); };
  auto share = [](TimeNs part, TimeNs whole) {
    char text[32];
    std::snprintf(text, sizeof text, "%.0f %%",
                  whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0);
    return std::string(text);
  };
  std::string text = "step time " + formatDuration(st.duration()) + " (CPU " + at(st.start) +
                     " → " + at(st.end) + ")\non this GPU " + at(gpu0) + " → " + at(gpu1) +
                     "\nGPU busy " + formatDuration(st.busy) + " of its GPU time " +
                     formatDuration(st.gpuTime()) + " (" + share(st.busy, st.gpuTime()) + "), " +
                     formatCount(st.ops) + " operations";
  std::string idle;
  for (int c = 0; c < kIdleCauseCount; ++c) {
    if (st.idle[c] == 0) continue;
    idle += (idle.empty() ? "" : " · ") + std::string(toString(static_cast<IdleCause>(c))) + " " +
            formatDuration(st.idle[c]);
  }
  if (!idle.empty()) text += "\nstreams idle: " + idle;
  if (st.exposedCommunication > 0)
    text += "\nexposed communication " + formatDuration(st.exposedCommunication);
  const std::pair<const char*, const std::optional<TimeNs>*> annotated[] = {
      {"data loader", &st.dataLoader},
      {"forward", &st.forward},
      {"backward", &st.backward},
      {"optimizer", &st.optimizer}};
  for (const auto& [what, time] : annotated) {
    if (time->has_value()) text += std::string("\n") + what + " " + formatDuration(**time);
  }
  if (st.outlier)
    text += "\noutlier: " +
            share(st.duration() - static_cast<TimeNs>(table.median),
                  static_cast<TimeNs>(table.median)) +
            " above the median step (" + formatDuration(static_cast<TimeNs>(table.median)) + ")";
  return text;
}

TimelineOverlay::Gpu& gpuOf(TimelineOverlay& layout, uint32_t device) {
  for (TimelineOverlay::Gpu& g : layout.gpus) {
    if (g.device == device) return g;
  }
  layout.gpus.push_back({device, {}});
  return layout.gpus.back();
}

}  // namespace

Result<DiagnosisRows> buildDiagnosisRows(const SessionPtr& base,
                                         const std::shared_ptr<const TimelineOverlay>& baseLayout,
                                         const Diagnosis& d, const LaunchIndex& launches,
                                         const Progress& progress) {
  if (!base) return Error{"no session to draw the diagnosis on"};
  if (!progress.enter("copying the session")) return Error::cancelled();
  std::shared_ptr<Session> s = copySession(*base);
  auto layout = baseLayout ? std::make_shared<TimelineOverlay>(*baseLayout)
                           : std::make_shared<TimelineOverlay>();
  DiagnosisRows out;
  std::vector<uint32_t> owned;  // tracks drawn by the rows added here
  std::vector<uint32_t> ownedCounters;

  // The straggler ranks (by index), with what the rule saw.
  std::vector<std::string> straggler(std::max<size_t>(s->ranks.size(), 1));
  for (const Finding& f : d.findings) {
    if (f.rule != "straggler") continue;
    for (uint32_t r = 0; r < straggler.size(); ++r) {
      if (rankNumberOf(*s, r) == f.rank) straggler[r] = f.message;
    }
  }

  // Steps, per GPU, above Compute.
  if (!progress.enter("projecting steps")) return Error::cancelled();
  const auto proj = projections(*s, launches, d.steps);
  // The projections' CPU owner, as the events list names it: a thread per GPU in a process of its
  // own per rank (drawn only by the Steps rows, so the thread rows stay empty and hidden).
  std::vector<uint32_t> processOf(std::max<size_t>(s->ranks.size(), 1), kNone);
  auto stepsThread = [&](uint32_t dev) {
    const uint32_t rank = std::min<size_t>(s->devices[dev].rank, processOf.size() - 1);
    if (processOf[rank] == kNone) {
      s->processes.push_back({rank, -1, "Tensorscope diagnosis", 1 << 20});
      processOf[rank] = static_cast<uint32_t>(s->processes.size() - 1);
    }
    s->threads.push_back({processOf[rank], -static_cast<int64_t>(s->threads.size()) - 1,
                          "steps on GPU " + std::to_string(s->devices[dev].ordinal), 0});
    return static_cast<uint32_t>(s->threads.size() - 1);
  };
  for (uint32_t dev = 0; dev < s->devices.size(); ++dev) {
    std::vector<RangeSpan> spans;
    for (size_t i = 0; i < d.steps.steps.size(); ++i) {
      const auto [g0, g1] = proj[dev][i];
      if (g0 == kNoTime) continue;
      const Step& st = d.steps.steps[i];
      spans.push_back({g0, g1, stepName(d.steps, st) + (st.outlier ? " (outlier)" : ""),
                       st.outlier ? kOutlierStepCategory : kStepCategory,
                       stepText(base->startTime(), d.steps, st, g0, g1)});
    }
    if (spans.empty()) continue;
    out.steps += spans.size();
    const uint32_t track = addRangeTrack(*s, {kNone, kNone, stepsThread(dev)}, std::move(spans));
    owned.push_back(track);
    const uint32_t rank = std::min<size_t>(s->devices[dev].rank, straggler.size() - 1);
    TimelineOverlay::Row row;
    row.kind = TimelineRow::Kind::Extension;
    row.extension = kStepsRow;
    row.aboveCompute = true;
    row.tracks = {track};
    row.label = straggler[rank].empty() ? "Steps" : "Steps · straggler";
    row.info = "The " + d.steps.source + " of this GPU's rank, each drawn from the first " +
               "operation it launched on this GPU to the last one's end.";
    if (!straggler[rank].empty()) row.info += "\nStraggler: " + straggler[rank];
    gpuOf(*layout, dev).rows.push_back(std::move(row));
  }

  // Idle gaps, one track per stream: a lane of the stream's own row, under its operations.
  if (!progress.enter("drawing idle gaps")) return Error::cancelled();
  {
    // Few names among many gaps: each string interned once.
    StringId causeId[kIdleCauseCount];
    for (int c = 0; c < kIdleCauseCount; ++c)
      causeId[c] = s->strings.intern(idleCategory(static_cast<IdleCause>(c)));
    std::unordered_map<StringId, StringId> before;  // operation name → "before NAME"
    // A track per stream and cause, sharing the stream's lane (a stream's gaps never overlap):
    // zoomed out, each cause folds apart and the lane's runs take the colour of the cause with
    // the most gaps, not of whichever gap came first.
    std::vector<std::array<std::vector<RangeSpanIds>, kIdleCauseCount>> byStream(s->streams.size());
    for (const IdleGap& g : d.gaps) {
      if (g.stream >= byStream.size() || g.end <= g.start) continue;
      const StringId next = s->tracks[g.nextTrack].hot.name[g.nextEvent];
      auto [it, added] = before.try_emplace(next, 0);
      if (added) it->second = s->strings.intern("before " + std::string(s->str(next)));
      const StringId cause = causeId[static_cast<int>(g.cause)];
      byStream[g.stream][static_cast<int>(g.cause)].push_back(
          {g.start, g.end, cause, cause, it->second});
    }
    for (uint32_t st = 0; st < byStream.size(); ++st) {
      for (auto& gaps : byStream[st]) {
        if (gaps.empty()) continue;
        out.gaps += gaps.size();
        addRangeTrack(*s, {s->streams[st].device, st, kNone}, std::move(gaps));
      }
    }
  }

  // Queue depth, per GPU (all streams), then per stream under it.
  if (!progress.enter("queue depth")) return Error::cancelled();
  {
    const auto series = queueSeriesByStream(*s, launches);
    auto addCounter = [&](std::string name, uint32_t device,
                          const std::vector<QueueSample>& samples) {
      CounterTrack c;
      c.name = std::move(name);
      c.unit = "operations";
      c.device = device;
      uint32_t peak = 0;
      for (const QueueSample& q : samples) {
        c.samples.push({q.time, static_cast<double>(q.length)});
        peak = std::max(peak, q.length);
      }
      s->counters.push_back(std::move(c));
      ownedCounters.push_back(static_cast<uint32_t>(s->counters.size() - 1));
      return std::pair(static_cast<uint32_t>(s->counters.size() - 1), peak);
    };
    for (uint32_t dev = 0; dev < s->devices.size(); ++dev) {
      std::vector<uint32_t> streams;
      std::vector<const std::vector<QueueSample>*> parts;
      for (uint32_t st = 0; st < s->streams.size() && st < series.size(); ++st) {
        if (s->streams[st].device != dev || series[st].empty()) continue;
        streams.push_back(st);
        parts.push_back(&series[st]);
      }
      if (streams.empty()) continue;
      std::sort(streams.begin(), streams.end(), [&](uint32_t a, uint32_t b) {
        return s->streams[a].streamId < s->streams[b].streamId;
      });
      TimelineOverlay::Gpu& gpu = gpuOf(*layout, dev);
      TimelineOverlay::Row all;
      all.kind = TimelineRow::Kind::Counter;
      all.label = kQueueDepthRow;
      all.counter = addCounter(kQueueDepthRow, dev, sumQueueSeries(parts)).first;
      all.info =
          "Operations launched and not yet finished on this GPU's streams (from the "
          "launching call's start to the operation's end). CUDA holds at most " +
          std::to_string(kCudaQueueCapacity) +
          " per stream; a launch onto a full stream blocks the CPU.";
      all.startsCollapsed = true;
      gpu.rows.push_back(std::move(all));
      ++out.queues;
      if (streams.size() < 2) continue;  // the GPU's row is the stream's
      for (uint32_t st : streams) {
        TimelineOverlay::Row row;
        row.kind = TimelineRow::Kind::Counter;
        row.label = s->streamLabel(st);
        row.depth = 1;
        auto [counter, peak] =
            addCounter(std::string(kQueueDepthRow) + " · " + row.label, dev, series[st]);
        row.counter = counter;
        // The limit drawn as a line where the queue comes near it (else it would flatten the
        // curve into the floor).
        if (peak * 2 >= kCudaQueueCapacity) row.capacity = kCudaQueueCapacity;
        gpu.rows.push_back(std::move(row));
        ++out.queues;
      }
    }
  }

  layout->ownsTrack.resize(s->tracks.size(), false);
  for (uint32_t t : owned) layout->ownsTrack[t] = true;
  layout->ownsCounter.resize(s->counters.size(), false);
  for (uint32_t c : ownedCounters) layout->ownsCounter[c] = true;
  const std::pair<std::string, EventStyle> styles[] = {
      {kOutlierStepCategory, EventStyle::OutlierStep},
      {idleCategory(IdleCause::HostWait), EventStyle::IdleHostWait},
      {idleCategory(IdleCause::KernelWait), EventStyle::IdleKernelWait},
      {idleCategory(IdleCause::Other), EventStyle::IdleOther},
      {idleCategory(IdleCause::Unknown), EventStyle::IdleUnknown}};
  for (const auto& [category, style] : styles) layout->styles[s->strings.intern(category)] = style;
  if (!progress.enter("laying out rows")) return Error::cancelled();
  if (Status st = s->finalize(); !st.ok()) return st.failure().prefixed("diagnosis rows: ");
  out.session = s;
  out.layout = layout;
  out.rows = std::make_shared<TimelineRows>(out.session, layout);
  return out;
}

}  // namespace ts
