#include "memsim/engine/simulator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>
#include <set>

#include "analysis/intervals.h"
#include "memsim/engine/vitality.h"

namespace ts::memsim {

const char* toString(Link l) {
  switch (l) {
    case Link::HostToGpu:
      return "host-to-gpu";
    case Link::GpuToHost:
      return "gpu-to-host";
    case Link::SsdToGpu:
      return "ssd-to-gpu";
    case Link::GpuToSsd:
      return "gpu-to-ssd";
    case Link::SsdToHost:
      return "ssd-to-host";
    case Link::HostToSsd:
      return "host-to-ssd";
  }
  return "?";
}

const char* linkLabel(Link l) {
  switch (l) {
    case Link::HostToGpu:
      return "host → GPU";
    case Link::GpuToHost:
      return "GPU → host";
    case Link::SsdToGpu:
      return "SSD → GPU";
    case Link::GpuToSsd:
      return "GPU → SSD";
    case Link::SsdToHost:
      return "SSD → host";
    case Link::HostToSsd:
      return "host → SSD";
  }
  return "?";
}

namespace {

constexpr TimeNs kNever = std::numeric_limits<TimeNs>::max();

struct TensorState {
  Tier tier = Tier::None;
  TimeNs readyAt = 0;    // on the GPU: when its data has arrived
  int64_t lastUse = -1;  // LRU key (kernel sequence number)
  int64_t usedBy = -1;   // sequence number of the kernel using it now
  int64_t key = 0;       // its place in the eviction order (lower goes first)
  TimeNs since = 0;      // when it reached its tier (for residency spans)
};

class Machine {
 public:
  Machine(const SimWorkload& w, const Plan& plan, const TierConfig& tiers)
      : w_(w), plan_(plan), tiers_(tiers), state_(w.tensors.size()), lives_(analyzeVitality(w)) {
    gpuCapacity_ = plan.infiniteGpu ? std::numeric_limits<int64_t>::max() / 4 : tiers.gpuBytes;
    hostCapacity_ = plan.hostAllowed ? tiers.hostBytes : 0;
    const double bw[kLinkCount] = {tiers.gpuHostBandwidth, tiers.gpuHostBandwidth,
                                   tiers.ssdGpuBandwidth,  tiers.ssdGpuBandwidth,
                                   tiers.ssdHostBandwidth, tiers.ssdHostBandwidth};
    for (int i = 0; i < kLinkCount; ++i) bandwidth_[i] = bw[i];
    if (!plan.unifiedMemory && plan.hostAllowed) {
      // Direct (GPUDirect Storage) copies cross the GPU's PCIe link beside the host's: an
      // explicit-copy runtime that uses both reserves the SSD's share of it, as G10 models it.
      for (Link l : {Link::HostToGpu, Link::GpuToHost}) {
        auto& host = bandwidth_[static_cast<size_t>(l)];
        host = std::max(host - tiers.ssdGpuBandwidth, host * 0.25);
      }
    }
    // Actions by kernel: offsets into the plan's sorted list.
    actionBegin_.assign(w.kernels.size() + 1, 0);
    for (const Action& a : plan.actions) ++actionBegin_[static_cast<size_t>(a.kernel) + 1];
    for (size_t k = 1; k < actionBegin_.size(); ++k) actionBegin_[k] += actionBegin_[k - 1];
    birthBytes_.assign(w.kernels.size(), 0);
    for (const TensorLife& life : lives_) {
      if (!life.global && life.birth >= 0)
        birthBytes_[static_cast<size_t>(life.birth)] +=
            w.tensors[static_cast<size_t>(life.tensor)].bytes;
    }
  }

