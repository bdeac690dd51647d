// A JSON trace's events read ahead on several threads, in blocks cut at guessed boundaries: the
// same session, the same counts and the same errors as reading on one thread — on the real traces
// in ../shared/data/kineto and on texts made to defeat the guess (a boundary inside a string,
// pretty-printed JSON, damage inside a block, a cut, an array without its ']').
#include <gtest/gtest.h>

#include <string>
#include <vector>

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

Import import(std::string_view json, bool recover, unsigned threads, size_t blockBytes) {
  Import out;
  SessionBuilder b;
  b.provenance().createdUtc = "2026-01-01T00:00:00Z";  // built a moment apart: one time for both
  out.info = importChromeJson("t.json", json, b, b.rank(0), {}, {recover, threads, blockBytes, {}});
  if (out.info) out.session = b.build();
  return out;
}

// Read on one thread, then on 2 and 3 threads in blocks of each size: the same outcome.
void expectSameAsOneThread(const std::string& what, std::string_view json,
                           const std::vector<size_t>& blockSizes) {
  for (bool recover : {false, true}) {
    const Import one = import(json, recover, 1, 0);
    for (unsigned threads : {2u, 3u}) {
      for (size_t block : blockSizes) {
        SCOPED_TRACE(what + (recover ? ", recovering" : "") + ", " + std::to_string(threads) +
                     " threads, blocks of " + std::to_string(block) + " bytes");
        const Import many = import(json, recover, threads, block);
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
      JsonReadOptions options{false, threads, 65536, {}};
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
  texts.push_back({"text after the trace", "[" + plain + "] x"});
  texts.push_back({"no separator", "[" + plain + " " + event("z", 1) + "]"});
  for (const auto& [what, json] : texts) expectSameAsOneThread(what, json, {1, 37, 300, 2000});
}

}  // namespace ts
