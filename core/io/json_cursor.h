// A validating JSON cursor for the hot path of trace import: it walks the text in place (no copy,
// no padding, no index), hands out strings and numbers as views of the text, and checks the
// grammar as strictly as a full parser (string escapes, control characters, UTF-8, number syntax,
// nesting). Trace events are small flat objects read field by field, which this does several
// times faster than a general-purpose DOM or On-Demand walk.
#pragma once

#include <cstddef>
#include <deque>
#include <string>
#include <string_view>

namespace ts {

// Where strings with escapes are decoded: views handed out stay valid until reset() (a deque
// never moves its elements). Strings without escapes never touch it.
class StringPool {
 public:
  std::string& next() {
    if (used_ == pool_.size()) pool_.emplace_back();
    return pool_[used_++];
  }
  void reset() { used_ = 0; }

 private:
  std::deque<std::string> pool_;
  size_t used_ = 0;
};

class JsonCursor {
 public:
  explicit JsonCursor(std::string_view text, size_t pos = 0) : s_(text), i_(pos) {}

  size_t pos() const { return i_; }
  void setPos(size_t pos) { i_ = pos; }
  bool atEnd() const { return i_ >= s_.size(); }
  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  void skipSpace() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\t'))
      ++i_;
  }
  // Skips white space, then steps over `c` if it comes next.
  bool consume(char c) {
    skipSpace();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }

  // The string at the cursor (at its opening quote), without quotes. Its text is a view of the
  // input unless it holds escapes; then it is decoded into a string of `pool`.
  bool string(std::string_view& out, StringPool& pool);
  // The number at the cursor, as written (the caller converts it exactly).
  bool number(std::string_view& out);
  // Steps over any value, checking it.
  bool skipValue();

  // After a false return: what was wrong, and whether the text simply ended (a truncated file).
  const std::string& error() const { return error_; }
  bool truncated() const { return truncated_; }

 private:
  bool fail(const char* what);
  bool failAtEnd();
  bool skipValue(int depth);
  // `scratch` null: only check the string (skipValue), keep nothing.
  bool decodeEscapes(size_t begin, std::string_view& out, std::string* scratch);
  bool stringAt(std::string_view& out, StringPool* pool);
  size_t scanPlain(size_t i) const;
  bool checkUtf8();

  std::string_view s_;
  size_t i_ = 0;
  std::string error_;
  bool truncated_ = false;
};

}  // namespace ts
