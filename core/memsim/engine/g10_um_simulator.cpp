// G10's simulator of unified memory (G10 src/simulationEvents.cc, src/simulationComponents.cc),
// written again from its semantics for the policies G10 runs on it — g10 (its "prefetch_lru"),
// lru and deepum — on workloads read from G10's own traces (they carry the fault times it needs).
//
// What G10 does, page by page: every tensor is a run of 4 KiB pages, each on the GPU, in host
// memory, on the SSD or nowhere yet; a batcher moves pages every `50 pages × 4 KiB / PCIe` (in
// and out at once, the SSD's and the host's shares of the 50 by their bandwidths); a kernel whose
// pages are not all on the GPU starts anyway and ends at the later of its time with the faults
// (g10FaultDelayMs) and the batch that brought its last page; eviction takes the least recently
// arrived page (DeepUM: sparing the next 8 kernels' tensors). Times are G10's cycles at its clock.
//
// How it is kept fast without changing a result: pages are held as runs (page_runs.h), and what
// repeats is done once for all its repetitions. A step (one page through the batcher's loops)
// is executed exactly, recording every comparison it made against a limit; when the pages that
// follow look the same to every comparison (same state, same tensor flags, counters that stay
// on the same side of every limit), the next k steps are applied at once. Whole batches repeat
// the same way: a batch that the next k batches would copy (same queues feeding it, same kind of
// victims, memory staying on the same side of full) is applied k more times without deciding
// again, and so do cycles of a few batches (a queue refilled by one and drained by the next).
// The page-by-page version (g10_um_pages.cpp) is the reference the tests hold this to.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "memsim/engine/fault_time.h"
#include "memsim/engine/page_runs.h"
#include "memsim/engine/simulator.h"
#include "memsim/engine/vitality.h"

namespace ts::memsim {

namespace {

// A page's state: where it is, whether it is on its way (queued), whether the running kernel
// waits for it.
enum Where : uint8_t { Nowhere = 0, Gpu = 1, Host = 2, Ssd = 3 };
constexpr uint8_t kWhere = 3, kMoving = 4, kWaited = 8;
constexpr uint8_t kRequired = 16;  // in a page's class: its tensor is the running kernel's

constexpr int kBatchPages = kG10BatchPages;
constexpr int kDeepUmDepth = 8;  // prefetch_degree
// Batches without a page moved while a kernel waits: G10 would loop for ever; we stop and say so.
constexpr int64_t kStuckBatches = 100'000;
constexpr int64_t kMany = int64_t{1} << 50;
// The longest cycle of batches looked for (a queue drained and refilled every few batches).
constexpr size_t kLongestCycle = 6;

// The batcher's queues (G10's page queues of the same names).
enum Queue : int8_t {
  PfHost,
  PfSsd,
  PfAlloc,
  PrefetchHost,
  PrefetchSsd,
  Prealloc,
  PreevictHost,
  PreevictSsd,
  kQueues,
  kVictims = kQueues  // a step's source: the arrival list, not a queue
};

// The numbers a step changes. The first kChecked are compared with limits (recorded); the batch
// counters (In … Alloc) start again at 0 with every batch.
enum Num : int {
  GpuUsed,
  HostUsed,
  InTransfer,
  In,
  InHost,
  InSsd,
  Out,
  OutHost,
  OutSsd,
  Alloc,
  kChecked,
  SsdUsed = kChecked,
  Moves,
  LinkHostGpu,
  LinkGpuHost,
  LinkSsdGpu,
  LinkGpuSsd,
  Demand,
  kNums
};
constexpr bool isBatchCounter(int n) {
  return n >= In && n <= Alloc;
}

// Where eviction looks: G10's LRU from its base (suggested at each kernel start); DeepUM, sparing
// the window, from its base, or, for a fault, from the list's head.
enum class VictimFrom : uint8_t { LruBase, DeepUmBase, DeepUmHead };

// One change a step makes to pages, replayable for any number of pages.
struct Op {
  enum Kind : uint8_t { Evict, Place, Redirect, Drop } kind = Place;
  int8_t from = 0;  // a Queue, or kVictims
  VictimFrom victims = VictimFrom::LruBase;
  uint8_t to = Nowhere;  // Evict: where the pages go; Redirect: the queue they go to
  bool requeue = false;  // Evict: the running kernel needs them back (a fault)
  bool demand = false;   // for a fault (or to make room for one), not the plan
  uint8_t cls = 0;       // the pages' class: state | kRequired (victims: kRequired | alive << 5)
  int64_t count = 1;
};

// What a step (or a batch) compared and changed, to decide how often it can be repeated.
struct Record {
  std::array<int64_t, kNums> start{};
  std::array<int64_t, kChecked> minTrue, maxFalse;  // value − limit of comparisons that held / not
  std::vector<Op> ops;
  uint8_t foundEmpty = 0;  // queues found empty
  bool repeatable = true;
  Record() {
    minTrue.fill(kMany);
    maxFalse.fill(-kMany);
  }
  void compared(int n, int64_t d) {
    if (d >= 0)
      minTrue[n] = std::min(minTrue[n], d);
    else
      maxFalse[n] = std::max(maxFalse[n], d);
  }
  // How many more times the comparisons give the same answers when each repetition adds `delta`.
  int64_t bound(int n, int64_t delta) const {
    if (delta < 0 && minTrue[n] < kMany) return minTrue[n] / -delta;
    if (delta > 0 && maxFalse[n] > -kMany) return (-1 - maxFalse[n]) / delta;
    return kMany;
  }
};

class UnifiedMemory {
 public:
  UnifiedMemory(const SimWorkload& w, const Plan& plan, const TierConfig& tiers)
      : w_(w), plan_(plan), tiers_(tiers), lives_(analyzeVitality(w)) {
    deepUm_ = plan.policy == Policy::DeepUm;
    const G10UnifiedSettings g = g10UnifiedSettings(tiers, plan.hostAllowed);
    settings_ = g;
    hz_ = g.hz;
    batchCycles_ = std::max<int64_t>(1, g.batchCycles);
    hostBatch_ = g.hostBatch;
    ssdBatch_ = g.ssdBatch;
    allocBatch_ = g.allocBatch;
    gpuPages_ = g.gpuPages;
    hostLine_ = g.hostLine;

    // Tensors as runs of pages, in index order.
    firstPage_.resize(w.tensors.size() + 1);
    for (size_t t = 0; t < w.tensors.size(); ++t) {
      const int64_t n = (w.tensors[t].bytes + tiers.pageBytes - 1) / tiers.pageBytes;
      firstPage_[t + 1] = firstPage_[t] + n;
    }
    states_ = PageStates(firstPage_.back(), Nowhere);
    required_.assign(w.tensors.size(), 0);
    std::array<int64_t, 2 * kLinkCount> none;
    none.fill(-1);
    lastTransfer_.assign(w.tensors.size(), none);
    hostPages_.assign(w.tensors.size(), 0);
    ssdPages_.assign(w.tensors.size(), 0);
    hostOpen_.assign(w.tensors.size(), -1);
    ssdOpen_.assign(w.tensors.size(), -1);
    // Weights start the run on the SSD (G10 loads them from there).
    for (size_t t = 0; t < w.tensors.size(); ++t) {
      if (!w.tensors[t].global) continue;
      states_.set(firstPage_[t], firstPage_[t + 1], Ssd);
      n_[SsdUsed] += firstPage_[t + 1] - firstPage_[t];
      moved(static_cast<int>(t), Nowhere, Ssd, firstPage_[t + 1] - firstPage_[t], false);
    }
    window_.assign(w.tensors.size(), 0);
    ready_.assign(w.tensors.size(), 0);
    actionBegin_.assign(w.kernels.size() + 1, 0);
    for (const Action& a : plan.actions) ++actionBegin_[static_cast<size_t>(a.kernel) + 1];
    for (size_t k = 1; k < actionBegin_.size(); ++k) actionBegin_[k] += actionBegin_[k - 1];
  }

  SimResult run();

 private:
  // --- Comparisons, recorded for the repetitions ---

  bool atLeast(int n, int64_t limit) {
    const int64_t d = n_[n] - limit;
    if (step_) step_->compared(n, d);
    if (batch_) batch_->compared(n, d);
    return d >= 0;
  }
  bool gpuFull() { return atLeast(GpuUsed, gpuPages_); }
  bool hostFull() { return atLeast(HostUsed, hostLine_); }
  bool below(int n, int64_t limit) { return !atLeast(n, limit); }
  bool queued(int q) {
    const bool any = !queues_[q].empty();
    for (Record* r : {step_, batch_})
      if (r && !any) r->foundEmpty |= static_cast<uint8_t>(1u << q);
    return any;
  }
  bool pfQueued() { return queued(PfHost) || queued(PfSsd) || queued(PfAlloc); }
  bool anyQueued() {
    bool any = false;
    for (int q = 0; q < kQueues; ++q) any = queued(q) || any;  // every queue looked at
    return any;
  }
  bool room() {
    if (!gpuFull()) return true;
    return hostFull() ? below(Out, kBatchPages) && below(OutSsd, ssdBatch_)
                      : below(Out, kBatchPages);
  }

