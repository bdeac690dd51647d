// Interned strings of a session: event names, domains, categories share one id space.
#pragma once

#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "session/types.h"

namespace ts {

class StringTable {
 public:
  StringTable();
  StringTable(const StringTable&) = delete;
  StringTable& operator=(const StringTable&) = delete;
  StringTable(StringTable&&) = default;
  StringTable& operator=(StringTable&&) = default;

  StringId intern(std::string_view text);
  std::string_view get(StringId id) const {
    return id < views_.size() ? views_[id] : std::string_view{};
  }
  size_t size() const { return views_.size(); }
  // The id of `text` when the table holds it (a lookup, nothing added).
  std::optional<StringId> find(std::string_view text) const {
    auto it = ids_.find(text);
    if (it == ids_.end()) return std::nullopt;
    return it->second;
  }
  void reserve(size_t n);

 private:
  // Strings live in blocks that never move, so the views stay valid as the table grows.
  std::deque<std::string> blocks_;
  std::vector<std::string_view> views_;
  std::unordered_map<std::string_view, StringId> ids_;
  std::string_view store(std::string_view text);
};

}  // namespace ts
