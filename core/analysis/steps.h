// Training steps and what each one spent: the iterations a trace marks (PyTorch's
// ProfilerStep#N, NVTX ranges named "step N" / "iteration N", else the repetitions of the first
// forward/<layer> NVTX range) or, when it marks none, the repeated kernel sequence; and per step
// its time, GPU busy time by kind of work, idle time by cause, exposed communication and the CPU
// time in data loading, forward, backward and optimizer ranges where the trace annotates them.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/gpu_ops.h"
#include "analysis/idle_breakdown.h"
#include "analysis/launch_index.h"

namespace ts {

struct Step {
  uint32_t rank = 0;       // index into Session::ranks
  int32_t rankNumber = 0;  // Rank::rank
  int64_t number = 0;      // from the name (ProfilerStep#551 → 551), else 1, 2, … per rank
  TimeNs start = 0;        // the CPU range (for repeated kernels: the first launch to the
  TimeNs end = 0;          // last kernel's end)
  // The step projected onto the GPU: the first operation it launched to the last one's end;
  // empty (0, 0) when it launched none.
  TimeNs gpuStart = 0, gpuEnd = 0;
  // Where the step's stretch of the GPU begins: the end of the previous step's operations on the
  // rank (the GPU idle between two steps is the later one's: it waited for that step's launches),
  // or the step's CPU start for a rank's first step, or its first operation's start if earlier.
  // The stretches of a rank's steps tile its GPU time from gpuFrom to gpuEnd.
  TimeNs gpuFrom = 0;
  size_t ops = 0;                             // GPU operations it launched
  TimeNs busy = 0;                            // union of its operations
  std::array<TimeNs, kOpTypeCount> byType{};  // union per kind of work
  TimeNs exposedCommunication = 0;            // communication not under a computation
  // Gaps before its operations by cause, summed over its streams (HTA's per-stream idle): more
  // than the step's time when several streams wait at once. gpuIdle() is the GPU's own.
  std::array<TimeNs, kIdleCauseCount> idle{};
  // CPU time inside annotated ranges of the step's rank, clipped to the step; none when the
  // session has no such range at all (not annotated, which is not the same as zero).
  std::optional<TimeNs> dataLoader, forward, backward, optimizer;
  bool outlier = false;
  TimeNs duration() const { return end - start; }
  // The step's time on the GPU (gpuFrom to gpuEnd), and the part of it when none of its
  // operations ran: with one stream, its idle gaps summed.
  TimeNs gpuTime() const { return ops ? gpuEnd - gpuFrom : 0; }
  TimeNs gpuIdle() const { return ops ? std::max<TimeNs>(0, gpuEnd - gpuFrom - busy) : 0; }
};

struct StepTable {
  std::string source;       // "profiler steps", "NVTX step ranges", "NVTX layer ranges",
                            // "repeated kernels", or empty when no steps were found
  std::vector<Step> steps;  // by rank, then time
  // Step time over all steps (ns): mean, median, min, max; outliers are steps more than
  // 3 scaled median absolute deviations and 5 % above the median.
  double mean = 0, median = 0;
  TimeNs min = 0, max = 0;
};

StepTable findSteps(const Session& session, const LaunchIndex& launches,
                    const std::vector<IdleGap>& gaps, const AnalysisRange& range);

// Where steps are read from, in the order findSteps tries them: the first that holds (a
// ProfilerStep, or two NVTX step ranges, or two repetitions of the first layer range, or a
// repeated kernel sequence) gives the session's steps — for every rank, decided over all ranks.
enum class StepSource : uint8_t { ProfilerSteps, NvtxSteps, LayerRanges, RepeatedKernels, None };
inline constexpr StepSource kStepSources[] = {StepSource::ProfilerSteps, StepSource::NvtxSteps,
                                              StepSource::LayerRanges, StepSource::RepeatedKernels};
std::string_view toString(StepSource source);  // the StepTable's source text; None: ""
bool stepSourceHolds(StepSource source, size_t candidates);
// The steps `source` marks, not yet numbered or measured (any count).
std::vector<Step> stepCandidates(const Session& session, const LaunchIndex& launches,
                                 StepSource source);
// The steps of `source` (its candidates) numbered, measured, kept by the range, with their
// statistics: what findSteps returns once it has chosen the source.
StepTable stepsFrom(const Session& session, const LaunchIndex& launches,
                    const std::vector<IdleGap>& gaps, const AnalysisRange& range, StepSource source,
                    std::vector<Step> candidates);
// Mean, median, min, max of the steps' times and which steps are outliers.
void describeStepTimes(StepTable& table);
// Whether the session has any range of data loading, forward, backward, optimizer (Step's
// fields in that order): without, every step leaves that field empty (not annotated).
std::array<bool, 4> annotatedCpuTime(const Session& session);
// The name of the first forward/<layer> range (whose repetitions are layer steps) and its start.
std::optional<std::string> firstLayerName(const Session& session, TimeNs* at = nullptr);

// Fills in what each step spent (operations, busy time by kind, exposed communication, idle by
// cause, annotated CPU time, its stretch of the GPU). `steps` must be sorted by rank, then start,
// and not overlap within a rank; an operation belongs to the step whose range holds its launch
// (its own start when the launch is unknown). Also measures windows that are not steps (a rank's
// whole range).
void measureSteps(const Session& session, const LaunchIndex& launches,
                  const std::vector<IdleGap>& gaps, std::vector<Step>& steps);

// One window per rank with GPU work: the range clipped to the rank's span, measured as a step is
// (for judging a trace that marks no steps).
std::vector<Step> rankWindows(const Session& session, const LaunchIndex& launches,
                              const std::vector<IdleGap>& gaps, const AnalysisRange& range);

// "ProfilerStep#12" → 12, "step 3" → 3, "Iteration_7" → 7; none for other names.
std::optional<int64_t> stepNumberOf(std::string_view name, bool* profilerStep = nullptr);

}  // namespace ts