  // --- Pages, tensors and their classes ---

  int tensorOf(Page p) const {
    auto it = std::upper_bound(firstPage_.begin(), firstPage_.end(), p);
    return static_cast<int>(it - firstPage_.begin()) - 1;
  }
  bool ready(int t) const {
    const auto i = static_cast<size_t>(t);
    return ready_[i] == firstPage_[i + 1] - firstPage_[i];
  }
  bool alive(int t) const {
    const TensorLife& life = lives_[static_cast<size_t>(t)];
    return life.global || (kernel_ >= life.birth && kernel_ < life.death);
  }
  uint8_t pageClass(Page p) const {
    return static_cast<uint8_t>(states_.at(p) |
                                (required_[static_cast<size_t>(tensorOf(p))] ? kRequired : 0));
  }
  uint8_t victimClass(int t) const {
    return static_cast<uint8_t>((required_[static_cast<size_t>(t)] ? kRequired : 0) |
                                (deepUm_ && alive(t) ? 32 : 0));
  }
  // Calls f(begin, end, tensor, state) for the pieces of [begin, end) of one tensor and state;
  // stops when f returns false (and says so).
  template <class F>
  bool pieces(Page begin, Page end, F&& f) const {
    int t = tensorOf(begin);
    for (Page b = begin; b < end;) {
      while (firstPage_[static_cast<size_t>(t) + 1] <= b) ++t;
      const Page tensorEnd = std::min(end, firstPage_[static_cast<size_t>(t) + 1]);
      const Page e = states_.runEnd(b, tensorEnd);
      if (!f(b, e, t, states_.at(b))) return false;
      b = e;
    }
    return true;
  }
  // Adds `delta` per page to ready_ over [begin, end).
  void addReady(Page begin, Page end, int64_t delta) {
    int t = tensorOf(begin);
    for (Page b = begin; b < end;) {
      while (firstPage_[static_cast<size_t>(t) + 1] <= b) ++t;
      const Page e = std::min(end, firstPage_[static_cast<size_t>(t) + 1]);
      ready_[static_cast<size_t>(t)] += delta * (e - b);
      b = e;
    }
  }
  // Removes GPU pages from the arrival list. G10 moves its eviction base to the head when the
  // page it points at goes.
  void leaveGpu(Page begin, Page end) {
    const bool hit = base_ >= begin && base_ < end;
    lru_.remove(begin, end);
    if (hit) base_ = lru_.headPage();
  }

  // --- Victims ---

  bool candidate(VictimFrom from, int t, uint8_t state) const {
    if (state & kMoving) return false;
    return from != VictimFrom::DeepUmBase || !window_[static_cast<size_t>(t)];
  }
  // The first candidate from page `p` on (p in the list), or kNoPage.
  Page firstCandidate(Page p, VictimFrom from) const {
    Page found = kNoPage;
    if (p == kNoPage) return found;
    lru_.walk(p, [&](Page b, Page e) {
      return pieces(b, e, [&](Page pb, Page, int t, uint8_t st) {
        if (!candidate(from, t, st)) return true;
        found = pb;
        return false;
      });
    });
    return found;
  }
  // The first page from p on that is not moving (DeepUM: not in the window), for the base.
  Page firstFrom(Page p, bool skipWindow) const {
    Page found = kNoPage;
    if (p == kNoPage) return found;
    lru_.walk(p, [&](Page b, Page e) {
      return pieces(b, e, [&](Page pb, Page, int t, uint8_t st) {
        const bool skip = skipWindow ? window_[static_cast<size_t>(t)] != 0 : (st & kMoving) != 0;
        if (skip) return true;
        found = pb;
        return false;
      });
    });
    return found;
  }

  // G10's victim choice, for one page (selectVictim): the victim, or kNoPage. Moves the base as
  // G10 does when it wraps or refuses; the base's step past the victim is taken with it (take).
  Page chooseVictim(VictimFrom from) {
    switch (from) {
      case VictimFrom::LruBase: {
        Page v = firstCandidate(base_, from);
        if (v == kNoPage) {
          base_ = firstFrom(lru_.headPage(), false);  // suggestLruBase
          v = firstCandidate(base_, from);
        }
        return v;
      }
      case VictimFrom::DeepUmBase: {
        const Page v = firstCandidate(base_, from);
        if (v == kNoPage) base_ = kNoPage;
        return v;
      }
      case VictimFrom::DeepUmHead:
        return firstCandidate(lru_.headPage(), from);
    }
    return kNoPage;
  }

  // Takes the next n victims (chooseVictim has been asked for the first) into out, in order.
  void takeVictims(VictimFrom from, int64_t n, std::vector<PageRange>& out) {
    const Page start = from == VictimFrom::DeepUmHead ? lru_.headPage() : base_;
    Page last = kNoPage;
    lru_.walk(start, [&](Page b, Page e) {
      return pieces(b, e, [&](Page pb, Page pe, int t, uint8_t st) {
        if (!candidate(from, t, st)) return true;
        const int64_t take = std::min(n, pe - pb);
        if (!out.empty() && out.back().end == pb)
          out.back().end = pb + take;
        else
          out.push_back({pb, pb + take});
        n -= take;
        last = pb + take - 1;
        return n > 0;
      });
    });
    if (out.empty()) return;
    // G10 steps its base past each victim it chooses from it; a fault's victim is taken from the
    // head and moves the base only when it is the base (then, with victims that follow one
    // another, the base follows them: victimSpan).
    if (from != VictimFrom::DeepUmHead || base_ == out.front().begin) base_ = lru_.next(last);
  }

  // How many candidates from the victims' start have `cls` and can be taken without deciding
  // again, at most `want`: never the list's last page (pages placed meanwhile come after it, and
  // G10's base would step onto them); for DeepUM's faults, never its base, unless the base is the
  // first victim and the victims follow one another (the base then moves along with them); with
  // `noMovingNear`, the base never lands on a moving page (a planned eviction would move it);
  // with `beforeBase` (DeepUM's faults while its prefetches take victims from the base), only
  // pages before the base; with `contiguous`, only candidates that follow one another.
  int64_t victimSpan(VictimFrom from, uint8_t cls, int64_t want, bool noMovingNear,
                     bool beforeBase = false, bool contiguous = false) const {
    const bool head = from == VictimFrom::DeepUmHead;
    const Page start = head ? lru_.headPage() : base_;
    if (start == kNoPage) return 0;
    if (noMovingNear && base_ != kNoPage && (states_.at(base_) & kMoving)) return 0;
    const Page tail = lru_.tailPage();
    int64_t got = 0;
    bool follow = false;
    Page after = kNoPage;  // the page right after the last victim
    lru_.walk(start, [&](Page b, Page e) {
      return pieces(b, e, [&](Page pb, Page pe, int t, uint8_t st) {
        if (got >= want) {
          after = pb;
          return false;
        }
        const bool clip = beforeBase && base_ >= pb && base_ < pe;
        if (clip) {
          if (base_ == pb) {
            after = pb;
            return false;
          }
          pe = base_;
        }
        if (!candidate(from, t, st)) {
          if ((got > 0 && (noMovingNear || follow)) || clip || contiguous) {
            after = clip ? pe : pb;
            return false;
          }
          return true;
        }
        if (victimClass(t) != cls) {
          after = pb;
          return false;
        }
        if (head && got == 0 && base_ == pb) follow = true;
        Page end = std::min(pe, pb + (want - got));
        if (tail >= pb && tail < end) end = tail;
        if (head && !follow && base_ >= pb && base_ < end) end = base_;
        got += end - pb;
        if (end < pe || clip) {
          after = end;
          return false;
        }
        return true;
      });
    });
    if (noMovingNear && got > 0 && after != kNoPage && (states_.at(after) & kMoving)) --got;
    return got;
  }

  // How many pages from the queue's front have class `cls`, at most `want`.
  int64_t queueSpan(int q, uint8_t cls, int64_t want) const {
    int64_t got = 0;
    for (const PageRange& r : queues_[q].runs()) {
      const bool more = pieces(r.begin, r.end, [&](Page b, Page e, int t, uint8_t st) {
        const uint8_t c =
            static_cast<uint8_t>(st | (required_[static_cast<size_t>(t)] ? kRequired : 0));
        if (c != cls) return false;
        got += e - b;
        return got < want;
      });
      if (!more || got >= want) break;
    }
    return std::min(got, want);
  }

