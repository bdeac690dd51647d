#include "analysis/temporal_breakdown.h"

namespace ts {

TemporalBreakdown temporalBreakdown(const RankOps& ops) {
  TemporalBreakdown b;
  b.rank = ops.rankNumber;
  b.span = ops.last - ops.first;
  b.idle = b.span - coveredLength(ops.busy);
  b.compute = coveredLength(ops.byType[static_cast<int>(OpType::Computation)]);
  b.nonCompute = b.span - b.idle - b.compute;
  return b;
}

}  // namespace ts
