// Generated live captures for the tests of what grows with one (session/live_session.h and the
// layouts that extend each other, timeline/timeline_rows.h): a training loop's events — per
// thread API calls, some launching kernels or copies on one of two streams (kernels sometimes
// overlapping: a second lane), nested NVTX ranges (some ended later, some never), stream syncs,
// marks — fed to a LiveSession in a shuffled arrival order (every 7th round some very late: their
// track is put in order again) and published in random slices with random holdbacks.
#pragma once

#include <functional>
#include <vector>

#include "session/live_session.h"
#include "session/session.h"
#include "util/result.h"

namespace ts::testing {

// One generated event and how it arrives.
struct LiveRecord {
  EventKind kind;
  uint32_t owner;  // stream or thread index (of the two each round has)
  TimeNs start, end;
  int name;
  uint32_t correlation = 0;
  uint32_t context = 0;
  bool open = false;   // an NVTX range whose end comes later (closeAt)
  size_t closeAt = 0;  // arrival position of its end
  bool neverClosed = false;
};

struct LiveRound {
  std::vector<LiveRecord> records;
  std::vector<size_t> arrival;  // record indices in arrival order
  TimeNs latest = INT64_MIN;    // the latest time the live session saw
  SessionPtr final;             // the final publish
  size_t lateRebuilds = 0;      // tracks put in order again (LiveSession::lateRebuilds)
};

// Round `round` (its seed; 40 + 4 * round events). `snapshot` gets each publish along the way.
Result<LiveRound> playLiveRound(int round, const std::function<void(SessionPtr)>& snapshot);

// SessionBuilder's session from the same events given at once (an open range never closed ends
// at the latest time seen, as a capture gives it).
Result<SessionPtr> buildLiveRound(const LiveRound& played);

}  // namespace ts::testing