  // --- Applying ops ---

  void apply(const Op& op, int64_t n) {
    ranges_.clear();
    if (op.from == kVictims) {
      takeVictims(op.victims, n, ranges_);
    } else {
      queues_[op.from].pop(n, [&](PageRange r) { ranges_.push_back(r); });
    }
    effect(op, ranges_, true);
  }

  // --- What the timeline shows: transfers and where tensors are ---

  // The pages of `ranges` leave their place for op's: a transfer per tensor on the link (pages
  // of one tensor moved in consecutive batches are one transfer), and the tensor's pages counted
  // in host memory and on the SSD (it is there while any page is).
  void record(const Op& op, const std::vector<PageRange>& ranges) {
    const uint8_t from = op.kind == Op::Place   ? static_cast<uint8_t>(op.cls & kWhere)
                         : op.kind == Op::Evict ? static_cast<uint8_t>(Gpu)
                                                : static_cast<uint8_t>(Nowhere);
    const uint8_t to = op.kind == Op::Place   ? static_cast<uint8_t>(Gpu)
                       : op.kind == Op::Evict ? op.to
                                              : static_cast<uint8_t>(Nowhere);
    if (from == to || op.kind == Op::Redirect || op.kind == Op::Drop) return;
    const bool demand = op.demand;
    for (const PageRange& r : ranges) {
      int t = tensorOf(r.begin);
      for (Page b = r.begin; b < r.end;) {
        while (firstPage_[static_cast<size_t>(t) + 1] <= b) ++t;
        const Page e = std::min(r.end, firstPage_[static_cast<size_t>(t) + 1]);
        moved(t, from, to, e - b, demand);
        b = e;
      }
    }
  }

  void moved(int t, uint8_t from, uint8_t to, int64_t pages, bool demand) {
    const auto i = static_cast<size_t>(t);
    auto away = [&](uint8_t where, int64_t delta) {
      if (where != Host && where != Ssd) return;
      int64_t& count = (where == Host ? hostPages_ : ssdPages_)[i];
      std::vector<Stay>& stays = where == Host ? hostStays_ : ssdStays_;
      int64_t& open = (where == Host ? hostOpen_ : ssdOpen_)[i];
      if (count == 0 && delta > 0) {
        open = static_cast<int64_t>(stays.size());
        stays.push_back({t, span_.first, -1});
      }
      count += delta;
      if (count == 0 && delta < 0 && open >= 0) {
        stays[static_cast<size_t>(open)].end = span_.second;
        open = -1;
      }
    };
    away(from, -pages);
    away(to, pages);
    if (iteration_ != 1) return;
    Link link;
    if (from == Gpu && to == Host)
      link = Link::GpuToHost;
    else if (from == Gpu && to == Ssd)
      link = Link::GpuToSsd;
    else if (from == Host && to == Gpu)
      link = Link::HostToGpu;
    else if (from == Ssd && to == Gpu)
      link = Link::SsdToGpu;
    else
      return;  // allocated, or dropped: nothing crosses a link
    const int key = static_cast<int>(link) * 2 + (demand ? 1 : 0);
    auto& last = lastTransfer_[i][static_cast<size_t>(key)];
    if (last >= 0 && transfers_[static_cast<size_t>(last)].end >= span_.first) {
      Transfer& x = transfers_[static_cast<size_t>(last)];
      x.end = std::max(x.end, span_.second);
      x.pages += pages;
      return;
    }
    last = static_cast<int64_t>(transfers_.size());
    transfers_.push_back({t, link, demand, span_.first, span_.second, pages});
  }

  static int faultQueue(uint8_t to) { return to == Host ? PfHost : to == Ssd ? PfSsd : PfAlloc; }

  // What op does to its pages, `ranges` in the order it took them (`requeue`: push the ones the
  // kernel needs back onto their fault queue here).
  void effect(const Op& op, const std::vector<PageRange>& ranges, bool requeue) {
    // The pages' states and tensors' counts change per run of consecutive page numbers (pages
    // taken from interleaved arrivals come back together here); the list and the queues take
    // the pages in their order.
    sorted_.assign(ranges.begin(), ranges.end());
    if (sorted_.size() > 1) {
      std::sort(sorted_.begin(), sorted_.end(),
                [](const PageRange& a, const PageRange& b) { return a.begin < b.begin; });
      size_t w = 0;
      for (size_t i = 1; i < sorted_.size(); ++i) {
        if (sorted_[i].begin == sorted_[w].end)
          sorted_[w].end = sorted_[i].end;
        else
          sorted_[++w] = sorted_[i];
      }
      sorted_.resize(w + 1);
    }
    record(op, sorted_);
    switch (op.kind) {
      case Op::Evict: {
        const uint8_t state =
            static_cast<uint8_t>(op.to | (op.requeue ? kMoving | kWaited : op.cls & kWaited));
        for (const PageRange& r : sorted_) {
          leaveGpu(r.begin, r.end);
          if (!(op.cls & kMoving) || op.from == kVictims) addReady(r.begin, r.end, -1);
          states_.set(r.begin, r.end, state);
          if (op.requeue) waitedList_.push_back(r);
        }
        if (op.requeue && requeue)
          for (const PageRange& r : ranges) queues_[faultQueue(op.to)].push(r);
        break;
      }
      case Op::Place:
        for (const PageRange& r : sorted_) {
          states_.set(r.begin, r.end, Gpu);
          addReady(r.begin, r.end, 1);
        }
        for (const PageRange& r : ranges) lru_.pushBack(r);
        break;
      case Op::Redirect:
        for (const PageRange& r : ranges) queues_[op.to].push(r);
        break;
      case Op::Drop:
        break;
    }
  }
  // Applies a step's op and keeps it for the repetitions.
  void emit(const Op& op) {
    apply(op, 1);
    if (step_) step_->ops.push_back(op);
  }

  // --- The batcher's loops, one page per step ---

  struct Batch {
    uint8_t forcedOut = Nowhere, forcedIn = Nowhere;  // NOT_KNOWN
  };

  // Runs a loop of the batcher: while cond(), body() moves one page (false: the loop ends after
  // it). Each page is a recorded step; the pages after it that would go the same way go at once.
  template <class Cond, class Body>
  void loop(Batch& b, Cond&& cond, Body&& body) {
    for (;;) {
      Record r;
      r.start = n_;
      step_ = &r;
      const uint8_t out0 = b.forcedOut, in0 = b.forcedIn;
      const bool go = cond() && body();
      step_ = nullptr;
      if (go && r.repeatable && b.forcedOut == out0 && b.forcedIn == in0 && !r.ops.empty())
        repeatStep(r);
      if (batch_) {
        batch_->repeatable = batch_->repeatable && r.repeatable;
        batch_->foundEmpty |= r.foundEmpty;
        for (const Op& op : r.ops) batch_->ops.push_back(op);
      }
      if (!go) return;
    }
  }

  void repeatStep(Record& r) {
    int64_t k = kMany;
    std::array<int64_t, kNums> delta;
    for (int i = 0; i < kNums; ++i) delta[i] = n_[i] - r.start[i];
    for (int i = 0; i < kChecked; ++i) k = std::min(k, r.bound(i, delta[i]));
    for (const Op& op : r.ops)
      if (op.from != kVictims) k = std::min(k, queues_[op.from].pages());
    for (const Op& op : r.ops) {
      if (k <= 0) break;
      if (op.from == kVictims)
        k = std::min(k, victimSpan(op.victims, op.cls, k, false));
      else
        k = std::min(k, queueSpan(op.from, op.cls, k));
    }
    if (k <= 0) return;
    for (Op& op : r.ops) {
      apply(op, k);
      op.count += k;
    }
    for (int i = 0; i < kNums; ++i) n_[i] += k * delta[i];
    // The batch saw these comparisons at the last repetition too.
    if (batch_)
      for (int i = 0; i < kChecked; ++i) {
        if (r.minTrue[i] < kMany) batch_->compared(i, r.minTrue[i] + k * delta[i]);
        if (r.maxFalse[i] > -kMany) batch_->compared(i, r.maxFalse[i] + k * delta[i]);
      }
  }

