// G10's smart tensor migration (Zhang et al., MICRO 2023), planned from tensor vitality:
//  1. With dead tensors freed, estimate the GPU memory each kernel needs; where it exceeds the
//     target (99 % of capacity; G10's code loosens it for two configurations, g10_quirks.h),
//     memory must move.
//  2. Take inactive intervals greedily by the over-target memory × time they would remove
//     (a lazy priority queue: an interval's gain can only shrink as others are taken).
//  3. Long intervals go to the SSD, medium ones to host memory while it has room, short ones
//     stay; the eviction is scheduled forward from the interval's start and the prefetch backward
//     from its end against the bandwidth still free around each kernel, and the interval is
//     dropped when the two would meet.
//  3b. Where bandwidth ran out and memory is still over the target, idle tensors needed again
//     farthest in the future are evicted early anyway (Belady's order) rather than on demand.
//  4. Prefetches are then pulled earlier wherever memory under the target allows, for slack.
// g10-gds has no host memory; g10-host may use it; both run with explicit (GPUDirect) copies
// instead of unified memory's demand paging.
#include <algorithm>
#include <queue>

#include "memsim/engine/g10_quirks.h"
#include "memsim/engine/planners.h"
#include "memsim/engine/simulator.h"

namespace ts::memsim {

namespace {

// Bytes each link can still carry during each kernel (its ideal duration × bandwidth).
struct Budget {
  std::vector<double> left;

  Budget(const SimWorkload& w, double bandwidth) {
    left.reserve(w.kernels.size());
    for (const SimKernel& k : w.kernels)
      left.push_back(bandwidth * static_cast<double>(k.duration) * 1e-9);
  }
  size_t n() const { return left.size(); }
  // First extended index (≥ from) by which `bytes` have been carried, or -1 past `limit`.
  int forward(double bytes, int from, int limit) const {
    for (int i = from; i < limit; ++i) {
      bytes -= left[static_cast<size_t>(i) % n()];
      if (bytes <= 0) return i;
    }
    return -1;
  }
  // Last extended index (< to) from which `bytes` can arrive by `to`, or -1 below `limit`.
  int backward(double bytes, int to, int limit) const {
    for (int i = to - 1; i >= limit; --i) {
      bytes -= left[static_cast<size_t>(i) % n()];
      if (bytes <= 0) return i;
    }
    return -1;
  }
  void takeForward(double bytes, int from) {
    for (int i = from; bytes > 0 && i < from + static_cast<int>(n()); ++i) {
      double& l = left[static_cast<size_t>(i) % n()];
      double used = std::min(l, bytes);
      l -= used;
      bytes -= used;
    }
  }
  void takeBackward(double bytes, int to) {
    for (int i = to - 1; bytes > 0 && i > to - 1 - static_cast<int>(n()); --i) {
      double& l = left[static_cast<size_t>((i % static_cast<int>(n()) + static_cast<int>(n())) %
                                           static_cast<int>(n()))];
      double used = std::min(l, bytes);
      l -= used;
      bytes -= used;
    }
  }
};

struct Candidate {
  int tensor = 0;
  int from = 0;  // extended indices: to may exceed n for an interval that wraps
  int to = 0;
  TimeNs duration = 0;
};

}  // namespace

namespace {

enum class Selection { Greedy, FarthestFirst };

// One plan, built in the steps the file's comment lists; the state they share is here.
class G10Builder {
 public:
  G10Builder(Policy variant, Selection selection, const SimWorkload& w,
             const std::vector<TensorLife>& lives, const TierConfig& tiers)
      : selection_(selection),
        w_(w),
        lives_(lives),
        tiers_(tiers),
        n_(static_cast<int>(w.kernels.size())),
        ssdOut_(w, tiers.ssdGpuBandwidth),
        ssdIn_(w, tiers.ssdGpuBandwidth),
        pcieOut_(w, tiers.gpuHostBandwidth),
        pcieIn_(w, tiers.gpuHostBandwidth) {
    plan_.policy = variant;
    plan_.unifiedMemory = variant == Policy::G10;
    plan_.hostAllowed = variant != Policy::G10Gds;
    plan_.evictFarthestFirst = true;
  }

