#include "analysis/repeated_blocks.h"

#include <algorithm>
#include <set>

namespace ts {

std::vector<std::pair<size_t, size_t>> repeatedBlocks(const std::vector<StringId>& names) {
  const size_t n = std::min<size_t>(names.size(), 20000);
  size_t bestCover = 0, bestP = 0, bestO = 0, bestReps = 0;
  for (size_t p = 3; 2 * p <= n && p <= 5000; ++p) {
    size_t run = 0;
    for (size_t i = 0; i + p < n; ++i) {
      run = names[i] == names[i + p] ? run + 1 : 0;
      if (run < p) continue;
      size_t reps = run / p + 1, cover = reps * p;
      if (cover > bestCover) {
        size_t o = i + 1 - run;
        std::set<StringId> distinct(names.begin() + static_cast<std::ptrdiff_t>(o),
                                    names.begin() + static_cast<std::ptrdiff_t>(o + p));
        if (distinct.size() < 2) continue;
        bestCover = cover, bestP = p, bestO = o, bestReps = reps;
      }
    }
  }
  std::vector<std::pair<size_t, size_t>> blocks;
  for (size_t r = 0; r < bestReps; ++r)
    blocks.emplace_back(bestO + r * bestP, bestO + (r + 1) * bestP);
  return blocks;
}

}  // namespace ts