  // G10's evict(): page(s) of the op's source leave the GPU for `to`.
  void evict(Batch& b, Op op, int t, uint8_t st) {
    op.kind = Op::Evict;
    if (op.to == Host && hostFull()) op.to = Ssd;  // G10 asserts here; never seen
    op.requeue = required_[static_cast<size_t>(t)] != 0;
    ++n_[Moves];
    --n_[GpuUsed];
    if (op.to == Host) ++n_[HostUsed];
    if (op.to == Ssd) ++n_[SsdUsed];
    if (op.to == Ssd) {
      ++n_[OutSsd];
      ++n_[Out];
      if (atLeast(OutSsd, ssdBatch_)) b.forcedOut = Host;
      if (iteration_ == 1) ++n_[LinkGpuSsd];
    } else if (op.to == Host) {
      ++n_[OutHost];
      ++n_[Out];
      if (atLeast(OutHost, hostBatch_) || hostFull()) b.forcedOut = Ssd;
      if (iteration_ == 1) ++n_[LinkGpuHost];
    }
    if (op.requeue && !(st & kWaited)) ++n_[InTransfer];  // ready_ and the pages: apply()
    emit(op);
  }

  // G10's place(): the front page of queue q onto the GPU, evicting for it when the GPU is full.
  // False when no page could be evicted (DeepUM), nothing changed.
  bool place(Batch& b, int q, bool pf, bool demand) {
    const Page p = queues_[q].front();
    const int t = tensorOf(p);
    const uint8_t cls = pageClass(p);
    if (gpuFull()) {
      pf = pf || required_[static_cast<size_t>(t)];
      const VictimFrom from = !deepUm_ ? VictimFrom::LruBase
                              : pf     ? VictimFrom::DeepUmHead
                                       : VictimFrom::DeepUmBase;
      const Page v = chooseVictim(from);
      if (v == kNoPage) return false;
      const int vt = tensorOf(v);
      Op op;
      op.from = kVictims;
      op.victims = from;
      op.demand = demand;
      op.cls = victimClass(vt);
      op.to = Host;
      if (deepUm_ && !alive(vt)) op.to = Nowhere;
      if (op.to != Nowhere && b.forcedOut != Nowhere) op.to = b.forcedOut;
      evict(b, op, vt, Gpu);
    }
    const uint8_t where = cls & kWhere;
    if (where == Host) {
      --n_[HostUsed];
      if (b.forcedOut == Ssd) b.forcedOut = Nowhere;
    }
    if (where == Ssd) --n_[SsdUsed];
    if (cls & kWaited) --n_[InTransfer];
    ++n_[GpuUsed];
    ++n_[Moves];
    Op op;
    op.kind = Op::Place;
    op.from = static_cast<int8_t>(q);
    op.cls = cls;
    op.demand = demand;
    emit(op);
    return true;
  }

  // G10's fetch(): place() and the batch's counts; false as place().
  bool fetch(Batch& b, int q, uint8_t from, bool pf, bool demand) {
    if (!place(b, q, pf, demand)) return false;
    if (from == Ssd) {
      ++n_[InSsd];
      if (atLeast(InSsd, ssdBatch_)) b.forcedIn = Host;
      if (iteration_ == 1) ++n_[LinkSsdGpu];
    } else {
      ++n_[InHost];
      if (atLeast(InHost, hostBatch_)) b.forcedIn = Ssd;
      if (iteration_ == 1) ++n_[LinkHostGpu];
    }
    ++n_[Alloc];
    ++n_[In];
    if (demand && iteration_ == 1) ++n_[Demand];
    return true;
  }

  void preevict(Batch& b) {
    auto out = [&](int q, uint8_t to) {
      const Page p = queues_[q].front();
      Op op;
      op.from = static_cast<int8_t>(q);
      op.cls = pageClass(p);
      op.to = b.forcedOut == Nowhere ? to : b.forcedOut;
      evict(b, op, tensorOf(p), static_cast<uint8_t>(op.cls & ~kRequired));
      return true;
    };
    loop(
        b,
        [&] { return below(OutSsd, ssdBatch_) && below(Out, kBatchPages) && queued(PreevictSsd); },
        [&] { return out(PreevictSsd, Ssd); });
    loop(
        b,
        [&] {
          const bool full = hostFull();
          return ((full && below(OutSsd, ssdBatch_)) || (!full && below(OutHost, hostBatch_))) &&
                 below(Out, kBatchPages) && queued(PreevictHost);
        },
        [&] { return out(PreevictHost, Host); });
  }

  void pfFetch(Batch& b, int q, uint8_t from) {
    loop(
        b,
        [&] { return below(In, kBatchPages) && below(Alloc, allocBatch_) && room() && queued(q); },
        [&] {
          if (!fetch(b, q, from, true, true)) {
            // G10 has taken the page off the queue before finding no page to evict for it: the
            // page is dropped (still marked as on its way) and the loop goes on.
            step_->repeatable = false;
            Op op;
            op.kind = Op::Drop;
            op.from = static_cast<int8_t>(q);
            emit(op);
          }
          return !(b.forcedIn != Nowhere && b.forcedIn != from);
        });
  }

  void prefetch(Batch& b) {
    bool stuck = false;
    auto one = [&](int q, uint8_t from, int other) {
      const uint8_t where = states_.at(queues_[q].front()) & kWhere;
      if (where == from) {
        if (!fetch(b, q, from, false, false)) {
          stuck = true;  // no page to evict: it waits
          return false;
        }
        return true;
      }
      // Not where its queue says (G10 moves it to the other queue, or drops it): rare, one by one.
      step_->repeatable = false;
      Op op;
      op.kind = where == (from == Ssd ? Host : Ssd) ? Op::Redirect : Op::Drop;
      op.from = static_cast<int8_t>(q);
      op.to = static_cast<uint8_t>(other);
      emit(op);
      return true;
    };
    loop(
        b,
        [&] {
          return below(InSsd, ssdBatch_) && below(In, kBatchPages) && room() && queued(PrefetchSsd);
        },
        [&] { return one(PrefetchSsd, Ssd, PrefetchHost); });
    if (stuck) return;
    loop(
        b,
        [&] {
          return below(InHost, hostBatch_) && below(In, kBatchPages) && room() &&
                 queued(PrefetchHost);
        },
        [&] { return one(PrefetchHost, Host, PrefetchSsd); });
  }

  void allocate(Batch& b, int q, bool pf) {
    loop(
        b, [&] { return room() && below(Alloc, allocBatch_) && queued(q); },
        [&] {
          if (!place(b, q, pf, pf)) return false;  // a first touch, or the plan's allocation
          ++n_[Alloc];
          return true;
        });
  }

  void batch() {
    for (int i = In; i <= Alloc; ++i) n_[i] = 0;
    if (!anyQueued()) return;
    Batch b;
    if (hostFull()) b.forcedOut = Ssd;
    preevict(b);
    pfFetch(b, PfSsd, Ssd);
    pfFetch(b, PfHost, Host);
    allocate(b, PfAlloc, true);
    prefetch(b);
    allocate(b, Prealloc, false);
    // DeepUM: a waiting kernel whose pages sit in the stalled prefetch queues takes them as
    // faults (which may evict anything), or it would never start.
    if (deepUm_ && waiting_ && atLeast(InTransfer, 1) && below(In, 1) && below(Out, 1)) {
      pfFetch(b, PrefetchSsd, Ssd);
      pfFetch(b, PrefetchHost, Host);
      allocate(b, Prealloc, true);
    }
  }

  // A batch as its repetitions need it: what it did and compared, the queues' pages before it
  // and the fewest during it, and its ops with consecutive alike ones joined (its shape: how
  // a step was split into repetitions does not change what the batch does).
  struct Done {
    Record r;
    std::array<int64_t, kQueues> before{}, low{};
    std::vector<Op> shape;
    int64_t batches = 1;  // with the repetitions absorbed into it
    // For turning cycles down quickly: the ways victims were looked for, and each source's
    // class (-1: none, -2: several).
    uint8_t victimModes = 0;
    std::array<int16_t, kQueues + 1> cls{};
  };

  static bool alike(const Op& a, const Op& b) {
    return a.kind == b.kind && a.from == b.from && a.victims == b.victims && a.to == b.to &&
           a.requeue == b.requeue && a.demand == b.demand && a.cls == b.cls;
  }
  static bool sameShape(const std::vector<Op>& a, const std::vector<Op>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!alike(a[i], b[i]) || a[i].count != b[i].count) return false;
    return true;
  }

  // The history of batches as a ring: entry(1) is the latest.
  size_t historySize() const { return std::min(doneEnd_ - doneStart_, done_.size()); }
  Done& entry(size_t back) { return done_[(doneEnd_ - back) % done_.size()]; }
  void forgetHistory() { doneStart_ = doneEnd_; }

