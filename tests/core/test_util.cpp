// core/util: errors and their codes through the early-return macros, CSV fields both ways.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "util/csv.h"
#include "util/format.h"
#include "util/on_every_core.h"
#include "util/result.h"

namespace ts {
namespace {

Result<int> parsePositive(int v) {
  if (v < 0) return Error::notFound("no such thing");
  if (v == 0) return Error::cancelled();
  return v;
}

Status check(int v) {
  TS_RETURN_IF_ERROR(parsePositive(v));
  return {};
}

Result<int> twice(int v) {
  TS_ASSIGN_OR_RETURN(int x, parsePositive(v));
  TS_RETURN_IF_ERROR(check(x));
  return 2 * x;
}

TEST(Util, ErrorsKeepTheirCodeThroughEarlyReturns) {
  EXPECT_EQ(*twice(21), 42);
  Result<int> missing = twice(-1);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.failure().code, ErrorCode::NotFound);
  EXPECT_EQ(missing.error(), "no such thing");
  EXPECT_FALSE(missing.cancelled());
  Status stopped = check(0);
  EXPECT_TRUE(stopped.cancelled());
  Error framed = missing.failure().prefixed("run.json: ");
  EXPECT_EQ(framed.message, "run.json: no such thing");
  EXPECT_EQ(framed.code, ErrorCode::NotFound);
  EXPECT_EQ(Error{"bad"}.code, ErrorCode::Invalid);  // the default
}

// Durations in the unit their rounded value reads in: a kernel's std dev of 999.6 µs printed
// "1e+03 µs" in the Statistics tab.
TEST(Util, DurationsNeverInExponents) {
  EXPECT_EQ(formatDuration(999), "999 ns");
  EXPECT_EQ(formatDuration(1'780), "1.78 µs");
  EXPECT_EQ(formatDuration(999'600), "1 ms");
  EXPECT_EQ(formatDuration(999'400), "999 µs");
  EXPECT_EQ(formatDuration(999'999'600), "1 s");
  EXPECT_EQ(formatDuration(-999'600), "-1 ms");
  EXPECT_EQ(formatDuration(43'285'120'000), "43.29 s");
  EXPECT_EQ(formatDuration(12'345'000'000'000), "12345 s");
}

// Times on the session's clock carry the digits their resolution needs, and no more than four
// significant ones otherwise.
TEST(Util, TimestampsShowTheirResolution) {
  EXPECT_EQ(formatTimestamp(43'285'120'000, 0), "43.29 s");
  EXPECT_EQ(formatTimestamp(43'285'120'000, 822'000), "43.2851 s");  // an 822 µs kernel
  EXPECT_EQ(formatTimestamp(43'285'942'000, 822'000), "43.2859 s");  // its end: not the same
  EXPECT_EQ(formatTimestamp(43'285'120'000, 1), "43.285120000 s");
  EXPECT_EQ(formatTimestamp(4'346'000'000, 4'346'000'000), "4.346 s");
  EXPECT_EQ(formatTimestamp(1'500'000, 1'000), "1.500 ms");
  EXPECT_EQ(formatTimestamp(12'345, 1), "12.345 µs");
  EXPECT_EQ(formatTimestamp(999, 1), "999 ns");
  EXPECT_EQ(formatTimestamp(-2'000'000'000, 0), "-2.000 s");
  // A stretch's ends: both with the digits its length needs, a start at 0 in the end's unit.
  const auto [from, to] = formatEnds(43'210'000'000, 43'400'000'000);
  EXPECT_EQ(from, "43.21 s");
  EXPECT_EQ(to, "43.40 s");
  EXPECT_EQ(formatEnds(0, 43'430'000'000).first, "0 s");
}

TEST(Util, SizesAndBandwidthsInTheSameBinaryUnits) {
  EXPECT_EQ(formatBytes(512), "512 B");
  EXPECT_EQ(formatBytes(3 * 1024 * 1024 / 2), "1.5 MiB");
  // Just under the next unit: four digits, not "1.02e+03 MiB".
  EXPECT_EQ(formatBytes(1024 * 1024 * 1024 - 100 * 1024), "1024 MiB");
  EXPECT_EQ(formatBandwidth(1000.0 * 1024 * 1024), "1000 MiB/s");
  EXPECT_EQ(formatBandwidth(12.0 * 1024 * 1024 * 1024), "12 GiB/s");
  EXPECT_EQ(formatBandwidth(16e9), "14.9 GiB/s");  // a 16 GB/s link
  EXPECT_EQ(formatBandwidth(800), "800 B/s");
}

TEST(Util, CsvFieldsRoundTrip) {
  std::string field;
  appendCsvField(field, "a \"b\", c");
  EXPECT_EQ(field, "\"a \"\"b\"\", c\"");
  auto fields = splitCsvRecord(field + ",2,,\"\"");
  ASSERT_TRUE(fields.has_value());
  EXPECT_EQ(*fields, (std::vector<std::string>{"a \"b\", c", "2", "", ""}));
  EXPECT_EQ(splitCsvRecord("x,")->size(), 2u);  // a trailing comma: an empty last field
  EXPECT_EQ(splitCsvRecord("")->size(), 1u);
  EXPECT_FALSE(splitCsvRecord("\"open,1").has_value());
  EXPECT_FALSE(splitCsvRecord("\"a\"b,1").has_value());  // text after a closing quote
}

// Every piece once, over the cores; a piece's exception comes back to the caller after every
// thread has stopped, and the pieces not started by then are skipped.
TEST(OnEveryCore, EachPieceOnceAndExceptionsComeBack) {
  std::vector<std::atomic<int>> done(1000);
  onEveryCore(done.size(), [&](size_t i) { ++done[i]; });
  for (const auto& d : done) EXPECT_EQ(d.load(), 1);
  onEveryCore(0, [](size_t) { FAIL() << "no piece to run"; });

  std::atomic<int> ran{0};
  EXPECT_THROW(onEveryCore(1000,
                           [&](size_t i) {
                             ++ran;
                             if (i == 3) throw std::runtime_error("piece 3");
                             // Slow pieces: the other cores cannot finish them all meanwhile.
                             if (i > 3) std::this_thread::sleep_for(std::chrono::milliseconds(1));
                           }),
               std::runtime_error);
  EXPECT_LT(ran.load(), 1000);  // the rest was skipped
}

}  // namespace
}  // namespace ts
