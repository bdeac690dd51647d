#include "io/column_codec.h"

#include <zstd.h>

namespace ts {

namespace {
// Level 1: saving stays fast; zstd decompresses at the same speed whatever the level.
constexpr int kZstdLevel = 1;
}  // namespace

std::string_view encodeBytes(const void* data, size_t bytes, bool delta64,
                             std::vector<uint8_t>& out) {
  const void* source = data;
  std::vector<uint64_t> deltas;
  if (delta64) {
    const size_t n = bytes / 8;
    deltas.resize(n);
    std::memcpy(deltas.data(), data, n * 8);
    // Unsigned arithmetic: differences wrap instead of overflowing.
    for (size_t i = n; i-- > 1;) deltas[i] -= deltas[i - 1];
    source = deltas.data();
  }
  out.resize(ZSTD_compressBound(bytes));
  size_t written = ZSTD_compress(out.data(), out.size(), source, bytes, kZstdLevel);
  out.resize(ZSTD_isError(written) ? 0 : written);
  return delta64 ? kEncodingDeltaZstd : kEncodingZstd;
}

Status decodeBytes(std::span<const uint8_t> blob, std::string_view encoding, void* out,
                   size_t bytes) {
  bool delta = encoding == kEncodingDeltaZstd;
  if (!delta && encoding != kEncodingZstd) {
    return Error{"unknown column encoding '" + std::string(encoding) + "'"};
  }
  if (delta && bytes % 8 != 0) return Error{"delta-coded column is not 64-bit"};
  unsigned long long size = ZSTD_getFrameContentSize(blob.data(), blob.size());
  if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN) {
    return Error{"column chunk is not a valid zstd frame"};
  }
  if (size != bytes) {
    return Error{"column chunk holds " + std::to_string(size) + " bytes, expected " +
                 std::to_string(bytes)};
  }
  size_t got = ZSTD_decompress(out, bytes, blob.data(), blob.size());
  if (ZSTD_isError(got) || got != bytes) {
    return Error{std::string("column chunk is corrupt: ") +
                 (ZSTD_isError(got) ? ZSTD_getErrorName(got) : "short")};
  }
  if (delta) {
    auto* v = static_cast<uint64_t*>(out);
    for (size_t i = 1; i < bytes / 8; ++i) v[i] += v[i - 1];
  }
  return {};
}

}  // namespace ts
