#include "advisor/multiplex.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <limits>

#include "analysis/diagnosis.h"
#include "analysis/gpu_ops.h"
#include "analysis/intervals.h"
#include "session/memory_counter.h"
#include "session/occupancy.h"
#include "util/format.h"

namespace ts::advisor {

const char* toString(Sharing sharing) {
  switch (sharing) {
    case Sharing::TimeSlicing:
      return "time-slicing";
    case Sharing::Mps:
      return "MPS";
    case Sharing::Mig:
      return "MIG";
  }
  return "MPS";
}

Result<Job> jobFromSession(const Session& s, const std::string& name, uint32_t device) {
  if (device == kNone) {
    for (const Track& t : s.tracks) {
      if (t.kind == EventKind::Kernel && t.device != kNone) {
        device = t.device;
        break;
      }
    }
  }
  if (device == kNone || device >= s.devices.size())
    return Error{name + ": no GPU kernels: nothing to pack"};
  const Device& gpu = s.devices[device];
  Job job;
  job.name = name;
  job.smCount = gpu.smCount;
  std::vector<Interval> busy;
  for (const Track& t : s.tracks) {
    if (t.device != device || !isGpuOp(t.kind)) continue;
    for (uint32_t e = 0; e < t.size(); ++e) {
      JobOp op;
      op.start = t.hot.start[e];
      op.duration = std::max<TimeNs>(1, t.hot.end[e] - t.hot.start[e]);
      op.name = std::string(s.str(t.hot.name[e]));
      busy.push_back({t.hot.start[e], t.hot.end[e]});
      if (t.kind == EventKind::Kernel) {
        ++job.kernels;
        const KernelDetail k = t.kernels.row(e);
        const auto occupancy = theoreticalOccupancy(gpu, k);
        const double blocks =
            static_cast<double>(k.gridX) * std::max(1u, k.gridY) * std::max(1u, k.gridZ);
        if (occupancy && occupancy->blocksPerSm > 0 && gpu.smCount > 0 && blocks > 0) {
          op.smDemand = std::clamp(
              blocks / (static_cast<double>(gpu.smCount) * occupancy->blocksPerSm), 1e-3, 1.0);
          ++job.demandKnown;
        }
      } else if (t.kind == EventKind::Memcpy) {
        const CopyKind c = t.memcpys.copyKind[e];
        op.kind = c == CopyKind::HtoD   ? OpClass::CopyIn
                  : c == CopyKind::DtoH ? OpClass::CopyOut
                                        : OpClass::CopyOther;
        op.copyKind = c;
        op.bytes = t.memcpys.bytes[e];
      } else {
        op.kind = OpClass::CopyOther;  // memsets: the copy engines' kind of work
        op.memset = true;
        op.bytes = t.memsets.bytes[e];
      }
      job.ops.push_back(std::move(op));
    }
  }
  if (job.ops.empty()) return Error{name + ": no GPU operations on that GPU"};
  std::stable_sort(job.ops.begin(), job.ops.end(),
                   [](const JobOp& a, const JobOp& b) { return a.start < b.start; });
  const TimeNs first = job.ops.front().start;
  TimeNs last = first;
  for (JobOp& op : job.ops) {
    last = std::max(last, op.start + op.duration);
    op.start -= first;
  }
  job.span = last - first;
  mergeIntervals(busy);
  job.busy = coveredLength(busy);
  // Memory: the session's own counters of the GPU when it recorded them (a counter of allocated
  // bytes: PyTorch's [memory] events, a capture's memory records). A process's counter is host
  // memory: not what the GPU must hold.
  if (auto peak = gpuMemoryPeak(s, device)) {
    job.peakMemory = std::max<int64_t>(peak->bytes, 0);  // a running sum may dip below its start
    job.memorySource = "the session's counter \"" + peak->counter + "\"";
    // Traces before PyTorch 1.10 give only changes: what was allocated before the trace began
    // (weights, optimizer state) is not in the running sum.
    if (peak->counter == "Allocated since trace start") {
      job.peakIsLowerBound = true;
      job.memorySource +=
          " (changes since the trace began: memory allocated before it is not counted, so a "
          "lower bound)";
    }
  }
  if (!job.peakMemory) job.memorySource = "unknown: the session records no memory counter";
  // Its steps, when it marks them.
  DiagnoseOptions o;
  o.runRules = false;
  if (auto d = diagnose(s, o); d.ok() && !d->steps.steps.empty() && d->steps.median > 0)
    job.step = static_cast<TimeNs>(std::llround(d->steps.median));
  return job;
}

Result<std::vector<JobModel>> parseJobModels(const std::string& text, size_t jobs) {
  std::vector<JobModel> out;
  size_t at = 0;
  while (at <= text.size()) {
    const size_t comma = std::min(text.find(',', at), text.size());
    std::string item = text.substr(at, comma - at);
    at = comma + 1;
    while (!item.empty() && std::isspace(static_cast<unsigned char>(item.front())))
      item.erase(0, 1);
    while (!item.empty() && std::isspace(static_cast<unsigned char>(item.back()))) item.pop_back();
    if (item.empty()) continue;
    const size_t eq = item.find('='), colon = item.rfind(':');
    // A positive count of at most 9 digits, else -1.
    auto number = [](const std::string& t) -> int64_t {
      if (t.empty() || t.size() > 9 ||
          !std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return -1;
      return std::stoll(t);
    };
    const int64_t job = eq == std::string::npos ? -1 : number(item.substr(0, eq));
    const int64_t batch =
        colon == std::string::npos || colon < eq ? -1 : number(item.substr(colon + 1));
    if (job < 0 || batch < 0 || colon <= eq + 1)
      return Error{"'" + item + "': write N=MODEL:BATCH (a job's number, a model, its batch)"};
    if (job < 1 || static_cast<size_t>(job) > jobs)
      return Error{"'" + item + "': no job " + std::to_string(job) + " (jobs 1 to " +
                   std::to_string(jobs) + ")"};
    if (batch < 1) return Error{"'" + item + "': the batch is at least 1"};
    out.push_back({static_cast<size_t>(job), item.substr(eq + 1, colon - eq - 1), batch});
  }
  return out;
}

void estimatePeakFromModel(Job& job, int64_t peak, const std::string& what) {
  const std::string estimate = "the simulated training step of " + what + " (" +
                               formatBytes(static_cast<uint64_t>(std::max<int64_t>(peak, 0))) +
                               ": every tensor live from its first use to its last, fp32 — an "
                               "upper bound)";
  if (job.peakMemory) {
    job.memorySource += "; " + estimate;
    return;
  }
  job.peakMemory = std::max<int64_t>(peak, 0);
  job.memorySource = "estimated from " + estimate;
}

double meanSmDemand(const Job& job) {
  double weighted = 0, time = 0;
  for (const JobOp& op : job.ops) {
    if (op.kind != OpClass::Kernel) continue;
    weighted += op.smDemand * static_cast<double>(op.duration);
    time += static_cast<double>(op.duration);
  }
  return time > 0 ? weighted / time : 0;
}

namespace {

// The replay: each job's operations in order, op k released after what it followed when alone
// — the end of everything before it plus the gap it left (the CPU's time), or, when it started
// while earlier operations still ran (another stream), its predecessor's start plus the same
// offset — and run at a rate the sharing gives.
class Replay {
 public:
  Replay(const std::vector<Job>& jobs, Sharing sharing, const SharingOptions& o,
         const std::vector<std::vector<TimeNs>>& durations)
      : jobs_(jobs), sharing_(sharing), o_(o), durations_(durations) {
    state_.resize(jobs.size());
    for (size_t j = 0; j < jobs.size(); ++j) {
      state_[j].simStart.assign(jobs[j].ops.size(), -1);
      state_[j].simEnd.assign(jobs[j].ops.size(), -1);
      // Alone: the end of everything before each op.
      TimeNs maxEnd = std::numeric_limits<TimeNs>::min();
      state_[j].aloneMaxEndBefore.resize(jobs[j].ops.size());
      for (size_t k = 0; k < jobs[j].ops.size(); ++k) {
        state_[j].aloneMaxEndBefore[k] = maxEnd;
        maxEnd = std::max(maxEnd, jobs[j].ops[k].start + jobs[j].ops[k].duration);
      }
    }
  }

  std::vector<PackedOp> run() {
    double now = 0;
    std::vector<PackedOp> out;
    for (;;) {
      startReady(now);
      if (running_.empty()) {
        const double next = nextRelease();
        if (next == kNever) break;
        now = std::max(now, next);
        continue;
      }
      const std::vector<double> rates = ratesOf();
      double step = kNever;
      for (size_t i = 0; i < running_.size(); ++i)
        step = std::min(step, running_[i].remaining / rates[i]);
      const double release = nextRelease();
      if (release > now) step = std::min(step, release - now);
      now += std::max(step, 0.0);
      for (size_t i = 0; i < running_.size(); ++i) running_[i].remaining -= rates[i] * step;
      for (size_t i = running_.size(); i-- > 0;) {
        if (running_[i].remaining > 1e-6) continue;
        const Running r = running_[i];
        State& st = state_[r.job];
        st.simEnd[r.op] = static_cast<TimeNs>(std::llround(now));
        st.maxSimEnd = std::max(st.maxSimEnd, st.simEnd[r.op]);
        ++st.finished;
        out.push_back({r.job, r.op, st.simStart[r.op], st.simEnd[r.op]});
        running_.erase(running_.begin() + static_cast<std::ptrdiff_t>(i));
      }
    }
    return out;
  }

 private:
  static constexpr double kNever = std::numeric_limits<double>::infinity();
  struct State {
    size_t next = 0, finished = 0;
    std::vector<TimeNs> simStart, simEnd, aloneMaxEndBefore;
    TimeNs maxSimEnd = 0;
  };
  struct Running {
    size_t job, op;
    double remaining;
  };

  // When op `k` of job `j` may start, or kNever while that is not known yet.
  double releaseOf(size_t j, size_t k) const {
    const State& st = state_[j];
    const JobOp& op = jobs_[j].ops[k];
    if (k == 0) return static_cast<double>(op.start);
    const TimeNs before = st.aloneMaxEndBefore[k];
    if (op.start >= before) {  // after everything before it: once that is done, plus the gap
      if (st.finished < k) return kNever;
      return static_cast<double>(st.maxSimEnd + (op.start - before));
    }
    const TimeNs prevStart = st.simStart[k - 1];  // beside earlier work: its offset from the last
    if (prevStart < 0) return kNever;
    return static_cast<double>(prevStart + (op.start - jobs_[j].ops[k - 1].start));
  }

  double nextRelease() const {
    double best = kNever;
    for (size_t j = 0; j < jobs_.size(); ++j) {
      if (state_[j].next < jobs_[j].ops.size())
        best = std::min(best, std::max(releaseOf(j, state_[j].next), gpuFreeAt_));
    }
    return best;
  }

  void start(size_t j, double now) {
    State& st = state_[j];
    const size_t k = st.next++;
    st.simStart[k] = static_cast<TimeNs>(std::llround(now));
    running_.push_back({j, k, static_cast<double>(durations_[j][k])});
  }

  void startReady(double now) {
    if (sharing_ != Sharing::TimeSlicing) {
      for (size_t j = 0; j < jobs_.size(); ++j) {
        while (state_[j].next < jobs_[j].ops.size() && releaseOf(j, state_[j].next) <= now)
          start(j, now);
      }
      return;
    }
    // Time-slicing: the context's own work may start; another job's only once the GPU is idle,
    // after a switch.
    auto ready = [&](size_t j) {
      return state_[j].next < jobs_[j].ops.size() && releaseOf(j, state_[j].next) <= now;
    };
    if (now < gpuFreeAt_) return;
    const bool expired = now - sliceStart_ >= static_cast<double>(o_.timeSlice);
    bool othersWait = false;
    for (size_t j = 0; j < jobs_.size(); ++j) othersWait |= j != context_ && ready(j);
    if (context_ < jobs_.size() && ready(context_) && !(expired && othersWait)) {
      while (ready(context_)) start(context_, now);
      return;
    }
    if (!running_.empty()) return;  // the context finishes its running work first
    // Switch to the job whose ready op waited longest (round-robin from the current one).
    for (size_t d = 1; d <= jobs_.size(); ++d) {
      const size_t j = (context_ + d) % jobs_.size();
      if (!ready(j)) continue;
      if (j != context_ && context_ < jobs_.size()) {
        gpuFreeAt_ = now + static_cast<double>(o_.switchCost);
        context_ = j;
        sliceStart_ = gpuFreeAt_;
        return;  // resumes when the switch is done
      }
      context_ = j;
      sliceStart_ = now;
      while (ready(j)) start(j, now);
      return;
    }
  }

  std::vector<double> ratesOf() const {
    std::vector<double> rates(running_.size(), 1.0);
    if (sharing_ != Sharing::Mps) return rates;
    // Stretch relative to what the job had alone: its own concurrent work was in its times.
    const size_t n = jobs_.size();
    double demand = 0;
    std::vector<double> demandOf(n, 0);
    std::array<double, 4> copies{};
    std::vector<std::array<double, 4>> copiesOf(n, std::array<double, 4>{});
    for (const Running& r : running_) {
      const JobOp& op = jobs_[r.job].ops[r.op];
      if (op.kind == OpClass::Kernel) {
        demand += op.smDemand;
        demandOf[r.job] += op.smDemand;
      } else {
        copies[static_cast<int>(op.kind)] += 1;
        copiesOf[r.job][static_cast<int>(op.kind)] += 1;
      }
    }
    for (size_t i = 0; i < running_.size(); ++i) {
      const Running& r = running_[i];
      const JobOp& op = jobs_[r.job].ops[r.op];
      if (op.kind == OpClass::Kernel) {
        rates[i] = std::max(1.0, demandOf[r.job]) / std::max(1.0, demand);
      } else {
        const int c = static_cast<int>(op.kind);
        rates[i] = copiesOf[r.job][c] / copies[c];
      }
    }
    return rates;
  }

  const std::vector<Job>& jobs_;
  Sharing sharing_;
  const SharingOptions& o_;
  const std::vector<std::vector<TimeNs>>& durations_;
  std::vector<State> state_;
  std::vector<Running> running_;
  size_t context_ = static_cast<size_t>(-1);
  double sliceStart_ = 0, gpuFreeAt_ = 0;
};

}  // namespace

namespace {

// Training jobs loop: each is repeated so that all of them run for a while together — the
// steady state that Gandiva and Gavel measure, not one finite pass each (a job that got the GPU
// first and finished early would look faster than the sharing makes it).
std::vector<Job> repeated(const std::vector<Job>& jobs, size_t maxOps) {
  TimeNs longest = 1;
  size_t ops = 0;
  for (const Job& j : jobs) longest = std::max(longest, j.span), ops += j.ops.size();
  std::vector<Job> out;
  for (const Job& j : jobs) {
    const TimeNs span = std::max<TimeNs>(1, j.span);
    size_t times = static_cast<size_t>(4 * longest / span) + 2;
    // Bounded work: at most maxOps operations together.
    times = std::max<size_t>(2, std::min(times, maxOps / std::max<size_t>(1, ops)));
    Job r = j;
    r.ops.clear();
    for (size_t k = 0; k < times; ++k) {
      for (JobOp op : j.ops) {
        op.start += static_cast<TimeNs>(k) * span;
        r.ops.push_back(std::move(op));
      }
    }
    r.span = static_cast<TimeNs>(times) * span;
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace

PackedRun packJobs(const std::vector<Job>& original, Sharing sharing, const SharingOptions& o) {
  PackedRun run;
  run.sharing = sharing;
  const std::vector<Job> jobs = repeated(original, 400'000);
  std::vector<std::vector<TimeNs>> durations(jobs.size());
  for (size_t j = 0; j < jobs.size(); ++j) {
    for (const JobOp& op : jobs[j].ops) {
      TimeNs d = op.duration;
      if (sharing == Sharing::Mig && op.kind == OpClass::Kernel) {
        // On a slice of `share` of the SMs, a kernel that wanted more than that slows by the
        // ratio.
        const double share = j < o.migShare.size() && o.migShare[j] > 0 ? o.migShare[j] : 1.0;
        d = static_cast<TimeNs>(
            std::llround(static_cast<double>(d) * std::max(1.0, op.smDemand / share)));
      }
      durations[j].push_back(d);
    }
  }
  if (sharing == Sharing::Mig) {
    // Each job alone on its slice.
    for (size_t j = 0; j < jobs.size(); ++j) {
      std::vector<Job> one = {jobs[j]};
      std::vector<std::vector<TimeNs>> mine = {durations[j]};
      Replay replay(one, Sharing::Mps, o, mine);
      for (PackedOp op : replay.run()) {
        op.job = j;
        run.ops.push_back(op);
      }
    }
  } else {
    Replay replay(jobs, sharing, o, durations);
    run.ops = replay.run();
  }
  // Measured while all still run: up to when the first job finishes its repetitions. A job's
  // rate is how far it got (in its own alone time: the alone end of the last operation it
  // completed) over that time.
  std::vector<TimeNs> end(jobs.size(), 0);
  for (const PackedOp& op : run.ops) end[op.job] = std::max(end[op.job], op.end);
  const TimeNs horizon = std::max<TimeNs>(1, *std::min_element(end.begin(), end.end()));
  std::vector<TimeNs> progress(jobs.size(), 0);
  for (const PackedOp& op : run.ops) {
    if (op.end > horizon) continue;
    const JobOp& alone = jobs[op.job].ops[op.op];
    progress[op.job] = std::max(progress[op.job], alone.start + alone.duration);
  }
  if (sharing == Sharing::Mig) {
    // Slices are isolated: each job's rate is its own over its whole replay, not cut off where
    // another job's ends (which would make it depend on its neighbour).
    for (size_t j = 0; j < jobs.size(); ++j) {
      TimeNs done = 0;
      for (const JobOp& op : jobs[j].ops) done = std::max(done, op.start + op.duration);
      progress[j] = static_cast<TimeNs>(
          std::llround(static_cast<double>(done) * static_cast<double>(horizon) /
                       static_cast<double>(std::max<TimeNs>(1, end[j]))));
    }
  }
  for (size_t j = 0; j < jobs.size(); ++j) {
    const double rate = static_cast<double>(progress[j]) / static_cast<double>(horizon);
    run.rate.push_back(rate);
    run.normalisedThroughput += rate;
    // One pass of the job as it would take packed.
    run.span.push_back(
        rate > 0 ? static_cast<TimeNs>(std::llround(static_cast<double>(original[j].span) / rate))
                 : 0);
  }
  std::erase_if(run.ops, [&](const PackedOp& op) { return op.start >= horizon; });
  std::sort(run.ops.begin(), run.ops.end(), [](const PackedOp& a, const PackedOp& b) {
    return a.start != b.start ? a.start < b.start : a.job < b.job;
  });
  return run;
}

const std::vector<MigGpu>& migGpus() {
  constexpr int64_t GB = 1'000'000'000;
  // NVIDIA's MIG user guide: profiles, compute slices and SMs per GPU instance.
  static const std::vector<MigGpu> gpus = {
      {"A100-40GB",
       98,
       40 * GB,
       {{"1g.5gb", 1, 14, 5 * GB},
        {"2g.10gb", 2, 28, 10 * GB},
        {"3g.20gb", 3, 42, 20 * GB},
        {"4g.20gb", 4, 56, 20 * GB},
        {"7g.40gb", 7, 98, 40 * GB}}},
      {"A100-80GB",
       98,
       80 * GB,
       {{"1g.10gb", 1, 14, 10 * GB},
        {"2g.20gb", 2, 28, 20 * GB},
        {"3g.40gb", 3, 42, 40 * GB},
        {"4g.40gb", 4, 56, 40 * GB},
        {"7g.80gb", 7, 98, 80 * GB}}},
      {"H100",
       132,
       80 * GB,
       {{"1g.10gb", 1, 16, 10 * GB},
        {"2g.20gb", 2, 32, 20 * GB},
        {"3g.40gb", 3, 60, 40 * GB},
        {"4g.40gb", 4, 64, 40 * GB},
        {"7g.80gb", 7, 132, 80 * GB}}},
      {"H200",
       132,
       141 * GB,
       {{"1g.18gb", 1, 16, 18 * GB},
        {"2g.35gb", 2, 32, 35 * GB},
        {"3g.71gb", 3, 60, 71 * GB},
        {"4g.71gb", 4, 64, 71 * GB},
        {"7g.141gb", 7, 132, 141 * GB}}},
  };
  return gpus;
}

const MigGpu* migGpu(std::string_view name) {
  auto lower = [](std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
  };
  for (const MigGpu& g : migGpus()) {
    if (lower(g.gpu) == lower(name)) return &g;
  }
  return nullptr;
}

std::string migUnfitReason(const MigGpu& gpu, const std::vector<Job>& jobs) {
  if (jobs.size() > 7)
    return std::to_string(jobs.size()) + " jobs are more than the 7 MIG instances of an " + gpu.gpu;
  for (const Job& job : jobs) {
    if (job.peakMemory && *job.peakMemory > gpu.profiles.back().memoryBytes)
      return job.name + " needs " + formatBytes(static_cast<uint64_t>(*job.peakMemory)) +
             ", more than the largest profile (" + gpu.profiles.back().name + ")";
  }
  return "the smallest profiles that hold the jobs' memory need more than the GPU's 7 compute "
         "slices together";
}

std::optional<std::vector<MigProfile>> migProfilesFor(const MigGpu& gpu,
                                                      const std::vector<Job>& jobs, size_t first) {
  // The smallest profile that holds each job's memory (unknown: the smallest of all).
  std::vector<size_t> chosen;
  int slices = 0;
  for (const Job& job : jobs) {
    size_t fit = gpu.profiles.size();
    for (size_t p = 0; p < gpu.profiles.size(); ++p) {
      if (!job.peakMemory || *job.peakMemory <= gpu.profiles[p].memoryBytes) {
        fit = p;
        break;
      }
    }
    if (fit == gpu.profiles.size()) return std::nullopt;
    chosen.push_back(fit);
    slices += gpu.profiles[fit].slices;
  }
  if (slices > 7) return std::nullopt;
  // Then each grown in turn to the next profile while the 7 slices allow: the same jobs get
  // more SMs (an idle slice helps nobody).
  for (bool grew = true; grew;) {
    grew = false;
    for (size_t k = 0; k < chosen.size(); ++k) {
      const size_t j = (first + k) % chosen.size();
      if (chosen[j] + 1 >= gpu.profiles.size()) continue;
      const int more = gpu.profiles[chosen[j] + 1].slices - gpu.profiles[chosen[j]].slices;
      if (slices + more > 7) continue;
      ++chosen[j];
      slices += more;
      grew = true;
    }
  }
  std::vector<MigProfile> out;
  for (size_t p : chosen) out.push_back(gpu.profiles[p]);
  return out;
}

}  // namespace ts::advisor
