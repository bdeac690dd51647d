// Tensor vitality (G10's term): per tensor the kernels that use it, its birth and death, and the
// inactive intervals between uses — the windows in which it could live elsewhere. A global tensor
// (a weight) has one more interval, from its last use round to its first use of the next
// iteration. Durations come from the kernels' times. Matches G10's own interval.config.
#pragma once

#include <vector>

#include "memsim/engine/workload.h"

namespace ts::memsim {

struct InactiveInterval {
  int from = 0;         // first idle kernel
  int to = 0;           // the kernel that uses the tensor again (exclusive end; wraps when < from)
  bool wraps = false;   // round the iteration's end
  TimeNs duration = 0;  // sum of the idle kernels' durations
};

struct TensorLife {
  int tensor = 0;
  bool global = false;
  int birth = -1;         // first use (-1: never used)
  int death = -1;         // last use + 1
  std::vector<int> uses;  // kernels that read or write it, ascending
  std::vector<InactiveInterval> inactive;
};

std::vector<TensorLife> analyzeVitality(const SimWorkload& workload);

}  // namespace ts::memsim