  SimResult run() {
    SimResult r;
    r.policy = plan_.policy;
    r.feasible = plan_.feasible;
    r.problem = plan_.problem;
    const int n = static_cast<int>(w_.kernels.size());
    TimeNs now = 0;
    for (int iteration = 0; iteration < 2; ++iteration) {
      if (iteration == 1) {
        recording_ = true;
        origin_ = now;
        for (size_t t = 0; t < state_.size(); ++t) state_[t].since = now;
        r.kernels.reserve(static_cast<size_t>(n));
        r.usage.reserve(static_cast<size_t>(n) + 1);
      }
      for (int k = 0; k < n; ++k) {
        ++seq_;
        kernel_ = k;
        settle(now);
        for (int i = actionBegin_[static_cast<size_t>(k)];
             i < actionBegin_[static_cast<size_t>(k) + 1]; ++i)
          apply(plan_.actions[static_cast<size_t>(i)], now);
        if (!plan_.unifiedMemory) {
          retryDeferred(now);
          prefetchEarly(k, now);
        }
        if (recording_) r.usage.push_back({now - origin_, gpuResident(), hostUsed_, ssdUsed_});
        const SimKernel& kern = w_.kernels[static_cast<size_t>(k)];
        for (const auto* list : {&kern.inputs, &kern.outputs}) {
          for (int t : *list) state_[static_cast<size_t>(t)].usedBy = seq_;
        }
        TimeNs ready = now;
        bool faulted = false;
        for (int t : kern.inputs)
          ready = std::max(ready, bringIn(t, now, /*demand=*/true, faulted));
        for (int t : kern.outputs) {
          // Written, not read: its old contents need not travel.
          bool overwrite =
              std::find(kern.inputs.begin(), kern.inputs.end(), t) == kern.inputs.end();
          ready = std::max(ready, bringIn(t, now, /*demand=*/true, faulted, overwrite));
        }
        if (faulted && plan_.unifiedMemory)
          ready += tiers_.systemLatencyNs;  // the fault batch's handling
        for (const auto* list : {&kern.inputs, &kern.outputs}) {
          for (int t : *list) touch(t);
        }
        TimeNs end = ready + kern.duration;
        if (recording_) {
          r.kernels.push_back({ready - origin_, end - origin_, ready - now});
          r.summary.stall += ready - now;
        }
        now = end;
      }
    }
    settle(now);
    r.usage.push_back({now - origin_, gpuResident(), hostUsed_, ssdUsed_});
    for (size_t t = 0; t < state_.size(); ++t) {
      if (state_[t].tier != Tier::None) closeSpan(static_cast<int>(t), now);
    }
    r.migrations = std::move(migrations_);
    r.residency = std::move(residency_);
    SimSummary& s = r.summary;
    s.iteration = now - origin_;
    s.ideal = w_.idealTime();
    s.slowdown =
        s.ideal > 0 ? static_cast<double>(s.iteration) / static_cast<double>(s.ideal) : 1.0;
    s.faults = faults_;
    s.demandBytes = demandBytes_;
    s.linkBytes = linkBytes_;
    s.overlap = overlapWithTransfers(r);
    s.compute = s.ideal - s.overlap;
    return r;
  }

 private:
  int64_t gpuResident() const { return gpuUsed_; }

  // Kernel time during which some transfer was running.
  static TimeNs overlapWithTransfers(const SimResult& r) {
    std::vector<Interval> busy, kernels;
    busy.reserve(r.migrations.size());
    kernels.reserve(r.kernels.size());
    for (const Migration& m : r.migrations) busy.push_back({m.start, m.end});
    for (const SimKernelTime& k : r.kernels) kernels.push_back({k.start, k.end});
    mergeIntervals(busy);
    mergeIntervals(kernels);
    return coveredLength(intersectIntervals(busy, kernels));
  }

  void settle(TimeNs now) {
    while (!pending_.empty() && pending_.top().first <= now) {
      gpuUsed_ -= pending_.top().second;
      pending_.pop();
    }
  }

  void touch(int t) {
    TensorState& s = state_[static_cast<size_t>(t)];
    if (s.tier != Tier::Gpu) return;
    order_.erase({s.key, t});
    s.lastUse = seq_;
    s.key = evictionKey(t, /*afterUse=*/true);
    order_.insert({s.key, t});
  }

