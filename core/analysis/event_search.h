// Find: every event whose name matches a substring (case-insensitive) or a regular expression,
// in time order. Names are matched once each in the string table, then the name columns are
// scanned for the matching ids.
#pragma once

#include <string_view>
#include <vector>

#include "session/session.h"
#include "util/result.h"

namespace ts {

struct SearchHit {
  TimeNs start;
  uint32_t track, event;
  auto operator<=>(const SearchHit&) const = default;
};

// Errors: an invalid regular expression (the message says why).
Result<std::vector<SearchHit>> findEvents(const Session& session, std::string_view pattern,
                                          bool regex);

// The hit after (or before) time t, wrapping around; kNone when there are none.
size_t nextHit(const std::vector<SearchHit>& hits, TimeNs t, bool backwards);

}  // namespace ts