  Plan run() {
    if (n_ == 0) return plan_;
    residentMemory();
    collectCandidates();
    if (selection_ == Selection::Greedy) selectGreedily();
    if (overTarget()) evictEarlyWhereBandwidthRanOut();
    pullPrefetchesEarlier();
    addFrees(w_, lives_, plan_.actions);
    sortActions(plan_.actions);
    plan_.note = selection_ == Selection::Greedy ? "intervals by memory-time gain (G10's order)"
                                                 : "intervals by farthest next use";
    if (!quirkNote_.empty()) plan_.note += "; " + quirkNote_;
    return plan_;
  }

 private:
  struct Decision {
    Tier tier = Tier::None;
    int evictDone = -1, prefetch = -1;  // memory is free strictly between the two
  };
  struct Chosen {
    int tensor, evictDone, prefetch;
  };
  static constexpr double kDelta = 0.5;  // G10's safety margin on a prefetch's estimated time

  int64_t bytesOf(int tensor) const { return w_.tensors[static_cast<size_t>(tensor)].bytes; }
  bool overTarget() const {
    return *std::max_element(resident_.begin(), resident_.end()) > target_;
  }

  // 1. Memory each kernel needs with dead tensors freed (and every tensor allocated at birth).
  void residentMemory() {
    resident_.assign(static_cast<size_t>(n_), 0);
    int64_t globals = 0;
    for (const TensorLife& life : lives_) {
      const int64_t bytes = bytesOf(life.tensor);
      if (life.global) {
        globals += bytes;
        continue;
      }
      if (life.uses.empty()) continue;
      for (int k = life.birth; k < life.death; ++k) resident_[static_cast<size_t>(k)] += bytes;
      plan_.actions.push_back({life.birth, life.tensor, Action::Allocate});
    }
    for (int64_t& r : resident_) r += globals;
    const G10Quirks quirks = g10Quirks(w_, tiers_, plan_.policy);
    target_ =
        static_cast<int64_t>(static_cast<double>(tiers_.gpuBytes) * 0.99 * quirks.targetScale);
    quirkNote_ = quirks.note;
    hostCapacity_ = plan_.hostAllowed ? tiers_.hostBytes : 0;
    hostUse_.assign(static_cast<size_t>(n_), 0);
  }

  // 2. Candidates: every inactive interval longer than one kernel.
  void collectCandidates() {
    for (const TensorLife& life : lives_) {
      for (const InactiveInterval& iv : life.inactive) {
        int to = iv.wraps ? iv.to + n_ : iv.to;
        if (to - iv.from < 2) continue;  // one idle kernel: nothing to gain
        candidates_.push_back({life.tensor, iv.from, to, iv.duration});
      }
    }
    taken_.assign(candidates_.size(), 0);
  }

  // Where the interval's tensor would go and when it would be away, given the bandwidth left.
  Decision decide(const Candidate& c) const {
    Decision out;
    const int64_t bytes = bytesOf(c.tensor);
    const auto b = static_cast<double>(bytes);
    const double ssdOneWay =
        static_cast<double>(tiers_.systemLatencyNs + tiers_.ssdWriteLatencyNs) +
        b * 1e9 / tiers_.ssdGpuBandwidth;
    const double hostOneWay =
        static_cast<double>(tiers_.systemLatencyNs) + b * 1e9 / tiers_.gpuHostBandwidth;
    const auto d = static_cast<double>(c.duration);
    auto window = [&](const Budget& o, const Budget& i, Tier tier) {
      int e = o.forward(b, c.from, c.to);
      int p = e < 0 ? -1 : i.backward(b, c.to, e + 1);
      if (e < 0 || p <= e) return false;
      out = {tier, e, p};
      return true;
    };
    auto hostHasRoom = [&] {
      for (int i = c.from; i < c.to; ++i) {
        if (hostUse_[static_cast<size_t>(i % n_)] + bytes > hostCapacity_) return false;
      }
      return true;
    };
    const bool hostOk = d > (2 + kDelta) * hostOneWay && hostHasRoom();
    if (d > (2 + kDelta) * ssdOneWay) {
      // The SSD when its spare bandwidth empties the tensor about as fast as an idle link would;
      // when earlier choices have congested it, host memory (if it has room) instead.
      int idealClear = c.from;
      for (double t = 0; idealClear < c.to; ++idealClear) {
        t += static_cast<double>(w_.kernels[static_cast<size_t>(idealClear % n_)].duration);
        if (t >= ssdOneWay) break;
      }
      int done = ssdOut_.forward(b, c.from, c.to);
      bool ssdFree = done >= 0 && done <= idealClear;
      if (!(!ssdFree && hostOk && window(pcieOut_, pcieIn_, Tier::Host)))
        window(ssdOut_, ssdIn_, Tier::Ssd);
    } else if (hostOk) {
      window(pcieOut_, pcieIn_, Tier::Host);
    }
    return out;
  }

