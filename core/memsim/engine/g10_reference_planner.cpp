// G10's own planner, as its code plans (src/analysis.cc, scheduling_prefetch, at de2c8c6), so
// that our g10 gives G10's plan — checked hint by hint against the prefetch_guide.config G10 wrote
// for BERT-256 and ResNet152-1280. In G10's steps:
//  1. Every tensor is counted in GPU memory for the whole iteration; then tensor by tensor, in
//     creation order, until memory fits under 99 % of the GPU (× G10's loosen factor,
//     g10_quirks.h), it is allocated just before its first use (allowing for cudaMalloc's time)
//     and freed at its death.
//  2. While memory does not fit: the inactive interval whose eviction removes the most memory ×
//     time above the GPU's capacity (counted between the points where half of it could be out
//     and half back in, given the bandwidth already planned) is taken. Intervals longer than an
//     SSD round trip (latencies, transfer, 50 % margin) go to the SSD — or to host memory when
//     the SSD has no bandwidth left there and the host has room —, those longer than a host round
//     trip to host memory; the eviction runs forward from the interval's start and the prefetch
//     backward from its end against each kernel's spare bandwidth, and the interval is dropped
//     when they would meet. An interval that is too short for either ends the selection (G10
//     takes it again and again without effect).
//  3. The prefetches of intervals evicted in step 2 are pulled earlier while memory before them
//     stays under the target, in order of their planned time.
// Where G10's code does something odd, it is reproduced, and said so.
#include <algorithm>
#include <climits>
#include <cmath>

#include "memsim/engine/g10_quirks.h"
#include "memsim/engine/planners.h"

namespace ts::memsim {

namespace {

// G10's settings in every configuration its scripts generate (src/resources/genconfigs.py).
constexpr double kSsdLatencyUs = 20;              // SSD_latency_us, "upper bound"
constexpr double kMallocUsPerByte = 0.000000814;  // GPU_malloc_uspB
constexpr double kDelta = 0.5;                    // delta_parameter
constexpr double kGiB = 1073741824.0;

struct Interval {
  int tensor;
  int from, to;  // kernelLevel_interval: to < from when looped
  bool looped;
  double timeUs;
  bool offloaded = false;
  bool reallyOffloaded = false;  // an eviction was planned for it
  int originalPrefetch = -1, evictFinish = -1;
};

// Per kernel: the bytes a link can carry during it, and how much is planned.
struct Budget {
  double capacity = 0, estimation = 0;
  bool full = false;
};

class ReferencePlanner {
 public:
  ReferencePlanner(const SimWorkload& w, const TierConfig& tiers, Policy policy)
      : w_(w), tiers_(tiers), n_(static_cast<int>(w.kernels.size())) {
    plan_.policy = policy;
    // G10's GPUDirect variants plan the same way, then copy explicitly (no unified memory):
    // G10GDSSSD (g10-gds) has no host memory, G10GDSFULL (g10-host) has.
    gds_ = policy != Policy::G10;
    fast_ = !w.fromG10();
    plan_.unifiedMemory = !gds_;
    plan_.g10Copies = gds_;  // run in G10's simulator of explicit copies, as G10 runs them
    plan_.hostAllowed = policy != Policy::G10Gds;
    if (gds_) plan_.evictFarthestFirst = true;
  }

