// CuptiDecoder: turns CUPTI activity records (CUDA 13 structs from cupti_activity.h) into wire
// frames. Pure data conversion — no CUPTI calls — so tests build records by hand and run without
// a GPU. Record kinds it does not model are counted and skipped, never fatal.
#pragma once

#include <cupti_activity.h>

#include <functional>
#include <string>
#include <unordered_map>

#include "capture/wire_format.h"

namespace ts::capture {

class CuptiDecoder {
 public:
  // Name of a runtime (driver = false) or driver API callback id; the injection library asks
  // CUPTI (cuptiGetCallbackName), tests pass a table.
  using ApiNamer = std::function<std::string(bool driver, uint32_t cbid)>;

  CuptiDecoder(FrameWriter& out, ApiNamer namer) : out_(out), namer_(std::move(namer)) {}

  void decode(const CUpti_Activity* record);
  // Records of kinds that are not modelled, since the last takeUnknown(); with their last kind.
  uint64_t takeUnknown(uint32_t& lastKind);
  uint64_t decoded() const { return decoded_; }

 private:
  const std::string& apiName(bool driver, uint32_t cbid);

  FrameWriter& out_;
  ApiNamer namer_;
  std::unordered_map<uint64_t, std::string> apiNames_;
  uint64_t unknown_ = 0, decoded_ = 0;
  uint32_t lastUnknownKind_ = 0;
};

// Frees what CUPTI allocated in a record for the client to free (a device's name, an overhead
// record's details), once the record is decoded: CUPTI's buffers themselves are reused.
void releaseClientMemory(CUpti_Activity* record);

}  // namespace ts::capture
