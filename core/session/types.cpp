#include "session/types.h"

namespace ts {

std::string_view toString(EventKind kind) {
  switch (kind) {
    case EventKind::Kernel:
      return "kernel";
    case EventKind::Memcpy:
      return "memcpy";
    case EventKind::Memset:
      return "memset";
    case EventKind::Api:
      return "api";
    case EventKind::Nvtx:
      return "nvtx";
    case EventKind::Range:
      return "range";
  }
  return "?";
}

std::string_view toString(CopyKind kind) {
  switch (kind) {
    case CopyKind::HtoD:
      return "HtoD";
    case CopyKind::DtoH:
      return "DtoH";
    case CopyKind::DtoD:
      return "DtoD";
    case CopyKind::PtoP:
      return "PtoP";
    case CopyKind::HtoH:
      return "HtoH";
    case CopyKind::Other:
      return "other";
  }
  return "?";
}

std::string_view toString(MigrationCause cause) {
  switch (cause) {
    case MigrationCause::Unknown:
      return "unknown";
    case MigrationCause::User:
      return "prefetch by the program";
    case MigrationCause::Coherence:
      return "page fault";
    case MigrationCause::Prefetch:
      return "speculative prefetch";
    case MigrationCause::Eviction:
      return "eviction";
    case MigrationCause::AccessCounters:
      return "access counters";
  }
  return "unknown";
}

std::string copyLabel(CopyKind kind, bool migration) {
  return (migration ? "Unified memory " : "") + std::string(toString(kind));
}

std::string_view toString(MemoryKind kind) {
  switch (kind) {
    case MemoryKind::Unknown:
      return "unknown";
    case MemoryKind::Pageable:
      return "pageable";
    case MemoryKind::Pinned:
      return "pinned";
    case MemoryKind::Device:
      return "device";
    case MemoryKind::Array:
      return "array";
    case MemoryKind::Managed:
      return "managed";
    case MemoryKind::DeviceStatic:
      return "device static";
    case MemoryKind::ManagedStatic:
      return "managed static";
  }
  return "?";
}

std::string_view toString(ApiDomain domain) {
  switch (domain) {
    case ApiDomain::Runtime:
      return "runtime";
    case ApiDomain::Driver:
      return "driver";
    case ApiDomain::Other:
      return "other";
  }
  return "?";
}

std::optional<CopyKind> copyKindFromString(std::string_view text) {
  for (int k = 0; k < kCopyKindCount; ++k) {
    if (toString(static_cast<CopyKind>(k)) == text) return static_cast<CopyKind>(k);
  }
  return std::nullopt;
}

}  // namespace ts