  Plan run() {
    if (n_ == 0) return plan_;
    timeTable();
    liveness();
    const double ssdGBps = tiers_.ssdGpuBandwidth / kGiB, cpuGBps = tiers_.gpuHostBandwidth / kGiB;
    ssdBytesPerUs_ = ssdGBps * kGiB / 1e6;
    cpuBytesPerUs_ = cpuGBps * kGiB / 1e6;
    for (auto* b : {&ssdIn_, &ssdOut_, &pcieIn_, &pcieOut_}) b->resize(static_cast<size_t>(n_));
    for (int i = 0; i < n_; ++i) {
      const double dt = ktt_[static_cast<size_t>(i) + 1] - ktt_[static_cast<size_t>(i)];
      ssdIn_[static_cast<size_t>(i)].capacity = ssdOut_[static_cast<size_t>(i)].capacity =
          ssdBytesPerUs_ * dt;
      pcieIn_[static_cast<size_t>(i)].capacity = pcieOut_[static_cast<size_t>(i)].capacity =
          cpuBytesPerUs_ * dt;
    }
    const G10Quirks quirks = g10Quirks(w_, tiers_, plan_.policy);
    // (long)(GB × 2^30) × 0.99, then × loosen, each truncated to whole bytes as G10's longs are.
    target_ = static_cast<int64_t>(static_cast<double>(tiers_.gpuBytes) * 0.99);
    target_ = static_cast<int64_t>(quirks.targetScale * static_cast<double>(target_));
    memLine_ = tiers_.gpuBytes;  // the intervals' GPU_mem_line: the whole GPU
    cpuLine_ = plan_.policy == Policy::G10Gds ? 0 : tiers_.hostBytes;  // G10's configs
    allocateAndFree();
    hill_ = static_cast<int>(std::max_element(res_.begin(), res_.end()) - res_.begin());
    selectIntervals();
    pullPrefetchesEarlier();
    if (gds_) evictAtTheHill();
    orderAsG10();
    plan_.note = "G10's own planner";
    if (!quirks.note.empty()) plan_.note += "; " + quirks.note;
    return plan_;
  }

 private:
  int64_t bytes(int t) const { return w_.tensors[static_cast<size_t>(t)].bytes; }
  double ktt(int i) const { return ktt_[static_cast<size_t>(i)]; }
  double ext(int i) const { return ext_[static_cast<size_t>(i)]; }
  int64_t& res(int i) { return res_[static_cast<size_t>(i)]; }

  // kernel_time_table: each kernel's ideal start in µs, from G10's cycles as G10 sums them.
  void timeTable() {
    ktt_.assign(1, 0.0);
    double time = 0;
    for (int i = 0; i < n_; ++i) {
      time += cycles(i) / 1200.0;
      ktt_.push_back(time);
    }
    ext_.assign(ktt_.begin(), ktt_.end() - 1);
    double last = ktt_.back();
    ext_.push_back(last);
    for (int i = 0; i < n_; ++i) {
      last += cycles(i) / 1200.0;
      ext_.push_back(last);
    }
  }
  double cycles(int i) const {
    if (!w_.g10Cycles.empty()) return static_cast<double>(w_.g10Cycles[static_cast<size_t>(i)]);
    return static_cast<double>(w_.kernels[static_cast<size_t>(i)].duration) * 1.2;
  }

  // G10's liveness: born at the first kernel that reads or writes the tensor, dead after the last
  // that reads it (-1 when none does); its hiding intervals, in G10's order.
  void liveness() {
    const size_t T = w_.tensors.size();
    birth_.assign(T, -1);
    death_.assign(T, -1);
    std::vector<std::vector<int>> uses(T);
    for (int k = 0; k < n_; ++k) {
      const SimKernel& kern = w_.kernels[static_cast<size_t>(k)];
      for (int t : kern.inputs) death_[static_cast<size_t>(t)] = k + 1;
      for (const auto* list : {&kern.inputs, &kern.outputs})
        for (int t : *list) {
          auto& u = uses[static_cast<size_t>(t)];
          if (u.empty() || u.back() != k) u.push_back(k);
        }
    }
    for (size_t t = 0; t < T; ++t) {
      const auto& u = uses[t];
      if (u.empty()) continue;
      birth_[t] = u.front();
      const int tensor = static_cast<int>(t);
      if (!w_.tensors[t].global) {
        if (death_[t] < 0) continue;
        for (size_t i = 0; i + 1 < u.size() && u[i] + 1 < death_[t]; ++i)
          if (u[i + 1] > u[i] + 1) add(tensor, u[i] + 1, u[i + 1], false);
        continue;
      }
      for (size_t i = 0; i + 1 < u.size(); ++i)
        if (u[i + 1] > u[i] + 1) add(tensor, u[i] + 1, u[i + 1], false);
      // Round the iteration's end: from after the last use (kernel 0 when that is the last
      // kernel) to the first use.
      const int from = u.back() + 1 == n_ ? 0 : u.back() + 1;
      if (from != u.front()) add(tensor, from, u.front(), from > u.front());
    }
  }
  void add(int tensor, int from, int to, bool looped) {
    const double t = looped ? ext(to + n_) - ext(from) : ktt(to) - ktt(from);
    intervals_.push_back({tensor, from, to, looped, t});
  }