  // Spared by LRU: the current kernel's tensors, and (DeepUM) those the next kernels need.
  bool isProtected(int t) const {
    const TensorState& s = state_[static_cast<size_t>(t)];
    if (s.usedBy == seq_) return true;
    if (plan_.protectNext <= 0) return false;
    const auto& uses = lives_[static_cast<size_t>(t)].uses;
    if (uses.empty()) return false;
    auto it = std::upper_bound(uses.begin(), uses.end(), kernel_);
    int next = it != uses.end() ? *it : uses.front() + static_cast<int>(w_.kernels.size());
    return next - kernel_ <= plan_.protectNext;
  }

  // Frees GPU space for `bytes` at `now`: first space whose eviction is already under way, then
  // least-recently-used victims. Returns when the space is really free (the incoming transfer
  // streams behind the outgoing one), or kNever when nothing more can be evicted.
  TimeNs makeRoom(int64_t bytes, TimeNs now, bool mayEvict, bool demand) {
    TimeNs at = now;
    while (gpuCapacity_ - gpuUsed_ < bytes && !pending_.empty()) {
      at = std::max(at, pending_.top().first);
      gpuUsed_ -= pending_.top().second;
      pending_.pop();
    }
    if (!mayEvict && gpuCapacity_ - gpuUsed_ < bytes) return kNever;
    // Victims in eviction order; a demand miss may take even what DeepUM meant to keep (never
    // the current kernel's tensors), a prefetch may not.
    for (bool spareProtected : {true, false}) {
      if (!spareProtected && !demand) break;
      auto it = order_.begin();
      while (gpuCapacity_ - gpuUsed_ < bytes) {
        // A demand miss that found nothing else takes a tensor still arriving, once it is in.
        while (it != order_.end() &&
               (state_[static_cast<size_t>(it->second)].usedBy == seq_ ||
                (spareProtected && (isProtected(it->second) ||
                                    state_[static_cast<size_t>(it->second)].readyAt > now)))) {
          ++it;
        }
        if (it == order_.end()) break;
        int victim = it->second;
        ++it;
        if (plan_.discardDead && isDead(victim)) {  // invalidated, not written back
          release(victim, now);
          continue;
        }
        TimeNs end = evict(victim, std::max(now, state_[static_cast<size_t>(victim)].readyAt),
                           Tier::Host, /*demand=*/true, /*releaseNow=*/true);
        at = std::max(at, end);
        if (!plan_.unifiedMemory) scheduleRefetch(victim);
      }
    }
    if (gpuCapacity_ - gpuUsed_ < bytes) return kNever;
    return at;
  }

  TimeNs transfer(int t, Tier from, Tier to, TimeNs now, TimeNs earliestEnd, bool demand) {
    Link link = from == Tier::Gpu ? (to == Tier::Host ? Link::GpuToHost : Link::GpuToSsd)
                                  : (from == Tier::Host ? Link::HostToGpu : Link::SsdToGpu);
    const int64_t bytes = w_.tensors[static_cast<size_t>(t)].bytes;
    TimeNs latency = from == Tier::Ssd ? tiers_.ssdReadLatencyNs
                     : to == Tier::Ssd ? tiers_.ssdWriteLatencyNs
                                       : 0;
    auto li = static_cast<size_t>(link);
    TimeNs start = std::max(now, linkFree_[li]);
    TimeNs end =
        start + latency +
        static_cast<TimeNs>(std::llround(static_cast<double>(bytes) * 1e9 / bandwidth_[li]));
    end = std::max(end, earliestEnd);
    linkFree_[li] = end;
    if (recording_) {
      linkBytes_[li] += bytes;
      if (demand) demandBytes_ += bytes;
      migrations_.push_back({t, from, to, link, start - origin_, end - origin_, bytes, demand});
    }
    return end;
  }

