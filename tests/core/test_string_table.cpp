#include <gtest/gtest.h>

#include "session/string_table.h"

namespace ts {

TEST(StringTable, EmptyStringIsIdZero) {
  StringTable t;
  EXPECT_EQ(t.intern(""), 0u);
  EXPECT_EQ(t.get(0), "");
  EXPECT_EQ(t.size(), 1u);
}

TEST(StringTable, InternsOnceAndViewsStayValidAsTheTableGrows) {
  StringTable t;
  StringId a = t.intern("ampere_sgemm_128x64_tn");
  std::string_view view = t.get(a);
  for (int i = 0; i < 100000; ++i) t.intern("kernel_" + std::to_string(i));
  EXPECT_EQ(t.intern("ampere_sgemm_128x64_tn"), a);
  EXPECT_EQ(view, "ampere_sgemm_128x64_tn");  // storage never moved
  EXPECT_EQ(t.get(t.intern("kernel_99999")), "kernel_99999");
  EXPECT_EQ(t.size(), 100002u);
}

TEST(StringTable, LargeStringsAndUnknownIds) {
  StringTable t;
  std::string big(200000, 'x');
  StringId id = t.intern(big);
  EXPECT_EQ(t.get(id), big);
  EXPECT_EQ(t.get(12345), "");
}

}  // namespace ts
