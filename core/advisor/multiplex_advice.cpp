#include "advisor/multiplex_advice.h"

#include <algorithm>
#include <cstdio>

#include "session/session_builder.h"
#include "util/format.h"

namespace ts::advisor {

MultiplexAdvice adviseMultiplex(const std::vector<Job>& jobs, const MigGpu* mig, int64_t gpuMemory,
                                const std::string& measuredOn, SharingOptions sharing,
                                const std::string& targetGpu) {
  MultiplexAdvice a;
  a.gpuMemory = gpuMemory;
  a.runs.push_back(packJobs(jobs, Sharing::TimeSlicing, sharing));
  a.runs.push_back(packJobs(jobs, Sharing::Mps, sharing));
  std::string& migUnfit = a.migUnfit;
  if (mig) {
    // The profiles grown from each job in turn: the slices left over go where they help most,
    // whatever order the jobs were given in (the same sets are tried once).
    std::vector<std::vector<std::string>> tried;
    for (size_t first = 0; first < jobs.size(); ++first) {
      auto profiles = migProfilesFor(*mig, jobs, first);
      if (!profiles) break;
      std::vector<std::string> names;
      for (const MigProfile& p : *profiles) names.push_back(p.name);
      if (std::find(tried.begin(), tried.end(), names) != tried.end()) continue;
      tried.push_back(names);
      SharingOptions o = sharing;
      for (const MigProfile& p : *profiles)
        o.migShare.push_back(static_cast<double>(p.sms) / mig->sms);
      PackedRun run = packJobs(jobs, Sharing::Mig, o);
      if (!a.profiles || run.normalisedThroughput > a.runs.back().normalisedThroughput + 1e-9) {
        if (a.profiles) a.runs.pop_back();
        a.profiles = std::move(profiles);
        a.runs.push_back(std::move(run));
      }
    }
    if (!a.profiles) migUnfit = migUnfitReason(*mig, jobs);
  }
  // Memory: do they fit together?
  a.memoryKnown = true;
  for (const Job& j : jobs) {
    if (j.peakMemory)
      a.memoryTotal += *j.peakMemory;
    else
      a.memoryKnown = false;
  }
  a.fits = a.memoryKnown && gpuMemory > 0 && a.memoryTotal <= gpuMemory;
  a.overflows = a.memoryKnown && gpuMemory > 0 && a.memoryTotal > gpuMemory;
  // The best sharing above 1 whose memory allows it (MIG's slices were chosen to hold theirs).
  for (size_t r = 0; r < a.runs.size(); ++r) {
    const PackedRun& run = a.runs[r];
    if (run.normalisedThroughput <= 1.0) continue;
    if (run.sharing != Sharing::Mig && a.overflows) continue;
    if (a.best < 0 ||
        run.normalisedThroughput > a.runs[static_cast<size_t>(a.best)].normalisedThroughput)
      a.best = static_cast<int>(r);
  }
  if (a.best < 0) {
    a.recommendation =
        a.overflows
            ? "don't pack: the jobs' memory (" + formatBytes(static_cast<uint64_t>(a.memoryTotal)) +
                  ") exceeds the GPU's (" + formatBytes(static_cast<uint64_t>(gpuMemory)) + ")"
            : "don't pack: no way of sharing gets more done than the jobs alone (Σ ≤ 1)";
  } else {
    const PackedRun& best = a.runs[static_cast<size_t>(a.best)];
    char number[32];
    std::snprintf(number, sizeof number, "%.2f", best.normalisedThroughput);
    a.recommendation = std::string("pack with ") + toString(best.sharing) + ": Σ = " + number;
    if (best.sharing == Sharing::Mig && a.profiles) {
      a.recommendation += " (profiles";
      for (const MigProfile& p : *a.profiles) a.recommendation += " " + p.name;
      a.recommendation += ")";
    }
    if (!a.memoryKnown)
      a.recommendation += "; memory unknown for some jobs: check that they fit together";
  }
  std::vector<std::string> unknown, lower;
  for (const Job& j : jobs) {
    // Numbered jobs ("#2 run.json") by their number: the names are in the table above.
    const std::string shortName =
        j.name.starts_with("#") ? j.name.substr(0, j.name.find(' ')) : j.name;
    if (!j.peakMemory) unknown.push_back(shortName);
    if (j.peakMemory && j.peakIsLowerBound) lower.push_back(shortName);
  }
  auto names = [](const std::vector<std::string>& list) {
    std::string out;
    for (const std::string& n : list) out += (out.empty() ? "" : ", ") + n;
    return out;
  };
  if (!unknown.empty())
    a.caveats.push_back("memory unknown for " + std::to_string(unknown.size()) + " of " +
                        std::to_string(jobs.size()) + " jobs (" + names(unknown) + ")" +
                        (a.profiles ? ": MIG gives them the smallest profile's memory" : ""));
  if (!lower.empty())
    a.caveats.push_back("the memory fit rests on lower bounds for " + names(lower) +
                        ": their counters miss what was allocated before the trace began");
  a.caveats.push_back(
      "MPS: no error isolation (a fault in one job can end the others) and the jobs must run as "
      "the same Linux user");
  a.caveats.push_back("time-slicing: no memory isolation; each switch costs " +
                      formatDuration(sharing.switchCost));
  a.caveats.push_back(!mig ? "MIG: not judged (no GPU with MIG profiles given: A100-40GB, "
                             "A100-80GB, H100, H200)"
                      : !a.profiles
                          ? "MIG: not possible: " + migUnfit
                          : "MIG: the GPU must be idle to be repartitioned; a job's memory copies "
                            "keep their speed in this model; profiles grown from each job in turn, "
                            "the best kept");
  if (measuredOn.find(" and ") != std::string::npos)
    a.caveats.push_back("the jobs were measured on different GPUs (" + measuredOn +
                        "): their times are replayed as measured, not rescaled to one GPU");
  else if (const std::string target = !targetGpu.empty() ? targetGpu
                                      : mig              ? mig->gpu
                                                         : "";
           !target.empty() && !measuredOn.empty() &&
           measuredOn.find(target.substr(0, 4)) == std::string::npos)
    a.caveats.push_back("the jobs were measured on " + measuredOn +
                        ": their times are not rescaled to the " + target);
  size_t unknownDemand = 0, kernels = 0;
  for (const Job& j : jobs) unknownDemand += j.kernels - j.demandKnown, kernels += j.kernels;
  if (unknownDemand)
    a.caveats.push_back(std::to_string(unknownDemand) + " of " + std::to_string(kernels) +
                        " kernels have no launch configuration: counted as wanting the whole GPU");
  return a;
}

// The packed run as a session: one GPU, a stream per job with its operations where they ran.
Result<SessionPtr> packedSession(const std::vector<Job>& jobs, const PackedRun& run,
                                 const std::string& gpuName,
                                 const std::optional<std::vector<MigProfile>>& profiles) {
  SessionBuilder b;
  const uint32_t rank = b.rank(0);
  const uint32_t device = b.device(rank, 0);
  b.deviceInfo(device).name = gpuName;
  std::vector<uint32_t> streams;
  for (size_t j = 0; j < jobs.size(); ++j) {
    streams.push_back(b.stream(device, static_cast<uint32_t>(j + 1)));
    const bool onSlice = run.sharing == Sharing::Mig && profiles && j < profiles->size();
    b.streamInfo(streams.back()).name =
        onSlice ? jobs[j].name + " (MIG " + (*profiles)[j].name + ")" : jobs[j].name;
  }
  for (const PackedOp& op : run.ops) {
    const Job& job = jobs[op.job];
    const JobOp& alone = job.ops[op.op % job.ops.size()];
    const StringId name = b.intern(alone.name);
    if (alone.kind == OpClass::Kernel) {
      b.addKernel(streams[op.job], op.start, op.end, name, {});
    } else if (alone.memset) {
      MemsetDetail m;
      m.bytes = alone.bytes;
      b.addMemset(streams[op.job], op.start, op.end, name, m);
    } else {
      MemcpyDetail m;
      m.copyKind = alone.copyKind;
      m.bytes = alone.bytes;
      b.addMemcpy(streams[op.job], op.start, op.end, name, m);
    }
  }
  b.provenance().sources.push_back(
      {"packed jobs (" + std::string(toString(run.sharing)) + ")", "prediction"});
  Provenance::Simulation mark;
  mark.workload = "multiplexed jobs";
  mark.policies = {toString(run.sharing)};
  b.provenance().simulation = std::move(mark);
  auto built = b.build();
  if (!built) return std::move(built).failure();
  return SessionPtr(*built);
}

}  // namespace ts::advisor
