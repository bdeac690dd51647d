// How the three kinds of GPU work overlap on a rank (HolisticTraceAnalysis's kernel-type
// breakdown): the time during which exactly a given set of types runs — COMPUTATION alone,
// "COMPUTATION overlapping COMMUNICATION", and so on for the seven non-empty sets.
#pragma once

#include <string>
#include <vector>

#include "analysis/gpu_ops.h"

namespace ts {

struct TypeSetTime {
  int32_t rank = 0;   // Rank::rank
  uint8_t types = 0;  // bit (1 << OpType) per type running
  TimeNs time = 0;
};

// "COMPUTATION overlapping COMMUNICATION overlapping MEMORY": the types of `mask` in the order
// computation, communication, memory.
std::string typeSetLabel(uint8_t mask);

// The sets that ran at all, in mask order (1..7); their times add up to the rank's busy time.
std::vector<TypeSetTime> kernelTypeOverlap(const RankOps& ops);

}  // namespace ts
