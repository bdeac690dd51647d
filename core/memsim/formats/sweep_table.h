// A parameter sweep's results (`tensorscope-cli simulate --sweep`, CSV): per point and policy the
// iteration, the ideal and the slowdown. The table is written and read back here, in one place,
// for the sensitivity charts.
#pragma once

#include <string>
#include <vector>

#include "analysis/stats_table.h"
#include "session/types.h"
#include "util/result.h"

namespace ts::memsim {

struct SweepPoint {
  double value = 0;  // the swept parameter in base units (bytes, bytes/s, or a batch size)
  std::string policy;
  bool feasible = true;
  TimeNs iteration = 0, ideal = 0;  // iteration 0 where infeasible
  double slowdown = 0;
  TimeNs stall = 0;
};

struct SweepTable {
  std::string key;  // "gpu-mem", "host-mem", "ssd-bw", "pcie-bw", "batch"
  std::vector<SweepPoint> points;
  std::vector<std::string> notes;  // why points are infeasible (written as the table's notes)
};

// The table as `simulate --sweep` prints it: columns KEY, policy, feasible, iteration_ns,
// ideal_ns, slowdown, stall_ns; infeasible points leave the iteration, slowdown and stall empty.
StatsTable toStatsTable(const SweepTable& sweep);

// Reads that table's CSV back, columns found by their header names; errors name file and line.
Result<SweepTable> loadSweepCsv(const std::string& path);

}  // namespace ts::memsim
