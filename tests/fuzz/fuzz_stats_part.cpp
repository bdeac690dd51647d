// A stats shard's part file (stats --shard I/N --summary-out PART), which `merge` reads from
// wherever the cluster's shards wrote it: parsed, merged as a run of one part, every report
// rendered.
#include "summary/stats_part.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto part = ts::statsPartFromJson("part.json", {reinterpret_cast<const char*>(data), size});
  if (!part) return 0;
  // One part as the whole run: it must hold every shard, so say it is shard 0 of 1.
  part->shard = 0;
  part->shards = 1;
  auto merged = ts::mergeStatsParts({*part}, {"part.json"});
  if (!merged) return 0;
  for (ts::StatsReport r : merged->reports)
    (void)ts::renderStats(merged->summary, r, merged->options);
  return 0;
}