  // releaseNow: the space goes to the request that caused the eviction (it waits for the end);
  // otherwise it frees when the transfer ends.
  TimeNs evict(int t, TimeNs now, Tier to, bool demand, bool releaseNow) {
    TensorState& s = state_[static_cast<size_t>(t)];
    const int64_t bytes = w_.tensors[static_cast<size_t>(t)].bytes;
    if (to == Tier::Host && hostCapacity_ - hostUsed_ < bytes) to = Tier::Ssd;
    TimeNs end = transfer(t, Tier::Gpu, to, now, now, demand);
    order_.erase({s.key, t});
    closeSpan(t, now);
    s.tier = to;
    s.since = now;
    (to == Tier::Host ? hostUsed_ : ssdUsed_) += bytes;
    if (releaseNow)
      gpuUsed_ -= bytes;
    else
      pending_.push({end, bytes});
    return end;
  }

  void place(int t, TimeNs now, TimeNs readyAt) {
    TensorState& s = state_[static_cast<size_t>(t)];
    const int64_t bytes = w_.tensors[static_cast<size_t>(t)].bytes;
    if (s.tier == Tier::Host) hostUsed_ -= bytes;
    if (s.tier == Tier::Ssd) ssdUsed_ -= bytes;
    if (s.tier != Tier::None) closeSpan(t, now);
    s.tier = Tier::Gpu;
    s.since = now;
    s.readyAt = readyAt;
    gpuUsed_ += bytes;
    s.lastUse = seq_;
    s.key = evictionKey(t, /*afterUse=*/false);
    order_.insert({s.key, t});
  }

  // LRU: the least recently used goes first. With the schedule known (plans made from vitality),
  // the tensor needed again farthest in the future goes first (Belady's choice; G10's eviction
  // guide ranks tensors the same way).
  int64_t evictionKey(int t, bool afterUse) const {
    if (!plan_.evictFarthestFirst) return seq_;
    const auto& uses = lives_[static_cast<size_t>(t)].uses;
    const int64_t n = static_cast<int64_t>(w_.kernels.size());
    const int64_t iteration = (seq_ - 1) / n;
    if (uses.empty()) return std::numeric_limits<int64_t>::min();
    auto it = afterUse ? std::upper_bound(uses.begin(), uses.end(), kernel_)
                       : std::lower_bound(uses.begin(), uses.end(), kernel_);
    int64_t next = it != uses.end() ? iteration * n + *it : (iteration + 1) * n + uses.front();
    return -next;
  }

  // Makes tensor t resident; returns when its data is usable. Demand misses count as faults.
  TimeNs bringIn(int t, TimeNs now, bool demand, bool& faulted, bool overwrite = false) {
    TensorState& s = state_[static_cast<size_t>(t)];
    if (s.tier == Tier::Gpu) return s.readyAt;
    const int64_t bytes = w_.tensors[static_cast<size_t>(t)].bytes;
    // Explicit copies never evict for a prefetch: it waits for memory (see retryDeferred).
    TimeNs room = makeRoom(bytes, now, demand || plan_.unifiedMemory, demand);
    if (room == kNever && !demand) {
      // Under unified memory a prefetch that finds no room is dropped: the fault brings the
      // tensor in when it is needed. Explicit copies keep it until memory frees.
      if (!plan_.unifiedMemory) deferred_.push_back(t);
      return kNever;
    }
    if (room == kNever) {
      // Nothing left to evict (the kernel's own tensors fill the GPU): checkWorkingSets rejects
      // such workloads up front; overcommit rather than deadlock.
      room = now;
    }
    if (s.tier == Tier::None || overwrite) {  // first touch, or overwritten: no data to move
      place(t, now, room);
      return room;
    }
    if (demand) {
      if (recording_) ++faults_;
      faulted = true;
    }
    Tier from = s.tier;
    TimeNs end = transfer(t, from, Tier::Gpu, now, room, demand);
    place(t, now, end);
    return end;
  }

