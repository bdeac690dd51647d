// G10's compile-time plan (prefetch_guide.config, written by its planner): one hint per line,
//   Issued Time: <kernel> Tensor: <id> G:<o|x> From: Not_Known, To:
//   <In_gpu|In_cpu|In_ssd|Not_present>
// read as a Plan our simulator executes — the check that our simulator gives G10's iteration time
// for G10's own plan, and that our reproduction of G10's planner gives G10's hints.
#pragma once

#include <string>

#include "memsim/engine/plan.h"
#include "memsim/formats/g10_workload.h"
#include "util/result.h"

namespace ts::memsim {

// In_gpu before a tensor's first use is an allocation, after it a prefetch; In_cpu / In_ssd an
// eviction to host memory / the SSD; Not_present a free. Issued at kernel n (the kernel count)
// means kernel 0 of the next iteration. Errors name the file and line.
Result<Plan> loadG10Plan(const std::string& path, const G10Workload& workload);

}  // namespace ts::memsim