  // Over-target memory × time the interval would remove: only the kernels it is really away for.
  double gain(const Candidate& c, Decision& d) const {
    d = decide(c);
    if (d.tier == Tier::None) return 0.0;
    double g = 0;
    for (int i = d.evictDone + 1; i < d.prefetch; ++i) {
      const auto k = static_cast<size_t>(i % n_);
      if (resident_[k] > target_) g += static_cast<double>(w_.kernels[k].duration);
    }
    return g * static_cast<double>(bytesOf(c.tensor));
  }

  // 3. Greedy selection, lazily re-evaluated: a gain only shrinks as memory is freed and
  // bandwidth taken, so a popped candidate still ahead of the next stale one is the best.
  void selectGreedily() {
    std::priority_queue<std::pair<double, int>> queue;
    for (size_t i = 0; i < candidates_.size(); ++i) {
      Decision d;
      double g = gain(candidates_[i], d);
      if (g > 0) queue.push({g, static_cast<int>(i)});
    }
    while (!queue.empty() && overTarget()) {
      int index = queue.top().second;
      queue.pop();
      const Candidate& c = candidates_[static_cast<size_t>(index)];
      Decision d;
      double g = gain(c, d);
      if (g <= 0) continue;
      if (!queue.empty() && g < queue.top().first) {
        queue.push({g, index});
        continue;
      }
      const int64_t bytes = bytesOf(c.tensor);
      const auto b = static_cast<double>(bytes);
      if (d.tier == Tier::Ssd) {
        ssdOut_.takeForward(b, c.from);
        ssdIn_.takeBackward(b, c.to);
      } else {
        pcieOut_.takeForward(b, c.from);
        pcieIn_.takeBackward(b, c.to);
        for (int i = c.from; i < c.to; ++i) hostUse_[static_cast<size_t>(i % n_)] += bytes;
      }
      for (int i = d.evictDone + 1; i < d.prefetch; ++i)
        resident_[static_cast<size_t>(i % n_)] -= bytes;
      plan_.actions.push_back(
          {c.from % n_, c.tensor, d.tier == Tier::Ssd ? Action::EvictToSsd : Action::EvictToHost});
      chosen_.push_back({c.tensor, d.evictDone, d.prefetch});
      taken_[static_cast<size_t>(index)] = 1;
    }
  }

  // 3b. Where the spare bandwidth ran out and memory is still over the target, evicting on
  // demand would stall each kernel for its own evictions. Evict early instead, on the busy link,
  // the idle tensors needed again farthest in the future (Belady's choice), and time their
  // return by ideal kernel times; the simulator charges the congestion.
  void evictEarlyWhereBandwidthRanOut() {
    struct Away {
      int candidate, evictDone, prefetch;
      bool toHost;
    };
    // Each unused interval's window on an otherwise idle link, filed under its first free kernel.
    std::vector<std::vector<Away>> freeFrom(static_cast<size_t>(n_));
    for (size_t i = 0; i < candidates_.size(); ++i) {
      const Candidate& c = candidates_[i];
      if (taken_[i] || c.to > n_) continue;
      const auto b = static_cast<double>(bytesOf(c.tensor));
      const bool toHost = plan_.hostAllowed &&
                          c.duration > (2 + kDelta) * (static_cast<double>(tiers_.systemLatencyNs) +
                                                       b * 1e9 / tiers_.gpuHostBandwidth);
      const double oneWay =
          toHost ? static_cast<double>(tiers_.systemLatencyNs) + b * 1e9 / tiers_.gpuHostBandwidth
                 : static_cast<double>(tiers_.systemLatencyNs + tiers_.ssdWriteLatencyNs) +
                       b * 1e9 / tiers_.ssdGpuBandwidth;
      int evictDone = c.from;
      for (double t = static_cast<double>(w_.kernels[static_cast<size_t>(c.from)].duration);
           evictDone + 1 < c.to && t < oneWay;) {
        t += static_cast<double>(w_.kernels[static_cast<size_t>(++evictDone)].duration);
      }
      int prefetch = c.to;
      for (double t = 0; prefetch > evictDone + 1 && t < (1 + kDelta) * oneWay;)
        t += static_cast<double>(w_.kernels[static_cast<size_t>(--prefetch)].duration);
      if (prefetch > evictDone + 1)
        freeFrom[static_cast<size_t>(evictDone + 1)].push_back(
            {static_cast<int>(i), evictDone, prefetch, toHost});
    }
    std::priority_queue<std::pair<int, size_t>> open;  // (window end, index into pool)
    std::vector<Away> pool;
    for (int k = 0; k < n_; ++k) {
      for (const Away& a : freeFrom[static_cast<size_t>(k)]) {
        pool.push_back(a);
        open.push({a.prefetch, pool.size() - 1});
      }
      while (resident_[static_cast<size_t>(k)] > target_ && !open.empty()) {
        const Away a = pool[open.top().second];
        open.pop();
        if (a.prefetch <= k) continue;
        const Candidate& c = candidates_[static_cast<size_t>(a.candidate)];
        const int64_t bytes = bytesOf(c.tensor);
        bool toHost = a.toHost;
        for (int j = c.from; toHost && j < c.to; ++j)
          toHost = hostUse_[static_cast<size_t>(j)] + bytes <= hostCapacity_;
        if (toHost) {
          for (int j = c.from; j < c.to; ++j) hostUse_[static_cast<size_t>(j)] += bytes;
        }
        for (int j = a.evictDone + 1; j < a.prefetch; ++j)
          resident_[static_cast<size_t>(j)] -= bytes;
        plan_.actions.push_back(
            {c.from, c.tensor, toHost ? Action::EvictToHost : Action::EvictToSsd});
        chosen_.push_back({c.tensor, a.evictDone, a.prefetch});
      }
    }
  }

