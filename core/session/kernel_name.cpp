#include "session/kernel_name.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

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

// The qualified name, up to its parameter list: the first '(' outside template arguments that
// is not "(anonymous namespace)" or a lambda's "{lambda(…)#1}". Empty when `name` is not a
// function's name with parameters or template arguments (kept as it is).
std::string_view qualifiedName(std::string_view name) {
  size_t end = std::string_view::npos;
  bool templated = false;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c == '<') {
      templated = true;
      i = closing(name, i);
      if (i == std::string_view::npos) return {};
    } else if (c == '(') {
      if (name.substr(i, kAnonymous.size()) == kAnonymous) {
        i += kAnonymous.size() - 1;
        continue;
      }
      if (i == 0 || name[i - 1] == ' ') return {};  // "Memcpy HtoD (Pageable -> Device)"
      end = i;
      break;
    } else if (c == '{') {  // {lambda(float)#1}
      size_t close = name.find('}', i);
      if (close == std::string_view::npos) return {};
      i = close;
    }
  }
  if (end == std::string_view::npos && !templated) return {};
  std::string_view qualified = name.substr(0, end);
  while (!qualified.empty() && qualified.back() == ' ') qualified.remove_suffix(1);
  return qualified;
}

// Where the template arguments ending `qualified` open ("foo<4, bar<float> >": at '<'), npos
// when it ends in none.
size_t templateOpen(std::string_view qualified) {
  if (qualified.empty() || qualified.back() != '>') return std::string_view::npos;
  int depth = 0;
  for (size_t i = qualified.size(); i-- > 0;) {
    if (qualified[i] == '>') ++depth;
    if (qualified[i] == '<' && --depth == 0) return i;
  }
  return std::string_view::npos;
}

// Splits `s` at `sep` outside brackets ("4, bar<float, int>, x" at ", " → three parts).
std::vector<std::string_view> splitTopLevel(std::string_view s, std::string_view sep) {
  std::vector<std::string_view> parts;
  int depth = 0;
  size_t from = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '<' || c == '(' || c == '{') ++depth;
    if (c == '>' || c == ')' || c == '}') --depth;
    if (depth == 0 && s.substr(i, sep.size()) == sep) {
      parts.push_back(s.substr(from, i - from));
      from = i + sep.size();
      i = from - 1;
    }
  }
  parts.push_back(s.substr(from));
  for (std::string_view& p : parts) {
    while (!p.empty() && p.front() == ' ') p.remove_prefix(1);
    while (!p.empty() && p.back() == ' ') p.remove_suffix(1);
  }
  return parts;
}

// The template arguments of a function's name: "void f<4, at::AddFunctor<float> >(int)" →
// {"4", "at::AddFunctor<float>"}.
std::vector<std::string_view> templateArguments(std::string_view name) {
  std::string_view qualified = qualifiedName(name);
  size_t open = templateOpen(qualified);
  if (open == std::string_view::npos) return {};
  return splitTopLevel(qualified.substr(open + 1, qualified.size() - open - 2), ",");
}

bool isLambdaPart(std::string_view part) {
  return part.substr(0, 7) == "{lambda" || part.substr(0, 8) == "operator";
}

