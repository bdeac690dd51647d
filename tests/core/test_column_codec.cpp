#include <gtest/gtest.h>

#include <limits>

#include "io/column_codec.h"

namespace ts {

template <class T>
std::vector<T> roundTrip(const std::vector<T>& values, std::string_view* encodingOut = nullptr) {
  std::vector<uint8_t> blob;
  std::string_view encoding = encodeColumn(std::span<const T>(values), blob);
  if (encodingOut) *encodingOut = encoding;
  std::vector<T> back(values.size());
  Status st = decodeBytes(blob, encoding, back.data(), back.size() * sizeof(T));
  EXPECT_TRUE(st.ok()) << st.error();
  return back;
}

TEST(ColumnCodec, SixtyFourBitColumnsAreDeltaCodedAndExact) {
  std::vector<int64_t> times = {std::numeric_limits<int64_t>::min(), -5, 0, 1700000000000000000,
                                std::numeric_limits<int64_t>::max(), 3};
  std::string_view encoding;
  EXPECT_EQ(roundTrip(times, &encoding), times);  // wrapping differences are exact
  EXPECT_EQ(encoding, kEncodingDeltaZstd);
  std::vector<uint32_t> small = {1, 2, 3, 0xFFFFFFFFu};
  EXPECT_EQ(roundTrip(small, &encoding), small);
  EXPECT_EQ(encoding, kEncodingZstd);
  std::vector<double> values = {0.5, -1e300, 3.25};
  EXPECT_EQ(roundTrip(values), values);
}

TEST(ColumnCodec, DecodingChecksSizesAndData) {
  std::vector<uint32_t> values(1000, 7);
  std::vector<uint8_t> blob;
  std::string_view encoding = encodeColumn(std::span<const uint32_t>(values), blob);
  std::vector<uint32_t> out(1000);
  EXPECT_NE(decodeBytes(blob, encoding, out.data(), 999 * 4).error().find("expected"),
            std::string::npos);
  EXPECT_FALSE(decodeBytes(blob, "lz4", out.data(), 4000).ok());
  std::vector<uint8_t> cut(blob.begin(), blob.begin() + static_cast<long>(blob.size() / 2));
  EXPECT_FALSE(decodeBytes(cut, encoding, out.data(), 4000).ok());
  std::vector<uint8_t> garbage(64, 0xAB);
  EXPECT_FALSE(decodeBytes(garbage, encoding, out.data(), 4000).ok());
  EXPECT_FALSE(decodeBytes({}, encoding, out.data(), 4000).ok());
}

}  // namespace ts
