// Chakra execution traces (ASTRA-sim 2.x) for a data-parallel training step: one file per NPU,
// `PREFIX.<npu>.et`, each a stream of varint32-length-delimited protobuf messages — GlobalMetadata,
// then the nodes: forward compute per layer, then per layer in reverse the weight-gradient
// compute, its all-reduce and the input-gradient compute, with data dependencies in that order.
#pragma once

#include <string>
#include <vector>

#include "model/astra_workload.h"
#include "util/result.h"

namespace ts::model {

struct ChakraNode {
  uint64_t id = 0;
  std::string name;
  int type = 0;  // NodeType: 4 compute, 7 collective
  std::vector<uint64_t> dataDeps;
  uint64_t durationMicros = 0;
  int commType = -1;     // collectives: 0 all-reduce
  int64_t commSize = 0;  // bytes
  int64_t numOps = 0;    // compute: FLOPs
};

struct ChakraTrace {
  std::string version;
  std::vector<ChakraNode> nodes;
};

// The nodes one NPU runs (all NPUs run the same in data parallelism).
ChakraTrace chakraDataParallel(const std::vector<Layer>& layers, bool weightsOnly);

// Writes PREFIX.0.et ... PREFIX.<npus-1>.et atomically; returns the paths.
Result<std::vector<std::string>> writeChakra(const ChakraTrace& trace, const std::string& prefix,
                                             int npus);

// Reads one .et file back (tests, and a check of what was written).
Result<ChakraTrace> readChakra(const std::string& path);

}  // namespace ts::model
