#include "io/json_cursor.h"

#include <array>
#include <cstdint>
#include <cstring>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace ts {

namespace {

constexpr int kMaxDepth = 512;

// Bytes that end the fast scan of a string: the closing quote, an escape, a control character
// (not allowed raw in JSON strings) and non-ASCII bytes (checked as UTF-8).
constexpr std::array<bool, 256> kStringStop = [] {
  std::array<bool, 256> t{};
  for (int c = 0; c < 0x20; ++c) t[c] = true;
  for (int c = 0x80; c < 0x100; ++c) t[c] = true;
  t['"'] = t['\\'] = true;
  return t;
}();

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void appendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

}  // namespace

bool JsonCursor::fail(const char* what) {
  error_ = what;
  truncated_ = false;
  return false;
}

bool JsonCursor::failAtEnd() {
  error_ = "truncated: the text ends inside a value";
  truncated_ = true;
  return false;
}

// One UTF-8 sequence at i_ (its first byte >= 0x80): well-formed, shortest form, no surrogates.
bool JsonCursor::checkUtf8() {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(s_[i_ + k]); };
  unsigned char c = byte(0);
  size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
  if (n == 0 || c > 0xF4) return fail("invalid UTF-8 in a string");
  if (i_ + n > s_.size()) return failAtEnd();
  uint32_t cp = c & (0x7F >> n);
  for (size_t k = 1; k < n; ++k) {
    if ((byte(k) & 0xC0) != 0x80) return fail("invalid UTF-8 in a string");
    cp = (cp << 6) | (byte(k) & 0x3F);
  }
  if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
      (cp >= 0xD800 && cp <= 0xDFFF)) {
    return fail("invalid UTF-8 in a string");
  }
  i_ += n;
  return true;
}

// The first position from i that holds a string stop byte (or the end). Sixteen bytes at a time
// where SSE2 is there (every x86-64): as signed bytes, both control characters and non-ASCII
// bytes compare below 0x20.
size_t JsonCursor::scanPlain(size_t i) const {
#ifdef __SSE2__
  const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'),
                space = _mm_set1_epi8(0x20);
  while (i + 16 <= s_.size()) {
    __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s_.data() + i));
    __m128i stop =
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, backslash)),
                     _mm_cmplt_epi8(x, space));
    int mask = _mm_movemask_epi8(stop);
    if (mask != 0) return i + static_cast<size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
    i += 16;
  }
#endif
  while (i < s_.size() && !kStringStop[static_cast<unsigned char>(s_[i])]) ++i;
  return i;
}

bool JsonCursor::string(std::string_view& out, StringPool& pool) {
  return stringAt(out, &pool);
}

bool JsonCursor::stringAt(std::string_view& out, StringPool* pool) {
  if (peek() != '"') return atEnd() ? failAtEnd() : fail("expected a string");
  const size_t begin = ++i_;
  for (;;) {
    i_ = scanPlain(i_);
    if (i_ >= s_.size()) return failAtEnd();
    char c = s_[i_];
    if (c == '"') {
      out = s_.substr(begin, i_ - begin);
      ++i_;
      return true;
    }
    if (c == '\\') return decodeEscapes(begin, out, pool ? &pool->next() : nullptr);
    if (static_cast<unsigned char>(c) < 0x20) return fail("a control character inside a string");
    if (!checkUtf8()) return false;
  }
}

