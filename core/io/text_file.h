// Reads a whole text file into memory, decompressing gzip as it streams (plain files pass through),
// with spare capacity at the end for parsers that read past the last byte (simdjson's padding).
#pragma once

#include <string>
#include <vector>

#include "util/progress.h"
#include "util/result.h"

namespace ts {

struct TextFile {
  std::vector<char> bytes;  // capacity() >= size() + kTextPadding
  bool gzipped = false;
};

inline constexpr size_t kTextPadding = 64;

// Errors name the file: missing, unreadable, corrupt or truncated gzip (with the compressed byte
// offset reached).
Result<TextFile> readTextFile(const std::string& path, const Progress& progress = {});

// True when the file starts with the gzip magic bytes.
bool isGzipFile(const std::string& path);

}  // namespace ts
