// What an importer reports besides the events it adds to the builder: enough to align several
// files (ranks) on one clock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "session/types.h"

namespace ts {

struct ImportInfo {
  bool absoluteClock = false;  // timestamps are wall-clock (epoch-based) nanoseconds
  TimeNs firstTimestamp = 0;   // earliest event time, before any rank clock offset
  size_t events = 0;           // source events read
  size_t skipped = 0;          // events of kinds Tensorscope does not model
  size_t bookkeeping = 0;      // the profiler's notes about itself, left out (its trace span…)
  bool pytorch = false;        // PyTorch profiler (Kineto) categories seen: a Kineto trace
  int32_t distributedRank = -1;
  std::string host;  // the source's host name, when it says (else the file name labels the rank)
};

}  // namespace ts
