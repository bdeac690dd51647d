// G10's simulator of explicit copies (its FlashNeuron_simulator, src/analysis.cc at de2c8c6),
// which G10 runs for FlashNeuron and for its GPUDirect variants: one iteration, kernel after
// kernel; tensors live in contiguous runs of 4 KiB pages (so memory can fragment); each of the
// four copy streams (to and from the SSD, to and from host memory) moves one tensor at a time at
// its bandwidth, with no latency; a kernel starts when its tensors are allocated and in.
//  - FlashNeuron: weights and the largest workspace are placed first; in the forward pass the
//    planned offloads start at their kernels; the backward pass waits for them all, then after
//    each kernel fetches the offloaded tensors the next kernels need while memory beyond the
//    largest working set allows; an offloaded tensor missing when needed is fetched then.
//  - GPUDirect variants (G10's plan, G10GDSSSD / G10GDSFULL): 4 × the GPU's memory ("the memory
//    limit is applied when planning"); evictions and prefetches run at their kernels, a prefetch
//    waiting until a run of pages is free; host copies get the PCIe bandwidth the SSD leaves.
// A tensor that cannot be placed even after every copy in flight has finished ends the run:
// infeasible, as G10 then exits (G10 lets one tensor, by name, through: see bringIn). Where G10
// reads an unordered set (a kernel's tensors), we take them by id.
#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <map>
#include <queue>
#include <set>

#include "memsim/engine/simulator.h"
#include "util/format.h"

namespace ts::memsim {

namespace {

constexpr double kGiB = 1073741824.0;
constexpr int64_t kPage = 4096;

// Contiguous page runs: first fit from the left or from the right, as G10's page table scans.
class PageRuns {
 public:
  explicit PageRuns(int64_t pages) {
    if (pages > 0) free_[0] = pages;
  }
  // First position (lowest or highest) of a free run of `n` pages; -1 when none.
  int64_t allocLeft(int64_t n) {
    for (auto it = free_.begin(); it != free_.end(); ++it) {
      if (it->second < n) continue;
      const int64_t at = it->first;
      take(it, at, n);
      return at;
    }
    return -1;
  }
  int64_t allocRight(int64_t n) {
    for (auto it = free_.rbegin(); it != free_.rend(); ++it) {
      if (it->second < n) continue;
      const int64_t at = it->first + it->second - n;
      take(std::prev(it.base()), at, n);
      return at;
    }
    return -1;
  }
  void release(int64_t at, int64_t n) {
    auto next = free_.lower_bound(at);
    int64_t start = at, len = n;
    if (next != free_.begin()) {
      auto prev = std::prev(next);
      if (prev->first + prev->second == at) {
        start = prev->first;
        len += prev->second;
        free_.erase(prev);
      }
    }
    if (next != free_.end() && next->first == at + n) {
      len += next->second;
      free_.erase(next);
    }
    free_[start] = len;
  }
  int64_t largest() const {
    int64_t best = 0;
    for (const auto& [at, len] : free_) best = std::max(best, len);
    return best;
  }

 private:
  void take(std::map<int64_t, int64_t>::iterator it, int64_t at, int64_t n) {
    const int64_t start = it->first, len = it->second;
    free_.erase(it);
    if (at > start) free_[start] = at - start;
    if (at + n < start + len) free_[at + n] = start + len - (at + n);
  }
  std::map<int64_t, int64_t> free_;  // start page → length
};

enum class Stream { SsdOut, SsdIn, HostOut, HostIn };

class CopySimulator {
 public:
  CopySimulator(const SimWorkload& w, const Plan& plan, const TierConfig& tiers)
      : w_(w),
        plan_(plan),
        n_(static_cast<int>(w.kernels.size())),
        flashNeuron_(plan.policy == Policy::FlashNeuron),
        pages_(flashNeuron_ ? tiers.gpuBytes / kPage : 4 * (tiers.gpuBytes / kPage)),
        capacity_(tiers.gpuBytes) {
    const double ssdGBps = tiers.ssdGpuBandwidth / kGiB, pcieGBps = tiers.gpuHostBandwidth / kGiB;
    ssdBytesPerMs_ = ssdGBps * kGiB / 1000;
    hostBytesPerMs_ = (pcieGBps - ssdGBps) * kGiB / 1000;  // what the SSD leaves of PCIe
    if (hostBytesPerMs_ <= 0) hostCopies_ = false;         // the SSD takes all of PCIe
    const size_t T = w.tensors.size();
    at_.assign(T, -1);
    fetching_.assign(T, 0);
    chosen_.assign(T, 0);
    onHost_.assign(T, 0);
    waiting_.assign(T, 0);
    birth_.assign(T, -1);
    death_.assign(T, -1);
    awayTier_.assign(T, Tier::None);
    awaySince_.assign(T, 0);
    for (int k = 0; k < n_; ++k) {
      const SimKernel& kern = w.kernels[static_cast<size_t>(k)];
      for (int t : kern.inputs) death_[static_cast<size_t>(t)] = k + 1;
      for (const auto* list : {&kern.inputs, &kern.outputs})
        for (int t : *list)
          if (birth_[static_cast<size_t>(t)] < 0) birth_[static_cast<size_t>(t)] = k;
    }
    for (const Action& a : plan.actions) {
      if (a.kind == Action::EvictToSsd || a.kind == Action::EvictToHost)
        chosen_[static_cast<size_t>(a.tensor)] = 1;
    }
  }

