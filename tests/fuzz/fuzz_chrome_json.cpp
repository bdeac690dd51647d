// Chrome / Kineto JSON text, in memory: imported as is (a damaged trace must be an error) and with
// recovery (what is intact must build into a session).
#include <string_view>

#include "io/chrome_json_reader.h"
#include "session/session_builder.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view json(reinterpret_cast<const char*>(data), size);
  for (bool recover : {false, true}) {
    ts::SessionBuilder b;
    auto info = ts::importChromeJson("fuzz.json", json, b, b.rank(0), {}, recover);
    if (info) (void)b.build();
  }
  return 0;
}
