#include "io/text_file.h"

#include <zlib.h>

#include <filesystem>
#include <fstream>

namespace ts {

bool isGzipFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char magic[2] = {};
  in.read(reinterpret_cast<char*>(magic), 2);
  return in && magic[0] == 0x1f && magic[1] == 0x8b;
}

Result<TextFile> readTextFile(const std::string& path, const Progress& progress) {
  std::error_code ec;
  auto onDisk = std::filesystem::file_size(path, ec);
  if (ec) return Error{path + ": cannot read: " + ec.message()};
  TextFile file;
  file.gzipped = isGzipFile(path);
  gzFile gz = gzopen(path.c_str(), "rb");
  if (!gz) return Error{path + ": cannot open"};
  gzbuffer(gz, 1 << 20);
  // A gzip file usually inflates 5-20×; grow geometrically from a guess.
  size_t capacity = static_cast<size_t>(onDisk) * (file.gzipped ? 8 : 1) + kTextPadding + 1;
  file.bytes.reserve(capacity);
  constexpr unsigned kChunk = 1 << 20;
  for (;;) {
    if (progress.cancelled()) {
      gzclose(gz);
      return Error{path + ": cancelled"};
    }
    if (file.bytes.capacity() - file.bytes.size() < kChunk + kTextPadding) {
      file.bytes.reserve(file.bytes.capacity() * 2);
    }
    size_t old = file.bytes.size();
    file.bytes.resize(old + kChunk);
    int got = gzread(gz, file.bytes.data() + old, kChunk);
    if (got < 0) {
      int code = 0;
      std::string message = gzerror(gz, &code);
      long at = gzoffset(gz);
      gzclose(gz);
      return Error{path + ": corrupt gzip data near compressed byte " + std::to_string(at) + ": " +
                   message};
    }
    file.bytes.resize(old + static_cast<size_t>(got));
    if (onDisk > 0) {
      progress.update(std::min(1.0, static_cast<double>(gzoffset(gz)) / static_cast<double>(onDisk)));
    }
    if (got == 0) break;
  }
  // zlib reports a gzip stream that ends early only through gzerror after the last read.
  int code = 0;
  const char* message = gzerror(gz, &code);
  if (code != Z_OK && code != Z_STREAM_END) {
    std::string text = message;
    gzclose(gz);
    return Error{path + ": corrupt or truncated gzip data: " + text};
  }
  gzclose(gz);
  if (file.bytes.capacity() < file.bytes.size() + kTextPadding) {
    file.bytes.reserve(file.bytes.size() + kTextPadding);
  }
  return file;
}

}  // namespace ts
