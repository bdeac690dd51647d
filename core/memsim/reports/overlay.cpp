#include "memsim/reports/overlay.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "memsim/engine/step_memory.h"
#include "memsim/engine/vitality.h"
#include "memsim/reports/measured_rows.h"
#include "timeline/range_track.h"
#include "util/format.h"

namespace ts::memsim {

namespace {

const char* tierName(Tier t) {
  switch (t) {
    case Tier::Gpu:
      return "GPU";
    case Tier::Host:
      return "host";
    case Tier::Ssd:
      return "SSD";
    default:
      return "none";
  }
}

// `a` minus the union of `cuts` (sorted by start).
std::vector<std::pair<TimeNs, TimeNs>> subtract(
    TimeNs a0, TimeNs a1, const std::vector<std::pair<TimeNs, TimeNs>>& cuts) {
  std::vector<std::pair<TimeNs, TimeNs>> out;
  TimeNs from = a0;
  for (auto [c0, c1] : cuts) {
    if (c1 <= from || c0 >= a1) continue;
    if (c0 > from) out.emplace_back(from, c0);
    from = std::max(from, c1);
  }
  if (from < a1) out.emplace_back(from, a1);
  return out;
}

}  // namespace

namespace {

// One GPU's simulation added to the overlaid session `s`: its tracks, counters, links and rows.
// Returns how many tensor lanes it shows.
// One GPU's part of the overlay, built in steps: the process and threads its tracks go on, then
// the simulated kernels, the tier usage, the transfers and the tensors, each a group of rows.
class PartBuilder {
 public:
  PartBuilder(Session& s, TimelineOverlay& layout, std::vector<TimelineOverlay::Row>& rows,
              uint32_t device, TimeNs origin, const model::KernelMapping& mapping,
              const SimWorkload& w, const SimResult& r)
      : s(s),
        layout(layout),
        rows(rows),
        device(device),
        origin(origin),
        w(w),
        r(r),
        lives(analyzeVitality(w)),
        lifetimes(tensorLifetimes(w)) {
    s.processes.push_back({s.devices[device].rank, -1,
                           "Tensorscope simulation (" + std::string(toString(r.policy)) + ", GPU " +
                               std::to_string(s.devices[device].ordinal) + ")",
                           1 << 20});
    process = static_cast<uint32_t>(s.processes.size() - 1);
    kernelThread = thread("simulated kernels");
    linkThread = thread("simulated links");
    tensorThread = thread("simulated tensors");
    // Measured kernels by layer group, to tie both ways.
    for (const model::MappedKernel& k : mapping.kernels) {
      if (!k.group.empty()) measuredOf[k.group].emplace_back(k.track, k.event);
    }
  }

  void addKernels() {
    // Simulated kernels, stalls before them.
    std::vector<RangeSpan> spans;
    for (size_t k = 0; k < w.kernels.size(); ++k) {
      const SimKernelTime& kt = r.kernels[k];
      if (kt.stall > 0)
        spans.push_back({origin + kt.start - kt.stall, origin + kt.start, "stall", kSimStall,
                         "waiting for data before " + w.kernels[k].name});
      spans.push_back(
          {origin + kt.start, origin + kt.end, w.kernels[k].name, kSimKernel, w.kernels[k].group});
    }
    std::vector<uint32_t> eventOf;
    kernelTrack = addRangeTrack(s, {kNone, kNone, kernelThread}, spans, &eventOf);
    kernelEvent.assign(w.kernels.size(), kNone);
    for (size_t k = 0, i = 0; k < w.kernels.size(); ++k) {
      if (r.kernels[k].stall > 0) ++i;
      kernelEvent[k] = eventOf[i++];
    }
    for (size_t k = 0; k < w.kernels.size(); ++k) {
      auto m = measuredOf.find(w.kernels[k].group);
      if (w.kernels[k].group.empty() || m == measuredOf.end()) continue;
      addLinks(kernelTrack, kernelEvent[k], m->second);
      for (auto [mt, me] : m->second) addLinks(mt, me, {{kernelTrack, kernelEvent[k]}});
    }

    std::string title = "Simulation: " + std::string(toString(r.policy)) + " · " + w.name;
    rows.push_back({TimelineRow::Kind::Group, title, 0, {}, kNone, 0, {}, {}, false});
    rows.push_back({TimelineRow::Kind::Extension,
                    "Kernels (simulated)",
                    1,
                    {kernelTrack},
                    kNone,
                    0,
                    {},
                    {},
                    false,
                    kSimKernelsRow});
  }

