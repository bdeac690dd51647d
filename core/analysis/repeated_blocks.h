// Iterations read from structure alone: the longest stretch of a name sequence that is two or
// more consecutive equal blocks (a training loop launches the same kernels every step). Used
// when a trace marks no steps — by the model mapping and by the diagnosis's step table.
#pragma once

#include <utility>
#include <vector>

#include "session/types.h"

namespace ts {

// [begin, end) positions of each block, in order; empty when nothing repeats. The period p and
// offset o that let the most names be read as repeated blocks of p (at least 3 names, two of
// them distinct): O(n · p_max) comparisons over a bounded prefix (20,000 names, p ≤ 5,000).
std::vector<std::pair<size_t, size_t>> repeatedBlocks(const std::vector<StringId>& names);

}  // namespace ts
