// Buffered text output to a plain or gzip-compressed file (chosen by a ".gz" suffix), for the
// exporters. Errors are sticky and reported by finish().
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

#include "util/result.h"

namespace ts {

class TextSink {
 public:
  TextSink(const std::string& path, bool gzip);
  ~TextSink();
  TextSink(const TextSink&) = delete;
  TextSink& operator=(const TextSink&) = delete;

  void append(std::string_view text) {
    buffer_.append(text);
    if (buffer_.size() >= kFlushBytes) flush();
  }
  void append(char c) {
    buffer_.push_back(c);
    if (buffer_.size() >= kFlushBytes) flush();
  }
  std::string& buffer() { return buffer_; }  // for formatting in place; flushed on the next append
  Status finish();

 private:
  static constexpr size_t kFlushBytes = 1 << 20;
  void flush();

  FILE* file_ = nullptr;
  void* gz_ = nullptr;  // gzFile
  std::string buffer_;
  std::string error_;
};

}  // namespace ts
