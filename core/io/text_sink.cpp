#include "io/text_sink.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>

namespace ts {

TextSink::TextSink(const std::string& path, bool gzip) {
  if (gzip) {
    gz_ = gzopen(path.c_str(), "wb6");
    if (!gz_) error_ = "cannot create the file";
  } else {
    file_ = std::fopen(path.c_str(), "wb");
    if (!file_) error_ = std::string("cannot create the file: ") + std::strerror(errno);
  }
  buffer_.reserve(kFlushBytes + 4096);
}

TextSink::~TextSink() {
  if (file_) std::fclose(file_);
  if (gz_) gzclose(static_cast<gzFile>(gz_));
}

void TextSink::flush() {
  if (buffer_.empty()) return;
  if (error_.empty()) {
    if (file_ && std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size()) {
      error_ = std::string("write failed: ") + std::strerror(errno);
    }
    if (gz_ && gzwrite(static_cast<gzFile>(gz_), buffer_.data(),
                       static_cast<unsigned>(buffer_.size())) != static_cast<int>(buffer_.size())) {
      error_ = "compressed write failed";
    }
  }
  buffer_.clear();
}

Status TextSink::finish() {
  flush();
  if (file_) {
    if (std::fclose(file_) != 0 && error_.empty())
      error_ = std::string("close failed: ") + std::strerror(errno);
    file_ = nullptr;
  }
  if (gz_) {
    if (gzclose(static_cast<gzFile>(gz_)) != Z_OK && error_.empty()) error_ = "close failed";
    gz_ = nullptr;
  }
  return error_.empty() ? Status{} : Status{Error::io(error_)};
}

}  // namespace ts
