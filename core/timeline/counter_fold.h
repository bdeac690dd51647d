// Counter rows: the min and max of a counter per pixel column, from per-block min/max summaries
// (a mipmap level), so a frame costs O(pixels · log samples) however dense the counter is.
#pragma once

#include <vector>

#include "session/session.h"
#include "timeline/time_axis.h"

namespace ts {

struct CounterSummary {
  static constexpr uint32_t kBlock = 64;
  std::vector<double> blockMin, blockMax;  // per kBlock samples
  double min = 0, max = 0;                 // over all samples
  TimeNs maxTime = 0;                      // the first sample at the maximum (the peak)
};

CounterSummary summarizeCounter(const CounterTrack& counter);

// The value a counter row's top stands for. A row with a capacity (a memory tier) is scaled to it
// when the peak comes near it (the headroom is what matters); else to the data, so a 1.75 GiB peak
// in 128 GiB of host memory is a shape, not a line on the floor. The capacity line is drawn only
// when it is on the scale (capacity <= ceiling).
double counterCeiling(const CounterSummary& summary, double capacity);

// One column per pixel with samples in it (value held from each sample to the next).
struct CounterColumn {
  int x;
  double min, max;
};

void foldCounter(const CounterTrack& counter, const CounterSummary& summary, const TimeAxis& axis,
                 int width, std::vector<CounterColumn>& out);

}  // namespace ts