// The slow path: the string from `begin` holds escapes; decode it whole into *scratch, or only
// check it when scratch is null.
bool JsonCursor::decodeEscapes(size_t begin, std::string_view& out, std::string* scratch) {
  std::string ignored;  // stays empty (no allocation) when only checking
  std::string& text = scratch ? *scratch : ignored;
  if (scratch) text.assign(s_.data() + begin, i_ - begin);
  for (;;) {
    if (i_ >= s_.size()) return failAtEnd();
    char c = s_[i_];
    if (c == '"') {
      ++i_;
      out = text;
      return true;
    }
    if (static_cast<unsigned char>(c) < 0x20) return fail("a control character inside a string");
    if (static_cast<unsigned char>(c) >= 0x80) {
      size_t from = i_;
      if (!checkUtf8()) return false;
      if (scratch) text.append(s_.data() + from, i_ - from);
      continue;
    }
    if (c != '\\') {
      if (scratch) text += c;
      ++i_;
      continue;
    }
    if (i_ + 1 >= s_.size()) return failAtEnd();
    char e = s_[i_ + 1];
    i_ += 2;
    switch (e) {
      case '"':
        if (scratch) text += '"';
        break;
      case '\\':
        if (scratch) text += '\\';
        break;
      case '/':
        if (scratch) text += '/';
        break;
      case 'b':
        if (scratch) text += '\b';
        break;
      case 'f':
        if (scratch) text += '\f';
        break;
      case 'n':
        if (scratch) text += '\n';
        break;
      case 'r':
        if (scratch) text += '\r';
        break;
      case 't':
        if (scratch) text += '\t';
        break;
      case 'u': {
        auto hex4 = [&](uint32_t& v) {
          if (i_ + 4 > s_.size()) return failAtEnd();
          v = 0;
          for (int k = 0; k < 4; ++k) {
            int h = hexValue(s_[i_ + static_cast<size_t>(k)]);
            if (h < 0) return fail("a bad \\u escape in a string");
            v = v * 16 + static_cast<uint32_t>(h);
          }
          i_ += 4;
          return true;
        };
        uint32_t cp = 0;
        if (!hex4(cp)) return false;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          // A high surrogate must be followed by an escaped low one.
          if (i_ + 2 > s_.size()) return failAtEnd();
          if (s_[i_] != '\\' || s_[i_ + 1] != 'u') return fail("an unpaired surrogate in a string");
          i_ += 2;
          uint32_t low = 0;
          if (!hex4(low)) return false;
          if (low < 0xDC00 || low > 0xDFFF) return fail("an unpaired surrogate in a string");
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
          return fail("an unpaired surrogate in a string");
        }
        if (scratch) appendUtf8(text, cp);
        break;
      }
      default:
        return fail("a bad escape in a string");
    }
  }
}

bool JsonCursor::number(std::string_view& out) {
  const size_t begin = i_;
  auto digit = [&] { return i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9'; };
  auto digits = [&] {
    if (!digit()) return false;
    while (digit()) ++i_;
    return true;
  };
  if (peek() == '-') ++i_;
  if (peek() == '0') {
    ++i_;
  } else if (!digits()) {
    return atEnd() ? failAtEnd() : fail("a malformed number");
  }
  if (peek() == '.') {
    ++i_;
    if (!digits()) return atEnd() ? failAtEnd() : fail("a malformed number");
  }
  if (peek() == 'e' || peek() == 'E') {
    ++i_;
    if (peek() == '+' || peek() == '-') ++i_;
    if (!digits()) return atEnd() ? failAtEnd() : fail("a malformed number");
  }
  // A number must end at a delimiter: "12ab" is not one.
  if (i_ < s_.size()) {
    char c = s_[i_];
    if (c != ',' && c != '}' && c != ']' && c != ' ' && c != '\n' && c != '\r' && c != '\t') {
      return fail("a malformed number");
    }
  }
  out = s_.substr(begin, i_ - begin);
  return true;
}

bool JsonCursor::skipValue() {
  return skipValue(0);
}

bool JsonCursor::skipValue(int depth) {
  skipSpace();
  if (atEnd()) return failAtEnd();
  if (depth > kMaxDepth) return fail("values nested too deeply");
  char c = s_[i_];
  std::string_view ignored;
  switch (c) {
    case '"':
      return stringAt(ignored, nullptr);
    case '{':
    case '[': {
      const char close = c == '{' ? '}' : ']';
      ++i_;
      if (consume(close)) return true;
      for (;;) {
        if (c == '{') {
          skipSpace();
          if (!stringAt(ignored, nullptr)) return false;
          if (!consume(':')) return atEnd() ? failAtEnd() : fail("expected ':' after a key");
        }
        if (!skipValue(depth + 1)) return false;
        if (consume(',')) continue;
        if (consume(close)) return true;
        return atEnd() ? failAtEnd()
                       : fail(c == '{' ? "expected ',' or '}'" : "expected ',' or ']'");
      }
    }
    case 't':
    case 'f':
    case 'n': {
      std::string_view word = c == 't' ? "true" : c == 'f' ? "false" : "null";
      if (s_.substr(i_, word.size()) != word) {
        return s_.size() - i_ < word.size() && word.substr(0, s_.size() - i_) == s_.substr(i_)
                   ? failAtEnd()
                   : fail("an unknown literal");
      }
      i_ += word.size();
      return true;
    }
    default:
      if (c == '-' || (c >= '0' && c <= '9')) return number(ignored);
      return fail("an unexpected character");
  }
}

}  // namespace ts
