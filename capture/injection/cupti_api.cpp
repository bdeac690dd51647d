#include "capture/injection/cupti_api.h"

#include <dlfcn.h>

#include <cstdlib>

#include "capture/cupti_version.h"

namespace ts::capture {

namespace {

// Binds one entry point; the first one missing is remembered for the error.
template <typename F>
void bind(void* lib, const char* name, F& fn, std::string* missing) {
  fn = reinterpret_cast<F>(::dlsym(lib, name));
  if (!fn && missing && missing->empty()) *missing = name;
}

struct Loaded {
  CuptiApi api;
  std::string failure;
};

Loaded load(const char* fallbackSoname) {
  Loaded out;
  CuptiApi& api = out.api;
  // RTLD_GLOBAL: NVTX's injection (forwarded from ours) must find this same CUPTI instance.
  void* lib = ::dlopen(fallbackSoname, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
  if (lib) {
    api.path = std::string(fallbackSoname) + " (already loaded by the program)";
  } else {
    const char* env = std::getenv("TSCOPE_CUPTI_LIBRARY");
    api.path = env && *env ? env : fallbackSoname;
    lib = ::dlopen(api.path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  }
  if (!lib) {
    const char* why = ::dlerror();
    out.failure = "the CUPTI library " + api.path + " could not be loaded (" +
                  (why ? why : "unknown error") +
                  "); set TSCOPE_CUPTI_LIBRARY to the toolkit's libcupti.so";
    return out;
  }
  std::string missing;
  bind(lib, "cuptiActivityDisable", api.activityDisable, &missing);
  bind(lib, "cuptiActivityEnable", api.activityEnable, &missing);
  bind(lib, "cuptiActivityEnableAllSyncRecords", api.activityEnableAllSyncRecords, &missing);
  bind(lib, "cuptiActivityFlushAll", api.activityFlushAll, &missing);
  bind(lib, "cuptiActivityGetNextRecord", api.activityGetNextRecord, &missing);
  bind(lib, "cuptiActivityGetNumDroppedRecords", api.activityGetNumDroppedRecords, &missing);
  bind(lib, "cuptiActivityRegisterCallbacks", api.activityRegisterCallbacks, &missing);
  bind(lib, "cuptiGetCallbackName", api.getCallbackName, &missing);
  bind(lib, "cuptiGetResultString", api.getResultString, &missing);
  bind(lib, "cuptiGetTimestamp", api.getTimestamp, &missing);
  bind(lib, "cuptiGetVersion", api.getVersion, &missing);
  bind(lib, "cuptiSetThreadIdType", api.setThreadIdType, &missing);
  bind(lib, "cuptiSubscribe_v2", api.subscribe, &missing);
  bind(lib, "InitializeInjectionNvtx2", api.initializeNvtx, nullptr);
  if (!missing.empty()) {
    out.failure =
        "the CUPTI library " + api.path + " lacks " + missing + " (too old for this build?)";
    return out;
  }
  // The decoder reads records with this build's struct layouts (Kernel10, Memcpy6, ...): CUPTI
  // keeps them within a major version, not across one.
  if (api.getVersion(&api.version) != CUPTI_SUCCESS) {
    out.failure = "the CUPTI library " + api.path + " does not say its version";
    return out;
  }
  const std::string built = cuptiVersionText(CUPTI_API_VERSION);
  const std::string found = cuptiVersionText(api.version);
  if (cuptiMajor(api.version) != cuptiMajor(CUPTI_API_VERSION)) {
    out.failure = "the CUPTI library " + api.path + " is version " + found + " (CUDA " +
                  std::to_string(cuptiMajor(api.version)) + "); this build reads CUDA " +
                  std::to_string(cuptiMajor(CUPTI_API_VERSION)) + "'s records (CUPTI " + built +
                  "): set TSCOPE_CUPTI_LIBRARY to a CUDA " +
                  std::to_string(cuptiMajor(CUPTI_API_VERSION)) + " libcupti.so";
  } else if (api.version > CUPTI_API_VERSION) {
    api.versionNote = "CUPTI " + found + " is newer than the " + built +
                      " this build was made with; its records are read with " + built +
                      "'s layouts";
  } else if (api.version < CUPTI_API_VERSION) {
    api.versionNote = "CUPTI " + found + " is older than the " + built +
                      " this build was made with; records it lacks fields for may be incomplete";
  }
  return out;
}

}  // namespace

const CuptiApi* loadCupti(const char* fallbackSoname, std::string* error) {
  // Never destroyed: a CUPTI callback may still run while exit() destroys statics.
  static const Loaded& loaded = *new Loaded(load(fallbackSoname));
  if (!loaded.failure.empty()) {
    *error = loaded.failure;
    return nullptr;
  }
  return &loaded.api;
}

}  // namespace ts::capture
