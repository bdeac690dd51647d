// Reads a whole text file: plain files are mapped into memory (no copy), gzip files are inflated
// as they stream into a buffer.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "util/progress.h"
#include "util/result.h"

namespace ts {

// The bytes of a file, mapped or inflated. Nothing may be read past size().
class TextFile {
 public:
  TextFile() = default;
  TextFile(TextFile&& other) noexcept { *this = std::move(other); }
  TextFile& operator=(TextFile&& other) noexcept;
  TextFile(const TextFile&) = delete;
  TextFile& operator=(const TextFile&) = delete;
  ~TextFile();

  const char* data() const { return map_ ? static_cast<const char*>(map_) : buffer_.get(); }
  size_t size() const { return size_; }
  std::string_view view() const { return {data(), size_}; }
  bool gzipped() const { return gzipped_; }
  // The bytes before `offset` will not be read again: a mapped file gives their memory back (in
  // steps of 64 MiB; they would be read from the file again if touched). A no-op for inflated
  // text, which lives in one buffer.
  void release(size_t offset);

 private:
  friend Result<TextFile> readTextFile(const std::string& path, const Progress& progress);
  void reserve(size_t bytes);  // grows the inflate buffer without zero-filling it

  std::unique_ptr<char[]> buffer_;
  size_t capacity_ = 0;
  void* map_ = nullptr;  // plain files: the mapping
  size_t released_ = 0;  // the mapping's bytes before this are given back
  size_t size_ = 0;
  bool gzipped_ = false;
};

// Errors name the file: missing, unreadable, corrupt or truncated gzip (with the compressed byte
// offset reached).
Result<TextFile> readTextFile(const std::string& path, const Progress& progress = {});

// True when the file starts with the gzip magic bytes.
bool isGzipFile(const std::string& path);

// The size a gzip file says its text has (its trailer, modulo 4 GiB), held to what deflate can
// reach (1032:1) and at least the file's size: a guess, for buffers and progress.
uint64_t gzipSizeHint(const std::string& path, uint64_t onDisk);

// A gzip file inflated piece by piece. Errors name the file: corrupt data with the compressed byte
// reached, or a stream that ends early.
class GzipReader {
 public:
  static Result<std::unique_ptr<GzipReader>> open(const std::string& path);
  ~GzipReader();
  GzipReader(const GzipReader&) = delete;
  GzipReader& operator=(const GzipReader&) = delete;

  // Inflates up to `room` bytes into `to`: how many it gave, 0 at the end of the text.
  Result<size_t> read(char* to, size_t room);
  // The compressed bytes read so far.
  uint64_t compressedOffset() const;

 private:
  GzipReader(std::string path, void* gz) : path_(std::move(path)), gz_(gz) {}
  std::string path_;
  void* gz_;  // gzFile, kept out of this header
};

}  // namespace ts
