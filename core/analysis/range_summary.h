// What a selected time range holds: kernel count, how busy each GPU was (union of its kernels),
// and the bytes copied by kind — the summary the timeline shows for a range selection.
#pragma once

#include <array>
#include <vector>

#include "session/session.h"
#include "util/progress.h"

namespace ts {

struct RangeSummary {
  TimeNs start = 0, end = 0;
  size_t kernels = 0;           // kernels intersecting the range
  std::vector<double> gpuBusy;  // per device: fraction of the range with a kernel running
  std::array<uint64_t, kCopyKindCount> copyBytes{};  // copies starting in the range, by kind
  size_t copies = 0;
};

// Costs O(events in the range · log) — about 0.4 s for all of a 10 M-event session — so the GUI
// runs it off its thread when the selection changes; cancelled, it returns what it had.
RangeSummary summarizeRange(const Session& session, TimeNs start, TimeNs end,
                            const Progress& progress = {});

}  // namespace ts
