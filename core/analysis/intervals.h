// Sets of time intervals: union (busy time of concurrent work), intersection (overlap of two
// kinds of work), and the coverage of fixed buckets — the arithmetic behind utilisation and
// overlap reports, where concurrent kernels must count once.
#pragma once

#include <utility>
#include <vector>

#include "session/types.h"

namespace ts {

struct Interval {
  TimeNs start = 0;
  TimeNs end = 0;
  TimeNs length() const { return end - start; }
};

// Sorts and merges in place: the result is disjoint, sorted, and free of empty intervals.
void mergeIntervals(std::vector<Interval>& intervals);

// Total length of a merged set.
TimeNs coveredLength(const std::vector<Interval>& merged);

// Length of a merged set inside [a, b).
TimeNs coveredWithin(const std::vector<Interval>& merged, TimeNs a, TimeNs b);

// The intersection of two merged sets, merged.
std::vector<Interval> intersectIntervals(const std::vector<Interval>& a,
                                         const std::vector<Interval>& b);

// The gaps of a merged set inside [first start, last end) that last at least `minLength`.
std::vector<Interval> gapsBetween(const std::vector<Interval>& merged, TimeNs minLength);

// Fraction of each of `buckets` equal slices of [start, end) covered by a merged set. The last
// bucket absorbs the rounding remainder.
std::vector<double> bucketCoverage(const std::vector<Interval>& merged, TimeNs start, TimeNs end,
                                   int buckets);

// [start, end) of bucket i of `buckets` over [start, end).
std::pair<TimeNs, TimeNs> bucketBounds(TimeNs start, TimeNs end, int buckets, int i);

}  // namespace ts
