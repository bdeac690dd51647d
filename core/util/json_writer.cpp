#include "util/json_writer.h"

#include <cmath>
#include <cstdio>

namespace ts {

void JsonWriter::escape(std::string_view text, std::string& out) {
  out += '"';
  for (char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

void JsonWriter::newline() {
  if (!pretty_) return;
  out_ += '\n';
  out_.append(hasItems_.size() * 2, ' ');
}

void JsonWriter::separate() {
  if (afterKey_) {
    afterKey_ = false;
    return;
  }
  if (!hasItems_.empty()) {
    if (hasItems_.back()) out_ += ',';
    hasItems_.back() = true;
    newline();
  }
}

JsonWriter& JsonWriter::open(char c) {
  separate();
  out_ += c;
  hasItems_.push_back(false);
  return *this;
}

JsonWriter& JsonWriter::close(char c) {
  bool items = hasItems_.back();
  hasItems_.pop_back();
  if (items) newline();
  out_ += c;
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view k) {
  separate();
  escape(k, out_);
  out_ += pretty_ ? ": " : ":";
  afterKey_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view v) {
  separate();
  escape(v, out_);
  return *this;
}

JsonWriter& JsonWriter::value(double v) {
  if (!std::isfinite(v)) return raw("null");
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return raw(buf);
}

JsonWriter& JsonWriter::raw(std::string_view text) {
  separate();
  out_ += text;
  return *this;
}

}  // namespace ts
