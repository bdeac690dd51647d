// Any file a user opens: the format sniffed from its bytes — gzip, a .tscope session or an Nsight
// Systems export (SQLite), Chrome / Kineto JSON — and opened with recovery, as the GUI does once
// the user agrees.
#include "fuzz_support.h"
#include "io/open_session.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path =
      ts::fuzz::writeFile("input", {reinterpret_cast<const char*>(data), size});
  ts::OpenOptions options;
  options.recover = true;
  (void)ts::openSessionFiles({path}, options);
  return 0;
}
