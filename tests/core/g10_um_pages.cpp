// The reference for G10's unified-memory simulator (test_g10_um.cpp): the same semantics as
// core/memsim/engine/g10_um_simulator.cpp, page by page, as G10 runs them — an array entry per
// page, one batch at a time, nothing repeated at once. Slow and large (11 bytes for every page
// of every tensor), which is why the product uses the run-based one; kept here so that every
// shortcut that one takes is checked against the plain reading.
//
// Page-level and event-driven, as G10's: every tensor is a run of 4 KiB pages, each on the GPU,
// in host memory, on the SSD or nowhere yet; a batcher moves pages every
// `50 pages × 4 KiB / PCIe bandwidth` (in and out at once, the SSD's and the host's shares of the
// 50 by their bandwidths); a kernel whose pages are not all on the GPU starts anyway and ends at
// the later of its time with the faults (g10FaultDelayMs) and the batch that brought its last
// page; eviction takes the least recently arrived page (DeepUM: sparing the next 8 kernels'
// tensors). Times are G10's cycles at its clock.
#include "g10_um_pages.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <limits>
#include <queue>
#include <vector>

#include "memsim/engine/fault_time.h"
#include "memsim/engine/simulator.h"
#include "memsim/engine/vitality.h"

namespace ts::memsim {

namespace {

enum class Where : uint8_t { Nowhere, Gpu, Host, Ssd };

constexpr int32_t kEnd = -1;  // the end of the LRU list
constexpr int kBatchPages = kG10BatchPages;
constexpr int kDeepUmDepth = 8;  // prefetch_degree
// Batches without a page moved while a kernel waits: G10 would loop for ever; we stop and say so.
constexpr int64_t kStuckBatches = 100'000;

class UnifiedMemory {
 public:
  UnifiedMemory(const SimWorkload& w, const Plan& plan, const TierConfig& tiers)
      : w_(w), plan_(plan), tiers_(tiers), lives_(analyzeVitality(w)) {
    const G10UnifiedSettings g = g10UnifiedSettings(tiers, plan.hostAllowed);
    settings_ = g;
    hz_ = g.hz;
    batchCycles_ = g.batchCycles;
    hostBatch_ = g.hostBatch;
    ssdBatch_ = g.ssdBatch;
    allocBatch_ = g.allocBatch;
    gpuPages_ = g.gpuPages;
    hostLine_ = g.hostLine;

    // Tensors as runs of pages, in index order.
    firstPage_.resize(w.tensors.size() + 1);
    for (size_t t = 0; t < w.tensors.size(); ++t) {
      const int64_t n = (w.tensors[t].bytes + tiers.pageBytes - 1) / tiers.pageBytes;
      firstPage_[t + 1] = firstPage_[t] + static_cast<int32_t>(n);
    }
    const size_t pages = static_cast<size_t>(firstPage_.back());
    where_.assign(pages, Where::Nowhere);
    moving_.assign(pages, 0);
    waited_.assign(pages, 0);
    prev_.assign(pages, kEnd);
    next_.assign(pages, kEnd);
    // Weights start the run on the SSD (G10 loads them from there).
    for (size_t t = 0; t < w.tensors.size(); ++t)
      if (w.tensors[t].global)
        for (int32_t p = firstPage_[t]; p < firstPage_[t + 1]; ++p) {
          where_[p] = Where::Ssd;
          ++ssdUsed_;
        }
    required_.assign(w.tensors.size(), 0);
    ready_.assign(w.tensors.size(), 0);
    window_.assign(w.tensors.size(), 0);
    actionBegin_.assign(w.kernels.size() + 1, 0);
    for (const Action& a : plan.actions) ++actionBegin_[static_cast<size_t>(a.kernel) + 1];
    for (size_t k = 1; k < actionBegin_.size(); ++k) actionBegin_[k] += actionBegin_[k - 1];
  }