  void addTierUsage(const TierConfig& tiers) {
    // The GPU's row is the memory model's: bytes allocated and on the GPU (step_memory.h). Host
    // memory and SSD are the simulator's, as are the GPU's pages when the policy keeps some
    // resident past a free (G10's plain unified memory frees a page only when it evicts it):
    // then that is a row of its own.
    const std::vector<TierUsage> allocated = allocatedOnGpu(w, r);
    const int64_t allocatedPeak = peakOf(allocated, &TierUsage::gpu);
    const int64_t residentPeak = peakOf(r.usage, &TierUsage::gpu);
    addCounter("GPU memory (simulated)", allocated, &TierUsage::gpu, tiers.gpuBytes, 1,
               "bytes allocated on the GPU: each tensor from the kernel that writes it to its last "
               "use (weights, optimizer state and the batch throughout, weight gradients until "
               "the step ends), less what the policy keeps in host memory or on the SSD; peak " +
                   formatBytes(allocatedPeak));
    addMeasuredCurve(s, rows, device);  // the run's own, right under it
    if (keepsFreedPages(w, r))
      addCounter("GPU pages resident (simulated)", r.usage, &TierUsage::gpu, tiers.gpuBytes, 1,
                 std::string(toString(r.policy)) +
                     " keeps pages on the GPU after their tensor is freed, until it evicts them: "
                     "the GPU memory its pages occupy, freed or not; peak " +
                     formatBytes(residentPeak) + " against " + formatBytes(allocatedPeak) +
                     " allocated");
    // Host memory, SSD and the links sit in a group that starts folded, so the measured streams
    // and threads stay on screen below.
    rows.push_back(
        {TimelineRow::Kind::Group, "Host, SSD and links", 1, {}, kNone, 0, {}, {}, true});
    addCounter("Host memory (simulated)", r.usage, &TierUsage::host, tiers.hostBytes, 2, {});
    addCounter("SSD (simulated)", r.usage, &TierUsage::ssd, tiers.ssdBytes, 2, {});
  }

  void addTransfers() {
    // Transfers, a row per link; a transfer to the GPU is tied to the kernel that needed it.
    auto neededBy = [&](int tensor, TimeNs start) -> int {
      for (int u : lives[static_cast<size_t>(tensor)].uses) {
        if (r.kernels[static_cast<size_t>(u)].start >= start) return u;
      }
      return -1;
    };
    std::vector<RangeSpan> spans;
    std::vector<uint32_t> eventOf;
    std::array<std::vector<size_t>, kLinkCount> byLink;
    for (size_t i = 0; i < r.migrations.size(); ++i)
      byLink[static_cast<size_t>(r.migrations[i].link)].push_back(i);
    for (Link link : {Link::HostToGpu, Link::GpuToHost, Link::SsdToGpu, Link::GpuToSsd,
                      Link::SsdToHost, Link::HostToSsd}) {
      const auto& list = byLink[static_cast<size_t>(link)];
      bool always = link == Link::HostToGpu || link == Link::GpuToHost || link == Link::SsdToGpu ||
                    link == Link::GpuToSsd;
      if (list.empty() && !always) continue;
      spans.clear();
      for (size_t i : list) {
        const Migration& m = r.migrations[i];
        spans.push_back({origin + m.start, origin + m.end,
                         w.tensors[static_cast<size_t>(m.tensor)].name,
                         kMigrationPrefix + std::string(toString(link)),
                         formatBytes(m.bytes) + (m.demand ? " · on demand" : " · planned")});
      }
      const uint32_t track = addRangeTrack(s, {kNone, kNone, linkThread}, spans, &eventOf);
      if (link == Link::HostToGpu || link == Link::SsdToGpu) {
        for (size_t j = 0; j < list.size(); ++j) {
          const Migration& m = r.migrations[list[j]];
          int k = neededBy(m.tensor, m.start);
          if (k < 0) continue;
          std::vector<std::pair<uint32_t, uint32_t>> to{
              {kernelTrack, kernelEvent[static_cast<size_t>(k)]}};
          if (auto mk = measuredOf.find(w.kernels[static_cast<size_t>(k)].group);
              mk != measuredOf.end())
            to.insert(to.end(), mk->second.begin(), mk->second.end());
          addLinks(track, eventOf[j], to);
        }
      }
      rows.push_back({TimelineRow::Kind::Extension,
                      std::string(linkLabel(link)) + " (simulated)",
                      2,
                      {track},
                      kNone,
                      0,
                      {},
                      {},
                      false,
                      kTransferRow});
    }
  }

