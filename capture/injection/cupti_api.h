// The CUPTI entry points the injection library uses, loaded with dlopen at InitializeInjection
// instead of linked: libcupti comes with NVIDIA's toolkit (often /usr/local/cuda, sometimes a
// versioned directory or a Python wheel), so a link-time RUNPATH would tie the installed library
// to the build machine's toolkit location, and Debian policy forbids such RUNPATHs. Types come
// from cupti.h through decltype, so a signature change in a new CUPTI fails to compile.
#pragma once

#include <cupti.h>

#include <cstdint>
#include <string>

namespace ts::capture {

// NVTX's injection entry point (nvToolsExt's InitializeInjectionNvtx2): it is handed the
// function that returns NVTX's export tables.
using NvtxInjectionInit = int (*)(const void* (*getExportTable)(uint32_t));

struct CuptiApi {
  decltype(&::cuptiActivityDisable) activityDisable = nullptr;
  decltype(&::cuptiActivityEnable) activityEnable = nullptr;
  decltype(&::cuptiActivityEnableAllSyncRecords) activityEnableAllSyncRecords = nullptr;
  decltype(&::cuptiActivityFlushAll) activityFlushAll = nullptr;
  decltype(&::cuptiActivityGetNextRecord) activityGetNextRecord = nullptr;
  decltype(&::cuptiActivityGetNumDroppedRecords) activityGetNumDroppedRecords = nullptr;
  decltype(&::cuptiActivityRegisterCallbacks) activityRegisterCallbacks = nullptr;
  decltype(&::cuptiGetCallbackName) getCallbackName = nullptr;
  decltype(&::cuptiGetResultString) getResultString = nullptr;
  decltype(&::cuptiGetTimestamp) getTimestamp = nullptr;
  decltype(&::cuptiGetVersion) getVersion = nullptr;
  decltype(&::cuptiSetThreadIdType) setThreadIdType = nullptr;
  decltype(&::cuptiSubscribe_v2) subscribe = nullptr;
  NvtxInjectionInit initializeNvtx = nullptr;  // may be missing: NVTX then records nothing
  std::string path;                            // the library bound to
  uint32_t version = 0;                        // its cuptiGetVersion
  std::string versionNote;  // a warning about the version (same major, other minor), or empty
};

// Loads CUPTI once (thread-safe: NVTX's injection and the driver's may race): a libcupti the
// process already holds (PyTorch loads its own: a second copy would not see the first's
// activity), else the file named in TSCOPE_CUPTI_LIBRARY (the launcher sets it), else
// `fallbackSoname` through the dynamic loader's search path. nullptr with *error set when no
// library, one of the entry points, or the CUDA major version this build reads is missing.
const CuptiApi* loadCupti(const char* fallbackSoname, std::string* error);

}  // namespace ts::capture
