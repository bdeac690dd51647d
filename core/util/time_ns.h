// Time in Tensorscope: signed 64-bit nanoseconds, everywhere (session events, the timeline, the
// simulator). Its own header so that util needs nothing from the session model.
#pragma once

#include <cstdint>

namespace ts {

using TimeNs = int64_t;

// The times a session may hold: ±2^62 ns (±146 years around its clock's zero). Every reader keeps
// to it, so that arithmetic on times (an end plus one, a span, a sum of spans) cannot overflow.
inline constexpr TimeNs kMaxTimeNs = TimeNs{1} << 62;
inline constexpr bool timeInRange(TimeNs t) {
  return t >= -kMaxTimeNs && t <= kMaxTimeNs;
}

}  // namespace ts