  SimResult run() {
    SimResult r;
    r.policy = plan_.policy;
    if (!setUp(r)) return r;
    double ideal = 0;
    bool backward = false;
    size_t next = 0;  // the plan's next action
    for (int i = 0; i < n_; ++i) {
      if (i == w_.lossKernel) backward = true;
      const double start = now_;
      if (flashNeuron_) {
        if (!backward) {
          for (; next < plan_.actions.size() && plan_.actions[next].kernel <= i; ++next) {
            const Action& a = plan_.actions[next];
            if (a.kernel == i && a.kind == Action::EvictToSsd) offload(a.tensor, Stream::SsdOut);
          }
        } else {
          while (!queue(Stream::SsdOut).empty()) serve();
        }
      } else {
        for (; next < plan_.actions.size() && plan_.actions[next].kernel <= i; ++next) {
          const Action& a = plan_.actions[next];
          if (a.kernel != i) continue;
          const auto t = static_cast<size_t>(a.tensor);
          if (a.kind == Action::EvictToSsd) {
            offload(a.tensor, Stream::SsdOut);
          } else if (a.kind == Action::EvictToHost && plan_.hostAllowed && hostCopies_) {
            onHost_[t] = 1;
            offload(a.tensor, Stream::HostOut);
          } else if (a.kind == Action::EvictToHost) {
            offload(a.tensor, Stream::SsdOut);
          } else if (a.kind == Action::Prefetch) {
            if (!(at_[t] >= 0 && w_.tensors[t].global)) {
              waitQueue_.push_back(a.tensor);
              waiting_[t] = 1;
              checkWaiting();
            }
          }
        }
      }
      if (!bringIn(i, r)) return r;
      const double run = now_;  // the kernel's tensors are in: it runs
      r.usage.push_back({ns(now_), gpuBytes_, hostBytes_, ssdBytes_});
      const double ms = kernelMs(i);
      ideal += ms;
      kernelEnd_ = now_ + ms;
      pending_.push({kernelEnd_, -1});
      for (bool ended = false; !ended;) {
        ended = serve();
        checkWaiting();
      }
      // In whole ns, kernels back to back with their stalls (G10 keeps ms as doubles).
      const TimeNs stall = std::max<TimeNs>(0, ns(run) - ns(start));
      const TimeNs begin = endNs_ + stall;
      endNs_ = begin + w_.kernels[static_cast<size_t>(i)].duration;
      r.kernels.push_back({begin, endNs_, stall});
      stallNs_ += stall;
      // Dead tensors leave GPU memory after the kernel.
      for (int t : tensorsOf(i)) {
        const auto ti = static_cast<size_t>(t);
        if (w_.tensors[ti].global) continue;
        const bool dead = death_[ti] == i + 1 || (!flashNeuron_ && death_[ti] == -1);
        if (dead && (!flashNeuron_ || death_[ti] != -1)) release(t);
      }
      if (!flashNeuron_) checkWaiting();
      if (flashNeuron_ && backward) prefetchAhead(i);
    }
    r.feasible = true;
    SimSummary& s = r.summary;
    s.iteration = endNs_;
    s.ideal = w_.idealTime();
    s.slowdown = s.ideal > 0 ? static_cast<double>(s.iteration) / static_cast<double>(s.ideal) : 1;
    s.stall = stallNs_;
    // G10: overlap = time with a copy running − stall; compute the rest of the kernels' time.
    s.overlap = std::clamp<TimeNs>(ns(transfer_) - s.stall, 0, s.ideal);
    s.compute = s.ideal - s.overlap;
    (void)ideal;
    s.linkBytes = linkBytes_;
    r.usage.push_back({ns(now_), gpuBytes_, hostBytes_, ssdBytes_});
    for (size_t t = 0; t < awayTier_.size(); ++t) back(static_cast<int>(t));
    int64_t peak = 0;
    for (const TierUsage& u : r.usage) peak = std::max(peak, u.gpu);
    if (peak > capacity_) {
      // G10's GPUDirect variants: their memory limit is the plan's, not the simulator's.
      r.caveat =
          "as in G10's own simulator, which gives its GPUDirect variants 4× the GPU's "
          "memory and leaves the limit to the plan, memory reached " +
          formatBytes(peak) + " on a GPU of " + formatBytes(capacity_) +
          ": this is G10's time for a plan that would not fit";
    }
    r.migrations = std::move(migrations_);
    r.residency = std::move(residency_);
    return r;
  }