  void addMeasured(const MeasuredMemory* measured, TimeNs from, TimeNs to) {
    addMeasuredTensors(s, rows, thread("measured tensors"), measured, from, to);
  }

  // Returns how many tensors are shown (the options filter them).
  size_t addTensors(const OverlayOptions& options) {
    // Tensors: where each one is, grouped by the layer of its first use.
    std::vector<std::vector<RangeSpan>> tensorSpans(w.tensors.size());
    std::vector<std::vector<std::pair<TimeNs, TimeNs>>> moving(w.tensors.size());
    std::vector<std::vector<const Migration*>> migrationsOf(w.tensors.size());
    // A lane shows its tensor only while it is allocated: empty before its birth and after its
    // death, whatever the policy does with pages of a freed tensor (the links' rows show that).
    std::vector<TimeSpan> alive(w.tensors.size());
    for (size_t t = 0; t < alive.size(); ++t) alive[t] = lifetimeSpan(lifetimes[t], r);
    auto clipped = [&](int tensor, TimeNs a, TimeNs b) {
      const TimeSpan life = alive[static_cast<size_t>(tensor)];
      return std::pair(std::max(a, life.start), std::min(b, life.end));
    };
    for (const Migration& m : r.migrations) {
      moving[static_cast<size_t>(m.tensor)].emplace_back(m.start, m.end);
      migrationsOf[static_cast<size_t>(m.tensor)].push_back(&m);
      auto [a, b] = clipped(m.tensor, m.start, m.end);
      if (b <= a) continue;
      tensorSpans[static_cast<size_t>(m.tensor)].push_back(
          {origin + a, origin + b, std::string(tierName(m.from)) + " → " + tierName(m.to),
           kTensorMoving, formatBytes(m.bytes)});
    }
    for (auto& v : moving) std::sort(v.begin(), v.end());
    // The simulator moves a tensor to its new tier when the move is decided; the copy may wait for
    // the link. Until it starts, the data is still where it was: drawn so, "queued".
    auto queuedInto = [&](int tensor, Tier into, TimeNs at) -> const Migration* {
      for (const Migration* m : migrationsOf[static_cast<size_t>(tensor)]) {
        if (m->to == into && m->start == at) return m;
      }
      return nullptr;
    };
    auto stateOf = [](Tier tier) {
      return tier == Tier::Gpu    ? std::pair(kTensorOnGpu, "on GPU")
             : tier == Tier::Host ? std::pair(kTensorInHost, "in host memory")
                                  : std::pair(kTensorOnSsd, "on SSD");
    };
    for (const Residency& res : r.residency) {
      auto [from, to] = clipped(res.tensor, res.start, res.end);
      if (to <= from) continue;
      for (auto [a, b] : subtract(from, to, moving[static_cast<size_t>(res.tensor)])) {
        auto [category, name] = stateOf(res.tier);
        std::string label = name;
        if (const Migration* m = b < to ? queuedInto(res.tensor, res.tier, b) : nullptr) {
          std::tie(category, name) = stateOf(m->from);
          label = std::string(name) + ", queued for " + tierName(m->to);
        }
        tensorSpans[static_cast<size_t>(res.tensor)].push_back(
            {origin + a, origin + b, label, category, {}});
      }
    }
    auto layerOf = [&](int kernel) {
      if (kernel < 0) return std::string("(unused)");
      auto group = model::LayerGroup::parse(w.kernels[static_cast<size_t>(kernel)].group);
      return group ? group->layer : std::string("(no layer)");
    };
    std::map<std::string, std::vector<int>> byLayer;
    std::map<std::string, int> firstBirth;
    size_t shown = 0;
    for (size_t t = 0; t < w.tensors.size(); ++t) {
      if (std::find(options.classes.begin(), options.classes.end(), w.tensors[t].kind) ==
          options.classes.end())
        continue;
      if (tensorSpans[t].empty()) continue;
      std::string layer = layerOf(lives[t].birth);
      byLayer[layer].push_back(static_cast<int>(t));
      auto [it, fresh] = firstBirth.emplace(layer, lives[t].birth);
      if (!fresh) it->second = std::min(it->second, lives[t].birth);
      ++shown;
    }
    std::vector<std::string> layers;
    for (const auto& [layer, list] : byLayer) layers.push_back(layer);
    std::sort(layers.begin(), layers.end(), [&](const std::string& a, const std::string& b) {
      return std::pair(firstBirth[a], a) < std::pair(firstBirth[b], b);
    });
    rows.push_back(
        {TimelineRow::Kind::Group,
         "Tensors (" + std::to_string(shown) + " of " + std::to_string(w.tensors.size()) + ")",
         1,
         {},
         kNone,
         0,
         {},
         {},
         true});
    for (const std::string& layer : layers) {
      std::vector<int>& list = byLayer[layer];
      std::stable_sort(list.begin(), list.end(), [&](int a, int b) {
        if (options.sort == OverlayOptions::SortBy::Size)
          return w.tensors[static_cast<size_t>(a)].bytes > w.tensors[static_cast<size_t>(b)].bytes;
        return lives[static_cast<size_t>(a)].birth < lives[static_cast<size_t>(b)].birth;
      });
      rows.push_back({TimelineRow::Kind::Group, layer, 2, {}, kNone, 0, {}, {}, false});
      for (int t : list) {
        const SimTensor& tensor = w.tensors[static_cast<size_t>(t)];
        const TensorLife& life = lives[static_cast<size_t>(t)];
        std::string info = tensor.name + "\n" + toString(tensor.kind) +
                           (tensor.shape.empty() ? "" : " · " + tensor.shape) + " · " +
                           formatBytes(tensor.bytes);
        auto kernelName = [&](int k) {
          return "#" + std::to_string(k) + " " + w.kernels[static_cast<size_t>(k)].name;
        };
        const TensorLifetime& held = lifetimes[static_cast<size_t>(t)];
        if (tensor.global)
          info += "\nallocated throughout (lives across iterations)";
        else if (held.allocated())
          info += "\nallocated from kernel " + kernelName(held.from) + " to the end of " +
                  kernelName(held.to - 1) +
                  (tensor.untilIterationEnd ? " (kept until the step ends)" : "");
        info += "\ninactive:";
        if (life.inactive.empty()) info += " never";
        for (size_t i = 0; i < life.inactive.size() && i < 4; ++i) {
          const InactiveInterval& in = life.inactive[i];
          info += (i ? ", #" : " #") + std::to_string(in.from) + "–#" + std::to_string(in.to) +
                  (in.wraps ? " (wraps)" : "") + " " + formatDuration(in.duration);
        }
        if (life.inactive.size() > 4)
          info += ", " + std::to_string(life.inactive.size() - 4) + " more";
        TimelineOverlay::Row row{
            TimelineRow::Kind::Extension,
            tensor.name,
            3,
            {addRangeTrack(s, {kNone, kNone, tensorThread}, tensorSpans[static_cast<size_t>(t)])},
            kNone,
            0,
            info,
            {},
            false,
            kTensorRow};
        std::set<std::string> groups;
        for (int u : life.uses) {
          row.uses.emplace_back(kernelTrack, kernelEvent[static_cast<size_t>(u)]);
          groups.insert(w.kernels[static_cast<size_t>(u)].group);
        }
        for (const std::string& g : groups) {
          if (auto m = measuredOf.find(g); !g.empty() && m != measuredOf.end())
            row.uses.insert(row.uses.end(), m->second.begin(), m->second.end());
        }
        rows.push_back(std::move(row));
      }
    }
    return shown;
  }