  // One batch, then as many of the next `most` batches as would repeat exactly: the batch
  // itself, or, when the last batches run in a cycle of m (m ≤ kLongestCycle) that came twice
  // in a row, that cycle. Returns how many batches were repeated.
  // `waiting`: the kernel waits, and G10 looks after each batch whether its pages are all in.
  int64_t batchAndRepeats(int64_t most, bool waiting) {
    Done& d = done_[doneEnd_++ % done_.size()];
    std::vector<Op> ops = std::move(d.r.ops);  // keeps the storage from batch to batch
    ops.clear();
    d.r = Record();
    d.r.ops = std::move(ops);
    d.shape.clear();
    d.batches = 1;
    for (int q = 0; q < kQueues; ++q) {
      d.before[static_cast<size_t>(q)] = queues_[q].pages();
      queues_[q].markLow();
    }
    for (int i = In; i <= Alloc; ++i) n_[i] = 0;
    d.r.start = n_;
    batch_ = &d.r;
    batch();
    if (waiting) {
      (void)pfQueued();
      (void)atLeast(InTransfer, 1);
    }
    batch_ = nullptr;
    for (int q = 0; q < kQueues; ++q) d.low[static_cast<size_t>(q)] = queues_[q].low();
    d.victimModes = 0;
    d.cls.fill(-1);
    for (const Op& op : d.r.ops) {
      if (!d.shape.empty() && alike(d.shape.back(), op))
        d.shape.back().count += op.count;
      else
        d.shape.push_back(op);
      if (op.from == kVictims) d.victimModes |= static_cast<uint8_t>(1u << int(op.victims));
      int16_t& c = d.cls[static_cast<size_t>(op.from)];
      c = c == -1 || c == op.cls ? op.cls : -2;
    }
    const size_t n = historySize();
    for (size_t m = 1; m <= kLongestCycle && n >= (m > 1 ? 2 * m : 1); ++m) {
      bool cycle = true;
      int64_t batches = 0;  // in one turn of the cycle
      uint8_t modes = 0;
      std::array<int16_t, kQueues + 1> cls;
      cls.fill(-1);
      for (size_t back = 1; back <= m && cycle; ++back) {
        const Done& e = entry(back);
        batches += e.batches;
        modes |= e.victimModes;
        cycle = e.r.repeatable && (m == 1 || sameShape(e.shape, entry(back + m).shape));
        for (size_t i = 0; i < kQueues && cycle; ++i) {
          if (e.cls[i] == -1) continue;
          cycle = e.cls[i] != -2 && (cls[i] == -1 || cls[i] == e.cls[i]);
          cls[i] = e.cls[i];
        }
      }
      // One way of looking for victims, or DeepUM's two (its head and its base).
      constexpr uint8_t kDeepUmBoth =
          1u << int(VictimFrom::DeepUmBase) | 1u << int(VictimFrom::DeepUmHead);
      if (!cycle || ((modes & (modes - 1)) && modes != kDeepUmBoth) || batches > most) continue;
      const int64_t turns = repeatCycle(m, batches, most / batches);
      if (turns > 0) {
        if (m > 1 || !absorbRepeats(entry(1), turns)) forgetHistory();
        return turns * batches;
      }
    }
    return 0;
  }

  // A batch and its k repetitions as one batch of the history, so that a cycle can contain it
  // (a queue refilled by one batch and drained by the next few, repeated at once): its ops with
  // k + 1 times their counts. Exact only where a cycle merges its ops (planRepeats: each source
  // taken in one way, one pusher per fault queue) and the turns cannot show (what it places comes
  // from one queue, its victims go one way); false otherwise, and the history must be forgotten.
  bool absorbRepeats(Done& d, int64_t k) {
    if (!planRepeats(d.r.ops)) return false;
    int placeFrom = -1;
    const Op* victimWay = nullptr;
    for (const Op& op : d.r.ops) {
      if (op.kind == Op::Place) {
        if (placeFrom >= 0 && placeFrom != op.from) return false;
        placeFrom = op.from;
      }
      if (op.from == kVictims) {
        if (victimWay && !alike(*victimWay, op)) return false;
        victimWay = &op;
      }
    }
    // The comparisons of the j-th repetition were the first one's moved by j × delta: the
    // extremes are at the first and the last.
    for (int i = 0; i < kChecked; ++i) {
      if (isBatchCounter(i)) continue;
      const int64_t delta = (n_[i] - d.r.start[i]) / (k + 1);
      if (d.r.minTrue[i] < kMany)
        d.r.minTrue[i] = std::min(d.r.minTrue[i], d.r.minTrue[i] + k * delta);
      if (d.r.maxFalse[i] > -kMany)
        d.r.maxFalse[i] = std::max(d.r.maxFalse[i], d.r.maxFalse[i] + k * delta);
    }
    for (int q = 0; q < kQueues; ++q) {
      const auto i = static_cast<size_t>(q);
      const int64_t change = (queues_[q].pages() - d.before[i]) / (k + 1);
      d.low[i] = std::min(d.low[i], d.low[i] + k * change);
    }
    for (Op& op : d.r.ops) op.count *= k + 1;
    for (Op& op : d.shape) op.count *= k + 1;
    d.batches *= k + 1;
    return true;
  }