  // An explicit-copy runtime knows the schedule: a tensor evicted for lack of room is brought
  // back ahead of its next use (by the kernels' ideal times, with G10's 50 % margin) as soon as
  // memory allows, rather than on demand.
  void scheduleRefetch(int t) {
    const int64_t n = static_cast<int64_t>(w_.kernels.size());
    const auto& uses = lives_[static_cast<size_t>(t)].uses;
    if (uses.empty()) return;
    const int64_t iteration = (seq_ - 1) / n;
    auto it = std::upper_bound(uses.begin(), uses.end(), kernel_);
    const int64_t next =
        (it != uses.end() ? iteration * n + *it : (iteration + 1) * n + uses.front()) +
        1;  // as a sequence number
    const int64_t bytes = w_.tensors[static_cast<size_t>(t)].bytes;
    const Tier tier = state_[static_cast<size_t>(t)].tier;
    const double bw =
        bandwidth_[static_cast<size_t>(tier == Tier::Host ? Link::HostToGpu : Link::SsdToGpu)];
    const double lead = 1.5 * (static_cast<double>(tiers_.ssdReadLatencyNs) +
                               static_cast<double>(bytes) * 1e9 / bw);
    int64_t at = next;
    double covered = 0;
    while (at > seq_ + 1 && covered < lead)
      covered += static_cast<double>(w_.kernels[static_cast<size_t>((--at - 1) % n)].duration);
    refetch_.push({at, t});
  }

  // Prefetches waiting for memory, nearest next use first.
  void retryDeferred(TimeNs now) {
    while (!refetch_.empty() && refetch_.top().first <= seq_) {
      deferred_.push_back(refetch_.top().second);
      refetch_.pop();
    }
    if (deferred_.empty()) return;
    std::vector<int> waiting;
    waiting.swap(deferred_);
    std::sort(waiting.begin(), waiting.end(),
              [&](int a, int b) { return nextUse(a) < nextUse(b); });
    waiting.erase(std::unique(waiting.begin(), waiting.end()), waiting.end());
    for (int t : waiting) {
      TensorState& s = state_[static_cast<size_t>(t)];
      if (s.tier == Tier::Gpu || s.tier == Tier::None) continue;
      bool unused = false;
      bringIn(t, now, false, unused);  // back onto deferred_ when there is still no room
    }
  }

  // Explicit copies: a planned prefetch starts early when memory is free now — beyond what the
  // kernels before it will allocate — and it is due within three of its own transfer times.
  void prefetchEarly(int k, TimeNs now) {
    const int n = static_cast<int>(w_.kernels.size());
    TimeNs ahead = 0;
    int64_t allocating = 0;
    for (int j = k + 1; j < n && j <= k + 64; ++j) {
      ahead += w_.kernels[static_cast<size_t>(j - 1)].duration;
      allocating += birthBytes_[static_cast<size_t>(j)];
      for (int i = actionBegin_[static_cast<size_t>(j)];
           i < actionBegin_[static_cast<size_t>(j) + 1]; ++i) {
        const Action& a = plan_.actions[static_cast<size_t>(i)];
        if (a.kind != Action::Prefetch) continue;
        const TensorState& s = state_[static_cast<size_t>(a.tensor)];
        if (s.tier != Tier::Host && s.tier != Tier::Ssd) continue;
        const int64_t bytes = w_.tensors[static_cast<size_t>(a.tensor)].bytes;
        const double bw = bandwidth_[static_cast<size_t>(s.tier == Tier::Host ? Link::HostToGpu
                                                                              : Link::SsdToGpu)];
        if (static_cast<double>(ahead) > 3 * static_cast<double>(bytes) * 1e9 / bw) continue;
        if (gpuCapacity_ - gpuUsed_ < bytes + allocating) continue;
        bool unused = false;
        bringIn(a.tensor, now, false, unused);
      }
    }
  }

  int64_t nextUse(int t) const {
    const auto& uses = lives_[static_cast<size_t>(t)].uses;
    auto it = std::lower_bound(uses.begin(), uses.end(), kernel_);
    return it != uses.end() ? *it : *uses.begin() + static_cast<int64_t>(w_.kernels.size());
  }