 private:
  struct Copy {
    int tensor;
    double ms;
    bool started = false;
    double begin = 0;
  };
  std::deque<Copy>& queue(Stream s) { return queues_[static_cast<size_t>(s)]; }

  static TimeNs ns(double ms) { return static_cast<TimeNs>(std::llround(ms * 1e6)); }
  double kernelMs(int i) const {
    if (!w_.g10Cycles.empty())
      return static_cast<double>(w_.g10Cycles[static_cast<size_t>(i)]) / 1.2e9 * 1000;
    return static_cast<double>(w_.kernels[static_cast<size_t>(i)].duration) / 1e6;
  }
  int64_t bytes(int t) const { return w_.tensors[static_cast<size_t>(t)].bytes; }
  int64_t pagesOf(int t) const { return (bytes(t) + kPage - 1) / kPage; }
  std::vector<int> tensorsOf(int k) const {
    const SimKernel& kern = w_.kernels[static_cast<size_t>(k)];
    std::set<int> s(kern.inputs.begin(), kern.inputs.end());
    s.insert(kern.outputs.begin(), kern.outputs.end());
    return {s.begin(), s.end()};
  }

  bool place(int t, bool right) {
    const int64_t at = right ? pages_.allocRight(pagesOf(t)) : pages_.allocLeft(pagesOf(t));
    if (at < 0) return false;
    if (at_[static_cast<size_t>(t)] < 0) gpuBytes_ += pagesOf(t) * kPage;
    at_[static_cast<size_t>(t)] = at;  // (placed twice, G10 leaks the first run: so do we)
    return true;
  }
  void release(int t) {
    auto& at = at_[static_cast<size_t>(t)];
    if (at < 0) return;
    pages_.release(at, pagesOf(t));
    gpuBytes_ -= pagesOf(t) * kPage;
    at = -1;
  }
  // Where each tensor away from the GPU is (for the timeline's tier rows and usage).
  void away(int t, Tier tier) {
    const auto ti = static_cast<size_t>(t);
    back(t);
    awayTier_[ti] = tier;
    awaySince_[ti] = now_;
    (tier == Tier::Host ? hostBytes_ : ssdBytes_) += bytes(t);
  }
  void back(int t) {
    const auto ti = static_cast<size_t>(t);
    if (awayTier_[ti] == Tier::None) return;
    (awayTier_[ti] == Tier::Host ? hostBytes_ : ssdBytes_) -= bytes(t);
    if (now_ > awaySince_[ti])
      residency_.push_back({t, awayTier_[ti], ns(awaySince_[ti]), ns(now_)});
    awayTier_[ti] = Tier::None;
  }

