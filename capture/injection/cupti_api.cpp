#include "capture/injection/cupti_api.h"

#include <dlfcn.h>

#include <cstdlib>

namespace ts::capture {

namespace {

// Binds one entry point; the first one missing is remembered for the error.
template <typename F>
void bind(void* lib, const char* name, F& fn, std::string* missing) {
  fn = reinterpret_cast<F>(::dlsym(lib, name));
  if (!fn && missing->empty()) *missing = name;
}

}  // namespace

const CuptiApi* loadCupti(const char* fallbackSoname, std::string* error) {
  static CuptiApi api;
  static std::string failure;
  static bool tried = false;
  if (tried) {
    if (!failure.empty()) *error = failure;
    return failure.empty() ? &api : nullptr;
  }
  tried = true;
  const char* env = std::getenv("TSCOPE_CUPTI_LIBRARY");
  const std::string path = env && *env ? env : fallbackSoname;
  // RTLD_GLOBAL: NVTX's injection (NVTX_INJECTION64_PATH) opens the same file and must find the
  // same CUPTI instance, not a second copy.
  void* lib = ::dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!lib) {
    const char* why = ::dlerror();
    failure = "the CUPTI library " + path + " could not be loaded (" +
              (why ? why : "unknown error") +
              "); set TSCOPE_CUPTI_LIBRARY to the toolkit's libcupti.so";
    *error = failure;
    return nullptr;
  }
  std::string missing;
  bind(lib, "cuptiActivityEnable", api.activityEnable, &missing);
  bind(lib, "cuptiActivityFlushAll", api.activityFlushAll, &missing);
  bind(lib, "cuptiActivityFlushPeriod", api.activityFlushPeriod, &missing);
  bind(lib, "cuptiActivityGetNextRecord", api.activityGetNextRecord, &missing);
  bind(lib, "cuptiActivityGetNumDroppedRecords", api.activityGetNumDroppedRecords, &missing);
  bind(lib, "cuptiActivityRegisterCallbacks", api.activityRegisterCallbacks, &missing);
  bind(lib, "cuptiGetCallbackName", api.getCallbackName, &missing);
  bind(lib, "cuptiGetResultString", api.getResultString, &missing);
  bind(lib, "cuptiGetTimestamp", api.getTimestamp, &missing);
  bind(lib, "cuptiGetVersion", api.getVersion, &missing);
  if (!missing.empty()) {
    failure = "the CUPTI library " + path + " lacks " + missing + " (too old for this build?)";
    *error = failure;
    return nullptr;
  }
  // The decoder reads records with this build's struct layouts: an older CUPTI (another toolkit
  // found first) would hand back records it cannot read.
  uint32_t version = 0;
  if (api.getVersion(&version) != CUPTI_SUCCESS || version < CUPTI_API_VERSION) {
    failure = "the CUPTI library " + path + " is API version " + std::to_string(version) +
              ", older than the " + std::to_string(CUPTI_API_VERSION) +
              " this build reads; set TSCOPE_CUPTI_LIBRARY to a newer toolkit's libcupti.so";
    *error = failure;
    return nullptr;
  }
  return &api;
}

}  // namespace ts::capture
