// A text handed over as a gzip trace's is while it is inflated (io/arriving_text.h): by another
// thread, `chunk` bytes at a time, pausing `lead` bytes ahead of what the reader released, whose
// memory is given back a page at a time (a byte read behind the reader would read zero). For
// tests that an import of arriving text is the import of the whole.
#pragma once

#include <algorithm>
#include <cstring>
#include <memory>
#include <string_view>

#include "io/arriving_text.h"
#include "io/chrome_json_reader.h"

namespace ts::testing {

inline std::unique_ptr<ArrivingText> arriveSlowly(std::string_view text, size_t chunk,
                                                  size_t lead) {
  return ArrivingText::start(
      "arriving.json",
      [text, at = size_t{0}](char* to, size_t room) mutable -> Result<size_t> {
        const size_t n = std::min(room, text.size() - at);
        std::memcpy(to, text.data() + at, n);
        at += n;
        return n;
      },
      text.size() + 100, chunk, lead, 1);
}

// `options` set to read `text` as it arrives.
inline void readAsItArrives(ArrivingText& text, size_t size, JsonReadOptions& options) {
  options.arrive = [&text](size_t bytes) { return text.waitFor(bytes); };
  options.consumed = [&text](size_t offset) { text.release(offset); };
  options.expectedBytes = size;
}

}  // namespace ts::testing
