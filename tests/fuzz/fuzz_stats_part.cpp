// A shard's part file (stats or diagnose --shard I/N --summary-out PART), which `merge` reads
// from wherever the cluster's shards wrote it: parsed by the reader its format names, merged as a
// run of one part, every table rendered.
#include "analysis/diagnosis_tables.h"
#include "summary/diagnosis_part.h"
#include "summary/stats_part.h"

namespace {

void diagnosisPart(std::string_view text) {
  auto part = ts::diagnosisPartFromJson("part.json", text);
  if (!part) return;
  part->shard = 0;
  part->shards = 1;
  auto merged = ts::mergeDiagnosisParts({*part}, {"part.json"});
  if (!merged) return;
  for (ts::DiagnosisTable t :
       {ts::DiagnosisTable::Steps, ts::DiagnosisTable::Temporal, ts::DiagnosisTable::KernelTypes,
        ts::DiagnosisTable::Idle, ts::DiagnosisTable::CommOverlap, ts::DiagnosisTable::Launch,
        ts::DiagnosisTable::Queue, ts::DiagnosisTable::Findings})
    (void)ts::diagnosisTable(merged->diagnosis, t);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (ts::isDiagnosisPart(text)) {
    diagnosisPart(text);
    return 0;
  }
  auto part = ts::statsPartFromJson("part.json", text);
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
