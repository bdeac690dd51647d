// Opens any session file Tensorscope reads, choosing the reader by content, not by extension:
// .tscope sessions, Chrome Trace Event / PyTorch profiler (Kineto) JSON, plain or gzip-compressed.
// Several trace files open as one multi-rank session.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "io/csv_writer.h"
#include "io/import_info.h"
#include "session/session.h"
#include "util/progress.h"
#include "util/result.h"

namespace ts {

struct OpenOptions {
  // Added to every timestamp of the file with this index (0-based), after automatic alignment.
  std::map<size_t, TimeNs> shiftNs;
  // Open what a damaged JSON trace holds intact (see importChromeJson); the session is marked
  // incomplete with the reason. Without it, a damaged trace is an error with code Damaged.
  bool recover = false;
  // How many threads read: several files are read that many at once (each rank file parsed and
  // built on a thread of its own, then added to the session in rank order), a JSON file's events
  // are read ahead on that many threads (chrome_event_blocks.h). 0: one per core; 1: all on the
  // calling thread. The session is the same whatever the number (tested).
  unsigned threads = 0;
};

Result<SessionPtr> openSessionFile(const std::string& path, const Progress& progress = {});
Result<SessionPtr> openSessionFile(const std::string& path, const OpenOptions& options,
                                   const Progress& progress = {});

// One file: as openSessionFile. Several: one session with a rank per file, labelled
// "rank r / host", clocks aligned on absolute timestamps when every file has them, else on each
// file's first event; then shifted by `options.shiftNs`.
Result<SessionPtr> openSessionFiles(const std::vector<std::string>& paths,
                                    const OpenOptions& options = {}, const Progress& progress = {});

// One file of a multi-rank run read on its own, as openSessionFiles reads the file with index
// `index` of several: for work done rank by rank (stats over many rank files, a shard of them),
// so that only a few ranks' events are held at a time.
struct RankFile {
  SessionPtr session;      // one rank, on the file's own clock (no offset applied)
  ImportInfo info;         // how to align it with the other ranks (alignRankClocks)
  TimeNs clockOffset = 0;  // the file's own clock offset, part of the alignment
  std::string label;       // "rank r / host", the multi-rank session's label of it
  int32_t rank = 0;        // its rank: the trace's distributedInfo.rank, else `index`
};
Result<RankFile> openRankFile(const std::string& path, size_t index,
                              const OpenOptions& options = {}, const Progress& progress = {});

// The offset openSessionFiles adds to each rank's timestamps: the rank's own clock offset, and
// unless every rank has wall-clock times, the shift that lines its first event up with the
// earliest rank's. `clockOffsets[i]` is the file's own offset (RankFile::clockOffset).
std::vector<TimeNs> alignRankClocks(const std::vector<ImportInfo>& infos,
                                    const std::vector<TimeNs>& clockOffsets);

// The rank files name different files: the same path twice (spelled alike once made absolute and
// normal) is an error naming it. Hard links and copies are different files.
Status checkDistinctFiles(const std::vector<std::string>& paths);

// Ranks of one job agree on its size (distributedInfo.world_size): an error naming both files
// when one belongs to another job.
Status checkOneJob(const std::vector<std::string>& paths, const std::vector<ImportInfo>& infos);

// "rank r / host" for the rank of file `path`, as the multi-rank session labels it.
std::string rankLabel(int32_t rank, const std::string& host, const std::string& path);

struct WriteOptions {
  CsvTable csvTable = CsvTable::Kernels;  // the table a .csv file holds
};

// Writes a session in the format its extension names: .tscope, .json / .json.gz (Chrome trace,
// Kineto conventions), .csv (one table). Errors name the file.
Status writeSessionFile(const Session& session, const std::string& path,
                        const WriteOptions& options = {}, const Progress& progress = {});

}  // namespace ts