  SimResult run() {
    SimResult r;
    r.policy = plan_.policy;
    r.feasible = plan_.feasible;
    r.problem = plan_.problem;
    const int n = static_cast<int>(w_.kernels.size());
    std::vector<int64_t> ends(2 * static_cast<size_t>(n), 0), starts(ends.size(), 0);
    int64_t now = 0, nextBatch = batchCycles_;
    // Kernels one after another; between a kernel's start and its end the batcher runs at its
    // own beat. A kernel that must wait is started again by the batcher once its pages are in.
    for (int seq = 0; seq < 2 * n; ++seq) {
      const int k = seq % n;
      kernel_ = k;
      iteration_ = seq / n;
      beginKernel(k);
      if (iteration_ == 1) usageAt_.push_back(now);
      if (iteration_ == 1)
        r.usage.push_back({0, gpuUsed_ * tiers_.pageBytes, hostUsed_ * tiers_.pageBytes,
                           ssdUsed_ * tiers_.pageBytes});
      int64_t end = 0;
      KernelFaults faults;
      bool waiting = !arrived(k);
      if (!waiting) {
        end = now + w_.g10Cycles[static_cast<size_t>(k)];
      } else {
        faults = fault(k);
        const int64_t faultedCycles = faultedTime(k, faults);
        const int64_t first = now;
        // The batcher until the kernel's pages are all in (it then restarts the kernel at that
        // batch); a page evicted meanwhile faults again, without more fault time.
        waiting_ = true;
        for (int64_t idle = 0;;) {
          now = nextBatch;
          nextBatch += batchCycles_;
          const int64_t moved = moves_;
          batch();
          if (!pfQueued() && inTransfer_ == 0) {
            suggestBase(k);  // the kernel begins again (G10 re-suggests the eviction base)
            if (arrived(k)) break;
            (void)fault(k);
          }
          idle = moves_ == moved ? idle + 1 : 0;
          if (idle > kStuckBatches) {
            r.feasible = false;
            r.problem = "G10's unified-memory simulator makes no progress at kernel " +
                        w_.kernels[static_cast<size_t>(k)].name +
                        ": its pages cannot all be on the GPU at once";
            return r;
          }
        }
        waiting_ = false;
        end = std::max(first + faultedCycles, now);
        starts[static_cast<size_t>(seq)] = first;
        if (iteration_ == 1) {
          faults_ += faults.inputHost + faults.inputSsd + faults.outputHost + faults.outputSsd;
        }
        now = first;  // the kernel's start, for the record below
      }
      if (!waiting) starts[static_cast<size_t>(seq)] = now;
      clearInTransfer();
      // Batches due while the kernel runs; with nothing queued they have nothing to do.
      while (nextBatch <= end) {
        if (!anyQueued()) {
          nextBatch += ((end - nextBatch) / batchCycles_ + 1) * batchCycles_;
          break;
        }
        now = nextBatch;
        nextBatch += batchCycles_;
        batch();
      }
      now = end;
      ends[static_cast<size_t>(seq)] = end;
    }
    // The second iteration, from the first one's end (as G10's statistics count it).
    const int64_t origin = ends[static_cast<size_t>(n) - 1];
    auto ns = [&](int64_t cycles) {
      return static_cast<TimeNs>(std::llround(static_cast<double>(cycles) * 1e9 / hz_));
    };
    r.kernels.reserve(static_cast<size_t>(n));
    TimeNs previousEndNs = 0;  // stalls shown before the kernel, as the run-based one shows them
    for (int k = 0; k < n; ++k) {
      const size_t seq = static_cast<size_t>(n + k);
      SimKernelTime t;
      const TimeNs own = w_.kernels[static_cast<size_t>(k)].duration;
      t.end = std::max(ns(ends[seq] - origin), previousEndNs + own);
      t.start = t.end - own;
      t.stall = t.start - previousEndNs;
      r.summary.stall += t.stall;
      r.kernels.push_back(t);
      previousEndNs = t.end;
    }
    for (size_t i = 0; i < r.usage.size(); ++i) r.usage[i].time = ns(usageAt_[i] - origin);
    r.usage.push_back({previousEndNs, gpuUsed_ * tiers_.pageBytes, hostUsed_ * tiers_.pageBytes,
                       ssdUsed_ * tiers_.pageBytes});
    SimSummary& s = r.summary;
    s.iteration = previousEndNs;
    s.ideal = w_.idealTime();
    s.slowdown =
        s.ideal > 0 ? static_cast<double>(s.iteration) / static_cast<double>(s.ideal) : 1.0;
    s.faults = faults_;
    s.demandBytes = demandPages_ * tiers_.pageBytes;
    for (int l = 0; l < kLinkCount; ++l) s.linkBytes[static_cast<size_t>(l)] *= 0;
    s.linkBytes[static_cast<size_t>(Link::HostToGpu)] = linkPages_[0] * tiers_.pageBytes;
    s.linkBytes[static_cast<size_t>(Link::GpuToHost)] = linkPages_[1] * tiers_.pageBytes;
    s.linkBytes[static_cast<size_t>(Link::SsdToGpu)] = linkPages_[2] * tiers_.pageBytes;
    s.linkBytes[static_cast<size_t>(Link::GpuToSsd)] = linkPages_[3] * tiers_.pageBytes;
    s.compute = s.ideal;
    return r;
  }