  // The last m entries of the history (`batches` batches), `most` more times at most where they
  // would repeat exactly; how many times they were.
  int64_t repeatCycle(size_t m, int64_t batches, int64_t most) {
    const Done& first = entry(m);
    std::array<int64_t, kQueues> low = first.low;
    const Record* unit = &first.r;
    if (m > 1) {
      Record& r = cycle_;
      r.start = first.r.start;
      r.minTrue.fill(kMany);
      r.maxFalse.fill(-kMany);
      r.foundEmpty = 0;
      r.repeatable = true;
      r.ops.clear();
      for (size_t back = m; back >= 1; --back) {
        const Done& e = entry(back);
        const Record& x = e.r;
        for (int c = 0; c < kChecked; ++c) {
          r.minTrue[c] = std::min(r.minTrue[c], x.minTrue[c]);
          r.maxFalse[c] = std::max(r.maxFalse[c], x.maxFalse[c]);
        }
        r.foundEmpty |= x.foundEmpty;
        r.repeatable = r.repeatable && x.repeatable;
        r.ops.insert(r.ops.end(), x.ops.begin(), x.ops.end());
        for (size_t q = 0; q < low.size(); ++q) low[q] = std::min(low[q], e.low[q]);
      }
      unit = &r;
    }
    const Record& r = *unit;
    if (most <= 0 || !r.repeatable) return 0;
    // Each queue's pages at each point of a repetition are those of the first time, moved by
    // what the cycle adds or takes: a queue found empty must be back where it started, and no
    // queue may become empty or stop being so.
    for (int q = 0; q < kQueues; ++q) {
      const int64_t before = first.before[static_cast<size_t>(q)];
      const int64_t now = queues_[q].pages();
      if ((now == 0) != (before == 0)) return 0;
      if ((r.foundEmpty >> q & 1) && now != before) return 0;
    }

    int64_t k = most;
    std::array<int64_t, kNums> delta;
    for (int i = 0; i < kNums; ++i) delta[i] = isBatchCounter(i) ? 0 : n_[i] - r.start[i];
    for (int i = 0; i < kChecked; ++i)
      if (!isBatchCounter(i)) k = std::min(k, r.bound(i, delta[i]));
    if (k <= 0) return 0;
    // What each source gives per batch, and in which class; what the batch puts back on the
    // fault queues (pages the kernel needs, evicted), and in which class they wait there.
    std::array<int64_t, kQueues + 1> per{};
    std::array<int, kQueues + 1> cls;
    std::array<int64_t, kQueues> pushed{};
    std::array<int, kQueues> pushedCls;
    cls.fill(-1);
    pushedCls.fill(-1);
    bool preevicts = false;
    // Victims per way of looking for them: DeepUM's faults take them from the head while its
    // prefetches take them from the base, two streams that never meet (the head's victims end
    // before the base) or one run taken in turns (below).
    std::array<int64_t, 3> perVictims{};
    std::array<int, 3> victimCls = {-1, -1, -1};
    for (const Op& op : r.ops) {
      if (op.from == kVictims) {
        const auto v = static_cast<size_t>(op.victims);
        if (victimCls[v] >= 0 && victimCls[v] != op.cls) return 0;
        victimCls[v] = op.cls;
        perVictims[v] += op.count;
      }
      if (cls[op.from] >= 0 && cls[op.from] != op.cls && op.from != kVictims) return 0;
      cls[op.from] = op.cls;
      per[op.from] += op.count;
      if (op.kind == Op::Evict && op.requeue) {
        const int q = faultQueue(op.to);
        const int c = op.to | kMoving | kWaited | kRequired;
        if (pushedCls[q] >= 0 && pushedCls[q] != c) return 0;
        pushedCls[q] = c;
        pushed[q] += op.count;
      }
      if (op.from == PreevictHost || op.from == PreevictSsd) preevicts = true;
    }
    const auto lruBase = static_cast<size_t>(VictimFrom::LruBase);
    const auto umBase = static_cast<size_t>(VictimFrom::DeepUmBase);
    const auto umHead = static_cast<size_t>(VictimFrom::DeepUmHead);
    const bool twoWays = perVictims[umBase] > 0 && perVictims[umHead] > 0;
    if (perVictims[lruBase] > 0 && (perVictims[umBase] > 0 || perVictims[umHead] > 0)) return 0;
    if (twoWays && base_ == kNoPage) return 0;
    // When the base is where the faults would look first, the base follows the faults' victims
    // and the two ways take turns on one run of pages: candidates both ways (none moving, none
    // in the window), of one class.
    const bool shared = twoWays && victimCls[umHead] == victimCls[umBase] &&
                        firstCandidate(lru_.headPage(), VictimFrom::DeepUmHead) == base_;
    // The counts first, then the walks (the shortest first: a walk is as long as what it checks).
    // A queue the batch takes from keeps at least one page through every repetition: one that
    // loses pages does so from the fewest it held in the batch; one that gets back as many as it
    // gives (a kernel evicting its own pages and faulting them in again) never runs short.
    for (int q = 0; q < kQueues; ++q) {
      const int64_t loss = per[q] - pushed[q];
      if (per[q] > 0 && loss > 0) k = std::min(k, (low[static_cast<size_t>(q)] - 1) / loss);
    }
    // A planned eviction of the page the base points at would move the base to the head, and
    // the victims after it would be looked for from there. Without victims that cannot show: the
    // base ends on the first page the repetitions do not evict, as it would batch by batch.
    const bool anyVictims = perVictims[0] + perVictims[1] + perVictims[2] > 0;
    if (preevicts && anyVictims && base_ != kNoPage && (states_.at(base_) & kMoving)) return 0;
    if (shared && k > 0) {
      const int64_t both = perVictims[umHead] + perVictims[umBase];
      const int64_t got =
          victimSpan(VictimFrom::DeepUmBase, static_cast<uint8_t>(victimCls[umBase]), k * both,
                     preevicts, false, true);
      k = std::min(k, got / both);
    }
    // The head's walk first: it ends at the base, often at once (then no walk from the base).
    for (size_t v : {umHead, umBase, lruBase}) {
      if (perVictims[v] == 0 || k <= 0 || shared) continue;
      const int64_t got = victimSpan(static_cast<VictimFrom>(v), static_cast<uint8_t>(victimCls[v]),
                                     k * perVictims[v], preevicts, twoWays && v == umHead);
      k = std::min(k, got / perVictims[v]);
    }
    for (int q = 0; q < kQueues && k > 0; ++q) {
      if (per[q] == 0) continue;
      const int64_t want = k * per[q] + 1;
      const int64_t have = queues_[q].pages();
      if (want > have && pushedCls[q] == cls[q]) {
        // The repetitions go on to take pages they put back, which wait in the same class: what
        // the queue holds now must all be of it.
        const int64_t got = queueSpan(q, static_cast<uint8_t>(cls[q]), have);
        if (got < have) k = std::min(k, (got - 1) / per[q]);
      } else {
        k = std::min(k, (queueSpan(q, static_cast<uint8_t>(cls[q]), want) - 1) / per[q]);
      }
    }
    if (k <= 0) return 0;
    bool absorbed = false;
    for (size_t back = 1; back <= m; ++back) absorbed = absorbed || entry(back).batches > 1;
    if (planRepeats(r.ops)) {
      span_ = {span_.first + batchCycles_, span_.first + (k * batches + 1) * batchCycles_};
      runRepeats(k, shared);
    } else if (!absorbed) {
      // Batch by batch, op by op, as they came.
      span_ = {span_.first + batchCycles_, span_.first + (k * batches + 1) * batchCycles_};
      for (int64_t j = 0; j < k; ++j)
        for (const Op& op : r.ops) apply(op, op.count);
    } else {
      return 0;  // an absorbed entry's ops stand for its repetitions only when merged
    }
    for (int i = 0; i < kNums; ++i) n_[i] += k * delta[i];
    return k;
  }

  // A batch's (or a cycle's) ops k more times, each op once for all k where the order between
  // ops cannot show: each queue is taken from in one way, the victims of each way of looking for
  // them are one stream shared out batch by batch among the ways they are evicted (victimTurns_),
  // no two ops put pages into one fault queue, and pages placed from several queues arrive
  // interleaved as G10 places them (placeTurns_: which queue's op places how many, in turn).
  // planRepeats says whether the ops allow it (and prepares it); runRepeats does it.
  bool planRepeats(const std::vector<Op>& ops) {
    merged_.clear();
    victimWays_.clear();
    victimTurns_.clear();
    placeTurns_.clear();
    for (const Op& op : ops) {
      if (op.kind == Op::Redirect || op.kind == Op::Drop) return false;
      if (op.from == kVictims) {
        size_t way = 0;
        while (way < victimWays_.size() && !alike(victimWays_[way], op)) ++way;
        if (way == victimWays_.size()) victimWays_.push_back(op);
        if (!victimTurns_.empty() && victimTurns_.back().first == way)
          victimTurns_.back().second += op.count;
        else
          victimTurns_.push_back({way, op.count});
        continue;
      }
      bool joined = false;
      for (size_t i = 0; i < merged_.size(); ++i) {
        Op& m = merged_[i];
        if (m.from != op.from) continue;
        if (!alike(m, op)) return false;  // one queue, one way of taking from it
        m.count += op.count;
        joined = true;
      }
      if (!joined) merged_.push_back(op);
      if (op.kind == Op::Place) {
        size_t i = 0;
        while (merged_[i].from != op.from) ++i;
        if (!placeTurns_.empty() && placeTurns_.back().first == i)
          placeTurns_.back().second += op.count;
        else
          placeTurns_.push_back({i, op.count});
      }
    }
    if (victimWays_.size() > placed_.size()) return false;
    // Fault queues filled by more than one op would interleave.
    std::array<int, kQueues> pushers{};
    for (const Op& op : merged_)
      if (op.kind == Op::Evict && op.requeue && ++pushers[faultQueue(op.to)] > 1) return false;
    for (const Op& way : victimWays_)
      if (way.requeue && pushers[faultQueue(way.to)] > 0) return false;
    places_ = 0;
    for (const Op& op : merged_) places_ += op.kind == Op::Place;
    return true;
  }

  // `sharedVictims`: DeepUM's two ways take turns on one run of pages (repeatCycle).
  void runRepeats(int64_t k, bool sharedVictims) {
    const int places = places_;
    // Victims before the pages placed: a fault queue may give back the victims it was fed by the
    // earlier repetitions (FIFO, so the pages taken are the same). Victims never reach the
    // pages placed (victimSpan stops before the list's tail), and never include pages evicted
    // from a queue (those are moving), so the order is otherwise free.
    for (const Op& op : merged_)
      if (op.kind != Op::Place) apply(op, k * op.count);
    if (!victimTurns_.empty()) shareVictims(k, sharedVictims);
    if (places == 1)
      for (const Op& op : merged_)
        if (op.kind == Op::Place) apply(op, k * op.count);
    if (places <= 1) return;
    // Several queues placing pages: their arrivals interleave batch by batch.
    for (size_t i = 0; i < merged_.size(); ++i) placed_[i].clear();
    for (int64_t j = 0; j < k; ++j)
      for (const auto& [i, count] : placeTurns_) {
        queues_[merged_[i].from].pop(count, [&, i = i](PageRange r) {
          lru_.pushBack(r);
          if (!placed_[i].empty() && placed_[i].back().end == r.begin)
            placed_[i].back().end = r.end;
          else
            placed_[i].push_back(r);
        });
      }
    for (size_t i = 0; i < merged_.size(); ++i) {
      record(merged_[i], placed_[i]);
      for (const PageRange& r : placed_[i]) {
        states_.set(r.begin, r.end, Gpu);
        addReady(r.begin, r.end, 1);
      }
    }
  }

