#include <gtest/gtest.h>

#include "io/decimal_time.h"

namespace ts {

TEST(DecimalTime, MicrosecondTextToNanosecondsExactly) {
  EXPECT_EQ(parseMicrosToNs("1695835573023613"), 1695835573023613000);  // beyond double's 53 bits
  EXPECT_EQ(parseMicrosToNs("2413669097444.592"), 2413669097444592);
  EXPECT_EQ(parseMicrosToNs("1.76"), 1760);
  EXPECT_EQ(parseMicrosToNs("0.0004"), 0);
  EXPECT_EQ(parseMicrosToNs("0.0005"), 1);  // half away from zero
  EXPECT_EQ(parseMicrosToNs("-3.5"), -3500);
  EXPECT_EQ(parseMicrosToNs("1e3"), 1000000);
  EXPECT_EQ(parseMicrosToNs("1.5E-3"), 2);
  for (const char* bad : {"", "-", "1.", ".5", "1e", "abc", "1x", "99999999999999999999"}) {
    EXPECT_FALSE(parseMicrosToNs(bad)) << bad;
  }
}

TEST(DecimalTime, Integers) {
  EXPECT_EQ(parseJsonInteger("42"), 42);
  EXPECT_EQ(parseJsonInteger("7.0"), 7);
  EXPECT_EQ(parseJsonInteger("-1"), -1);
  EXPECT_FALSE(parseJsonInteger("7.5"));
  EXPECT_FALSE(parseJsonInteger("0x10"));
  EXPECT_FALSE(parseJsonInteger("stream 7"));
}

}  // namespace ts
