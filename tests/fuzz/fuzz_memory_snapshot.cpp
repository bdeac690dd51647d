// PyTorch memory snapshots (pickles) and memory timelines (JSON), in memory: read as a snapshot,
// the pickle reader must refuse every opcode that builds an object and never read past the bytes;
// what it accepts must build into a session. The same bytes are read as a memory timeline too.
#include <cstdlib>
#include <string_view>

#include "io/memory_snapshot_reader.h"
#include "io/pickle_data.h"
#include "session/session_builder.h"

namespace {

void build(std::string_view bytes, bool timeline) {
  ts::SessionBuilder b;
  auto info = timeline ? ts::importMemoryTimeline("fuzz.json", bytes, b, b.rank(0))
                       : ts::importMemorySnapshot("fuzz.pickle", bytes, b, b.rank(0));
  if (!info) {
    if (info.error().find(timeline ? "fuzz.json: " : "fuzz.pickle: ") != 0) std::abort();
    return;
  }
  if (!b.build().ok()) return;  // a session the builder refuses says why; no crash
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto doc = ts::readPickle(bytes);
  if (doc.ok()) {
    // Every node a container names exists: readers may follow them without checking.
    for (const ts::PickleNode& n : doc->nodes)
      for (uint32_t i : n.items)
        if (i >= doc->nodes.size()) std::abort();
    if (doc->root >= doc->nodes.size()) std::abort();
  }
  build(bytes, false);
  build(bytes, true);
  return 0;
}
