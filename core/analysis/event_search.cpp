#include "analysis/event_search.h"

#include <algorithm>
#include <cctype>
#include <regex>

namespace ts {

namespace {
bool containsIgnoringCase(std::string_view text, std::string_view needle) {
  auto it = std::search(text.begin(), text.end(), needle.begin(), needle.end(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) ==
           std::tolower(static_cast<unsigned char>(b));
  });
  return it != text.end();
}
}  // namespace

Result<std::vector<SearchHit>> findEvents(const Session& s, std::string_view pattern, bool regex) {
  std::vector<SearchHit> hits;
  if (pattern.empty()) return hits;
  std::vector<bool> matches(s.strings.size(), false);
  try {
    std::regex re;
    if (regex) re = std::regex(std::string(pattern), std::regex::ECMAScript | std::regex::icase);
    for (StringId id = 1; id < s.strings.size(); ++id) {
      std::string_view name = s.str(id);
      matches[id] = regex ? std::regex_search(name.begin(), name.end(), re)
                          : containsIgnoringCase(name, pattern);
    }
  } catch (const std::regex_error& e) {
    return Error{"invalid regular expression '" + std::string(pattern) + "': " + e.what()};
  }
  for (uint32_t t = 0; t < s.tracks.size(); ++t) {
    const Track& track = s.tracks[t];
    for (uint32_t i = 0; i < track.size(); ++i) {
      if (matches[track.hot.name[i]]) hits.push_back({track.hot.start[i], t, i});
    }
  }
  std::sort(hits.begin(), hits.end());
  return hits;
}

size_t nextHit(const std::vector<SearchHit>& hits, TimeNs t, bool backwards) {
  if (hits.empty()) return static_cast<size_t>(kNone);
  if (!backwards) {
    auto it = std::upper_bound(hits.begin(), hits.end(), t,
                               [](TimeNs v, const SearchHit& h) { return v < h.start; });
    return it == hits.end() ? 0 : static_cast<size_t>(it - hits.begin());
  }
  auto it = std::lower_bound(hits.begin(), hits.end(), t,
                             [](const SearchHit& h, TimeNs v) { return h.start < v; });
  return it == hits.begin() ? hits.size() - 1 : static_cast<size_t>(it - hits.begin()) - 1;
}

}  // namespace ts