  // The victims of k batches, each way of looking for them (DeepUM has two) a stream taken in
  // one walk, or one run the two share (`sharedVictims`), shared out among the ways they are
  // evicted in each batch's turns (victimTurns_); the ones the kernel needs go back on their
  // fault queue in the order they were taken.
  void shareVictims(int64_t k, bool sharedVictims) {
    std::array<int64_t, 3> perBatch{};
    auto streamOf = [&](size_t way) {
      const VictimFrom v = victimWays_[way].victims;
      return static_cast<size_t>(sharedVictims ? VictimFrom::DeepUmBase : v);
    };
    for (const auto& [way, count] : victimTurns_) perBatch[streamOf(way)] += count;
    for (size_t v = 0; v < perBatch.size(); ++v) {
      streams_[v].clear();
      if (perBatch[v] > 0) takeVictims(static_cast<VictimFrom>(v), k * perBatch[v], streams_[v]);
    }
    for (size_t w = 0; w < victimWays_.size(); ++w) placed_[w].clear();
    std::array<size_t, 3> next{};  // each stream's next range
    for (int64_t j = 0; j < k; ++j)
      for (const auto& [way, count] : victimTurns_) {
        const size_t v = streamOf(way);
        std::vector<PageRange>& stream = streams_[v];
        for (int64_t left = count; left > 0;) {
          PageRange& r = stream[next[v]];
          const Page end = std::min(r.end, r.begin + left);
          const PageRange piece{r.begin, end};
          auto& list = placed_[way];
          if (!list.empty() && list.back().end == piece.begin)
            list.back().end = piece.end;
          else
            list.push_back(piece);
          if (victimWays_[way].requeue) queues_[faultQueue(victimWays_[way].to)].push(piece);
          left -= end - r.begin;
          r.begin = end;
          if (r.begin == r.end) ++next[v];
        }
      }
    for (size_t w = 0; w < victimWays_.size(); ++w) effect(victimWays_[w], placed_[w], false);
  }

  // --- The kernel's side (KernelBeginEvent) ---

  void beginKernel(int k) {
    const SimKernel& kern = w_.kernels[static_cast<size_t>(k)];
    for (int t : requiredList_) required_[static_cast<size_t>(t)] = 0;
    requiredList_.clear();
    for (const auto* list : {&kern.inputs, &kern.outputs})
      for (int t : *list) {
        if (!required_[static_cast<size_t>(t)]) requiredList_.push_back(t);
        required_[static_cast<size_t>(t)] = 1;
      }
    if (deepUm_) {
      for (int t : windowList_) window_[static_cast<size_t>(t)] = 0;
      windowList_.clear();
      const int n = static_cast<int>(w_.kernels.size());
      for (int d = 0; d < kDeepUmDepth; ++d) {
        const SimKernel& ahead = w_.kernels[static_cast<size_t>((k + d) % n)];
        for (const auto* list : {&ahead.inputs, &ahead.outputs})
          for (int t : *list) {
            if (!window_[static_cast<size_t>(t)]) windowList_.push_back(t);
            window_[static_cast<size_t>(t)] = 1;
          }
      }
    }
    suggestBase();
    // The plan's hints for this kernel, in order.
    for (int i = actionBegin_[static_cast<size_t>(k)]; i < actionBegin_[static_cast<size_t>(k) + 1];
         ++i)
      hint(plan_.actions[static_cast<size_t>(i)]);
  }

  // The runs of one state over a tensor's pages, copied (hint and fault change them).
  const std::vector<std::pair<PageRange, uint8_t>>& stateRuns(int t) {
    runs_.clear();
    const auto i = static_cast<size_t>(t);
    states_.forEach(firstPage_[i], firstPage_[i + 1], [&](Page b, Page e, uint8_t st) {
      runs_.push_back({{b, e}, st});
    });
    return runs_;
  }

  void hint(const Action& a) {
    const auto t = static_cast<size_t>(a.tensor);
    for (const auto& [r, st] : stateRuns(a.tensor)) {
      if (st & kMoving) continue;
      const uint8_t where = st & kWhere;
      const int64_t n = r.size();
      const auto moving = static_cast<uint8_t>(st | kMoving);
      switch (a.kind) {
        case Action::Allocate:
        case Action::Prefetch:
          if (where == Gpu) break;
          queues_[where == Nowhere ? Prealloc : where == Ssd ? PrefetchSsd : PrefetchHost].push(r);
          states_.set(r.begin, r.end, moving);
          break;
        case Action::EvictToHost:
        case Action::EvictToSsd:
          if (where != Gpu) break;
          queues_[a.kind == Action::EvictToSsd ? PreevictSsd : PreevictHost].push(r);
          states_.set(r.begin, r.end, moving);
          ready_[t] -= n;
          break;
        case Action::Free:
          if (where == Gpu) {
            leaveGpu(r.begin, r.end);
            n_[GpuUsed] -= n;
            ready_[t] -= n;
          } else if (where == Host) {
            n_[HostUsed] -= n;
          } else if (where == Ssd) {
            n_[SsdUsed] -= n;
          }
          moved(a.tensor, where, Nowhere, n, false);
          states_.set(r.begin, r.end, static_cast<uint8_t>((st & kWaited) | Nowhere));
          break;
      }
    }
  }

  // Every page of the kernel's tensors on the GPU, none moving, no fault queued.
  bool arrived(int k) {
    if (pfQueued()) return false;
    const SimKernel& kern = w_.kernels[static_cast<size_t>(k)];
    for (const auto* list : {&kern.inputs, &kern.outputs})
      for (int t : *list)
        if (!ready(t)) return false;
    return true;
  }

  // Queues the kernel's missing pages (transferTensorToGPU) and counts them as G10 does.
  KernelFaults fault(int k) {
    KernelFaults f;
    const SimKernel& kern = w_.kernels[static_cast<size_t>(k)];
    auto take = [&](int t, bool input) {
      const auto i = static_cast<size_t>(t);
      (input ? f.inputPages : f.outputPages) += firstPage_[i + 1] - firstPage_[i];
      if (ready(t)) return;
      for (const auto& [r, st] : stateRuns(t)) {
        const uint8_t where = st & kWhere;
        if ((st & kMoving) || where == Gpu) continue;
        const int64_t n = r.size();
        if (where == Nowhere) {
          (input ? f.inputNew : f.outputNew) += n;
          queues_[PfAlloc].push(r);
        } else if (where == Ssd) {
          (input ? f.inputSsd : f.outputSsd) += n;
          queues_[PfSsd].push(r);
        } else {
          (input ? f.inputHost : f.outputHost) += n;
          queues_[PfHost].push(r);
        }
        states_.set(r.begin, r.end, static_cast<uint8_t>(st | kMoving));
      }
    };
    for (int t : kern.inputs) take(t, true);
    for (int t : kern.outputs) take(t, false);
    // The required pages still moving: the kernel waits for each.
    for (const auto* list : {&kern.inputs, &kern.outputs})
      for (int t : *list) {
        if (ready(t)) continue;
        for (const auto& [r, st] : stateRuns(t)) {
          if (!(st & kMoving) || (st & kWaited)) continue;
          states_.set(r.begin, r.end, static_cast<uint8_t>(st | kWaited));
          n_[InTransfer] += r.size();
          waitedList_.push_back(r);
        }
      }
    return f;
  }

  void clearInTransfer() {
    for (const PageRange& r : waitedList_) states_.setBits(r.begin, r.end, kWaited, 0);
    waitedList_.clear();
    n_[InTransfer] = 0;
  }

  int64_t faultedTime(int k, const KernelFaults& f) const {
    return g10FaultedCycles(w_, k, f, settings_, tiers_);
  }

  // Where eviction starts looking at a kernel's start: LRU, the first page not moving; DeepUM,
  // the first not needed by the next kernels.
  void suggestBase() { base_ = firstFrom(lru_.headPage(), deepUm_); }

