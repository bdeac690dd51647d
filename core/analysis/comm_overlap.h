// Communication/computation overlap of a rank (HolisticTraceAnalysis's
// get_comm_comp_overlap): of the time the GPU communicates, the share during which it also
// computes. Low overlap means collectives wait on the critical path.
#pragma once

#include <optional>

#include "analysis/gpu_ops.h"

namespace ts {

struct CommOverlap {
  int32_t rank = 0;          // Rank::rank
  TimeNs communicating = 0;  // union of communication kernels
  TimeNs overlapped = 0;     // ... during which a computation kernel runs
  // overlapped / communicating in %, none when the rank does not communicate.
  std::optional<double> percent() const {
    if (communicating <= 0) return std::nullopt;
    return 100.0 * static_cast<double>(overlapped) / static_cast<double>(communicating);
  }
};

CommOverlap commOverlap(const RankOps& ops);

}  // namespace ts
