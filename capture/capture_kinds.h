// What a capture can record, listed once: the CLI's --kinds, the capture dialog's boxes and the
// injection (which reads the list from TSCOPE_CAPTURE_KINDS) all take the names from here.
// Header-only and dependency-free: the injection library links nothing of Tensorscope.
#pragma once

#include <string_view>

namespace ts::capture {

struct CaptureKind {
  std::string_view name;   // on the command line and in TSCOPE_CAPTURE_KINDS
  std::string_view label;  // in the capture dialog
  bool byDefault;          // recorded when no list is given
};

inline constexpr CaptureKind kCaptureKinds[] = {
    {"kernel", "Kernels", true},
    {"memcpy", "Memory copies", true},
    {"memset", "Memsets", true},
    {"runtime", "CUDA runtime API", true},
    {"driver", "CUDA driver API", false},  // doubles the API rows of runtime programs
    {"nvtx", "NVTX ranges", true},
    {"sync", "Synchronisation", true},
    {"memory", "GPU memory allocations", true},  // cudaMalloc/cudaFree and pools
};

inline const CaptureKind* findCaptureKind(std::string_view name) {
  for (const CaptureKind& k : kCaptureKinds)
    if (k.name == name) return &k;
  return nullptr;
}

// Whether `kind` is in `list` (comma-separated names); an empty list means the default set.
inline bool captureKindWanted(std::string_view list, std::string_view kind) {
  if (list.empty()) {
    const CaptureKind* k = findCaptureKind(kind);
    return k && k->byDefault;
  }
  while (true) {
    const size_t comma = list.find(',');
    if (list.substr(0, comma) == kind) return true;
    if (comma == std::string_view::npos) return false;
    list.remove_prefix(comma + 1);
  }
}

// The first name in `list` that is not a capture kind; empty when all are known.
inline std::string_view unknownCaptureKind(std::string_view list) {
  while (true) {
    const size_t comma = list.find(',');
    const std::string_view name = list.substr(0, comma);
    if (!findCaptureKind(name)) return name.empty() ? std::string_view("(empty)") : name;
    if (comma == std::string_view::npos) return {};
    list.remove_prefix(comma + 1);
  }
}

}  // namespace ts::capture