  bool gpuFits() const {
    for (int64_t r : res_)
      if (r > target_) return false;
    return true;
  }
  bool gpuFitsIn(int start, int end) const {
    if (end < start) end += n_;
    for (int i = start; i < end; ++i)
      if (res_[static_cast<size_t>(i % n_)] > target_) return false;
    return true;
  }
  bool cpuFits(int64_t line) const {
    for (int64_t c : cpu_)
      if (c > line) return false;
    return true;
  }

  // 1. Allocation just in time and frees at death, tensor by tensor until memory fits. G10 runs
  // this twice: a first pass (which finds the region under pressure, unused since) and the pass
  // that plans; the second counts a tensor allocated at the iteration's start from kernel 0.
  void allocateAndFree() {
    int64_t total = 0;  // saturating: a workload of ONNX or fuzzed sizes may come close to 2^63
    auto add = [&](int64_t b) {
      if (__builtin_add_overflow(total, b, &total)) total = INT64_MAX / 2;
    };
    // G10 stops once the plan fits; its simulator of unified memory then keeps the other tensors'
    // pages where they are. A framework's allocator frees every tensor at its death whatever the
    // policy, so a workload that is not G10's own (a model's training step) gets them all.
    const bool g10sOwn = w_.fromG10();
    for (const SimTensor& t : w_.tensors) add(t.bytes);
    if (g10sOwn) add(w_.tensors.empty() ? 0 : w_.tensors[0].bytes);  // G10 counts tensor 0 twice
    res_.assign(static_cast<size_t>(n_), total);
    cpu_.assign(static_cast<size_t>(n_), 0);
    for (size_t i = g10sOwn ? 1 : 0; i < w_.tensors.size(); ++i) {
      if (g10sOwn && gpuFits()) break;
      const int t = static_cast<int>(i);
      if (w_.tensors[i].global || birth_[i] < 0) continue;
      const int born = birth_[i];
      const double start = ktt(born) - static_cast<double>(bytes(t)) * kMallocUsPerByte;
      if (start < 0) {
        if (!gds_) hint(0, t, Action::Allocate);
      } else {
        int issue = 0;
        for (int j = 0; j < born; ++j) {
          if (ktt(j) <= start && ktt(j + 1) > start) {
            issue = j;
            break;
          }
        }
        if (!gds_) hint(issue, t, Action::Allocate);
        for (int j = 0; j < issue; ++j) res(j) -= bytes(t);
      }
      const int death = death_[i] == -1 ? born + 1 : death_[i];
      if (!gds_) hint(death, t, Action::Free);
      if (ktt(death) < ktt(n_)) {
        int finish = n_;
        for (int j = death; j < n_; ++j) {
          if (ktt(j) <= ktt(death) && ktt(j + 1) > ktt(death)) {
            finish = j;
            break;
          }
        }
        for (int j = finish; j < n_; ++j) res(j) -= bytes(t);
      }
    }
  }

