#include "analysis/comm_overlap.h"

namespace ts {

CommOverlap commOverlap(const RankOps& ops) {
  const auto& comm = ops.byType[static_cast<int>(OpType::Communication)];
  const auto& comp = ops.byType[static_cast<int>(OpType::Computation)];
  CommOverlap o;
  o.rank = ops.rankNumber;
  o.communicating = coveredLength(comm);
  o.overlapped = coveredLength(intersectIntervals(comm, comp));
  return o;
}

}  // namespace ts
