#include "analysis/diagnosis_tables.h"

#include "util/format.h"

namespace ts {

namespace {

StatsTable stepsTable(const Diagnosis& d) {
  const StepTable& st = d.steps;
  StatsTable t{
      "steps",
      "Training steps",
      {{"rank", "Rank", StatsUnit::Count},
       {"step", "Step", StatsUnit::Count, "the step's number in its name, else 1, 2, …"},
       {"start_ns", "Start", StatsUnit::Timestamp, "the step's CPU range, from the session start"},
       {"end_ns", "End", StatsUnit::Timestamp},
       {"step_ns", "Step time", StatsUnit::Duration},
       {"gpu_start_ns", "GPU start", StatsUnit::Timestamp,
        "the first GPU operation the step launched (its projection on the GPU)"},
       {"gpu_end_ns", "GPU end", StatsUnit::Timestamp, "the end of its last operation"},
       {"gpu_busy_ns", "GPU busy", StatsUnit::Duration, "union of its GPU operations"},
       {"gpu_from_ns", "GPU from", StatsUnit::Timestamp,
        "where the step's stretch of the GPU begins: the previous step's GPU end (a rank's first "
        "step: its start, or its GPU start if earlier)"},
       {"gpu_time_ns", "GPU time", StatsUnit::Duration, "GPU from to GPU end"},
       {"gpu_idle_ns", "GPU idle", StatsUnit::Duration,
        "GPU time with none of its operations running (one stream: its gaps summed)"},
       {"compute_ns", "Compute", StatsUnit::Duration},
       {"communication_ns", "Communication", StatsUnit::Duration, "nccl* kernels"},
       {"memory_ns", "Memory", StatsUnit::Duration, "copies and memsets"},
       {"exposed_comm_ns", "Exposed comm.", StatsUnit::Duration,
        "communication not overlapped by computation"},
       {"host_wait_ns", "Host wait Σ", StatsUnit::Duration,
        "idle before its operations by cause, summed over its streams (as the idle "
        "report): more than the step time when several streams wait at once"},
       {"kernel_wait_ns", "Kernel wait Σ", StatsUnit::Duration},
       {"other_ns", "Other idle Σ", StatsUnit::Duration},
       {"unknown_ns", "Unknown idle Σ", StatsUnit::Duration},
       {"dataloader_ns", "Data loading", StatsUnit::Duration,
        "CPU time in enumerate(DataLoader) ranges (empty: not annotated)"},
       {"forward_ns", "Forward", StatsUnit::Duration,
        "CPU time in forward ranges (empty: not annotated)"},
       {"backward_ns", "Backward", StatsUnit::Duration,
        "CPU time in backward ranges and autograd functions"},
       {"optimizer_ns", "Optimizer", StatsUnit::Duration,
        "CPU time in Optimizer.step / zero_grad and optimizer ranges"},
       {"outlier", "Outlier", StatsUnit::Text}},
      {},
      {}};
  auto rel = [&](TimeNs at) -> StatsCell { return at - d.sessionStart; };
  auto opt = [](const std::optional<TimeNs>& v) -> StatsCell {
    if (!v) return std::monostate{};
    return *v;
  };
  for (const Step& s : st.steps) {
    StatsCell gpuStart = std::monostate{}, gpuEnd = std::monostate{}, gpuFrom = std::monostate{};
    if (s.ops) gpuStart = rel(s.gpuStart), gpuEnd = rel(s.gpuEnd), gpuFrom = rel(s.gpuFrom);
    t.rows.push_back({int64_t{s.rankNumber},
                      s.number,
                      rel(s.start),
                      rel(s.end),
                      s.duration(),
                      gpuStart,
                      gpuEnd,
                      s.busy,
                      gpuFrom,
                      s.gpuTime(),
                      s.gpuIdle(),
                      s.byType[static_cast<int>(OpType::Computation)],
                      s.byType[static_cast<int>(OpType::Communication)],
                      s.byType[static_cast<int>(OpType::Memory)],
                      s.exposedCommunication,
                      s.idle[static_cast<int>(IdleCause::HostWait)],
                      s.idle[static_cast<int>(IdleCause::KernelWait)],
                      s.idle[static_cast<int>(IdleCause::Other)],
                      s.idle[static_cast<int>(IdleCause::Unknown)],
                      opt(s.dataLoader),
                      opt(s.forward),
                      opt(s.backward),
                      opt(s.optimizer),
                      std::string(s.outlier ? "yes" : "")});
  }
  if (st.source.empty()) {
    t.notes.push_back(
        "No steps found: no ProfilerStep#N or step/iteration ranges, no repeated forward/<layer> "
        "ranges, no repeated kernel sequence.");
    return t;
  }
  if (st.steps.empty()) {
    t.notes.push_back("No step starts in the range.");
    return t;
  }
  size_t outliers = 0;
  for (const Step& s : st.steps) outliers += s.outlier;
  t.notes.push_back(formatCount(st.steps.size()) + " steps, from " + st.source +
                    ": step time mean " + formatDuration(static_cast<TimeNs>(st.mean)) +
                    ", median " + formatDuration(static_cast<TimeNs>(st.median)) + ", min " +
                    formatDuration(st.min) + ", max " + formatDuration(st.max) + "; " +
                    formatCount(outliers) +
                    " outlier(s) (over 3 scaled MADs and 5 % above the median).");
  if (st.source == "repeated kernels")
    t.notes.push_back(
        "The trace marks no steps: these are read from the kernel sequence that "
        "repeats, and may not match the program's own iterations.");
  return t;
}

StatsTable temporal(const Diagnosis& d) {
  StatsTable t{"temporal",
               "GPU time by rank: idle, compute, non-compute",
               {{"rank", "Rank", StatsUnit::Count},
                {"kernel_span_ns", "Kernel span", StatsUnit::Duration,
                 "first GPU operation's start to the last one's end (copies and memsets included)"},
                {"idle_ns", "Idle", StatsUnit::Duration, "span minus the union of all operations"},
                {"idle_pct", "Idle %", StatsUnit::Percent},
                {"compute_ns", "Compute", StatsUnit::Duration,
                 "union of computation kernels (not nccl*, not copies or memsets)"},
                {"compute_pct", "Compute %", StatsUnit::Percent},
                {"non_compute_ns", "Non-compute", StatsUnit::Duration,
                 "communication and memory time not under a computation kernel"},
                {"non_compute_pct", "Non-compute %", StatsUnit::Percent}},
               {},
               {}};
  for (const TemporalBreakdown& b : d.temporal) {
    auto pct = [&](TimeNs v) -> StatsCell {
      if (b.span <= 0) return std::monostate{};
      return 100.0 * static_cast<double>(v) / static_cast<double>(b.span);
    };
    t.rows.push_back({int64_t{b.rank}, b.span, b.idle, pct(b.idle), b.compute, pct(b.compute),
                      b.nonCompute, pct(b.nonCompute)});
  }
  if (d.temporal.empty()) t.notes.push_back("No GPU operations in the range.");
  return t;
}

StatsTable kernelTypes(const Diagnosis& d) {
  StatsTable t{"kernel_types",
               "GPU time by kind of work and overlap",
               {{"rank", "Rank", StatsUnit::Count},
                {"type", "Type", StatsUnit::Text,
                 "COMPUTATION, COMMUNICATION (nccl*) or MEMORY (copies, memsets), or the set "
                 "running at once"},
                {"ns", "Time", StatsUnit::Duration, "time during which exactly this set ran"}},
               {},
               {"Every busy nanosecond is in exactly one row: the rows of a rank add up to its "
                "kernel span minus idle."}};
  for (const TypeSetTime& s : d.kernelTypes)
    t.rows.push_back({int64_t{s.rank}, typeSetLabel(s.types), s.time});
  return t;
}

StatsTable idle(const Diagnosis& d) {
  StatsTable t{"idle",
               "Idle time by cause, per stream",
               {{"rank", "Rank", StatsUnit::Count},
                {"stream", "Stream", StatsUnit::Count, "the stream's number in the trace"},
                {"host_wait_ns", "Host wait", StatsUnit::Duration,
                 "the launching CPU call started after the stream's previous operation ended"},
                {"kernel_wait_ns", "Kernel wait", StatsUnit::Duration,
                 "a shorter gap than the threshold between launched operations"},
                {"other_ns", "Other", StatsUnit::Duration,
                 "launched in time, yet the stream waited (synchronisation, other streams)"},
                {"unknown_ns", "Unknown", StatsUnit::Duration,
                 "the operation's launching call is not in the trace"},
                {"gaps", "Gaps", StatsUnit::Count}},
               {},
               {}};
  for (const StreamIdle& s : d.idle) {
    int64_t gaps = 0;
    for (uint32_t g : s.gaps) gaps += g;
    t.rows.push_back({int64_t{s.rank}, int64_t{s.streamId},
                      s.time[static_cast<int>(IdleCause::HostWait)],
                      s.time[static_cast<int>(IdleCause::KernelWait)],
                      s.time[static_cast<int>(IdleCause::Other)],
                      s.time[static_cast<int>(IdleCause::Unknown)], gaps});
  }
  // How sure: causes rest on knowing which call launched each operation.
  if (d.gpuOpsInSession > d.gpuOpsWithLaunch) {
    t.notes.push_back(formatCount(d.gpuOpsInSession - d.gpuOpsWithLaunch) + " of " +
                      formatCount(d.gpuOpsInSession) +
                      " GPU operations have no known launching call (no flow or correlation id): "
                      "the gaps before them are 'unknown', not guessed.");
  }
  return t;
}

StatsTable commOverlapTable(const Diagnosis& d) {
  StatsTable t{"comm_overlap",
               "Communication overlapped by computation",
               {{"rank", "Rank", StatsUnit::Count},
                {"percent", "Overlap %", StatsUnit::Percent,
                 "time computing while communicating / time communicating"},
                {"communication_ns", "Communication", StatsUnit::Duration},
                {"overlapped_ns", "Overlapped", StatsUnit::Duration}},
               {},
               {}};
  bool any = false;
  for (const CommOverlap& o : d.commOverlap) {
    StatsCell pct = std::monostate{};
    if (auto p = o.percent()) pct = *p, any = true;
    t.rows.push_back({int64_t{o.rank}, pct, o.communicating, o.overlapped});
  }
  if (!any) t.notes.push_back("No communication kernels (nccl*): no overlap to measure.");
  return t;
}

StatsTable launchTable(const Diagnosis& d) {
  StatsTable t{"launch",
               "Launches by operation name: CPU launch time, GPU time, launch delay",
               {{"rank", "Rank", StatsUnit::Count},
                {"name", "Name", StatsUnit::Text},
                {"count", "Count", StatsUnit::Count, "operations whose launching call is known"},
                {"cpu_launch_mean_ns", "CPU launch (mean)", StatsUnit::Duration,
                 "the launching API call's duration"},
                {"gpu_mean_ns", "GPU time (mean)", StatsUnit::Duration},
                {"gpu_total_ns", "GPU time", StatsUnit::Duration},
                {"launch_delay_mean_ns", "Launch delay (mean)", StatsUnit::Duration,
                 "the operation's start minus the end of its launching call"},
                {"launch_delay_max_ns", "Launch delay (max)", StatsUnit::Duration},
                {"short", "Short", StatsUnit::Count,
                 "operations shorter on the GPU than their launch on the CPU"},
                {"runtime_outliers", "Runtime outliers", StatsUnit::Count,
                 "launching calls longer than the runtime cutoff (50 µs)"},
                {"delay_outliers", "Delay outliers", StatsUnit::Count,
                 "launch delays longer than the delay cutoff (100 µs)"}},
               {},
               {}};
  uint64_t shortOps = 0, runtime = 0, delay = 0;
  for (const LaunchSummary& l : d.launch.byName) {
    auto n = static_cast<TimeNs>(l.count);
    t.rows.push_back({int64_t{l.rankNumber}, l.label, static_cast<int64_t>(l.count), l.cpuTotal / n,
                      l.gpuTotal / n, l.gpuTotal, l.delayTotal / n, l.delayMax,
                      static_cast<int64_t>(l.shortOps), static_cast<int64_t>(l.runtimeOutliers),
                      static_cast<int64_t>(l.delayOutliers)});
    shortOps += l.shortOps, runtime += l.runtimeOutliers, delay += l.delayOutliers;
  }
  if (d.launch.ops == 0) {
    t.notes.push_back("No GPU operations start in the range.");
    return t;
  }
  t.notes.push_back(formatCount(shortOps) + " short operations, " + formatCount(runtime) +
                    " runtime outliers, " + formatCount(delay) + " launch-delay outliers among " +
                    formatCount(d.launch.withLaunch) + " operations with a known launch.");
  if (d.launch.withLaunch < d.launch.ops)
    t.notes.push_back(formatCount(d.launch.ops - d.launch.withLaunch) + " of " +
                      formatCount(d.launch.ops) +
                      " operations have no known launching call (no flow or correlation id) "
                      "and are left out.");
  return t;
}

StatsTable queueTable(const Diagnosis& d) {
  StatsTable t{"queue",
               "Outstanding operations per stream",
               {{"rank", "Rank", StatsUnit::Count},
                {"stream", "Stream", StatsUnit::Count, "the stream's number in the trace"},
                {"ops", "Operations", StatsUnit::Count, "operations whose launch is known"},
                {"max_length", "Max queue", StatsUnit::Count,
                 "operations launched and not yet finished at once"},
                {"mean_length", "Mean queue", StatsUnit::Count,
                 "time-weighted, over the time the queue was not empty"},
                {"full_ns", "Blocked (queue full)", StatsUnit::Duration,
                 "time at 1024 outstanding operations: the next launch blocks the CPU"}},
               {},
               {"An operation joins its stream's queue when its launching call starts and "
                "leaves it when it ends on the GPU (HTA's queue length)."}};
  for (const StreamQueue& q : d.queues)
    t.rows.push_back({int64_t{q.rank}, int64_t{q.streamId}, static_cast<int64_t>(q.ops),
                      int64_t{q.maxLength}, q.meanLength, q.fullTime});
  if (d.queues.empty())
    t.notes.push_back(d.launch.ops > 0 && d.launch.withLaunch == 0
                          ? "No operation has a known launching call: queue lengths unknown."
                          : "No operations queued in the range.");
  return t;
}

StatsTable findingsTable(const Diagnosis& d) {
  StatsTable t{
      "findings",
      "Expert rules: what costs time, largest first",
      {{"rule", "Rule", StatsUnit::Text},
       {"rank", "Rank", StatsUnit::Count},
       {"cost_ns", "Cost", StatsUnit::Duration, "the time it costs, as the rule defines it"},
       {"count", "Count", StatsUnit::Count, "calls, events, gaps or steps it covers"},
       {"start_ns", "Start", StatsUnit::Timestamp, "first occurrence, from the session start"},
       {"end_ns", "End", StatsUnit::Timestamp, "end of the last occurrence"},
       {"message", "Finding", StatsUnit::Text},
       {"advice", "Advice", StatsUnit::Text}},
      {},
      d.ruleNotes};
  for (const Finding& f : d.findings)
    t.rows.push_back({f.rule, int64_t{f.rank}, f.cost, static_cast<int64_t>(f.count),
                      f.start - d.sessionStart, f.end - d.sessionStart, f.message, f.advice});
  if (d.findings.empty()) t.notes.push_back("No rule found anything in the range.");
  return t;
}

}  // namespace

StatsTable diagnosisTable(const Diagnosis& d, DiagnosisTable which) {
  switch (which) {
    case DiagnosisTable::Steps:
      return stepsTable(d);
    case DiagnosisTable::Temporal:
      return temporal(d);
    case DiagnosisTable::KernelTypes:
      return kernelTypes(d);
    case DiagnosisTable::Idle:
      return idle(d);
    case DiagnosisTable::CommOverlap:
      return commOverlapTable(d);
    case DiagnosisTable::Launch:
      return launchTable(d);
    case DiagnosisTable::Queue:
      return queueTable(d);
    case DiagnosisTable::Findings:
      return findingsTable(d);
  }
  return temporal(d);
}

}  // namespace ts