  // 4. Earlier prefetches where memory allows: a late prefetch stalls a kernel, an early one
  // only costs memory that is free anyway.
  void pullPrefetchesEarlier() {
    std::sort(chosen_.begin(), chosen_.end(),
              [](const Chosen& a, const Chosen& b) { return a.prefetch < b.prefetch; });
    for (Chosen& c : chosen_) {
      const int64_t bytes = bytesOf(c.tensor);
      while (c.prefetch - 1 > c.evictDone &&
             resident_[static_cast<size_t>((c.prefetch - 1) % n_)] + bytes <= target_) {
        --c.prefetch;
        resident_[static_cast<size_t>(c.prefetch % n_)] += bytes;
      }
      plan_.actions.push_back({c.prefetch % n_, c.tensor, Action::Prefetch});
    }
  }

  const Selection selection_;
  const SimWorkload& w_;
  const std::vector<TensorLife>& lives_;
  const TierConfig& tiers_;
  const int n_;
  Plan plan_;
  std::vector<int64_t> resident_;  // GPU bytes each kernel needs, as the plan stands
  int64_t target_ = 0;             // 99 % of the GPU's memory (× G10's loosen factor)
  std::string quirkNote_;
  int64_t hostCapacity_ = 0;
  std::vector<int64_t> hostUse_;  // host bytes during each kernel
  std::vector<Candidate> candidates_;
  std::vector<char> taken_;  // by candidate: chosen in step 3
  Budget ssdOut_, ssdIn_, pcieOut_, pcieIn_;
  std::vector<Chosen> chosen_;
};

Plan buildG10(Policy variant, Selection selection, const SimWorkload& w,
              const std::vector<TensorLife>& lives, const TierConfig& tiers) {
  return G10Builder(variant, selection, w, lives, tiers).run();
}

}  // namespace

// G10 ranks intervals by the memory-time they free; where bandwidth rather than memory is the
// bottleneck (the SSD-only variant, huge overcommitment) evicting what is needed farthest in
// the future moves fewer bytes. Planning is cheap next to anything it informs, so both orders
// are planned, simulated, and the faster kept.
Plan planG10(Policy variant, const SimWorkload& w, const std::vector<TensorLife>& lives,
             const TierConfig& tiers) {
  Plan greedy = buildG10(variant, Selection::Greedy, w, lives, tiers);
  Plan farthest = buildG10(variant, Selection::FarthestFirst, w, lives, tiers);
  TimeNs a = simulate(w, greedy, tiers).summary.iteration,
         b = simulate(w, farthest, tiers).summary.iteration;
  return b < a ? farthest : greedy;
}

}  // namespace ts::memsim
