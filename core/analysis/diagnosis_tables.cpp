#include "analysis/diagnosis_tables.h"

#include "util/format.h"

namespace ts {

namespace {

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

}  // namespace

StatsTable diagnosisTable(const Diagnosis& d, DiagnosisTable which) {
  switch (which) {
    case DiagnosisTable::Temporal:
      return temporal(d);
    case DiagnosisTable::KernelTypes:
      return kernelTypes(d);
    case DiagnosisTable::Idle:
      return idle(d);
    case DiagnosisTable::CommOverlap:
      return commOverlapTable(d);
  }
  return temporal(d);
}

}  // namespace ts