 private:
  // --- The kernel's side (KernelBeginEvent) ---

  void beginKernel(int k) {
    const SimKernel& kern = w_.kernels[static_cast<size_t>(k)];
    std::fill(required_.begin(), required_.end(), 0);
    for (const auto* list : {&kern.inputs, &kern.outputs})
      for (int t : *list) required_[static_cast<size_t>(t)] = 1;
    if (plan_.policy == Policy::DeepUm) {
      std::fill(window_.begin(), window_.end(), 0);
      const int n = static_cast<int>(w_.kernels.size());
      for (int d = 0; d < kDeepUmDepth; ++d) {
        const SimKernel& ahead = w_.kernels[static_cast<size_t>((k + d) % n)];
        for (const auto* list : {&ahead.inputs, &ahead.outputs})
          for (int t : *list) window_[static_cast<size_t>(t)] = 1;
      }
    }
    suggestBase(k);
    // The plan's hints for this kernel, in order.
    for (int i = actionBegin_[static_cast<size_t>(k)]; i < actionBegin_[static_cast<size_t>(k) + 1];
         ++i)
      hint(plan_.actions[static_cast<size_t>(i)]);
  }

  void hint(const Action& a) {
    const size_t t = static_cast<size_t>(a.tensor);
    for (int32_t p = firstPage_[t]; p < firstPage_[t + 1]; ++p) {
      if (moving_[p]) continue;
      switch (a.kind) {
        case Action::Allocate:
        case Action::Prefetch:
          if (where_[p] == Where::Nowhere) {
            preallocQ_.push_back(p);
            moving_[p] = 1;
          } else if (where_[p] == Where::Ssd) {
            prefetchSsdQ_.push_back(p);
            moving_[p] = 1;
          } else if (where_[p] == Where::Host) {
            prefetchHostQ_.push_back(p);
            moving_[p] = 1;
          }
          break;
        case Action::EvictToHost:
        case Action::EvictToSsd:
          if (where_[p] == Where::Gpu) {
            (a.kind == Action::EvictToSsd ? preevictSsdQ_ : preevictHostQ_).push_back(p);
            moving_[p] = 1;
            --ready_[t];
          }
          break;
        case Action::Free:
          if (where_[p] == Where::Gpu) {
            freeGpuPage(p);
            --ready_[t];
          } else if (where_[p] == Where::Host) {
            --hostUsed_;
          } else if (where_[p] == Where::Ssd) {
            --ssdUsed_;
          }
          where_[p] = Where::Nowhere;
          break;
      }
    }
  }

  // Every page of the kernel's tensors on the GPU, none moving, no fault queued.
  bool arrived(int k) const {
    if (pfQueued()) return false;
    const SimKernel& kern = w_.kernels[static_cast<size_t>(k)];
    for (const auto* list : {&kern.inputs, &kern.outputs}) {
      for (int t : *list)
        if (!ready(t)) return false;
    }
    return true;
  }

  // Queues the kernel's missing pages (transferTensorToGPU) and counts them as G10 does.
  KernelFaults fault(int k) {
    KernelFaults f;
    const SimKernel& kern = w_.kernels[static_cast<size_t>(k)];
    auto take = [&](int t, bool input) {
      const int32_t from = firstPage_[static_cast<size_t>(t)],
                    to = firstPage_[static_cast<size_t>(t) + 1];
      (input ? f.inputPages : f.outputPages) += to - from;
      if (ready(t)) return;
      for (int32_t p = from; p < to; ++p) {
        if (moving_[p] || where_[p] == Where::Gpu) continue;
        switch (where_[p]) {
          case Where::Nowhere:
            ++(input ? f.inputNew : f.outputNew);
            pfAllocQ_.push_back(p);
            break;
          case Where::Ssd:
            ++(input ? f.inputSsd : f.outputSsd);
            pfSsdQ_.push_back(p);
            break;
          case Where::Host:
            ++(input ? f.inputHost : f.outputHost);
            pfHostQ_.push_back(p);
            break;
          case Where::Gpu:
            break;
        }
        moving_[p] = 1;
      }
    };
    for (int t : kern.inputs) take(t, true);
    for (int t : kern.outputs) take(t, false);
    // The required pages still moving: the kernel waits for each.
    for (const auto* list : {&kern.inputs, &kern.outputs}) {
      for (int t : *list) {
        if (ready(t)) continue;
        for (int32_t p = firstPage_[static_cast<size_t>(t)];
             p < firstPage_[static_cast<size_t>(t) + 1]; ++p)
          markWaited(p);
      }
    }
    return f;
  }