  bool isDead(int t) const {
    const TensorLife& life = lives_[static_cast<size_t>(t)];
    return !life.global && (kernel_ < life.birth || kernel_ >= life.death);
  }

  // Drops tensor t wherever it is (its data is no longer needed).
  void release(int t, TimeNs now) {
    TensorState& s = state_[static_cast<size_t>(t)];
    const int64_t bytes = w_.tensors[static_cast<size_t>(t)].bytes;
    if (s.tier == Tier::None) return;
    closeSpan(t, now);
    if (s.tier == Tier::Gpu) {
      order_.erase({s.key, t});
      gpuUsed_ -= bytes;
    } else {
      (s.tier == Tier::Host ? hostUsed_ : ssdUsed_) -= bytes;
    }
    s.tier = Tier::None;
  }

  void apply(const Action& a, TimeNs now) {
    const int t = a.tensor;
    TensorState& s = state_[static_cast<size_t>(t)];
    switch (a.kind) {
      case Action::Free:
        release(t, now);
        return;
      case Action::EvictToHost:
      case Action::EvictToSsd:
        if (s.tier != Tier::Gpu || s.readyAt > now || s.usedBy == seq_) return;
        evict(t, now, a.kind == Action::EvictToHost && plan_.hostAllowed ? Tier::Host : Tier::Ssd,
              false, false);
        return;
      case Action::Allocate:
      case Action::Prefetch: {
        if (s.tier == Tier::Gpu) return;
        bool unused = false;
        bringIn(t, now, false, unused);
        return;
      }
    }
  }

  void closeSpan(int t, TimeNs now) {
    TensorState& s = state_[static_cast<size_t>(t)];
    if (!recording_ || s.tier == Tier::None) return;
    TimeNs from = std::max(s.since, origin_);
    if (now > from) residency_.push_back({t, s.tier, from - origin_, now - origin_});
  }

  const SimWorkload& w_;
  const Plan& plan_;
  const TierConfig& tiers_;
  std::vector<TensorState> state_;
  std::vector<TensorLife> lives_;
  std::vector<int> actionBegin_;
  int64_t gpuCapacity_ = 0, hostCapacity_ = 0;
  int64_t gpuUsed_ = 0, hostUsed_ = 0, ssdUsed_ = 0;
  double bandwidth_[kLinkCount] = {};
  TimeNs linkFree_[kLinkCount] = {};
  std::priority_queue<std::pair<int64_t, int>, std::vector<std::pair<int64_t, int>>, std::greater<>>
      refetch_;
  std::vector<int> deferred_;
  std::vector<int64_t> birthBytes_;          // bytes first allocated by each kernel
  std::set<std::pair<int64_t, int>> order_;  // GPU-resident tensors by eviction key
  std::priority_queue<std::pair<TimeNs, int64_t>, std::vector<std::pair<TimeNs, int64_t>>,
                      std::greater<>>
      pending_;
  int64_t seq_ = 0;
  int kernel_ = 0;
  bool recording_ = false;
  TimeNs origin_ = 0;
  int64_t faults_ = 0;
  int64_t demandBytes_ = 0;
  std::array<int64_t, kLinkCount> linkBytes_{};
  std::vector<Migration> migrations_;
  std::vector<Residency> residency_;
};

}  // namespace

SimResult simulate(const SimWorkload& workload, const Plan& plan, const TierConfig& tiers) {
  if (plan.g10Copies) return simulateG10Copies(workload, plan, tiers);
  const size_t n = workload.kernels.size();
  if (plan.unifiedMemory && !plan.infiniteGpu && n > 0 && workload.g10Cycles.size() == n &&
      workload.g10InputPfCycles.size() == n && workload.g10PfCycles.size() == n)
    return simulateG10Unified(workload, plan, tiers);
  Machine m(workload, plan, tiers);
  return m.run();
}

}  // namespace ts::memsim
