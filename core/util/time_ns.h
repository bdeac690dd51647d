// Time in Tensorscope: signed 64-bit nanoseconds, everywhere (session events, the timeline, the
// simulator). Its own header so that util needs nothing from the session model.
#pragma once

#include <cstdint>

namespace ts {

using TimeNs = int64_t;

}  // namespace ts
