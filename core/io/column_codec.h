// Column chunks of .tscope files: a typed array, optionally delta-coded (64-bit integer columns,
// mostly sorted times), compressed with zstd. Decoding checks every size before it writes.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "session/types.h"
#include "util/result.h"

namespace ts {

template <class T>
constexpr std::string_view columnTypeName() {
  using U = std::conditional_t<std::is_enum_v<T>, std::underlying_type<T>, std::type_identity<T>>;
  using V = typename U::type;
  if constexpr (std::is_same_v<V, double>)
    return "f64";
  else if constexpr (std::is_same_v<V, int64_t>)
    return "i64";
  else if constexpr (std::is_same_v<V, uint64_t>)
    return "u64";
  else if constexpr (std::is_same_v<V, int32_t>)
    return "i32";
  else if constexpr (std::is_same_v<V, uint32_t>)
    return "u32";
  else if constexpr (std::is_same_v<V, uint16_t>)
    return "u16";
  else if constexpr (std::is_same_v<V, uint8_t>)
    return "u8";
  else
    static_assert(sizeof(T) == 0, "unsupported column type");
}

inline constexpr std::string_view kEncodingZstd = "zstd";
inline constexpr std::string_view kEncodingDeltaZstd = "delta-zstd";

// Compresses raw bytes; `delta64` first replaces each 64-bit value by its difference to the
// previous one. Returns the encoding name used.
std::string_view encodeBytes(const void* data, size_t bytes, bool delta64,
                             std::vector<uint8_t>& out);
// Decompresses into exactly `bytes` bytes at `out` and undoes the delta coding.
Status decodeBytes(std::span<const uint8_t> blob, std::string_view encoding, void* out,
                   size_t bytes);

template <class T>
std::string_view encodeColumn(std::span<const T> values, std::vector<uint8_t>& out) {
  constexpr bool delta = sizeof(T) == 8 && std::is_integral_v<T>;
  return encodeBytes(values.data(), values.size_bytes(), delta, out);
}

}  // namespace ts