  // --- G10's bandwidth bookkeeping. `rest` is a whole number of bytes, as G10's longs are. ---
  static void take(int64_t& rest, double amount) {
    rest = static_cast<int64_t>(static_cast<double>(rest) - amount);
  }
  // Forward from `from`: the kernel by which `size` bytes have gone out.
  int forwardIndex(const std::vector<Budget>& b, int64_t size, int from) const {
    int64_t rest = size;
    int i = from;
    while (rest > 0 && i < n_) {
      const Budget& k = b[static_cast<size_t>(i)];
      if (!k.full) take(rest, k.capacity - k.estimation);
      if (rest <= 0 || i == n_ - 1) break;
      ++i;
    }
    return i;
  }
  // Backward from `needed` - 1: the kernel from which `size` bytes arrive by `needed`.
  int backwardIndex(const std::vector<Budget>& b, int64_t size, int needed) const {
    int64_t rest = size;
    int i = needed - 1;
    while (rest > 0 && i >= 0) {
      const Budget& k = b[static_cast<size_t>(i)];
      if (!k.full) take(rest, k.capacity - k.estimation);
      if (rest <= 0 || i == 0) break;
      --i;
    }
    return i;
  }
  // -1 when every kernel from `from` to `until` has its GPU → SSD budget full.
  int ssdOutCheck(int64_t size, int from, int until) const {
    bool ok = false;
    for (int i = from; i < until; ++i)
      if (!ssdOut_[static_cast<size_t>(i)].full) ok = true;
    return ok ? forwardIndex(ssdOut_, size, from) : -1;
  }
  // Books an SSD transfer from `from` on: it also takes its share of the PCIe link.
  void bookSsd(std::vector<Budget>& ssd, std::vector<Budget>& pcie, int64_t size, int from) {
    int64_t rest = size;
    int i = from;
    while (rest > 0 && i < n_) {
      Budget& s = ssd[static_cast<size_t>(i)];
      Budget& p = pcie[static_cast<size_t>(i)];
      if (!s.full) {
        if (static_cast<double>(rest) + s.estimation > s.capacity) {
          const double room = s.capacity - s.estimation;
          take(rest, room);
          p.estimation += room;
          if (p.estimation >= p.capacity) p.full = true;
          s.estimation = s.capacity;
          s.full = true;
        } else {
          s.estimation += static_cast<double>(rest);
          p.estimation += static_cast<double>(rest);
          if (p.estimation >= p.capacity) p.full = true;
          rest = -1;
        }
      }
      if (rest <= 0 || i == n_ - 1) break;
      ++i;
    }
    markDirty(from, std::min(i, n_ - 1) + 1);
  }
  // Books a host transfer; once it eats into the SSD's share of PCIe, the SSD budget fills.
  void bookPcie(std::vector<Budget>& pcie, std::vector<Budget>& ssd, int64_t size, int from) {
    int64_t rest = size;
    int i = from;
    while (rest > 0 && i < n_) {
      Budget& p = pcie[static_cast<size_t>(i)];
      Budget& s = ssd[static_cast<size_t>(i)];
      if (!p.full) {
        if (static_cast<double>(rest) + p.estimation > p.capacity) {
          take(rest, p.capacity - p.estimation);
          p.estimation = p.capacity;
          p.full = true;
          s.estimation = s.capacity;
          s.full = true;
        } else {
          p.estimation += static_cast<double>(rest);
          if (p.estimation >= p.capacity - s.capacity) {
            s.estimation += p.estimation - (p.capacity - s.capacity);
            if (s.estimation >= s.capacity) {
              s.estimation = s.capacity;
              s.full = true;
            }
          }
          rest = -1;
        }
      }
      if (rest <= 0 || i == n_ - 1) break;
      ++i;
    }
    markDirty(from, std::min(i, n_ - 1) + 1);
  }