 private:
  static int64_t peakOf(const std::vector<TierUsage>& usage, int64_t TierUsage::*field) {
    int64_t peak = 0;
    for (const TierUsage& u : usage) peak = std::max(peak, u.*field);
    return peak;
  }

  void addCounter(const std::string& name, const std::vector<TierUsage>& usage,
                  int64_t TierUsage::*field, int64_t capacity, int depth, std::string info) {
    CounterTrack c;
    c.name = name;
    c.unit = "bytes";
    c.device = device;
    for (const TierUsage& u : usage) {
      if (!c.samples.time.empty() && c.samples.time.back() > origin + u.time)
        continue;  // keep samples sorted
      c.samples.push({origin + u.time, static_cast<double>(u.*field)});
    }
    s.counters.push_back(std::move(c));
    rows.push_back({TimelineRow::Kind::Counter,
                    name,
                    depth,
                    {},
                    static_cast<uint32_t>(s.counters.size() - 1),
                    static_cast<double>(capacity),
                    std::move(info),
                    {},
                    false});
  }

  uint32_t thread(const char* name) {
    s.threads.push_back({process, -static_cast<int64_t>(s.threads.size()) - 1, name, 0});
    return static_cast<uint32_t>(s.threads.size() - 1);
  }
  void addLinks(uint32_t track, uint32_t event,
                const std::vector<std::pair<uint32_t, uint32_t>>& to) {
    auto& v = layout.links[(uint64_t{track} << 32) | event];
    v.insert(v.end(), to.begin(), to.end());
  }

