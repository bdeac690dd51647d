// A parameter sweep's results (`tensorscope-cli simulate --sweep`, CSV): per point and policy the
// iteration, the ideal and the slowdown. Read back for the sensitivity charts.
#pragma once

#include <string>
#include <vector>

#include "session/types.h"
#include "util/result.h"

namespace ts::memsim {

struct SweepPoint {
  double value = 0;  // the swept parameter in base units (bytes, bytes/s, or a batch size)
  std::string policy;
  bool feasible = true;
  TimeNs iteration = 0, ideal = 0;
  double slowdown = 0;
};

struct SweepTable {
  std::string key;  // "gpu-mem", "host-mem", "ssd-bw", "pcie-bw", "batch"
  std::vector<SweepPoint> points;
};

// The CSV `simulate --sweep` writes; errors name the file and line.
Result<SweepTable> loadSweepCsv(const std::string& path);

}  // namespace ts::memsim
