#include "session/string_table.h"

namespace ts {

namespace {
constexpr size_t kBlockBytes = 1 << 16;
}

StringTable::StringTable() {
  views_.emplace_back();
  ids_.emplace(std::string_view{}, 0);
}

void StringTable::reserve(size_t n) {
  views_.reserve(n);
  ids_.reserve(n);
}

std::string_view StringTable::store(std::string_view text) {
  if (text.size() > kBlockBytes / 4) {
    blocks_.emplace_back(text);  // a large string gets a block of its own
    return blocks_.back();
  }
  if (blocks_.empty() || blocks_.back().capacity() - blocks_.back().size() < text.size()) {
    blocks_.emplace_back();
    blocks_.back().reserve(kBlockBytes);
  }
  std::string& block = blocks_.back();
  size_t offset = block.size();
  block.append(text);  // within capacity: no reallocation, earlier views stay valid
  return std::string_view(block.data() + offset, text.size());
}

StringId StringTable::intern(std::string_view text) {
  if (auto it = ids_.find(text); it != ids_.end()) return it->second;
  std::string_view stored = store(text);
  auto id = static_cast<StringId>(views_.size());
  views_.push_back(stored);
  ids_.emplace(stored, id);
  return id;
}

}  // namespace ts
