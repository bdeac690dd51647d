#include "memsim/reports/measured_rows.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>

#include "memsim/reports/overlay.h"
#include "session/memory_counter.h"
#include "timeline/range_track.h"
#include "util/format.h"

namespace ts::memsim {

namespace {

std::string hex(uint64_t address) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(address));
  return text;
}

std::string opName(const Session& s, uint32_t track, uint32_t event) {
  return track == kNone ? std::string("(no op)")
                        : std::string(s.str(s.tracks[track].hot.name[event]));
}

}  // namespace

void addMeasuredCurve(const Session& s, std::vector<TimelineOverlay::Row>& rows, uint32_t device) {
  for (uint32_t c = 0; c < s.counters.size(); ++c) {
    if (s.counters[c].device != device || !isAllocatedCounter(s.counters[c])) continue;
    rows.push_back({TimelineRow::Kind::Counter,
                    "GPU memory (measured)",
                    1,
                    {},
                    c,
                    0,
                    "the run's allocator: its counter \"" + s.counters[c].name + "\"",
                    {},
                    false});
    return;
  }
}

size_t addMeasuredTensors(Session& s, std::vector<TimelineOverlay::Row>& rows, uint32_t thread,
                          const MeasuredMemory* memory, TimeNs from, TimeNs to) {
  if (!memory) return 0;
  if (!memory->addresses) {
    rows.push_back({TimelineRow::Kind::Group,
                    "No addresses: curve only",  // short: the label column is narrow
                    1,
                    {},
                    kNone,
                    0,
                    "the run's allocation records carry no addresses (PyTorch before 1.10): they "
                    "cannot be paired into tensors, so only the measured curve is drawn",
                    {},
                    true});
    return 0;
  }
  // Lanes by class, then by the op that allocated: (class, op) → spans.
  std::map<std::pair<MeasuredClass, std::string>, std::vector<RangeSpan>> lanes;
  size_t shown = 0;
  for (const MeasuredTensor& t : memory->tensors) {
    const TimeNs a = std::max(t.allocated, from), b = std::min(t.freed, to);
    if (b <= a) continue;
    const std::string op = opName(s, t.allocTrack, t.allocEvent);
    std::string args = formatBytes(static_cast<uint64_t>(t.bytes)) + " at " + hex(t.address);
    if (t.moduleTrack != kNone)
      args += ", in " + std::string(s.str(s.tracks[t.moduleTrack].hot.name[t.moduleEvent]));
    args += t.freed == kStillAllocated ? ", never freed in the trace"
                                       : ", freed in " + opName(s, t.freeTrack, t.freeEvent);
    lanes[{t.kind, op}].push_back({a, b, op, kTensorOnGpu, args});
    ++shown;
  }
  // Frees of memory allocated before the records began (the profiler started mid-run): said,
  // since their tensors cannot be drawn.
  const std::string unmatched =
      memory->unmatchedFrees == 0
          ? std::string()
          : "; " + std::to_string(memory->unmatchedFrees) +
                (memory->unmatchedFrees == 1 ? " free (" : " frees (") +
                formatBytes(static_cast<uint64_t>(memory->unmatchedFreeBytes)) +
                ") of memory allocated before the records";
  rows.push_back({TimelineRow::Kind::Group,
                  "Tensors (measured: " + std::to_string(shown) + " allocations" + unmatched + ")",
                  1,
                  {},
                  kNone,
                  0,
                  {},
                  {},
                  true});
  MeasuredClass group = MeasuredClass::Unknown;
  bool first = true;
  for (auto& [key, spans] : lanes) {
    if (first || key.first != group) {
      group = key.first;
      first = false;
      rows.push_back({TimelineRow::Kind::Group,
                      std::string(toString(group)) + " (measured)",
                      2,
                      {},
                      kNone,
                      0,
                      {},
                      {},
                      false});
    }
    const size_t count = spans.size();
    std::sort(spans.begin(), spans.end(),
              [](const RangeSpan& x, const RangeSpan& y) { return x.start < y.start; });
    const uint32_t track = addRangeTrack(s, {kNone, kNone, thread}, std::move(spans));
    rows.push_back({TimelineRow::Kind::Extension,
                    key.second,
                    3,
                    {track},
                    kNone,
                    0,
                    std::to_string(count) + " " + toString(group) + " allocations by " +
                        key.second + " in the span drawn (the run's allocator, paired by address)",
                    {},
                    false,
                    kTensorRow});
  }
  return shown;
}

Result<Overlay> buildMeasuredOverlay(const SessionPtr& run) {
  const std::vector<MeasuredMemory> measured = measureTensorLifetimes(*run);
  if (std::none_of(measured.begin(), measured.end(),
                   [](const MeasuredMemory& m) { return m.addresses && !m.tensors.empty(); }))
    return Error::notFound("the run's allocation records carry no addresses");
  std::shared_ptr<Session> s = copySession(*run);
  auto layout = std::make_shared<TimelineOverlay>();
  Overlay o;
  for (const MeasuredMemory& m : measured) {
    if (!m.addresses || m.tensors.empty() || m.device == kNone) continue;
    const Device& device = s->devices[m.device];
    s->processes.push_back(
        {device.rank, -1,
         "Tensorscope: measured tensors (GPU " + std::to_string(device.ordinal) + ")", 1 << 20});
    const auto process = static_cast<uint32_t>(s->processes.size() - 1);
    s->threads.push_back(
        {process, -static_cast<int64_t>(s->threads.size()) - 1, "measured tensors", 0});
    layout->gpus.push_back({m.device, {}});
    const size_t shown = addMeasuredTensors(*s, layout->gpus.back().rows,
                                            static_cast<uint32_t>(s->threads.size() - 1), &m,
                                            run->startTime(), run->endTime() + 1);
    // At the GPU's level (a simulation's rows nest them under its title): beside Compute, not
    // inside it.
    for (TimelineOverlay::Row& row : layout->gpus.back().rows) row.depth -= 1;
    if (o.origins.empty()) o.tensorsShown = shown;
    o.origins.push_back(run->startTime());
  }
  layout->ownsTrack.assign(s->tracks.size(), false);
  std::fill(layout->ownsTrack.begin() + static_cast<std::ptrdiff_t>(run->tracks.size()),
            layout->ownsTrack.end(), true);
  layout->ownsCounter.assign(s->counters.size(), false);
  layout->styles[s->strings.intern(kTensorOnGpu)] = EventStyle::InGpuMemory;
  if (Status st = s->finalize(); !st.ok()) return st.failure().prefixed("measured tensors: ");
  o.session = s;
  o.origin = run->startTime();
  o.layout = layout;
  o.rows = std::make_shared<TimelineRows>(o.session, layout);
  return o;
}

}  // namespace ts::memsim
