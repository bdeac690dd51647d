// A small streaming JSON writer (objects, arrays, escaped strings); enough for CLI reports.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ts {

class JsonWriter {
 public:
  explicit JsonWriter(bool pretty = true) : pretty_(pretty) {}

  JsonWriter& beginObject() { return open('{'); }
  JsonWriter& endObject() { return close('}'); }
  JsonWriter& beginArray() { return open('['); }
  JsonWriter& endArray() { return close(']'); }
  JsonWriter& key(std::string_view k);
  JsonWriter& value(std::string_view v);
  JsonWriter& value(const char* v) { return value(std::string_view(v)); }
  JsonWriter& value(int64_t v) { return raw(std::to_string(v)); }
  JsonWriter& value(uint64_t v) { return raw(std::to_string(v)); }
  JsonWriter& value(int v) { return raw(std::to_string(v)); }
  JsonWriter& value(unsigned v) { return raw(std::to_string(v)); }
  JsonWriter& value(unsigned long long v) { return raw(std::to_string(v)); }
  JsonWriter& value(long long v) { return raw(std::to_string(v)); }
  JsonWriter& value(double v);
  JsonWriter& value(bool v) { return raw(v ? "true" : "false"); }
  JsonWriter& null() { return raw("null"); }

  const std::string& str() const { return out_; }
  static void escape(std::string_view text, std::string& out);

 private:
  JsonWriter& open(char c);
  JsonWriter& close(char c);
  JsonWriter& raw(std::string_view text);
  void separate();
  void newline();

  std::string out_;
  std::vector<bool> hasItems_;
  bool afterKey_ = false;
  bool pretty_;
};

}  // namespace ts