  // Memory × time above the GPU's capacity the interval would remove (G10's sort key). Summed
  // over the kernels over the capacity only (`over_`, ascending), in G10's order: the same sum.
  double area(const Interval& iv) const {
    if (iv.offloaded) return 0;
    if (fast_) return fastArea(iv);
    const double size = static_cast<double>(bytes(iv.tensor));
    double a = 0;
    auto from = [&](int lo) { return std::lower_bound(over_.begin(), over_.end(), lo); };
    if (!iv.looped) {
      const int lo = forwardIndex(ssdOut_, bytes(iv.tensor) / 2, iv.from);
      const int hi = backwardIndex(ssdIn_, bytes(iv.tensor) / 2, iv.to);
      for (auto it = from(lo); it != over_.end() && *it < hi; ++it)
        a += size * (ktt(*it + 1) - ktt(*it));
      return a;
    }
    // G10 walks j from `from` to to + n - 1 and indexes its n+1-entry time table modulo n+1, its
    // memory modulo n: after the iteration's last kernel, the step round to kernel 0 counts
    // minus the whole iteration, and each later kernel i the time of kernel i-1. Reproduced.
    for (auto it = from(iv.from); it != over_.end(); ++it) a += size * (ktt(*it + 1) - ktt(*it));
    if (iv.to >= 1) {
      auto it = from(0);
      if (it != over_.end() && *it == 0) a += size * (ktt(0) - ktt(n_));
      for (it = from(1); it != over_.end() && *it < iv.to; ++it)
        a += size * (ktt(*it) - ktt(*it - 1));
    }
    return a;
  }

  // The same sums from prefix sums over the kernels over the line (overTime_: each one's time;
  // overPrev_: the time of the kernel before it), for workloads not read from G10's files: the
  // order of the additions differs from G10's, so areas may differ in the last bits — enough to
  // reorder G10's near-ties, not enough to matter to a plan of any other workload.
  double fastArea(const Interval& iv) const {
    const double size = static_cast<double>(bytes(iv.tensor));
    auto sum = [](const std::vector<double>& p, int lo, int hi) {
      return hi > lo ? p[static_cast<size_t>(hi)] - p[static_cast<size_t>(lo)] : 0.0;
    };
    if (!iv.looped) {
      const int lo = std::max(forwardIndex(ssdOut_, bytes(iv.tensor) / 2, iv.from), 0);
      const int hi = std::min(backwardIndex(ssdIn_, bytes(iv.tensor) / 2, iv.to), n_);
      return size * sum(overTime_, lo, hi);
    }
    double a = size * sum(overTime_, std::max(iv.from, 0), n_);
    if (iv.to >= 1) {
      if (!over_.empty() && over_.front() == 0) a += size * (ktt(0) - ktt(n_));
      a += size * sum(overPrev_, 1, std::min(iv.to, n_));
    }
    return a;
  }
  void prefixOverTimes() {
    overTime_.assign(static_cast<size_t>(n_) + 1, 0.0);
    overPrev_.assign(static_cast<size_t>(n_) + 1, 0.0);
    size_t k = 0;
    for (int j = 0; j < n_; ++j) {
      const bool over = k < over_.size() && over_[k] == j;
      if (over) ++k;
      const auto u = static_cast<size_t>(j);
      overTime_[u + 1] = overTime_[u] + (over ? ktt(j + 1) - ktt(j) : 0.0);
      overPrev_[u + 1] = overPrev_[u] + (over && j >= 1 ? ktt(j) - ktt(j - 1) : 0.0);
    }
  }

  // The kernel j in [from, until) of `table` with table[j] <= t < table[j+1], or -1.
  static int kernelAt(const std::vector<double>& table, double t, int from, int until) {
    for (int j = from; j < until; ++j)
      if (table[static_cast<size_t>(j)] <= t && table[static_cast<size_t>(j) + 1] > t) return j;
    return -1;
  }

