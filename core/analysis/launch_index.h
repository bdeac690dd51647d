// Which CPU call launched each GPU operation, by the session's flows (correlation ids in
// CUPTI, Kineto and Nsight exports). Operations without a flow have no known launch: analyses
// that need it say "unknown" rather than guess.
#pragma once

#include <cstdint>
#include <vector>

#include "session/session.h"

namespace ts {

struct LaunchRef {
  uint32_t track = kNone;  // the API call's track, kNone when unknown
  uint32_t event = 0;
  bool known() const { return track != kNone; }
};

class LaunchIndex {
 public:
  explicit LaunchIndex(const Session& session);
  LaunchRef launchOf(uint32_t track, uint32_t event) const;
  // GPU operations with a known launch.
  size_t known() const { return known_; }

 private:
  std::vector<std::vector<LaunchRef>> byTrack_;  // empty for tracks no flow reaches
  size_t known_ = 0;
};

}  // namespace ts