  Session& s;
  TimelineOverlay& layout;
  std::vector<TimelineOverlay::Row>& rows;
  const uint32_t device;
  const TimeNs origin;
  const SimWorkload& w;
  const SimResult& r;
  const std::vector<TensorLife> lives;
  const std::vector<TensorLifetime> lifetimes;  // when each tensor holds memory (step_memory.h)
  uint32_t process = kNone, kernelThread = kNone, linkThread = kNone, tensorThread = kNone;
  std::map<std::string, std::vector<std::pair<uint32_t, uint32_t>>> measuredOf;
  uint32_t kernelTrack = kNone;
  std::vector<uint32_t> kernelEvent;  // per simulated kernel, its event on kernelTrack
};

size_t addPart(Session& s, TimelineOverlay& layout, std::vector<TimelineOverlay::Row>& rows,
               uint32_t device, TimeNs origin, const model::KernelMapping& mapping,
               const SimWorkload& w, const SimResult& r, const TierConfig& tiers,
               const OverlayOptions& options, const MeasuredMemory* measured) {
  PartBuilder part(s, layout, rows, device, origin, mapping, w, r);
  part.addKernels();
  part.addTierUsage(tiers);
  part.addTransfers();
  const size_t shown = part.addTensors(options);
  // The run's own tensors over the mapped iteration (the whole run when none is mapped).
  const TimeNs from = mapping.iterations.empty() ? s.startTime() : origin;
  const TimeNs to =
      mapping.iterations.empty() ? s.endTime() : mapping.iterations[mapping.iteration].end;
  part.addMeasured(measured, from, to);
  return shown;
}

}  // namespace

Result<Overlay> buildOverlay(const SessionPtr& measured, const std::vector<OverlayPart>& parts,
                             const TierConfig& tiers, const OverlayOptions& options) {
  if (parts.empty()) return Error{"nothing to lay over the run"};
  std::shared_ptr<Session> s = copySession(*measured);
  auto layout = std::make_shared<TimelineOverlay>();
  // The run's own allocations, paired into lifetimes once for every GPU.
  const std::vector<MeasuredMemory> measuredMemory = measureTensorLifetimes(*measured);
  Overlay o;
  for (const OverlayPart& part : parts) {
    const SimResult& r = *part.result;
    const SimWorkload& w = *part.workload;
    if (!r.feasible)
      return Error{std::string(toString(r.policy)) + " cannot run this workload: " + r.problem};
    if (r.kernels.size() != w.kernels.size())
      return Error{"the simulation result does not belong to this workload"};
    // The mapped GPU, else the first with kernels and no simulation yet.
    uint32_t device = part.mapping->device;
    auto taken = [&](uint32_t d) {
      return std::any_of(layout->gpus.begin(), layout->gpus.end(),
                         [d](const TimelineOverlay::Gpu& g) { return g.device == d; });
    };
    if (device == kNone || device >= measured->devices.size() || taken(device)) {
      device = kNone;
      for (const Track& t : measured->tracks) {
        if (t.kind == EventKind::Kernel && t.device != kNone && !taken(t.device)) {
          device = t.device;
          break;
        }
      }
    }
    if (device == kNone) return Error{"the run has no GPU kernels to lay the simulation beside"};
    const TimeNs origin =
        part.mapping->iterations.empty() ? measured->startTime() : part.mapping->origin();
    layout->gpus.push_back({device, {}});
    const MeasuredMemory* memory = nullptr;
    for (const MeasuredMemory& m : measuredMemory) {
      if (m.device == device) memory = &m;
    }
    const size_t shown = addPart(*s, *layout, layout->gpus.back().rows, device, origin,
                                 *part.mapping, w, r, tiers, options, memory);
    if (o.origins.empty()) o.origin = origin, o.tensorsShown = shown;
    o.origins.push_back(origin);
  }
  layout->ownsTrack.assign(s->tracks.size(), false);
  std::fill(layout->ownsTrack.begin() + static_cast<std::ptrdiff_t>(measured->tracks.size()),
            layout->ownsTrack.end(), true);
  layout->ownsCounter.assign(s->counters.size(), false);
  std::fill(layout->ownsCounter.begin() + static_cast<std::ptrdiff_t>(measured->counters.size()),
            layout->ownsCounter.end(), true);
  // The categories' styles, by their string ids in this session.
  const std::pair<std::string, EventStyle> styles[] = {
      {kTensorOnGpu, EventStyle::InGpuMemory},
      {kTensorInHost, EventStyle::InHostMemory},
      {kTensorOnSsd, EventStyle::OnSsd},
      {kTensorMoving, EventStyle::Moving},
      {kSimStall, EventStyle::Stall},
      {kMigrationPrefix + std::string(toString(Link::HostToGpu)), EventStyle::HostToGpu},
      {kMigrationPrefix + std::string(toString(Link::GpuToHost)), EventStyle::GpuToHost},
      {kMigrationPrefix + std::string(toString(Link::SsdToGpu)), EventStyle::SsdToGpu},
      {kMigrationPrefix + std::string(toString(Link::GpuToSsd)), EventStyle::GpuToSsd},
      {kMigrationPrefix + std::string(toString(Link::SsdToHost)), EventStyle::SsdToHost},
      {kMigrationPrefix + std::string(toString(Link::HostToSsd)), EventStyle::HostToSsd}};
  for (const auto& [category, style] : styles) layout->styles[s->strings.intern(category)] = style;
  if (Status st = s->finalize(); !st.ok()) return st.failure().prefixed("simulation overlay: ");
  o.session = s;
  o.layout = layout;
  o.rows = std::make_shared<TimelineRows>(o.session, layout);
  return o;
}

Result<Overlay> buildOverlay(const SessionPtr& measured, const model::KernelMapping& mapping,
                             const SimWorkload& workload, const SimResult& result,
                             const TierConfig& tiers, const OverlayOptions& options) {
  return buildOverlay(measured, {{&mapping, &workload, &result}}, tiers, options);
}

}  // namespace ts::memsim
