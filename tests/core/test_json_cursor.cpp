// The validating cursor that reads trace events in place: it must accept exactly JSON.
#include <gtest/gtest.h>

#include "io/json_cursor.h"

namespace ts {

namespace {

bool skips(std::string_view text) {
  JsonCursor c(text);
  bool ok = c.skipValue();
  c.skipSpace();
  return ok && c.atEnd();
}

std::string decoded(std::string_view text) {
  JsonCursor c(text);
  StringPool pool;
  std::string_view out;
  EXPECT_TRUE(c.string(out, pool)) << text << ": " << c.error();
  return std::string(out);
}

}  // namespace

TEST(JsonCursor, AcceptsJson) {
  for (const char* ok :
       {"0", "-0", "12", "-1.5", "1e9", "2.5E-3", "1E+2", "\"\"", "\"a\\\"b\"", "true", "false",
        "null", "[]", "{}", "[1, [2, {\"a\": [null]}]]", " {\"k\" : \"v\" , \"n\":-1 } ",
        "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\""}) {
    EXPECT_TRUE(skips(ok)) << ok;
  }
}

TEST(JsonCursor, RejectsWhatIsNotJson) {
  for (const char* bad : {"01",
                          "1.",
                          ".5",
                          "-",
                          "1e",
                          "+1",
                          "1x",
                          "tru",
                          "nul",
                          "True",
                          "'a'",
                          "[1,]",
                          "[1 2]",
                          "{\"a\" 1}",
                          "{\"a\":}",
                          "{a: 1}",
                          "{\"a\":1,}",
                          "\"\\x\"",
                          "\"\\u12g4\"",
                          "\"\\ud800\"",
                          "\"\\udc00\"",
                          "\"a\tb\"",
                          "\"\xc3\"",
                          "\"\xc0\xaf\"",
                          "\"\xed\xa0\x80\"",
                          "\"\xf5\x80\x80\x80\"",
                          "\"\x80\""}) {
    EXPECT_FALSE(skips(bad)) << bad;
  }
}

TEST(JsonCursor, TruncationIsToldApartFromSyntaxErrors) {
  for (const char* cut : {"\"abc", "[1, 2", "{\"a\": ", "{\"a\"", "tr", "\"\\u12", "\"\\", "-"}) {
    JsonCursor c(cut);
    EXPECT_FALSE(c.skipValue()) << cut;
    EXPECT_TRUE(c.truncated()) << cut << ": " << c.error();
  }
  JsonCursor c("[1; 2]");
  EXPECT_FALSE(c.skipValue());
  EXPECT_FALSE(c.truncated());
}

TEST(JsonCursor, StringsDecodeEscapesAndStayInPlaceOtherwise) {
  std::string text = "\"plain text\"";
  JsonCursor c(text);
  StringPool pool;
  std::string_view out;
  ASSERT_TRUE(c.string(out, pool));
  EXPECT_EQ(out, "plain text");
  EXPECT_EQ(out.data(), text.data() + 1);  // a view of the input, not a copy
  EXPECT_EQ(decoded(R"("a\"b\\c\/d\n\t")"), "a\"b\\c/d\n\t");
  EXPECT_EQ(decoded(R"("\u00e9\u20ac")"), "\xc3\xa9\xe2\x82\xac");
  EXPECT_EQ(decoded(R"("\ud83d\ude00 smile")"), "\xf0\x9f\x98\x80 smile");
  EXPECT_EQ(
      decoded(
          "\"long enough to use the sixteen-byte scan, then an escape: \\n and more after it\""),
      "long enough to use the sixteen-byte scan, then an escape: \n and more after it");
}

TEST(JsonCursor, DeepNestingIsAnErrorNotACrash) {
  std::string deep(100000, '[');
  JsonCursor c(deep);
  EXPECT_FALSE(c.skipValue());
  EXPECT_NE(c.error().find("nested"), std::string::npos) << c.error();
}

TEST(JsonCursor, NumbersAreReturnedAsWritten) {
  JsonCursor c("-1234.5670e1,");
  std::string_view n;
  ASSERT_TRUE(c.number(n));
  EXPECT_EQ(n, "-1234.5670e1");
  EXPECT_EQ(c.peek(), ',');
}

}  // namespace ts