  bool setUp(SimResult& r) {
    if (flashNeuron_) {
      for (int k = 0; k < n_; ++k) {
        int64_t pages = 0;
        for (int t : tensorsOf(k))
          if (!w_.tensors[static_cast<size_t>(t)].global) pages += bytes(t) / kPage;
        maxPages_ = std::max(maxPages_, pages);
      }
      int workspace = -1;
      for (size_t t = 0; t < w_.tensors.size(); ++t) {
        const int id = static_cast<int>(t);
        if (w_.tensors[t].global && !place(id, false)) return fail(r, id, "the weights");
        if (!w_.tensors[t].global && death_[t] == -1 &&
            (workspace < 0 || bytes(id) > bytes(workspace)))
          workspace = id;
      }
      if (workspace >= 0 && !place(workspace, false))
        return fail(r, workspace, "the largest workspace");
      return true;
    }
    for (size_t t = 0; t < w_.tensors.size(); ++t) {
      const int id = static_cast<int>(t);
      if (w_.tensors[t].global && !place(id, chosen_[t] != 0)) return fail(r, id, "the weights");
    }
    return true;
  }
  bool fail(SimResult& r, int t, const std::string& what) {
    r.feasible = false;
    r.problem = "G10's copy simulator runs out of contiguous GPU memory for " + what + " (" +
                w_.tensors[static_cast<size_t>(t)].name + ")";
    r.summary.ideal = w_.idealTime();
    return false;
  }

  void start(Stream s) {
    auto& q = queue(s);
    if (q.empty() || q.front().started) return;
    q.front().started = true;
    q.front().begin = now_;
    pending_.push({now_ + q.front().ms, static_cast<int>(s)});
  }
  void offload(int t, Stream s) {
    const double bw = s == Stream::HostOut ? hostBytesPerMs_ : ssdBytesPerMs_;
    queue(s).push_back({t, static_cast<double>(bytes(t)) / bw});
    start(s);
  }
  void fetch(int t, Stream s) {
    const double bw = s == Stream::HostIn ? hostBytesPerMs_ : ssdBytesPerMs_;
    fetching_[static_cast<size_t>(t)] = 1;
    queue(s).push_back({t, static_cast<double>(bytes(t)) / bw});
    start(s);
  }

  // The earliest event: a copy done (the next of its stream starts) or the running kernel done
  // (true). Time spent with a copy running counts as transfer time.
  bool serve() {
    if (pending_.empty()) return true;
    const auto [time, stream] = pending_.top();
    pending_.pop();
    bool copying = false;
    for (const auto& q : queues_) copying |= !q.empty();
    if (stream < 0) {
      if (copying) transfer_ += time - now_;
      now_ = time;
      return true;
    }
    transfer_ += time - now_;
    now_ = time;
    auto& q = queues_[static_cast<size_t>(stream)];
    const Copy done = q.front();
    q.pop_front();
    const auto s = static_cast<Stream>(stream);
    const bool out = s == Stream::SsdOut || s == Stream::HostOut;
    const bool host = s == Stream::HostOut || s == Stream::HostIn;
    const Link link =
        out ? (host ? Link::GpuToHost : Link::GpuToSsd) : (host ? Link::HostToGpu : Link::SsdToGpu);
    migrations_.push_back({done.tensor, out ? Tier::Gpu : (host ? Tier::Host : Tier::Ssd),
                           out ? (host ? Tier::Host : Tier::Ssd) : Tier::Gpu, link, ns(done.begin),
                           ns(now_), bytes(done.tensor), false});
    linkBytes_[static_cast<size_t>(link)] += bytes(done.tensor);
    if (out) {
      release(done.tensor);
      away(done.tensor, host ? Tier::Host : Tier::Ssd);
    } else {
      back(done.tensor);
      fetching_[static_cast<size_t>(done.tensor)] = 0;
      if (host) onHost_[static_cast<size_t>(done.tensor)] = 0;
    }
    start(s);
    return false;
  }

  // GPUDirect variants: the first waiting prefetch, when a run of pages fits it.
  void checkWaiting() {
    if (waitQueue_.empty()) return;
    const int t = waitQueue_.front();
    if (pages_.largest() < pagesOf(t) || !place(t, true)) return;
    fetch(t, onHost_[static_cast<size_t>(t)] ? Stream::HostIn : Stream::SsdIn);
    waiting_[static_cast<size_t>(t)] = 0;
    waitQueue_.pop_front();
  }

  // Waits on copies until `done` holds; false when nothing is left to wait for.
  // (G10 looks at the waiting prefetches after each copy here.)
  template <class Done>
  bool waitFor(Done done) {
    while (!done()) {
      if (pending_.empty()) return false;
      serve();
      checkWaiting();
    }
    return true;
  }
  // Places t, waiting on copies to free memory; false when even that fails.
  bool placeWaiting(int t, bool right) {
    if (place(t, right)) return true;
    while (!pending_.empty()) {
      serve();
      if (place(t, right)) {
        if (!flashNeuron_) checkWaiting();
        return true;
      }
    }
    return false;
  }

