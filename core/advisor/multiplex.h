// Job multiplexing: several jobs that each leave a GPU partly idle, packed onto one GPU, as
// Gandiva and Gavel pack them — recommended only when the normalised throughput Σ (packed rate ÷
// alone rate, over the jobs) is above 1 and their memory fits. Each job's GPU work is replayed in
// order with its own gaps (the CPU time between its operations stays what it was), under three
// ways of sharing:
//  - time-slicing: one context at a time; the GPU switches jobs at operation boundaries, when a
//    time slice is used up or the running job has nothing ready, paying a switch cost;
//  - MPS: kernels of different jobs run together while their summed SM demand fits the GPU and
//    are stretched in proportion when it does not; copies in one direction share the copy engine;
//  - MIG: each job alone on a slice with the slice's SMs: a kernel that wanted more SMs than the
//    slice has is slowed by the ratio.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "session/session.h"
#include "util/result.h"

namespace ts::advisor {

enum class OpClass : uint8_t { Kernel, CopyIn, CopyOut, CopyOther };

// One GPU operation of a job, as it ran alone.
struct JobOp {
  TimeNs start = 0;  // from the job's first operation
  TimeNs duration = 0;
  double smDemand = 1;  // share of the GPU's SMs its blocks could occupy, in (0, 1]
  OpClass kind = OpClass::Kernel;
  std::string name;
  // What it was, for drawing it again: a memset (else a copy of `copyKind` when not a kernel),
  // and the bytes it moved or set.
  bool memset = false;
  CopyKind copyKind = CopyKind::HtoD;
  uint64_t bytes = 0;
};

struct Job {
  std::string name;
  std::vector<JobOp> ops;  // by start
  TimeNs span = 0;         // first start to last end, alone
  TimeNs busy = 0;         // union of its operations
  double busyShare() const { return span > 0 ? static_cast<double>(busy) / span : 0; }
  size_t demandKnown = 0;  // kernels whose SM demand came from their launch configuration
  size_t kernels = 0;
  std::optional<int64_t> peakMemory;  // bytes, when known
  std::string memorySource;           // where the peak came from, or why it is unknown
  bool peakIsLowerBound = false;      // a counter of changes since the trace began
  int32_t smCount = 0;                // of the GPU it ran on (0: unknown)
  // Its median training step alone, when the session marks steps: packed, a step takes this ÷
  // the job's rate.
  std::optional<TimeNs> step;
};

// The GPU work of `device` (or the first GPU with kernels, for kNone) of a session as a job. SM
// demand per kernel = blocks ÷ (SMs × resident blocks per SM) from its launch configuration and
// occupancy, capped at 1; unknown (no configuration or device limits) counts as 1, the whole GPU.
Result<Job> jobFromSession(const Session& session, const std::string& name,
                           uint32_t device = kNone);

// A job's model, to estimate its peak memory where its session measured none: "1=resnet50:32".
struct JobModel {
  size_t job = 0;     // 1-based, as the jobs are numbered
  std::string model;  // an ONNX file or a built-in model's name
  int64_t batch = 1;
};
// Comma-separated N=MODEL:BATCH items, N from 1 to `jobs`. Errors name the item.
Result<std::vector<JobModel>> parseJobModels(const std::string& text, size_t jobs);

// The peak of the job's model's simulated training step (`peak` bytes, `what`: "resnet50 at batch
// 32") as its peak memory where the session measured none; where it measured one, the estimate is
// only said beside it (a measurement wins over a model).
void estimatePeakFromModel(Job& job, int64_t peak, const std::string& what);

// The job's SM demand weighted by its kernels' time.
double meanSmDemand(const Job& job);

enum class Sharing : uint8_t { TimeSlicing, Mps, Mig };
const char* toString(Sharing sharing);  // "time-slicing", "MPS", "MIG"

struct SharingOptions {
  TimeNs timeSlice = 2'000'000;  // time-slicing: a context's turn
  TimeNs switchCost = 25'000;    // time-slicing: a context switch
  // MIG: each job's slice as a share of the GPU's SMs (indexed like the jobs).
  std::vector<double> migShare;
};

// One job's operation as it ran when packed.
struct PackedOp {
  size_t job = 0;
  size_t op = 0;
  TimeNs start = 0, end = 0;
};

struct PackedRun {
  Sharing sharing = Sharing::Mps;
  // Per job: its rate packed ÷ its rate alone, in the steady state (every job loops; measured
  // until the first has done its share of passes), and one pass as long as it would take packed.
  std::vector<double> rate;
  std::vector<TimeNs> span;
  double normalisedThroughput = 0;  // Σ rate: above 1, packing gains
  std::vector<PackedOp> ops;        // what ran, until then (`op` indexes the repeated passes)
};

// The jobs replayed together on one GPU, all from time 0, each looping over its operations.
PackedRun packJobs(const std::vector<Job>& jobs, Sharing sharing, const SharingOptions& options);

// MIG profiles of a GPU: "1g.5gb" … with their compute slices (of 7), SMs and memory.
struct MigProfile {
  std::string name;
  int slices = 0;
  int sms = 0;
  int64_t memoryBytes = 0;
};
struct MigGpu {
  std::string gpu;  // "A100-40GB", ...
  int sms = 0;      // of the whole GPU as MIG sees it (7g)
  int64_t memoryBytes = 0;
  std::vector<MigProfile> profiles;  // smallest first
};
const std::vector<MigGpu>& migGpus();
const MigGpu* migGpu(std::string_view name);  // case-insensitive

// A profile per job: the smallest whose memory holds the job's peak (unknown peaks: the
// smallest), then each grown in turn, from job `first` on, while the GPU's 7 compute slices
// allow; none when even the smallest do not fit together.
std::optional<std::vector<MigProfile>> migProfilesFor(const MigGpu& gpu,
                                                      const std::vector<Job>& jobs,
                                                      size_t first = 0);
// Why no set of profiles holds the jobs: too many jobs for the GPU's 7 instances, a job larger than
// the largest profile, or the smallest profiles needing more than 7 compute slices together.
std::string migUnfitReason(const MigGpu& gpu, const std::vector<Job>& jobs);

}  // namespace ts::advisor
