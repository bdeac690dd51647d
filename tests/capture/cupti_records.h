// Hand-built CUPTI activity records for the capture tests and the fake CUPTI: zeroed like the
// buffer CUPTI fills, with only the kind set, so each test states just the fields it relies on.
#pragma once

#include <cupti.h>

#include <cstring>

namespace ts::capture::testing {

template <class T>
T record(CUpti_ActivityKind kind) {
  T r;
  std::memset(&r, 0, sizeof r);
  r.kind = kind;
  return r;
}

}  // namespace ts::capture::testing
