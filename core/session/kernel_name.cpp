#include "session/kernel_name.h"

namespace ts {

namespace {

constexpr std::string_view kAnonymous = "(anonymous namespace)";

// The position of the bracket closing the one at `open` ('<' or '('), npos if unbalanced.
size_t closing(std::string_view s, size_t open) {
  int angle = 0, paren = 0;
  for (size_t i = open; i < s.size(); ++i) {
    switch (s[i]) {
      case '<':
        ++angle;
        break;
      case '>':
        if (angle > 0 && --angle == 0 && paren == 0) return i;
        break;
      case '(':
        ++paren;
        break;
      case ')':
        if (--paren == 0 && angle == 0) return i;
        break;
      default:
        break;
    }
  }
  return std::string_view::npos;
}

}  // namespace

std::string_view shortKernelName(std::string_view name) {
  // The qualified name ends at the parameter list: the first '(' outside template arguments
  // that is not "(anonymous namespace)" or a lambda's "{lambda(…)#1}".
  size_t end = std::string_view::npos;
  bool templated = false;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c == '<') {
      templated = true;
      i = closing(name, i);
      if (i == std::string_view::npos) return name;
    } else if (c == '(') {
      if (name.substr(i, kAnonymous.size()) == kAnonymous) {
        i += kAnonymous.size() - 1;
        continue;
      }
      if (i == 0 || name[i - 1] == ' ') return name;  // "Memcpy HtoD (Pageable -> Device)"
      end = i;
      break;
    } else if (c == '{') {  // {lambda(float)#1}
      size_t close = name.find('}', i);
      if (close == std::string_view::npos) return name;
      i = close;
    }
  }
  if (end == std::string_view::npos && !templated) return name;
  std::string_view qualified = name.substr(0, end);
  // Template arguments at the end: "foo<4, bar<float> >" → "foo".
  while (!qualified.empty() && qualified.back() == ' ') qualified.remove_suffix(1);
  if (!qualified.empty() && qualified.back() == '>') {
    int depth = 0;
    for (size_t i = qualified.size(); i-- > 0;) {
      if (qualified[i] == '>') ++depth;
      if (qualified[i] == '<' && --depth == 0) {
        qualified = qualified.substr(0, i);
        break;
      }
    }
  }
  // The last component, outside brackets: after the last "::" or the return type's space.
  int depth = 0;
  for (size_t i = qualified.size(); i-- > 0;) {
    const char c = qualified[i];
    if (c == '>' || c == ')' || c == '}') ++depth;
    if (c == '<' || c == '(' || c == '{') --depth;
    if (depth == 0 && (c == ' ' || (c == ':' && i > 0 && qualified[i - 1] == ':'))) {
      qualified = qualified.substr(i + 1);
      break;
    }
  }
  return qualified.empty() ? name : qualified;
}

}  // namespace ts
