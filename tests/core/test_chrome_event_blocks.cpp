// A JSON trace's events read ahead on several threads, in blocks cut at guessed boundaries: the
// same session, the same counts and the same errors as reading on one thread — on the real traces
// in ../shared/data/kineto and on texts made to defeat the guess (a boundary inside a string,
// pretty-printed JSON, damage inside a block, a cut, an array without its ']').
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "arriving_copy.h"
#include "io/arriving_text.h"
#include "io/chrome_event_blocks.h"
#include "io/chrome_json_reader.h"
#include "io/text_file.h"
#include "session/session_builder.h"
#include "session_fixture.h"

namespace ts {

namespace {

struct Import {
  Result<ImportInfo> info = Error{"not read"};
  Result<SessionPtr> session = Error{"not built"};
};

// `arriving`: the text handed over a few bytes at a time by another thread, which pauses a few
// KiB ahead of what the importer is done with (as a gzip trace is read while it is inflated).
Import import(std::string_view json, bool recover, unsigned threads, size_t blockBytes,
              bool arriving = false) {
  Import out;
  SessionBuilder b;
  b.provenance().createdUtc = "2026-01-01T00:00:00Z";  // built a moment apart: one time for both
  JsonReadOptions options;
  options.recover = recover, options.threads = threads, options.blockBytes = blockBytes;
  std::unique_ptr<ArrivingText> text;
  if (arriving) {
    text = testing::arriveSlowly(json, std::max<size_t>(61, json.size() / 3000), 4096);
    if (!text) {
      ADD_FAILURE() << "no span reserved";
      return out;
    }
    testing::readAsItArrives(*text, json.size(), options);
    json = text->span();
  }
  out.info = importChromeJson("t.json", json, b, b.rank(0), {}, options);
  if (out.info) out.session = b.build();
  return out;
}

// Read on one thread, then on 2 and 3 threads in blocks of each size: the same outcome.
void expectSameAsOneThread(const std::string& what, std::string_view json,
                           const std::vector<size_t>& blockSizes) {
  for (bool recover : {false, true}) {
    const Import one = import(json, recover, 1, 0);
    for (unsigned threads : {1u, 2u, 3u}) {
      for (size_t block : blockSizes) {
        for (bool arriving : {false, true}) {
          if (threads == 1 && !arriving) continue;
          SCOPED_TRACE(what + (recover ? ", recovering" : "") + ", " + std::to_string(threads) +
                       " threads, blocks of " + std::to_string(block) + " bytes" +
                       (arriving ? ", text arriving" : ""));
          const Import many = import(json, recover, threads, block, arriving);
          ASSERT_EQ(one.info.ok(), many.info.ok()) << (one.info.ok() ? many : one).info.error();
          if (!one.info.ok()) {
            EXPECT_EQ(one.info.error(), many.info.error());
            EXPECT_EQ(one.info.failure().code, many.info.failure().code);
            continue;
          }
          EXPECT_EQ(one.info->events, many.info->events);
          EXPECT_EQ(one.info->damage.summary, many.info->damage.summary);
          EXPECT_EQ(one.info->skipped, many.info->skipped);
          EXPECT_EQ(one.info->firstTimestamp, many.info->firstTimestamp);
          EXPECT_EQ(one.info->pytorch, many.info->pytorch);
          ASSERT_TRUE(one.session.ok()) << one.session.error();
          ASSERT_TRUE(many.session.ok()) << many.session.error();
          std::string why;
          EXPECT_TRUE(testing::sameSession(**one.session, **many.session, &why)) << why;
        }
      }
    }
  }
}

std::string gunzip(const std::string& path) {
  auto text = readTextFile(path);
  EXPECT_TRUE(text.ok()) << text.error();
  return text.ok() ? std::string(text->view()) : std::string();
}

const char* const kTraces[] = {
    "hta-amd_trace--mi250_minitoy_train_ROCm6_2_kineto.json.gz",
    "hta-critical_path--alexnet--benchmark_result_2869224_1695835535_trace.json.gz",
    "hta-critical_path--cuda_event_sync--event_sync_trace.json.gz",
    "hta-trace_filter--sampled_rank-0.json.gz",
    "hta-triton_example--triton_example.json.gz",
    "kineto-tb_plugin--resnet50_num_workers_0--worker0.1623143089861.pt.trace.json.gz",
    "param--et_replay--linear_kineto.json.gz",
};

std::string event(const std::string& name, int ts, const std::string& extra = "") {
  return R"({"ph": "X", "cat": "kernel", "name": ")" + name + R"(", "pid": 0, "tid": 7, "ts": )" +
         std::to_string(ts) + R"(, "dur": 2, "args": {"device": 0, "stream": 7, "correlation": )" +
         std::to_string(ts) + "}" + extra + "}";
}

}  // namespace

TEST(EventBlocks, BoundariesAreEventStartsAfterABraceAndAComma) {
  std::string json = "[";
  for (int i = 0; i < 200; ++i) json += (i ? ",\n" : "") + event("k" + std::to_string(i), i);
  json += "]";
  const std::vector<size_t> cuts = guessEventBoundaries(json, 1, 500);
  ASSERT_GT(cuts.size(), 10u);
  EXPECT_EQ(cuts[0], 1u);
  for (size_t i = 1; i < cuts.size(); ++i) {
    EXPECT_GT(cuts[i], cuts[i - 1]);
    EXPECT_GE(cuts[i] - cuts[i - 1], 500u);  // at least a block apart
    EXPECT_EQ(json[cuts[i]], '{');
    EXPECT_EQ(json.substr(cuts[i] - 3, 3), "},\n");
  }
  // Without white space, the same places.
  std::string tight;
  for (char c : json)
    if (c != '\n') tight += c;
  for (size_t cut : guessEventBoundaries(tight, 1, 500)) EXPECT_EQ(tight[cut], '{');
  // Nothing like a boundary: one block.
  EXPECT_EQ(guessEventBoundaries(std::string(5000, ' '), 0, 100).size(), 1u);
}

TEST(EventBlocks, RealTracesReadTheSameOnSeveralThreads) {
  for (const char* file : kTraces) {
    const std::string json = gunzip(std::string(TSCOPE_SHARED_DATA) + "/kineto/" + file);
    ASSERT_FALSE(json.empty()) << file;
    // The large traces in few sizes (each reading takes a moment), the small ones in many.
    std::vector<size_t> sizes =
        json.size() > 4'000'000 ? std::vector<size_t>{65536} : std::vector<size_t>{97, 4096};
    expectSameAsOneThread(file, json, sizes);
  }
}

// What the importer says it will not read again is not read again: the text before each offset
// it reports is overwritten as soon as it is reported, and the session is still the same.
TEST(EventBlocks, ConsumedTextIsNeverReadAgain) {
  for (const char* file : {kTraces[3], kTraces[5]}) {
    const std::string json = gunzip(std::string(TSCOPE_SHARED_DATA) + "/kineto/" + file);
    const Import plain = import(json, false, 1, 0);
    ASSERT_TRUE(plain.session.ok()) << file;
    for (unsigned threads : {1u, 3u}) {
      SCOPED_TRACE(std::string(file) + ", " + std::to_string(threads) + " threads");
      std::string text = json;
      size_t last = 0, calls = 0;
      JsonReadOptions options;
      options.threads = threads, options.blockBytes = 65536;
      options.consumed = [&](size_t offset) {
        ASSERT_GE(offset, last);
        ASSERT_LE(offset, text.size());
        std::fill(text.begin() + static_cast<std::ptrdiff_t>(last),
                  text.begin() + static_cast<std::ptrdiff_t>(offset), '#');
        last = offset;
        ++calls;
      };
      SessionBuilder b;
      b.provenance().createdUtc = "2026-01-01T00:00:00Z";
      auto info = importChromeJson("t.json", text, b, b.rank(0), {}, options);
      ASSERT_TRUE(info.ok()) << info.error();
      EXPECT_GT(calls, 0u);
      EXPECT_GT(last, json.size() / 4);
      auto session = b.build();
      ASSERT_TRUE(session.ok());
      std::string why;
      EXPECT_TRUE(testing::sameSession(**plain.session, **session, &why)) << why;
    }
  }
}

TEST(EventBlocks, GuessesThatFailAreReadOnOneThread) {
  std::vector<std::pair<std::string, std::string>> texts;
  std::string plain;
  for (int i = 0; i < 60; ++i) plain += (i ? ",\n" : "") + event("k" + std::to_string(i), i * 10);
  // A string that holds what looks like a boundary (the guess lands inside it).
  std::string inString;
  for (int i = 0; i < 60; ++i) {
    inString += (i ? ",\n" : "") +
                event("k", i * 10,
                      i % 7 == 3 ? R"(, "note": "},{\"ph\": \"X\", \"name\": \"fake\"},{")" : "");
  }
  // Pretty-printed: every field on its own line, objects of args' arrays too.
  std::string pretty;
  for (int i = 0; i < 60; ++i) {
    pretty += std::string(i ? ",\n" : "") + "  {\n    \"ph\": \"X\",\n    \"name\": \"op\",\n" +
              "    \"pid\": 1,\n    \"tid\": 2,\n    \"ts\": " + std::to_string(i * 10) +
              ",\n    \"dur\": 3,\n    \"args\": {\"list\": [\n      {\"a\": 1},\n      {\"b\": "
              "2}\n    ]}\n  }";
  }
  texts.push_back({"object", "{\"traceEvents\": [" + plain + "]}"});
  texts.push_back({"boundary inside a string", "{\"traceEvents\": [" + inString + "]}"});
  texts.push_back({"pretty-printed", "{\n  \"traceEvents\": [\n" + pretty + "\n  ]\n}\n"});
  texts.push_back({"array without ']'", "[" + plain + ",\n"});
  texts.push_back({"array without ']' or comma", "[" + plain});
  texts.push_back({"cut inside an event", "[" + plain.substr(0, plain.size() * 2 / 3)});
  texts.push_back({"cut between events", "{\"traceEvents\": [" + plain + ","});
  // Damage in the middle: impossible fields (stepped over), then text that stops being JSON.
  std::string damaged = plain;
  damaged.replace(damaged.find("\"dur\": 2", damaged.size() / 3), 8, "\"dur\": -2");
  damaged.replace(damaged.find("\"ts\": ", damaged.size() / 2), 6, "\"ts\": \"x\", \"y\": ");
  texts.push_back({"impossible fields", "[" + damaged + "]"});
  std::string broken = plain;
  broken.replace(broken.find("\"name\"", broken.size() * 3 / 4), 6, "\"na\\qme\"");
  texts.push_back({"broken JSON", "[" + broken + "]"});
  // Impossible fields first (stepped over in a block), then what the blocks cannot read.
  texts.push_back(
      {"impossible fields, then a cut", "[" + damaged.substr(0, damaged.size() * 5 / 6)});
  std::string both = damaged;
  both.replace(both.find("\"name\"", both.size() * 3 / 4), 6, "\"na\\qme\"");
  texts.push_back({"impossible fields, then broken JSON", "{\"traceEvents\": [" + both + "]}"});
  texts.push_back({"text after the trace", "[" + plain + "] x"});
  texts.push_back({"no separator", "[" + plain + " " + event("z", 1) + "]"});
  for (const auto& [what, json] : texts) expectSameAsOneThread(what, json, {1, 37, 300, 2000});
}

// The arriving text itself: what a source gives, whole; its error kept; more than the span
// refused; stopped when dropped, however far it got.
TEST(ArrivingText, HoldsWhatTheSourceGaveAndItsError) {
  std::string text;
  for (int i = 0; i < 100000; ++i) text += static_cast<char>('a' + i % 26);
  auto source = [&text](size_t failAt) {
    return [&text, failAt, at = size_t{0}](char* to, size_t room) mutable -> Result<size_t> {
      if (at >= failAt) return Error{"x.gz: corrupt gzip data near compressed byte 9"};
      const size_t n = std::min(room, text.size() - at);
      std::memcpy(to, text.data() + at, n);
      at += n;
      return n;
    };
  };
  auto whole = ArrivingText::start("x.gz", source(SIZE_MAX), text.size() + 1, 1000, 5000);
  ASSERT_TRUE(whole);
  EXPECT_GE(whole->waitFor(12000), 12000u);
  // Ahead of the reader by the lead at most, until it reads on or releases.
  whole->release(20000);
  EXPECT_TRUE(whole->finish().ok());
  EXPECT_EQ(whole->waitFor(SIZE_MAX), text.size());
  EXPECT_EQ(whole->span().substr(0, text.size()), text);

  auto broken = ArrivingText::start("x.gz", source(30000), text.size() + 1, 1000, 5000);
  ASSERT_TRUE(broken);
  EXPECT_EQ(broken->waitFor(SIZE_MAX), 30000u);
  Status st = broken->finish();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().find("x.gz: corrupt gzip"), std::string::npos) << st.error();

