// The CUPTI entry points the injection library uses, loaded with dlopen at InitializeInjection
// instead of linked: libcupti comes with NVIDIA's toolkit (often /usr/local/cuda, sometimes a
// versioned directory or a Python wheel), so a link-time RUNPATH would tie the installed library
// to the build machine's toolkit location, and Debian policy forbids such RUNPATHs. Types come
// from cupti.h through decltype, so a signature change in a new CUPTI fails to compile.
#pragma once

#include <cupti.h>

#include <string>

namespace ts::capture {

struct CuptiApi {
  decltype(&::cuptiActivityEnable) activityEnable = nullptr;
  decltype(&::cuptiActivityFlushAll) activityFlushAll = nullptr;
  decltype(&::cuptiActivityFlushPeriod) activityFlushPeriod = nullptr;
  decltype(&::cuptiActivityGetNextRecord) activityGetNextRecord = nullptr;
  decltype(&::cuptiActivityGetNumDroppedRecords) activityGetNumDroppedRecords = nullptr;
  decltype(&::cuptiActivityRegisterCallbacks) activityRegisterCallbacks = nullptr;
  decltype(&::cuptiGetCallbackName) getCallbackName = nullptr;
  decltype(&::cuptiGetResultString) getResultString = nullptr;
  decltype(&::cuptiGetTimestamp) getTimestamp = nullptr;
  decltype(&::cuptiGetVersion) getVersion = nullptr;
};

// Loads CUPTI once: the file named in TSCOPE_CUPTI_LIBRARY (the launcher sets it), else
// `fallbackSoname` through the dynamic loader's search path. nullptr with *error set when no
// library, one of the entry points, or a recent enough API version (CUPTI_API_VERSION of the
// headers built against) is missing.
const CuptiApi* loadCupti(const char* fallbackSoname, std::string* error);

}  // namespace ts::capture