  // 2. Interval selection. G10 sorts its whole interval list by area every round and takes the
  // first; when no interval has area left (memory between the target and the capacity), which
  // one comes first is whatever std::sort leaves first among equals. So the list is kept in
  // G10's order and sorted as G10 sorts it (the same comparator on the same areas, computed once
  // per round instead of per comparison).
  void selectIntervals() {
    std::vector<size_t> order(intervals_.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::vector<double> areas(intervals_.size()), weights(intervals_.size());
    for (size_t i = 0; i < intervals_.size(); ++i) weights[i] = weight(i);
    std::vector<char> known(intervals_.size(), 0);
    for (size_t round = 0; round < intervals_.size(); ++round) {
      if (gpuFits()) break;
      // An interval's area depends only on memory and bandwidth within it: recomputed where the
      // last round changed either.
      over_.clear();
      for (int j = 0; j < n_; ++j)
        if (res(j) > memLine_) over_.push_back(j);
      if (fast_) prefixOverTimes();
      for (size_t i = 0; i < intervals_.size(); ++i) {
        if (!known[i] || touches(intervals_[i])) areas[i] = area(intervals_[i]);
        known[i] = 1;
      }
      dirty_.clear();
      flipped_.clear();
      auto before = [&](size_t a, size_t b) {
        const double x = areas[a], y = areas[b];
        if (x - y < 0.000001 && x - y > -0.000001 && x != 0 && y != 0)
          return weights[a] > weights[b];
        return x > y;
      };
      // G10 sorts the whole list each round and takes its first: on its own workloads the sort
      // is kept (its order among equal areas decides later rounds); on others the first alone.
      if (fast_)
        std::iter_swap(order.begin(), std::min_element(order.begin(), order.end(), before));
      else
        std::sort(order.begin(), order.end(), before);
      Interval& iv = intervals_[order.front()];
      if (iv.offloaded) break;
      if (!take(iv)) break;  // too short for any tier: G10 would take it again every round
    }
  }
  bool touches(const Interval& iv) const {
    if (iv.offloaded) return true;  // its area drops to 0
    auto overlaps = [&](const std::vector<std::pair<int, int>>& ranges) {
      for (auto [lo, hi] : ranges)
        if (!iv.looped ? (lo < iv.to && iv.from < hi) : (hi > iv.from || lo < iv.to)) return true;
      return false;
    };
    // Bandwidth matters only to intervals within the iteration (their half-way points).
    return overlaps(flipped_) || (!iv.looped && overlaps(dirty_));
  }
  // Areas count only the kernels over the GPU's capacity: memory dropping elsewhere, or staying
  // over it, changes none.
  void lower(int j, int64_t size) {
    const bool wasOver = res(j) > memLine_;
    res(j) -= size;
    if (wasOver && res(j) <= memLine_) flipped_.push_back({j, j + 1});
  }
  void markDirty(int lo, int hi) { dirty_.push_back({lo, hi}); }

  double weight(size_t i) const {
    return intervals_[i].timeUs * static_cast<double>(bytes(intervals_[i].tensor));
  }

  // One interval taken: returns false when it is too short for the SSD and for host memory.
  bool take(Interval& iv) {
    const int64_t size = bytes(iv.tensor);
    const double sz = static_cast<double>(size);
    const int span = iv.looped ? iv.to + n_ - iv.from : iv.to - iv.from;
    if (gpuFitsIn(iv.from, iv.to) || span == 1) {
      iv.offloaded = true;
      return true;
    }
    const double sys = static_cast<double>(tiers_.systemLatencyNs) / 1000.0;
    double ssdSafe = 2 * (kSsdLatencyUs + sys + sz / ssdBytesPerUs_);
    const double ssdMove = ssdSafe / 2, ssdDelta = kDelta * ssdMove;
    ssdSafe += ssdDelta;
    const double ssdPrefetch = ssdMove + ssdDelta;
    double cpuSafe = 2 * (sys + sz / cpuBytesPerUs_);
    const double cpuMove = cpuSafe / 2, cpuDelta = kDelta * cpuMove;
    cpuSafe += cpuDelta;
    const double cpuPrefetch = cpuMove + cpuDelta;

    if (iv.timeUs > ssdSafe) {
      if (!iv.looped) {
        const int clearAt = kernelAt(ktt_, ktt(iv.from) + ssdMove, iv.from, iv.to);
        // The SSD unless it has no bandwidth left there and the host has room.
        const bool host =
            (clearAt < 0 || ssdOutCheck(size, iv.from, clearAt) == -1) && cpuFits(cpuLine_ - size);
        int prefetch = 0, evictDone = 0;
        if (!evictThrough(iv, host, prefetch, evictDone)) {
          iv.offloaded = true;
          return true;
        }
        if (host) addHost(size, iv.from, iv.to);
        for (int j = evictDone + 1; j < prefetch; ++j) lower(j, size);
      } else {
        evictLooped(iv, Action::EvictToSsd, ssdMove, ssdPrefetch);
      }
      iv.offloaded = true;
      return true;
    }
    if (iv.timeUs > cpuSafe) {
      if (!cpuFits(cpuLine_ - size)) {
        iv.offloaded = true;
        return true;
      }
      if (!iv.looped) {
        int prefetch = 0, evictDone = 0;
        evictThrough(iv, true, prefetch, evictDone);
        for (int j = evictDone + 1; j < prefetch; ++j) lower(j, size);
      } else {
        evictLooped(iv, Action::EvictToHost, cpuMove, cpuPrefetch);
      }
      iv.offloaded = true;
      addHost(size, iv.from, iv.to);  // G10 books the host memory whether or not it evicted
      return true;
    }
    return false;
  }

  // Through host memory or the SSD: the prefetch from the interval's end backward, the eviction
  // from its start forward, against the spare bandwidth; booked when they do not meet.
  bool evictThrough(Interval& iv, bool host, int& prefetch, int& evictDone) {
    const int64_t size = bytes(iv.tensor);
    prefetch = backwardIndex(host ? pcieIn_ : ssdIn_, size, iv.to);
    evictDone = forwardIndex(host ? pcieOut_ : ssdOut_, size, iv.from);
    if (prefetch <= evictDone) return false;
    evictLocal(iv, host ? Action::EvictToHost : Action::EvictToSsd, prefetch, evictDone);
    if (host) {
      bookPcie(pcieIn_, ssdIn_, size, prefetch);
      bookPcie(pcieOut_, ssdOut_, size, iv.from);
    } else {
      bookSsd(ssdIn_, pcieIn_, size, prefetch);
      bookSsd(ssdOut_, pcieOut_, size, iv.from);
    }
    return true;
  }

  // A pre-eviction whose prefetch step 3 places.
  void evictLocal(Interval& iv, Action::Kind kind, int prefetch, int evictDone) {
    hint(iv.from, iv.tensor, kind);
    iv.reallyOffloaded = true;
    iv.originalPrefetch = prefetch;
    iv.evictFinish = evictDone;
    local_.push_back(static_cast<size_t>(&iv - intervals_.data()));
  }

  // An interval round the iteration's end: by the ideal times, without bandwidth bookkeeping.
  void evictLooped(Interval& iv, Action::Kind kind, double move, double prefetchTime) {
    const int until = iv.to + n_;
    const int clearAt = kernelAt(ext_, ktt(iv.from) + move, iv.from, until);
    const int start = kernelAt(ext_, ext(until) - prefetchTime, iv.from, until);
    if (start < 0 || clearAt < 0) return;  // G10 asserts both exist
    if (start != iv.from) {
      iv.reallyOffloaded = true;
      hint(iv.from, iv.tensor, kind);
      hint(start % n_, iv.tensor, Action::Prefetch);
    }
    for (int j = clearAt + 1; j < start; ++j) lower(j % n_, bytes(iv.tensor));
  }

  // GPUDirect variants, a last pass: while the peak of the memory estimate (the kernel where it
  // was highest after step 1) stays above 90 % of the target, the intervals spanning the peak
  // that were not evicted yet, by time × size, are evicted to the SSD (with no planned prefetch:
  // the copy back happens when the tensor is needed).
  void evictAtTheHill() {
    std::vector<size_t> order(intervals_.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return weight(a) > weight(b); });
    int64_t hill = res(hill_);
    for (size_t i : order) {
      if (static_cast<double>(hill) < static_cast<double>(target_) * 0.9) break;
      Interval& iv = intervals_[i];
      if (iv.reallyOffloaded || iv.looped || iv.from > hill_ || iv.to <= hill_) continue;
      hint(iv.from, iv.tensor, Action::EvictToSsd);
      for (int j = iv.from + 1; j < iv.to; ++j) res(j) -= bytes(iv.tensor);
      hill -= bytes(iv.tensor);
      iv.reallyOffloaded = true;
    }
  }