  auto tooLong = ArrivingText::start("x.gz", source(SIZE_MAX), 50000, 1000, 5000);
  ASSERT_TRUE(tooLong);
  st = tooLong->finish();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().find("x.gz: the text is longer than"), std::string::npos) << st.error();
  EXPECT_EQ(tooLong->waitFor(SIZE_MAX), 50000u);

  // A source without end, dropped at once and dropped while paused: both stop.
  auto endless = [](char* to, size_t room) -> Result<size_t> {
    std::memset(to, 'x', room);
    return room;
  };
  auto dropped = ArrivingText::start("x", endless, size_t{1} << 30, 4096, 1 << 16);
  ASSERT_TRUE(dropped);
  dropped.reset();
  auto paused = ArrivingText::start("x", endless, size_t{1} << 30, 4096, 1 << 16);
  ASSERT_TRUE(paused);
  EXPECT_GE(paused->waitFor(100000), 100000u);
  paused.reset();

  // Cancelled while a reader waits for all of an endless text: the wait ends, and says so.
  auto cancelled = ArrivingText::start("big.json.gz", endless, size_t{1} << 30, 4096, 1 << 16);
  ASSERT_TRUE(cancelled);
  int asked = 0;
  cancelled->cancelWhen([&asked] { return ++asked >= 3; });
  EXPECT_LT(cancelled->waitFor(SIZE_MAX), size_t{1} << 30);
  st = cancelled->finish();
  EXPECT_TRUE(st.cancelled()) << st.error();
  EXPECT_NE(st.error().find("big.json.gz"), std::string::npos) << st.error();
}

// A gzip trace opened while it is inflated: the same session as its text opened plain.
TEST(ArrivingText, GzipTracesOpenAsTheirText) {
  for (const char* file : {kTraces[3], kTraces[5]}) {
    const std::string path = std::string(TSCOPE_SHARED_DATA) + "/kineto/" + file;
    auto arriving = inflateGzipFile(path, 1 << 20);
    ASSERT_TRUE(arriving.ok()) << arriving.error();
    ASSERT_TRUE(*arriving);
    const std::string json = gunzip(path);
    EXPECT_EQ((*arriving)->waitFor(SIZE_MAX), json.size());
    EXPECT_TRUE((*arriving)->finish().ok());
    EXPECT_EQ((*arriving)->span().substr(0, json.size()), json);
  }
  auto missing = inflateGzipFile("/nonexistent/t.json.gz");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().find("/nonexistent/t.json.gz"), std::string::npos);
}

}  // namespace ts