  void markWaited(int32_t p) {
    if (!moving_[p] || waited_[p]) return;
    waited_[p] = 1;
    ++inTransfer_;
    waitedList_.push_back(p);
  }
  void unmarkWaited(int32_t p) {
    if (!waited_[p]) return;
    waited_[p] = 0;
    --inTransfer_;
  }
  void clearInTransfer() {
    for (int32_t p : waitedList_) waited_[p] = 0;
    waitedList_.clear();
    inTransfer_ = 0;
  }

  int64_t faultedTime(int k, const KernelFaults& f) const {
    return g10FaultedCycles(w_, k, f, settings_, tiers_);
  }

  // --- The batcher (BatcherEvent) ---

  struct Batch {
    int in = 0, inHost = 0, inSsd = 0, out = 0, outHost = 0, outSsd = 0, alloc = 0;
    Where forcedOut = Where::Nowhere;  // NOT_KNOWN
    Where forcedIn = Where::Nowhere;
  };

  bool pfQueued() const { return !pfHostQ_.empty() || !pfSsdQ_.empty() || !pfAllocQ_.empty(); }
  bool hostFull() const { return hostUsed_ >= hostLine_; }
  bool gpuFull() const { return gpuUsed_ >= gpuPages_; }
  bool room(const Batch& b) const {
    if (!gpuFull()) return true;
    return hostFull() ? b.out < kBatchPages && b.outSsd < ssdBatch_ : b.out < kBatchPages;
  }

  bool anyQueued() const {
    return pfQueued() || !prefetchHostQ_.empty() || !prefetchSsdQ_.empty() || !preallocQ_.empty() ||
           !preevictHostQ_.empty() || !preevictSsdQ_.empty();
  }

  void batch() {
    if (anyQueued()) {
      Batch b;
      if (hostFull()) b.forcedOut = Where::Ssd;
      preevict(b);
      pfFetch(b, pfSsdQ_, Where::Ssd);
      pfFetch(b, pfHostQ_, Where::Host);
      allocate(b, pfAllocQ_, true);
      prefetch(b);
      allocate(b, preallocQ_, false);
      // DeepUM: a waiting kernel whose pages sit in the stalled prefetch queues takes them as
      // faults (which may evict anything), or it would never start.
      if (plan_.policy == Policy::DeepUm && waiting_ && inTransfer_ > 0 && b.in + b.out == 0) {
        pfFetch(b, prefetchSsdQ_, Where::Ssd);
        pfFetch(b, prefetchHostQ_, Where::Host);
        allocate(b, preallocQ_, true);
      }
    }
  }

  void preevict(Batch& b) {
    while (b.outSsd < ssdBatch_ && b.out < kBatchPages && !preevictSsdQ_.empty()) {
      int32_t p = preevictSsdQ_.front();
      preevictSsdQ_.pop_front();
      evict(b, p, b.forcedOut == Where::Nowhere ? Where::Ssd : b.forcedOut, false);
    }
    while (((hostFull() && b.outSsd < ssdBatch_) || (!hostFull() && b.outHost < hostBatch_)) &&
           b.out < kBatchPages && !preevictHostQ_.empty()) {
      int32_t p = preevictHostQ_.front();
      preevictHostQ_.pop_front();
      evict(b, p, b.forcedOut == Where::Nowhere ? Where::Host : b.forcedOut, false);
    }
  }

  void pfFetch(Batch& b, std::deque<int32_t>& q, Where from) {
    while (b.in < kBatchPages && b.alloc < allocBatch_ && room(b) && !q.empty()) {
      int32_t p = q.front();
      q.pop_front();
      fetch(b, p, from, true, true);
      if (b.forcedIn != Where::Nowhere && b.forcedIn != from) break;
    }
  }

