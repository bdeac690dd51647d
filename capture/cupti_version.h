// CUPTI's API version numbers (cuptiGetVersion, CUPTI_API_VERSION), read by both ends of a
// capture. Since CUDA 13 they are xxyyzz: CUDA major, minor, CUPTI update (130001 = 13.0.1);
// before, a plain counter (v28 = CUDA 12.9 Update 1).
#pragma once

#include <cstdint>
#include <string>

namespace ts::capture {

inline constexpr uint32_t kCuptiXxyyzzFirst = 130000;

// The CUDA major version an API version belongs to; 12 or older for the plain counter.
inline uint32_t cuptiMajor(uint32_t version) {
  return version >= kCuptiXxyyzzFirst ? version / 10000 : 12;
}

// "13.0.1"; "API 28" for the plain counter.
inline std::string cuptiVersionText(uint32_t version) {
  if (version < kCuptiXxyyzzFirst) return "API " + std::to_string(version);
  return std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100) + "." +
         std::to_string(version % 100);
}

}  // namespace ts::capture
