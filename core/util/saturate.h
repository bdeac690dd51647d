// Integer sums and products that stop at the int64 limits instead of overflowing: for figures
// added up from files a user hands over (a hostile or damaged part file must not make undefined
// behaviour; real figures are far from the limits).
#pragma once

#include <cstdint>
#include <limits>

namespace ts {

inline int64_t saturatingAdd(int64_t a, int64_t b) {
  int64_t out;
  if (!__builtin_add_overflow(a, b, &out)) return out;
  return b > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
}

inline uint64_t saturatingAdd(uint64_t a, uint64_t b) {
  uint64_t out;
  if (!__builtin_add_overflow(a, b, &out)) return out;
  return std::numeric_limits<uint64_t>::max();
}

inline int64_t saturatingMul(int64_t a, int64_t b) {
  int64_t out;
  if (!__builtin_mul_overflow(a, b, &out)) return out;
  return (a < 0) != (b < 0) ? std::numeric_limits<int64_t>::min()
                            : std::numeric_limits<int64_t>::max();
}

}  // namespace ts
