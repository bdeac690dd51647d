#include "analysis/session_compare.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace ts {

namespace {

struct Sum {
  int64_t count = 0, total = 0, bytes = 0;
};

std::map<std::string, Sum> kernelsByName(const Session& s) {
  std::map<std::string, Sum> out;
  for (const Track& t : s.tracks) {
    if (t.kind != EventKind::Kernel) continue;
    for (uint32_t e = 0; e < t.size(); ++e) {
      Sum& x = out[std::string(s.str(t.hot.name[e]))];
      ++x.count;
      x.total += t.hot.end[e] - t.hot.start[e];
    }
  }
  return out;
}

std::map<std::string, Sum> copiesByKind(const Session& s) {
  std::map<std::string, Sum> out;
  for (const Track& t : s.tracks) {
    if (t.kind != EventKind::Memcpy && t.kind != EventKind::Memset) continue;
    for (uint32_t e = 0; e < t.size(); ++e) {
      bool memset = t.kind == EventKind::Memset;
      Sum& x = out[memset ? std::string("Memset")
                          : copyLabel(t.memcpys.copyKind[e], t.memcpys.migration[e])];
      ++x.count;
      x.total += t.hot.end[e] - t.hot.start[e];
      x.bytes += static_cast<int64_t>(memset ? t.memsets.bytes[e] : t.memcpys.bytes[e]);
    }
  }
  return out;
}

StatsCell mean(const Sum& x) {
  return x.count ? StatsCell{static_cast<double>(x.total) / static_cast<double>(x.count)}
                 : StatsCell{};
}
StatsCell count(const Sum* x) {
  return x ? StatsCell{x->count} : StatsCell{};
}
StatsCell total(const Sum* x) {
  return x ? StatsCell{x->total} : StatsCell{};
}
StatsCell percent(int64_t a, int64_t b) {
  return a > 0 ? StatsCell{100.0 * static_cast<double>(b - a) / static_cast<double>(a)}
               : StatsCell{};
}

// Rows ordered by the size of the change, largest first; then by name.
template <class Row>
void byChange(std::vector<std::pair<int64_t, Row>>& rows) {
  std::sort(rows.begin(), rows.end(), [](const auto& x, const auto& y) {
    if (std::llabs(x.first) != std::llabs(y.first))
      return std::llabs(x.first) > std::llabs(y.first);
    return std::get<std::string>(x.second.front()) < std::get<std::string>(y.second.front());
  });
}

}  // namespace

StatsTable compareKernels(const Session& a, const Session& b) {
  auto ka = kernelsByName(a), kb = kernelsByName(b);
  std::map<std::string, std::pair<const Sum*, const Sum*>> names;
  for (const auto& [n, x] : ka) names[n].first = &x;
  for (const auto& [n, x] : kb) names[n].second = &x;
  StatsTable t{"compare_kernels", "Kernels by name: A → B", {}, {}, {}};
  t.columns = {{"name", "Name", StatsUnit::Text},
               {"count_a", "Count A", StatsUnit::Count},
               {"count_b", "Count B", StatsUnit::Count},
               {"total_a_ns", "Total A", StatsUnit::Duration},
               {"total_b_ns", "Total B", StatsUnit::Duration},
               {"mean_a_ns", "Mean A", StatsUnit::Duration},
               {"mean_b_ns", "Mean B", StatsUnit::Duration},
               {"delta_ns", "Δ total", StatsUnit::Duration},
               {"delta_pct", "Δ %", StatsUnit::Percent}};
  std::vector<std::pair<int64_t, std::vector<StatsCell>>> rows;
  int64_t sumA = 0, sumB = 0;
  for (const auto& [name, pair] : names) {
    const auto& [x, y] = pair;
    int64_t ta = x ? x->total : 0, tb = y ? y->total : 0;
    sumA += ta, sumB += tb;
    rows.push_back({tb - ta,
                    {name, count(x), count(y), total(x), total(y), x ? mean(*x) : StatsCell{},
                     y ? mean(*y) : StatsCell{}, tb - ta, percent(ta, tb)}});
  }
  byChange(rows);
  for (auto& [delta, row] : rows) t.rows.push_back(std::move(row));
  t.rows.push_back({std::string("all kernels"), StatsCell{}, StatsCell{}, sumA, sumB, StatsCell{},
                    StatsCell{}, sumB - sumA, percent(sumA, sumB)});
  t.notes.push_back(
      "Δ = B − A; rows by the size of the change. A kernel name in only one session leaves the "
      "other side empty.");
  return t;
}

StatsTable compareCopies(const Session& a, const Session& b) {
  auto ca = copiesByKind(a), cb = copiesByKind(b);
  std::map<std::string, std::pair<const Sum*, const Sum*>> kinds;
  for (const auto& [n, x] : ca) kinds[n].first = &x;
  for (const auto& [n, x] : cb) kinds[n].second = &x;
  StatsTable t{"compare_copies", "Copies by kind: A → B", {}, {}, {}};
  t.columns = {
      {"operation", "Operation", StatsUnit::Text},  {"count_a", "Count A", StatsUnit::Count},
      {"count_b", "Count B", StatsUnit::Count},     {"bytes_a", "Bytes A", StatsUnit::Bytes},
      {"bytes_b", "Bytes B", StatsUnit::Bytes},     {"time_a_ns", "Time A", StatsUnit::Duration},
      {"time_b_ns", "Time B", StatsUnit::Duration}, {"delta_ns", "Δ time", StatsUnit::Duration},
      {"delta_pct", "Δ %", StatsUnit::Percent}};
  std::vector<std::pair<int64_t, std::vector<StatsCell>>> rows;
  for (const auto& [kind, pair] : kinds) {
    const auto& [x, y] = pair;
    int64_t ta = x ? x->total : 0, tb = y ? y->total : 0;
    rows.push_back(
        {tb - ta,
         {kind, count(x), count(y), x ? StatsCell{x->bytes} : StatsCell{},
          y ? StatsCell{y->bytes} : StatsCell{}, total(x), total(y), tb - ta, percent(ta, tb)}});
  }
  byChange(rows);
  for (auto& [delta, row] : rows) t.rows.push_back(std::move(row));
  t.notes.push_back("Δ = B − A.");
  return t;
}

}  // namespace ts
