#include "timeline/row_arrangement.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace ts {

std::string rowPath(const TimelineRows& rows, size_t row) {
  std::string path = rows[row].label;
  int depth = rows[row].depth;
  for (size_t i = row; i-- > 0 && depth > 0;) {
    if (rows[i].depth < depth) {
      depth = rows[i].depth;
      path = rows[i].label + "/" + path;
    }
  }
  return path;
}

std::vector<std::string> rowPaths(const TimelineRows& rows) {
  std::vector<std::string> paths;
  paths.reserve(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) paths.push_back(rowPath(rows, i));
  return paths;
}

RowArrangement savedArrangement(const std::vector<std::string>& paths,
                                const std::vector<size_t>& order, const std::vector<bool>& hidden) {
  RowArrangement a;
  for (size_t i : order) {
    a.order.push_back(paths[i]);
    if (hidden[i]) a.hidden.push_back(paths[i]);
  }
  return a;
}

void applyArrangement(const RowArrangement& saved, const std::vector<std::string>& paths,
                      std::vector<size_t>& order, std::vector<bool>& hidden) {
  std::unordered_map<std::string, size_t> rank;
  for (size_t i = 0; i < saved.order.size(); ++i) rank.emplace(saved.order[i], i);
  const std::unordered_set<std::string> hiddenPaths(saved.hidden.begin(), saved.hidden.end());
  std::vector<std::pair<size_t, size_t>> keyed;  // (place, row)
  hidden.assign(paths.size(), false);
  for (size_t i = 0; i < paths.size(); ++i) {
    auto it = rank.find(paths[i]);
    keyed.emplace_back(it != rank.end() ? it->second : saved.order.size() + i, i);
    hidden[i] = hiddenPaths.count(paths[i]) > 0;
  }
  std::stable_sort(keyed.begin(), keyed.end());
  order.resize(paths.size());
  for (size_t i = 0; i < keyed.size(); ++i) order[i] = keyed[i].second;
}

}  // namespace ts
