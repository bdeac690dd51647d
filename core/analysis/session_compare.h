// Two captures side by side (before / after an optimisation): kernels by name and copies by kind
// with counts, totals, means and the change — the tables behind the compare view and
// `tensorscope-cli compare`.
#pragma once

#include "analysis/stats_table.h"
#include "session/session.h"

namespace ts {

// Kernels by name: count, total and mean in A and B, total delta (B − A) and delta %; sorted by
// the size of the change. Names in one session only show an empty side.
StatsTable compareKernels(const Session& a, const Session& b);

// Copies by kind and memsets: count, bytes and time in A and B, time delta and delta %.
StatsTable compareCopies(const Session& a, const Session& b);

}  // namespace ts