// A template argument as a reader tells it apart: without namespaces, a lambda by the function
// it is in ("clamp_min_scalar_kernel_impl::lambda"), at most 40 characters.
std::string shortArgument(std::string_view arg) {
  std::vector<std::string_view> parts = splitTopLevel(arg, "::");
  std::erase(parts, kAnonymous);
  if (parts.empty()) return std::string(arg);
  std::string out;
  if (isLambdaPart(parts.back())) {
    auto owner = std::find_if(parts.rbegin(), parts.rend(),
                              [](std::string_view p) { return !isLambdaPart(p); });
    std::string_view base = owner == parts.rend() ? parts.back() : *owner;
    // The owner's parameter list goes: "f<float>(at::T&, float)" → "f<float>".
    std::string_view q = qualifiedName(base);
    out = std::string(q.empty() ? base : q) + "::lambda";
  } else {
    // Namespaces inside the argument go too: "BUnaryFunctor<at::native::AddFunctor<long> >".
    std::string_view last = parts.back();
    for (size_t i = 0; i < last.size(); ++i) {
      if (last.substr(i, 2) == "::") {
        while (!out.empty() &&
               (std::isalnum(static_cast<unsigned char>(out.back())) || out.back() == '_'))
          out.pop_back();
        ++i;
      } else {
        out += last[i];
      }
    }
  }
  constexpr size_t kMax = 40;
  if (out.size() > kMax) out = out.substr(0, kMax - 1) + "\u2026";
  return out;
}

}  // namespace

std::string_view shortKernelName(std::string_view name) {
  std::string_view qualified = qualifiedName(name);
  if (qualified.empty()) return name;
  // Template arguments at the end: "foo<4, bar<float> >" → "foo".
  if (size_t open = templateOpen(qualified); open != std::string_view::npos) {
    qualified = qualified.substr(0, open);
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

std::vector<std::string> distinctShortNames(const std::vector<std::string_view>& names) {
  std::vector<std::string> shown(names.size());
  // The different names behind each short name, in the order they are listed.
  std::map<std::string_view, std::vector<std::string_view>> alike;
  for (size_t i = 0; i < names.size(); ++i) {
    auto& group = alike[shortKernelName(names[i])];
    if (std::find(group.begin(), group.end(), names[i]) == group.end()) group.push_back(names[i]);
  }
  std::map<std::string_view, std::string> label;  // full name → what is shown
  for (const auto& [brief, group] : alike) {
    if (group.size() == 1) {
      label[group.front()] = std::string(brief);
      continue;
    }
    std::vector<std::vector<std::string_view>> args;
    size_t most = 0;
    for (std::string_view n : group) {
      args.push_back(templateArguments(n));
      most = std::max(most, args.back().size());
    }
    auto arg = [&](size_t g, size_t k) { return k < args[g].size() ? args[g][k] : ""; };
    // The arguments in which they differ, from the first, until they tell all apart.
    std::vector<size_t> chosen;
    for (size_t k = 0; k < most; ++k) {
      bool differ = false;
      for (size_t g = 1; g < group.size(); ++g) differ |= arg(g, k) != arg(0, k);
      if (!differ) continue;
      chosen.push_back(k);
      std::set<std::vector<std::string_view>> seen;
      for (size_t g = 0; g < group.size(); ++g) {
        std::vector<std::string_view> key;
        for (size_t c : chosen) key.push_back(arg(g, c));
        seen.insert(key);
      }
      if (seen.size() == group.size()) break;
    }
    std::map<std::string, int> uses;
    std::vector<std::string> made;
    for (size_t g = 0; g < group.size(); ++g) {
      std::string s(brief);
      if (!chosen.empty()) {
        s += '<';
        bool skipped = false, first = true;
        for (size_t k = 0; k < args[g].size(); ++k) {
          const bool take = std::find(chosen.begin(), chosen.end(), k) != chosen.end();
          if (!take && skipped) continue;  // one "…" for a run of arguments alike
          if (!first) s += ", ";
          first = false;
          skipped = !take;
          s += take ? shortArgument(args[g][k]) : "\u2026";
        }
        s += '>';
      }
      ++uses[s];
      made.push_back(std::move(s));
    }
    // Still alike (they differ in their parameters only): numbered in the order listed.
    std::map<std::string, int> numbered;
    for (size_t g = 0; g < group.size(); ++g) {
      std::string s = made[g];
      if (uses[s] > 1) s += " #" + std::to_string(++numbered[made[g]]);
      label[group[g]] = std::move(s);
    }
  }
  for (size_t i = 0; i < names.size(); ++i) shown[i] = label[names[i]];
  return shown;
}

}  // namespace ts
