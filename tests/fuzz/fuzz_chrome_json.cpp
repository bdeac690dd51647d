// Chrome / Kineto JSON text, in memory: imported as is (a damaged trace must be an error) and with
// recovery (what is intact must build into a session). Each is also read on three threads in
// small blocks, whose boundaries are guessed anywhere in the fuzzer's text: the same session, the
// same error, or the target stops (a difference is a bug as much as a crash). Every other input
// is read as it arrives, a few bytes at a time, as a gzip trace is while it is inflated.
#include <cstdlib>
#include <string_view>

#include "arriving_copy.h"
#include "io/chrome_json_reader.h"
#include "session/session_builder.h"
#include "session_fixture.h"

namespace {

struct Import {
  ts::Result<ts::ImportInfo> info = ts::Error{"not read"};
  ts::Result<ts::SessionPtr> session = ts::Error{"not built"};
};

// `arrivingChunk` above 0: the text arrives that many bytes at a time.
Import import(std::string_view json, bool recover, unsigned threads, size_t blockBytes,
              size_t arrivingChunk = 0) {
  Import out;
  ts::SessionBuilder b;
  b.provenance().createdUtc = "2026-01-01T00:00:00Z";  // built a moment apart: one time for both
  ts::JsonReadOptions options;
  options.recover = recover, options.threads = threads, options.blockBytes = blockBytes;
  std::unique_ptr<ts::ArrivingText> text;
  if (arrivingChunk) {
    text = ts::testing::arriveSlowly(json, arrivingChunk, 64);
    if (!text) std::abort();
    ts::testing::readAsItArrives(*text, json.size(), options);
    json = text->span();
  }
  out.info = ts::importChromeJson("fuzz.json", json, b, b.rank(0), {}, options);
  if (out.info) out.session = b.build();
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view json(reinterpret_cast<const char*>(data), size);
  // Blocks of a few to a few hundred bytes, chosen by the input: several per text.
  const size_t blockBytes = size == 0 ? 1 : 1 + data[size / 2] % 97;
  const size_t arrivingChunk = size == 0 || data[size / 3] % 2 ? 0 : 1 + data[size / 4] % 13;
  for (bool recover : {false, true}) {
    Import one = import(json, recover, 1, 0);
    Import many = import(json, recover, 3, blockBytes, arrivingChunk);
    if (one.info.ok() != many.info.ok()) std::abort();
    if (!one.info.ok()) {
      if (one.info.error() != many.info.error()) std::abort();
      continue;
    }
    if (one.info->events != many.info->events ||
        one.info->damage.summary != many.info->damage.summary ||
        one.info->skipped != many.info->skipped || one.session.ok() != many.session.ok())
      std::abort();
    if (!one.session.ok()) {
      if (one.session.error() != many.session.error()) std::abort();
      continue;
    }
    if (!ts::testing::sameSession(**one.session, **many.session, nullptr)) std::abort();
  }
  return 0;
}