  void prefetch(Batch& b) {
    while (b.inSsd < ssdBatch_ && b.in < kBatchPages && room(b) && !prefetchSsdQ_.empty()) {
      int32_t p = prefetchSsdQ_.front();
      if (where_[p] == Where::Ssd) {
        if (!fetch(b, p, Where::Ssd, false, false)) return;  // no page to evict: it waits
      } else if (where_[p] == Where::Host) {
        prefetchHostQ_.push_back(p);
      }
      prefetchSsdQ_.pop_front();
    }
    while (b.inHost < hostBatch_ && b.in < kBatchPages && room(b) && !prefetchHostQ_.empty()) {
      int32_t p = prefetchHostQ_.front();
      if (where_[p] == Where::Host) {
        if (!fetch(b, p, Where::Host, false, false)) return;
      } else if (where_[p] == Where::Ssd) {
        prefetchSsdQ_.push_back(p);
      }
      prefetchHostQ_.pop_front();
    }
  }

  void allocate(Batch& b, std::deque<int32_t>& q, bool pf) {
    while (room(b) && b.alloc < allocBatch_ && !q.empty()) {
      int32_t p = q.front();
      if (!place(b, p, pf)) break;
      ++b.alloc;
      q.pop_front();
    }
  }

  // Brings page p in from `from`; false when no page could be evicted for it (DeepUM).
  bool fetch(Batch& b, int32_t p, Where from, bool pf, bool demand) {
    if (!place(b, p, pf)) return false;
    if (from == Where::Ssd) {
      ++b.inSsd;
      if (b.inSsd >= ssdBatch_) b.forcedIn = Where::Host;
      if (iteration_ == 1) ++linkPages_[2];
    } else {
      ++b.inHost;
      if (b.inHost >= hostBatch_) b.forcedIn = Where::Ssd;
      if (iteration_ == 1) ++linkPages_[0];
    }
    ++b.alloc;
    ++b.in;
    if (demand && iteration_ == 1) ++demandPages_;
    return true;
  }

  // A GPU page for p (evicting when the GPU is full); p then is on the GPU.
  bool place(Batch& b, int32_t p, bool pf) {
    const int t = tensorOf(p);
    if (gpuFull()) {
      pf = pf || required_[static_cast<size_t>(t)];
      int32_t victim = selectVictim(pf);
      if (victim == kEnd) return false;
      Where to = Where::Host;
      if (plan_.policy == Policy::DeepUm && !alive(tensorOf(victim))) to = Where::Nowhere;
      if (to != Where::Nowhere && b.forcedOut != Where::Nowhere) to = b.forcedOut;
      evict(b, victim, to, true);
    }
    if (where_[p] == Where::Host) {
      --hostUsed_;
      if (b.forcedOut == Where::Ssd) b.forcedOut = Where::Nowhere;
    }
    if (where_[p] == Where::Ssd) --ssdUsed_;
    where_[p] = Where::Gpu;
    moving_[p] = 0;
    unmarkWaited(p);
    ++gpuUsed_;
    ++ready_[static_cast<size_t>(t)];
    ++moves_;
    pushBack(p);
    return true;
  }

  void evict(Batch& b, int32_t p, Where to, bool pf) {
    (void)pf;
    const int t = tensorOf(p);
    if (!moving_[p]) --ready_[static_cast<size_t>(t)];     // an LRU victim (not a planned eviction)
    if (to == Where::Host && hostFull()) to = Where::Ssd;  // G10 asserts here; never seen
    int n = to == Where::Nowhere ? 0 : 1;
    where_[p] = to;
    if (to == Where::Host) ++hostUsed_;
    if (to == Where::Ssd) ++ssdUsed_;
    ++moves_;
    if (n) {
      if (to == Where::Ssd) {
        ++b.outSsd;
        ++b.out;
        if (b.outSsd >= ssdBatch_) b.forcedOut = Where::Host;
        if (iteration_ == 1) ++linkPages_[3];
      } else {
        ++b.outHost;
        ++b.out;
        if (b.outHost >= hostBatch_ || hostFull()) b.forcedOut = Where::Ssd;
        if (iteration_ == 1) ++linkPages_[1];
      }
    }
    freeGpuPage(p);
    if (required_[static_cast<size_t>(t)]) {
      // The running kernel needs it: it faults back in.
      (to == Where::Host ? pfHostQ_ : to == Where::Ssd ? pfSsdQ_ : pfAllocQ_).push_back(p);
      moving_[p] = 1;
      markWaited(p);
    } else {
      moving_[p] = 0;
    }
  }

  void freeGpuPage(int32_t p) {
    remove(p);
    --gpuUsed_;
  }

  bool alive(int t) const {
    const TensorLife& life = lives_[static_cast<size_t>(t)];
    return life.global || (kernel_ >= life.birth && kernel_ < life.death);
  }

  // --- Eviction order: pages by arrival (G10's "LRU": a page is touched when it arrives) ---

