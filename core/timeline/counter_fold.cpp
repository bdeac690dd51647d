#include "timeline/counter_fold.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ts {

CounterSummary summarizeCounter(const CounterTrack& c) {
  CounterSummary s;
  const auto& v = c.samples.value;
  for (size_t b = 0; b < v.size(); b += CounterSummary::kBlock) {
    auto [lo, hi] = std::minmax_element(
        v.begin() + static_cast<std::ptrdiff_t>(b),
        v.begin() + static_cast<std::ptrdiff_t>(std::min(v.size(), b + CounterSummary::kBlock)));
    s.blockMin.push_back(*lo);
    s.blockMax.push_back(*hi);
  }
  if (!v.empty()) {
    s.min = *std::min_element(s.blockMin.begin(), s.blockMin.end());
    s.max = *std::max_element(s.blockMax.begin(), s.blockMax.end());
    s.maxTime =
        c.samples.time[static_cast<size_t>(std::max_element(v.begin(), v.end()) - v.begin())];
  }
  return s;
}

void foldCounter(const CounterTrack& c, const CounterSummary& s, const TimeAxis& axis, int width,
                 std::vector<CounterColumn>& out) {
  out.clear();
  const auto& time = c.samples.time;
  const auto& value = c.samples.value;
  const size_t n = time.size();
  if (n == 0) return;
  // Min/max of samples [a, b): whole blocks from the summary, the ends sample by sample.
  auto range = [&](size_t a, size_t b, double& lo, double& hi) {
    lo = std::numeric_limits<double>::infinity();
    hi = -lo;
    const size_t B = CounterSummary::kBlock;
    while (a < b && a % B) lo = std::min(lo, value[a]), hi = std::max(hi, value[a]), ++a;
    while (a + B <= b)
      lo = std::min(lo, s.blockMin[a / B]), hi = std::max(hi, s.blockMax[a / B]), a += B;
    while (a < b) lo = std::min(lo, value[a]), hi = std::max(hi, value[a]), ++a;
  };
  for (int x = 0; x < width; ++x) {
    TimeNs t0 = axis.timeAt(x), t1 = axis.timeAt(x + 1);
    // The sample in force at t0 (the last at or before it) and every sample inside the column.
    size_t first =
        static_cast<size_t>(std::upper_bound(time.begin(), time.end(), t0) - time.begin());
    size_t last = static_cast<size_t>(
        std::lower_bound(time.begin() + static_cast<std::ptrdiff_t>(first), time.end(), t1) -
        time.begin());
    if (first == 0 && last == 0) continue;      // before the first sample
    if (first == n && time[n - 1] < t0) break;  // past the last sample: the counter has ended
    size_t from = first > 0 ? first - 1 : 0;
    if (from >= last) continue;
    double lo, hi;
    range(from, last, lo, hi);
    out.push_back({x, lo, hi});
  }
}

double counterCeiling(const CounterSummary& summary, double capacity) {
  // An empty tier is no tier near full: no capacity line along its top.
  if (capacity > 0 && summary.max > 0 && summary.max * 1.5 >= capacity)
    return std::max(capacity, summary.max);
  return summary.max > 0 ? summary.max * 1.1 : 1.0;  // a margin over the peak
}

}  // namespace ts