  // Kernel i's tensors allocated and in, as G10 checks them before it runs the kernel.
  bool bringIn(int i, SimResult& r) {
    for (int t : tensorsOf(i)) {
      const auto ti = static_cast<size_t>(t);
      const bool global = w_.tensors[ti].global;
      if (flashNeuron_ && (global || death_[ti] == -1)) continue;
      if (at_[ti] < 0) {
        if (!flashNeuron_ && waiting_[ti]) {
          checkWaiting();
          if (!waitFor([&] { return at_[ti] >= 0; }))
            return fail(r, t, "a prefetch (" + w_.kernels[static_cast<size_t>(i)].name + ")");
          continue;
        }
        const bool evicted = chosen_[ti] != 0;
        // G10's one exception, by name: an offloaded "tensor24" that does not fit is let through
        // without memory and without waiting for copies. Born at this kernel, the kernel runs
        // (the tensor holds no pages and its release is a no-op); alive already, G10 fetches it
        // and then asserts that it is on the GPU, which it never is: G10 stops.
        const bool exception = evicted && w_.tensors[ti].name == "tensor24";
        if (exception && !place(t, true)) {
          if (birth_[ti] != i && !global) {
            r.feasible = false;
            r.problem = "G10's copy simulator stops here: tensor24 does not fit before kernel " +
                        std::to_string(i) +
                        ", and G10 lets that one tensor through without memory, then fails its own "
                        "check when it fetches it";
            r.summary.ideal = w_.idealTime();
            return false;
          }
          continue;
        }
        if (!exception && !placeWaiting(t, evicted))
          return fail(
              r, t,
              "kernel " + std::to_string(i) + " (" + w_.kernels[static_cast<size_t>(i)].name + ")");
        // Alive already: its data comes back from the SSD (G10 fetches a weight back for free).
        if (evicted && birth_[ti] != i && !global) {
          fetch(t, Stream::SsdIn);
          if (!waitFor([&] { return !fetching_[ti]; }))
            return fail(r, t, "kernel " + std::to_string(i));
        }
      } else if (fetching_[ti]) {
        if (flashNeuron_) {
          while (fetching_[ti] && !pending_.empty()) serve();
        } else {
          waitFor([&] { return !fetching_[ti]; });
        }
      }
    }
    return true;
  }

  // FlashNeuron's backward pass: fetch the offloaded tensors of the kernels ahead while memory
  // beyond the largest working set allows.
  void prefetchAhead(int i) {
    int64_t rest = pages_.largest() - maxPages_;
    for (int k = i + 1; k < n_; ++k) {
      for (int t : tensorsOf(k)) {
        const auto ti = static_cast<size_t>(t);
        if (!chosen_[ti] || at_[ti] >= 0) continue;
        if (rest <= pagesOf(t) || !place(t, true)) return;
        fetch(t, Stream::SsdIn);
        rest -= pagesOf(t);
      }
    }
  }

  const SimWorkload& w_;
  const Plan& plan_;
  const int n_;
  const bool flashNeuron_;
  bool hostCopies_ = true;
  PageRuns pages_;
  int64_t capacity_;
  double ssdBytesPerMs_ = 0, hostBytesPerMs_ = 0;
  std::vector<int64_t> at_;  // first page on the GPU, -1 when not allocated
  std::vector<char> fetching_, chosen_, onHost_, waiting_;
  std::vector<int> birth_, death_;
  int64_t maxPages_ = 0;
  std::deque<Copy> queues_[4];
  std::deque<int> waitQueue_;
  // (time, stream; -1 = the running kernel), earliest first.
  std::priority_queue<std::pair<double, int>, std::vector<std::pair<double, int>>, std::greater<>>
      pending_;
  double now_ = 0, transfer_ = 0, kernelEnd_ = 0;
  TimeNs endNs_ = 0, stallNs_ = 0;
  std::array<int64_t, kLinkCount> linkBytes_{};
  std::vector<Migration> migrations_;
  std::vector<Residency> residency_;
  std::vector<Tier> awayTier_;
  std::vector<double> awaySince_;
  int64_t gpuBytes_ = 0, hostBytes_ = 0, ssdBytes_ = 0;
};

}  // namespace

SimResult simulateG10Copies(const SimWorkload& workload, const Plan& plan,
                            const TierConfig& tiers) {
  return CopySimulator(workload, plan, tiers).run();
}

}  // namespace ts::memsim
