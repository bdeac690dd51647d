// A shard's part of `diagnose` over a job's rank files: `diagnose --shard I/N --summary-out PART`
// diagnoses every N-th file (from the I-th), each alone, into PART; `merge PART...` checks that the
// parts are of one job, one set of options and cover every file once, and combines them into the
// diagnosis the whole multi-rank session gives (diagnosis_combine.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "summary/diagnosis_combine.h"

namespace ts {

struct DiagnosisPart {
  std::vector<std::string> files;  // every rank file of the job, in the order given
  size_t shard = 0, shards = 1;    // this part holds files shard, shard + shards, ...
  DiagnoseOptions options;         // the range is always whole
  std::vector<RankDiagnosis> ranks;
};

std::string diagnosisPartToJson(const DiagnosisPart& part);
// Errors name `path` and what is wrong with it.
Result<DiagnosisPart> diagnosisPartFromJson(const std::string& path, std::string_view text);
// Whether `text` is a diagnosis part (by its "format"), to tell it from a stats part.
bool isDiagnosisPart(std::string_view text);

// The parts of one run as the diagnosis of the whole session, with the options they were made
// with. Errors name the part files: parts of other files, options or shard counts, a shard given
// twice, files no part holds.
struct MergedDiagnosis {
  Diagnosis diagnosis;
  DiagnoseOptions options;
};
Result<MergedDiagnosis> mergeDiagnosisParts(std::vector<DiagnosisPart> parts,
                                            const std::vector<std::string>& partPaths);

}  // namespace ts
