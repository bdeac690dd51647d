#include "util/text.h"

namespace ts {

std::vector<std::string_view> splitLines(std::string_view text) {
  std::vector<std::string_view> out;
  size_t from = 0;
  while (true) {
    const size_t nl = text.find('\n', from);
    std::string_view line = text.substr(from, nl == std::string_view::npos ? nl : nl - from);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.push_back(line);
    if (nl == std::string_view::npos) return out;
    from = nl + 1;
  }
}

std::string_view trim(std::string_view text) {
  constexpr std::string_view kSpace = " \t\r\n\f\v";
  const size_t a = text.find_first_not_of(kSpace);
  if (a == std::string_view::npos) return {};
  return text.substr(a, text.find_last_not_of(kSpace) - a + 1);
}

std::string atLine(const std::string& path, size_t line) {
  return path + ":" + std::to_string(line) + ": ";
}

}  // namespace ts