  // A hint as G10 issues it: at `time`, n meaning kernel 0 of the next iteration.
  void hint(int time, int tensor, Action::Kind kind) {
    hints_.push_back({time, {time % n_, tensor, kind}});
  }

  // G10 sorts its hints by issue time alone (std::sort: among hints of one kernel, the order it
  // leaves) and runs those issued at n, the iteration's end, before kernel 0's. The simulator then
  // takes each kernel's frees, evictions and allocations in that order.
  void orderAsG10() {
    std::sort(hints_.begin(), hints_.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    auto end = std::stable_partition(hints_.begin(), hints_.end(),
                                     [&](const auto& h) { return h.first == n_; });
    (void)end;
    for (const auto& h : hints_) plan_.actions.push_back(h.second);
    sortActions(plan_.actions);
  }

  void addHost(int64_t size, int from, int to) {
    if (to < from) to += n_;
    for (int i = from; i < to; ++i) cpu_[static_cast<size_t>(i % n_)] += size;
  }

  // 3. Each local prefetch as early as memory under the target allows after its eviction ended.
  void pullPrefetchesEarlier() {
    // G10 sorts them with std::sort: among equal times, the order it leaves.
    std::sort(local_.begin(), local_.end(), [&](size_t a, size_t b) {
      return intervals_[a].originalPrefetch < intervals_[b].originalPrefetch;
    });
    for (size_t i : local_) {
      const Interval& iv = intervals_[i];
      int at = iv.originalPrefetch;
      while (at > iv.evictFinish + 1 && target_ > res(at - 1)) --at;
      hint(at, iv.tensor, Action::Prefetch);
      for (int j = at; j < iv.originalPrefetch; ++j) res(j) += bytes(iv.tensor);
    }
  }

  const SimWorkload& w_;
  const TierConfig& tiers_;
  const int n_;
  Plan plan_;
  std::vector<double> ktt_, ext_;
  std::vector<int> birth_, death_;
  std::vector<Interval> intervals_;
  std::vector<size_t> local_;  // intervals evicted in step 2 whose prefetch step 3 places
  std::vector<std::pair<int, Action>> hints_;
  std::vector<std::pair<int, int>> dirty_;    // kernels whose bandwidth this round booked
  std::vector<std::pair<int, int>> flipped_;  // kernels this round brought under the capacity  //
                                              // issue time (n: the iteration's end), action
  std::vector<int64_t> res_, cpu_;
  std::vector<int> over_;  // kernels whose memory is over the GPU's capacity, ascending
  bool fast_ = false;      // not one of G10's workloads: areas by prefix sums, no full sort
  std::vector<double> overTime_, overPrev_;  // prefix sums for fastArea
  std::vector<Budget> ssdIn_, ssdOut_, pcieIn_, pcieOut_;
  double ssdBytesPerUs_ = 0, cpuBytesPerUs_ = 0;
  int64_t target_ = 0, memLine_ = 0, cpuLine_ = 0;
  bool gds_ = false;
  int hill_ = 0;  // the kernel where memory peaked after step 1
};

}  // namespace

Plan planG10Reference(Policy variant, const SimWorkload& w, const TierConfig& tiers) {
  return ReferencePlanner(w, tiers, variant).run();
}

}  // namespace ts::memsim