  const SimWorkload& w_;
  const Plan& plan_;
  const TierConfig& tiers_;
  std::vector<TensorLife> lives_;
  bool deepUm_ = false;
  double hz_ = 1.2e9;
  G10UnifiedSettings settings_;
  int64_t batchCycles_ = 1;
  int hostBatch_ = 0, ssdBatch_ = 0, allocBatch_ = 0;
  int64_t gpuPages_ = 0, hostLine_ = 0;
  std::array<int64_t, kNums> n_{};
  bool waiting_ = false;  // a kernel waits for its pages
  std::vector<Page> firstPage_;
  PageStates states_;
  ArrivalList lru_;
  Page base_ = kNoPage;
  std::array<PageQueue, kQueues> queues_;
  std::vector<uint8_t> required_, window_;
  std::vector<int> requiredList_, windowList_;
  std::vector<int64_t> ready_;  // by tensor: pages on the GPU, not moving
  std::vector<int> actionBegin_;
  std::vector<PageRange> waitedList_, ranges_, sorted_;
  std::array<std::vector<PageRange>, 3> streams_;  // victims by the way they were looked for
  int places_ = 0;                                 // merged ops that place pages (planRepeats)
  std::vector<Op> merged_, victimWays_;
  std::vector<std::pair<size_t, int64_t>> victimTurns_, placeTurns_;
  // The batches since the last thing done outside the batcher's loop (a kernel's start, a
  // fault): a ring of the last 2 × kLongestCycle.
  std::vector<Done> done_ = std::vector<Done>(2 * kLongestCycle);
  size_t doneStart_ = 0, doneEnd_ = 0;
  Record cycle_;
  std::array<std::vector<PageRange>, kQueues + 1> placed_;
  std::vector<std::pair<PageRange, uint8_t>> runs_;
  // Transfers and stays away from the GPU, in cycles, as they happen; the time span the changes
  // being applied fall in (a batch, or the batches repeated at once).
  struct Transfer {
    int tensor;
    Link link;
    bool demand;
    int64_t start, end, pages;
  };
  struct Stay {
    int tensor;
    int64_t start, end;  // end -1: still there
  };
  std::pair<int64_t, int64_t> span_{0, 0};
  std::vector<Transfer> transfers_;
  std::vector<std::array<int64_t, 2 * kLinkCount>> lastTransfer_;
  std::vector<int64_t> hostPages_, ssdPages_, hostOpen_, ssdOpen_;
  std::vector<Stay> hostStays_, ssdStays_;
  Record* step_ = nullptr;
  Record* batch_ = nullptr;
  int kernel_ = 0, iteration_ = 0;
  int64_t faults_ = 0;
};

SimResult UnifiedMemory::run() {
  SimResult r;
  r.policy = plan_.policy;
  r.feasible = plan_.feasible;
  r.problem = plan_.problem;
  const int n = static_cast<int>(w_.kernels.size());
  if (n == 0) return r;
  // Whole pages: a kernel whose tensors fit in bytes may still need more pages than the GPU has,
  // and G10 would then evict its own pages for ever.
  for (const SimKernel& kern : w_.kernels) {
    int64_t pages = 0;
    std::vector<int> seen;
    for (const auto* list : {&kern.inputs, &kern.outputs})
      for (int t : *list) {
        if (std::find(seen.begin(), seen.end(), t) != seen.end()) continue;
        seen.push_back(t);
        pages += firstPage_[static_cast<size_t>(t) + 1] - firstPage_[static_cast<size_t>(t)];
      }
    if (pages > gpuPages_) {
      r.feasible = false;
      r.problem = "kernel " + kern.name + " needs " + std::to_string(pages) +
                  " pages at once (its tensors in whole pages), more than the GPU's " +
                  std::to_string(gpuPages_);
      return r;
    }
  }
  std::vector<int64_t> ends(2 * static_cast<size_t>(n), 0), usageAt;
  int64_t now = 0, nextBatch = batchCycles_;
  auto sample = [&] {
    return TierUsage{0, n_[GpuUsed] * tiers_.pageBytes, n_[HostUsed] * tiers_.pageBytes,
                     n_[SsdUsed] * tiers_.pageBytes};
  };
  // Kernels one after another; between a kernel's start and its end the batcher runs at its
  // own beat. A kernel that must wait is started again by the batcher once its pages are in.
  for (int seq = 0; seq < 2 * n; ++seq) {
    const int k = seq % n;
    kernel_ = k;
    iteration_ = seq / n;
    span_ = {now, now};
    forgetHistory();  // cycles of batches are looked for within one kernel's wait or run
    beginKernel(k);
    if (iteration_ == 1) {
      usageAt.push_back(now);
      r.usage.push_back(sample());
    }
    int64_t end = 0;
    const bool waiting = !arrived(k);
    if (!waiting) {
      end = now + w_.g10Cycles[static_cast<size_t>(k)];
    } else {
      const KernelFaults faults = fault(k);
      const int64_t faultedCycles = faultedTime(k, faults);
      const int64_t first = now;
      // The batcher until the kernel's pages are all in (it then restarts the kernel at that
      // batch); a page evicted meanwhile faults again, without more fault time.
      waiting_ = true;
      for (int64_t idle = 0;;) {
        now = nextBatch;
        nextBatch += batchCycles_;
        const int64_t moved = n_[Moves];
        span_ = {now, now + batchCycles_};
        // Repeated batches must leave the kernel waiting after each, and stop where G10 would
        // give up.
        const int64_t repeats = batchAndRepeats(kStuckBatches - idle, true);
        bool done = false;
        if (repeats > 0) {
          now += repeats * batchCycles_;
          nextBatch += repeats * batchCycles_;
        }
        if (!pfQueued() && n_[InTransfer] == 0) {
          forgetHistory();
          suggestBase();  // the kernel begins again (G10 re-suggests the eviction base)
          if (arrived(k)) done = true;
          if (!done) (void)fault(k);
        }
        if (done) break;
        idle = n_[Moves] == moved ? idle + 1 + repeats : 0;
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
      if (iteration_ == 1)
        faults_ += faults.inputHost + faults.inputSsd + faults.outputHost + faults.outputSsd;
    }
    clearInTransfer();
    forgetHistory();
    // Batches due while the kernel runs; with nothing queued they have nothing to do.
    while (nextBatch <= end) {
      if (!anyQueued()) {
        nextBatch += ((end - nextBatch) / batchCycles_ + 1) * batchCycles_;
        break;
      }
      now = nextBatch;
      nextBatch += batchCycles_;
      span_ = {now, now + batchCycles_};
      const int64_t due = nextBatch <= end ? (end - nextBatch) / batchCycles_ + 1 : 0;
      const int64_t repeats = batchAndRepeats(due, false);
      now += repeats * batchCycles_;
      nextBatch += repeats * batchCycles_;
    }
    now = end;
    ends[static_cast<size_t>(seq)] = end;
  }
  // The second iteration, from the first one's end (as G10's statistics count it).
  const int64_t origin = ends[static_cast<size_t>(n) - 1];
  auto ns = [&](int64_t cycles) {
    return static_cast<TimeNs>(std::llround(static_cast<double>(cycles) * 1e9 / hz_));
  };
  // A kernel that faulted ran from its start to its end; the timeline shows the time beyond its
  // own as a stall before it (as every policy's kernels are shown), to the nanosecond.
  r.kernels.reserve(static_cast<size_t>(n));
  TimeNs previousEndNs = 0;
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
  const TimeNs iterationEnd = previousEndNs;
  for (const Transfer& x : transfers_) {
    Migration m;
    m.tensor = x.tensor;
    m.link = x.link;
    m.from = x.link == Link::HostToGpu  ? Tier::Host
             : x.link == Link::SsdToGpu ? Tier::Ssd
                                        : Tier::Gpu;
    m.to = x.link == Link::GpuToHost  ? Tier::Host
           : x.link == Link::GpuToSsd ? Tier::Ssd
                                      : Tier::Gpu;
    m.start = std::clamp<TimeNs>(ns(x.start - origin), 0, iterationEnd);
    m.end = std::clamp<TimeNs>(ns(x.end - origin), m.start, iterationEnd);
    m.bytes = x.pages * tiers_.pageBytes;
    m.demand = x.demand;
    r.migrations.push_back(m);
  }
  for (const auto& [stays, tier] :
       {std::pair(&hostStays_, Tier::Host), std::pair(&ssdStays_, Tier::Ssd)})
    for (const Stay& st : *stays) {
      const TimeNs a = std::max<TimeNs>(0, ns(st.start - origin));
      const TimeNs b = st.end < 0 ? iterationEnd : std::min(iterationEnd, ns(st.end - origin));
      if (b > a) r.residency.push_back({st.tensor, tier, a, b});
    }
  for (size_t i = 0; i < r.usage.size(); ++i) r.usage[i].time = ns(usageAt[i] - origin);
  TierUsage last = sample();
  last.time = iterationEnd;
  r.usage.push_back(last);
  SimSummary& s = r.summary;
  s.iteration = iterationEnd;
  s.ideal = w_.idealTime();
  s.slowdown = s.ideal > 0 ? static_cast<double>(s.iteration) / static_cast<double>(s.ideal) : 1.0;
  s.faults = faults_;
  s.demandBytes = n_[Demand] * tiers_.pageBytes;
  for (int l = 0; l < kLinkCount; ++l) s.linkBytes[static_cast<size_t>(l)] = 0;
  s.linkBytes[static_cast<size_t>(Link::HostToGpu)] = n_[LinkHostGpu] * tiers_.pageBytes;
  s.linkBytes[static_cast<size_t>(Link::GpuToHost)] = n_[LinkGpuHost] * tiers_.pageBytes;
  s.linkBytes[static_cast<size_t>(Link::SsdToGpu)] = n_[LinkSsdGpu] * tiers_.pageBytes;
  s.linkBytes[static_cast<size_t>(Link::GpuToSsd)] = n_[LinkGpuSsd] * tiers_.pageBytes;
  s.compute = s.ideal;
  return r;
}

}  // namespace

SimResult simulateG10Unified(const SimWorkload& workload, const Plan& plan,
                             const TierConfig& tiers) {
  UnifiedMemory m(workload, plan, tiers);
  return m.run();
}

}  // namespace ts::memsim
