// What an importer reports besides the events it adds to the builder: enough to align several
// files (ranks) on one clock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "session/types.h"

namespace ts {

// What a damaged trace lost, when it was opened anyway (recovery): where it was cut or stopped
// being JSON, and the events skipped for impossible fields, by problem (as Perfetto's import
// stats).
struct ImportDamage {
  bool truncated = false;
  size_t truncatedInsideEvent = 0;  // 1-based; 0 when the cut fell between events
  size_t truncatedAtByte = 0;
  std::string broken;  // the text stopped being JSON here (the problem), at:
  size_t brokenAtEvent = 0, brokenAtByte = 0;
  size_t skippedEvents = 0;
  std::map<std::string, size_t> skippedByProblem;
  std::string summary;  // all of it in a sentence; empty for an undamaged trace
  bool any() const { return !summary.empty(); }
};

struct ImportInfo {
  bool absoluteClock = false;  // timestamps are wall-clock (epoch-based) nanoseconds
  TimeNs firstTimestamp = 0;   // earliest event time, before any rank clock offset
  size_t events = 0;           // source events read
  // What the reader left out, by what it was ("OSRT_API rows", "events of phase 'P'", "the
  // profiler's notes about itself"): counted, never dropped silently. The session keeps it
  // (Provenance::skipped) for the overview and `info`.
  std::map<std::string, uint64_t> skipped;
  bool pytorch = false;  // PyTorch profiler (Kineto) categories seen: a Kineto trace
  int32_t distributedRank = -1;
  int64_t worldSize = -1;  // the job's rank count (Kineto's distributedInfo.world_size), if given
  std::string host;  // the source's host name, when it says (else the file name labels the rank)
  ImportDamage damage;
};

}  // namespace ts
