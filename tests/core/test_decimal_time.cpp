#include <gtest/gtest.h>

#include "io/decimal_time.h"

namespace ts {

TEST(DecimalTime, MicrosecondTextToNanosecondsExactly) {
  int64_t ns = 0;
  ASSERT_TRUE(parseMicrosToNs("1695835573023613", ns));
  EXPECT_EQ(ns, 1695835573023613000);  // beyond double's 53 bits: exact
  ASSERT_TRUE(parseMicrosToNs("2413669097444.592", ns));
  EXPECT_EQ(ns, 2413669097444592);
  ASSERT_TRUE(parseMicrosToNs("1.76", ns));
  EXPECT_EQ(ns, 1760);
  ASSERT_TRUE(parseMicrosToNs("0.0004", ns));
  EXPECT_EQ(ns, 0);
  ASSERT_TRUE(parseMicrosToNs("0.0005", ns));
  EXPECT_EQ(ns, 1);  // half away from zero
  ASSERT_TRUE(parseMicrosToNs("-3.5", ns));
  EXPECT_EQ(ns, -3500);
  ASSERT_TRUE(parseMicrosToNs("1e3", ns));
  EXPECT_EQ(ns, 1000000);
  ASSERT_TRUE(parseMicrosToNs("1.5E-3", ns));
  EXPECT_EQ(ns, 2);
  for (const char* bad : {"", "-", "1.", ".5", "1e", "abc", "1x", "99999999999999999999"}) {
    EXPECT_FALSE(parseMicrosToNs(bad, ns)) << bad;
  }
}

TEST(DecimalTime, Integers) {
  int64_t v = 0;
  ASSERT_TRUE(parseJsonInteger("42", v));
  EXPECT_EQ(v, 42);
  ASSERT_TRUE(parseJsonInteger("7.0", v));
  EXPECT_EQ(v, 7);
  ASSERT_TRUE(parseJsonInteger("-1", v));
  EXPECT_EQ(v, -1);
  EXPECT_FALSE(parseJsonInteger("7.5", v));
  EXPECT_FALSE(parseJsonInteger("0x10", v));
  EXPECT_FALSE(parseJsonInteger("stream 7", v));
}

}  // namespace ts
