// Tracks a module adds to a copy of a session to draw what it computed (the simulation overlay's
// kernels and tensors, the diagnosis's steps and idle gaps): range events on lanes, first fit.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "session/session.h"

namespace ts {

struct RangeSpan {
  TimeNs start = 0, end = 0;
  std::string name, category, args;
};

// The same with strings the session interned already (many spans sharing few names).
struct RangeSpanIds {
  TimeNs start = 0, end = 0;
  StringId name = 0, category = 0, args = 0;
};

// Who a track belongs to (indices into the session's tables, kNone where it has none).
struct TrackOwner {
  uint32_t device = kNone;
  uint32_t stream = kNone;
  uint32_t thread = kNone;
};

// Appends a range track of `owner` holding `spans` (any order; an end before its start is taken
// as the start), overlapping spans spread over lanes first-fit. Returns the track's index and,
// per span given, its event index. The session needs finalize() before it is drawn.
uint32_t addRangeTrack(Session& s, TrackOwner owner, std::vector<RangeSpan> spans,
                       std::vector<uint32_t>* eventOf = nullptr);
uint32_t addRangeTrack(Session& s, TrackOwner owner, std::vector<RangeSpanIds> spans);

}  // namespace ts