  // Where eviction starts looking at the kernel's start: LRU, the first page not moving; DeepUM,
  // the first not needed by the next kernels.
  void suggestBase(int k) {
    (void)k;
    if (plan_.policy == Policy::DeepUm) {
      base_ = head_;
      while (base_ != kEnd && window_[static_cast<size_t>(tensorOf(base_))]) base_ = next_[base_];
    } else {
      suggestLruBase();
    }
  }

  void suggestLruBase() {
    base_ = head_;
    while (base_ != kEnd && moving_[base_]) base_ = next_[base_];
  }

  int32_t selectVictim(bool pf) {
    if (plan_.policy == Policy::DeepUm) {
      if (!pf) {
        int32_t it = base_;
        while (it != kEnd && (window_[static_cast<size_t>(tensorOf(it))] || moving_[it]))
          it = next_[it];
        if (it == kEnd) {
          base_ = kEnd;
          return kEnd;
        }
        base_ = next_[it];
        return it;
      }
      int32_t it = head_;
      while (it != kEnd && moving_[it]) it = next_[it];
      if (it == kEnd) return kEnd;
      if (it == base_) base_ = next_[it];
      return it;
    }
    int32_t it = base_;
    while (it != kEnd && moving_[it]) it = next_[it];
    if (it == kEnd) {
      suggestLruBase();
      it = base_;
      while (it != kEnd && moving_[it]) it = next_[it];
    }
    if (it == kEnd) return kEnd;
    base_ = next_[it];
    return it;
  }

  void pushBack(int32_t p) {
    prev_[p] = tail_;
    next_[p] = kEnd;
    if (tail_ != kEnd) next_[tail_] = p;
    tail_ = p;
    if (head_ == kEnd) head_ = p;
  }
  void remove(int32_t p) {
    const bool wasBase = p == base_;
    if (prev_[p] != kEnd) next_[prev_[p]] = next_[p];
    if (next_[p] != kEnd) prev_[next_[p]] = prev_[p];
    if (head_ == p) head_ = next_[p];
    if (tail_ == p) tail_ = prev_[p];
    prev_[p] = next_[p] = kEnd;
    if (wasBase) base_ = head_;
  }

  // Every page of tensor t on the GPU and none moving.
  bool ready(int t) const {
    const auto i = static_cast<size_t>(t);
    return ready_[i] == firstPage_[i + 1] - firstPage_[i];
  }

  int tensorOf(int32_t page) const {
    auto it = std::upper_bound(firstPage_.begin(), firstPage_.end(), page);
    return static_cast<int>(it - firstPage_.begin()) - 1;
  }

  const SimWorkload& w_;
  const Plan& plan_;
  const TierConfig& tiers_;
  std::vector<TensorLife> lives_;
  double hz_ = 1.2e9;
  G10UnifiedSettings settings_;
  int64_t batchCycles_ = 1;
  int hostBatch_ = 0, ssdBatch_ = 0, allocBatch_ = 0;
  int64_t gpuPages_ = 0, hostLine_ = 0, gpuUsed_ = 0, hostUsed_ = 0, ssdUsed_ = 0;
  int64_t moves_ = 0;             // pages moved so far (progress)
  bool waiting_ = false;          // a kernel waits for its pages
  std::vector<int64_t> usageAt_;  // cycles of r.usage's samples
  std::vector<int32_t> firstPage_;
  std::vector<Where> where_;
  std::vector<uint8_t> moving_, waited_;
  std::vector<int32_t> prev_, next_;
  int32_t head_ = kEnd, tail_ = kEnd, base_ = kEnd;
  std::vector<uint8_t> required_, window_;
  std::vector<int32_t> ready_;  // by tensor: pages on the GPU, not moving
  std::vector<int> actionBegin_;
  std::deque<int32_t> pfHostQ_, pfSsdQ_, pfAllocQ_, prefetchHostQ_, prefetchSsdQ_, preallocQ_,
      preevictHostQ_, preevictSsdQ_;
  int64_t inTransfer_ = 0;
  std::vector<int32_t> waitedList_;
  int kernel_ = 0, iteration_ = 0;
  int64_t faults_ = 0, demandPages_ = 0;
  int64_t linkPages_[4] = {};
};

}  // namespace

SimResult simulateG10UnifiedPages(const SimWorkload& workload, const Plan& plan,
                                  const TierConfig& tiers) {
  UnifiedMemory m(workload, plan, tiers);
  return m.run();
}

}  // namespace ts::memsim
