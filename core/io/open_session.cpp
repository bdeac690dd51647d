#include "io/open_session.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <new>
#include <optional>
#include <thread>

#include "io/arriving_text.h"
#include "io/chrome_json_reader.h"
#include "io/chrome_json_writer.h"
#include "io/memory_snapshot_reader.h"
#include "io/nsys_sqlite_reader.h"
#include "io/pickle_data.h"
#include "io/session_merge.h"
#include "io/sqlite_db.h"
#include "io/text_file.h"
#include "io/tscope_file.h"
#include "session/session_builder.h"
#include "util/saturate.h"

namespace ts {

namespace {

namespace fs = std::filesystem;

// "trace.pt.trace.json.gz" → "trace": the rank label's host part when the trace names none.
std::string fileStem(const std::string& path) {
  std::string name = fs::path(path).filename().string();
  for (const char* ext : {".gz", ".json", ".trace", ".pt"}) {
    if (name.size() > std::strlen(ext) && name.ends_with(ext))
      name.resize(name.size() - std::strlen(ext));
  }
  return name;
}

// Maps [from, to) of the overall progress onto one stage.
Progress stage(const Progress& p, double from, double to) {
  if (!p.report) return Progress{{}, p.cancel, p.stage};
  return Progress{[=](double f) { p.update(from + (to - from) * f); }, p.cancel, p.stage};
}

// A text file whose first bytes are no JSON.
Error notATrace(const std::string& path, bool empty, bool gzipped) {
  if (empty) return Error{path + ": the file is empty"};
  return Error{path +
               ": unrecognised format (not a Tensorscope session, an Nsight Systems SQLite "
               "export or a Chrome/Kineto JSON trace" +
               std::string(gzipped ? ", though gzip-compressed" : "") + ")"};
}

// A JSON import's outcome: its info kept and the file named among the session's sources.
Status keepImport(const std::string& path, Result<ImportInfo> imported, SessionBuilder& b,
                  ImportInfo& info) {
  if (!imported) return std::move(imported).failure();
  info = std::move(imported).value();
  b.provenance().sources.push_back({path, info.pytorch ? "kineto-json" : "chrome-json"});
  return {};
}

// A memory snapshot's or memory timeline's import: its reader named the file among the sources.
Status keepOwnImport(Result<ImportInfo> imported, ImportInfo& info) {
  if (!imported) return std::move(imported).failure();
  info = std::move(imported).value();
  return {};
}

// A gzip trace read while it is inflated on a thread of its own (arriving_text.h).
Status importArriving(const std::string& path, ArrivingText& text, SessionBuilder& b, uint32_t rank,
                      ImportInfo& info, const Progress& progress, bool recover, unsigned threads) {
  text.cancelWhen([&progress] { return progress.cancelled(); });
  const size_t head = std::min<size_t>(text.waitFor(256), 256);
  if (!looksLikeJson(text.span().substr(0, head))) {
    // The whole stream is checked first: a corrupt one says so rather than "unrecognised".
    TS_RETURN_IF_ERROR(text.finish());
    return notATrace(path, head == 0, true);
  }
  if (looksLikeMemoryTimeline(text.span().substr(0, head))) {
    TS_RETURN_IF_ERROR(text.finish());
    const std::string_view whole = text.span().substr(0, text.waitFor(SIZE_MAX));
    return keepOwnImport(importMemoryTimeline(path, whole, b, rank), info);
  }
  std::error_code ec;
  const uint64_t onDisk = std::filesystem::file_size(path, ec);
  JsonReadOptions read;
  read.recover = recover;
  read.threads = threads;
  read.consumed = [&](size_t offset) { text.release(offset); };
  read.arrive = [&](size_t bytes) { return text.waitFor(bytes); };
  read.expectedBytes = ec ? 0 : gzipSizeHint(path, onDisk);
  auto imported = importChromeJson(path, text.span(), b, rank, progress, read);
  if (imported.cancelled()) return imported.failure();
  // The text the importer read ended where the gzip stream broke: that is the error to report.
  TS_RETURN_IF_ERROR(text.finish());
  return keepImport(path, std::move(imported), b, info);
}

Status importTrace(const std::string& path, SessionBuilder& b, uint32_t rank, ImportInfo& info,
                   const Progress& progress, bool recover, unsigned threads) {
  if (isSqliteFile(path)) {
    auto db = SqliteDb::open(path, true);
    if (!db) return db.failure().prefixed(path + ": cannot open: ");
    if (db->hasTable("tscope_meta")) {
      auto session = loadSession(path, progress);
      if (!session) return session.failure();
      return appendSession(path, **session, b, rank, info);
    }
    if (!isNsysExport(db.value())) {
      return Error{path +
                   ": an SQLite database but neither a Tensorscope session nor an Nsight "
                   "Systems export (no StringIds, TARGET_INFO_GPU or CUPTI_ACTIVITY_KIND_* table)"};
    }
    auto imported = importNsysSqlite(path, db.value(), b, rank, progress);
    if (!imported) return imported.failure();
    info = imported.value();
    return {};
  }
  if (isGzipFile(path)) {
    auto arriving = inflateGzipFile(path);
    if (!arriving) return arriving.failure();
    if (*arriving)
      return importArriving(path, **arriving, b, rank, info, progress, recover, threads);
    // No span could be reserved: inflated whole first, as below.
  }
  auto text = readTextFile(path, stage(progress, 0, 0.3));
  if (!text) return text.failure();
  std::string_view head = text->view().substr(0, 256);
  // By content; a file named as a pickle that is neither a pickle nor JSON gets the pickle
  // reader's error (what it expected, at which byte) rather than "unrecognised".
  const bool json = looksLikeJson(head);
  if (looksLikePickle(head) || (!json && (path.ends_with(".pickle") || path.ends_with(".pkl"))))
    return keepOwnImport(importMemorySnapshot(path, text->view(), b, rank), info);
  if (!json) return notATrace(path, text->size() == 0, text->gzipped());
  if (looksLikeMemoryTimeline(head))
    return keepOwnImport(importMemoryTimeline(path, text->view(), b, rank), info);
  JsonReadOptions read;
  read.recover = recover;
  read.threads = threads;
  read.consumed = [&](size_t offset) { text->release(offset); };
  return keepImport(path,
                    importChromeJson(path, text->view(), b, rank, stage(progress, 0.3, 1.0), read),
                    b, info);
}

// What a reader left out, added to the session's count. The kinds come from the file (a phase, an
// NVTX type): past 64 of them, the rest are counted together.
void addSkipped(std::map<std::string, uint64_t>& to, const std::map<std::string, uint64_t>& from) {
  constexpr size_t kMaxKinds = 64;
  for (const auto& [what, n] : from) {
    if (to.size() < kMaxKinds || to.count(what))
      to[what] += n;
    else
      to["other kinds of record"] += n;
  }
}

// One rank file read on its own: parsed into a builder of its own and built, its clock offset held
// back (the session applies it, with the alignment), or a .tscope loaded.
struct RankLoad {
  Result<SessionPtr> session = Error{"not read"};
  ImportInfo info;
  TimeNs clockOffset = 0;
  bool tscope = false;
};

RankLoad loadRank(const std::string& path, const Progress& progress, bool recover,
                  unsigned threads) {
  RankLoad out;
  if (isSqliteFile(path)) {
    auto db = SqliteDb::open(path, true);
    if (db && db->hasTable("tscope_meta")) {
      out.tscope = true;
      out.session = loadSession(path, progress);
      return out;
    }
  }
  SessionBuilder b;
  const uint32_t rank = b.rank(0);
  if (Status st = importTrace(path, b, rank, out.info, progress, recover, threads); !st) {
    out.session = st.failure();
    return out;
  }
  out.clockOffset = b.rankInfo(rank).clockOffsetNs;
  b.rankInfo(rank).clockOffsetNs = 0;
  out.session = b.build();
  return out;
}

// Several files read `threads` at a time (each on `threadsPerFile` threads), added to `b` in rank
// order as each is ready (and then released: at most a few wait at once). The same session as
// reading them one after another.
Status importRanks(const std::vector<std::string>& paths, SessionBuilder& b,
                   std::vector<ImportInfo>& infos, const Progress& progress, bool recover,
                   unsigned threads, unsigned threadsPerFile, std::string& damaged) {
  const size_t n = paths.size();
  const size_t ahead = 2 * static_cast<size_t>(threads);  // loaded but not yet added, at most
  std::vector<std::optional<RankLoad>> loads(n);
  std::mutex mutex;
  std::condition_variable changed;
  size_t next = 0, added = 0;
  bool stop = false;
  std::vector<double> done(n, 0.0);  // each file's fraction read
  std::mutex progressMutex;          // the caller's progress hears one thread at a time
  auto report = [&](size_t i, double f) {
    std::lock_guard lock(progressMutex);
    done[i] = f;
    double sum = 0;
    for (double d : done) sum += d;
    progress.update(0.9 * sum / static_cast<double>(n));
  };
  auto work = [&] {
    for (;;) {
      size_t i;
      {
        std::unique_lock lock(mutex);
        changed.wait(lock, [&] { return stop || next >= n || next < added + ahead; });
        if (stop || next >= n) return;
        i = next++;
      }
      Progress mine{progress.report
                        ? std::function<void(double)>([&, i](double f) { report(i, f); })
                        : std::function<void(double)>(),
                    progress.cancel,
                    {}};  // stages: only the calling thread names them
      RankLoad load;
      try {
        load = loadRank(paths[i], mine, recover, threadsPerFile);
      } catch (const std::bad_alloc&) {  // an error naming the file, not std::terminate
        load.session = Error{paths[i] + ": out of memory while reading it"};
      }
      std::lock_guard lock(mutex);
      loads[i] = std::move(load);
      changed.notify_all();
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(work);
  Status result;
  for (size_t i = 0; i < n; ++i) {
    std::optional<RankLoad> load;
    {
      std::unique_lock lock(mutex);
      changed.wait(lock, [&] { return loads[i].has_value(); });
      load = std::move(loads[i]);
      loads[i].reset();
      ++added;
      changed.notify_all();
    }
    if (!load->session) {
      if (load->session.failure().code != ErrorCode::Damaged) {
        result = load->session.failure();
        break;
      }
      damaged += (damaged.empty() ? "" : "\n") + load->session.error();
      continue;
    }
    const uint32_t rank = b.rank(static_cast<int32_t>(i));
    ImportInfo appended;
    if (Status st = appendSession(paths[i], **load->session, b, rank, appended); !st) {
      result = st;
      break;
    }
    if (load->tscope) {
      infos[i] = appended;
    } else {
      infos[i] = std::move(load->info);
      b.rankInfo(rank).clockOffsetNs = load->clockOffset;
    }
  }
  {
    std::lock_guard lock(mutex);
    stop = true;
    changed.notify_all();
  }
  for (std::thread& t : pool) t.join();
  return result;
}

}  // namespace

// Ranks of one job agree on its size: a file of another job is refused, both files named.
Status checkOneJob(const std::vector<std::string>& paths, const std::vector<ImportInfo>& infos) {
  for (size_t i = 0; i < paths.size(); ++i) {
    if (infos[i].worldSize < 0) continue;
    for (size_t j = 0; j < i; ++j) {
      if (infos[j].worldSize >= 0 && infos[j].worldSize != infos[i].worldSize) {
        return Error{paths[i] + " belongs to another job than " + paths[j] + ": a world size of " +
                     std::to_string(infos[i].worldSize) + " ranks against " +
                     std::to_string(infos[j].worldSize) + " (distributedInfo.world_size)"};
      }
    }
  }
  return {};
}

std::vector<TimeNs> alignRankClocks(const std::vector<ImportInfo>& infos,
                                    const std::vector<TimeNs>& clockOffsets) {
  std::vector<TimeNs> offsets = clockOffsets;
  if (infos.size() < 2) return offsets;
  const bool absolute =
      std::all_of(infos.begin(), infos.end(), [](const auto& i) { return i.absoluteClock; });
  if (absolute) return offsets;
  // Without wall-clock times, line the ranks up on their first events.
  // Saturating: a summary read from a part file may claim any times (the builder and the
  // summaries' combining check the result against the limits of session times).
  TimeNs earliest = INT64_MAX;
  for (size_t i = 0; i < infos.size(); ++i)
    earliest = std::min(earliest, saturatingAdd(infos[i].firstTimestamp, clockOffsets[i]));
  for (size_t i = 0; i < infos.size(); ++i)
    offsets[i] = saturatingAdd(earliest, -std::max(infos[i].firstTimestamp, -INT64_MAX));
  return offsets;
}

std::string rankLabel(int32_t rank, const std::string& host, const std::string& path) {
  return "rank " + std::to_string(rank) + " / " + (host.empty() ? fileStem(path) : host);
}

Result<RankFile> openRankFile(const std::string& path, size_t index, const OpenOptions& options,
                              const Progress& progress) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return Error::notFound(path + ": no such file");
  if (fs::is_directory(path, ec)) return Error{path + ": is a directory"};
  const unsigned threads =
      options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  RankLoad load = loadRank(path, progress, options.recover, threads);
  if (!load.session) return load.session.failure();
  RankFile out;
  if (load.tscope) {
    // As a multi-rank session adds it: refused when it holds several ranks.
    if ((*load.session)->ranks.size() > 1) {
      return Error{path + ": already holds " + std::to_string((*load.session)->ranks.size()) +
                   " ranks; open it alone, or combine single-rank files"};
    }
    out.info = sessionImportInfo(**load.session);
  } else {
    out.info = std::move(load.info);
    out.clockOffset = load.clockOffset;
  }
  out.session = std::move(*load.session);
  out.rank = out.info.distributedRank >= 0 ? out.info.distributedRank : static_cast<int32_t>(index);
  out.label = rankLabel(out.rank, out.info.host, path);
  return out;
}

Result<SessionPtr> openSessionFile(const std::string& path, const Progress& progress) {
  return openSessionFiles({path}, {}, progress);
}

Result<SessionPtr> openSessionFile(const std::string& path, const OpenOptions& options,
                                   const Progress& progress) {
  return openSessionFiles({path}, options, progress);
}

Status checkDistinctFiles(const std::vector<std::string>& paths) {
  std::map<std::string, size_t> seen;
  for (size_t i = 0; i < paths.size(); ++i) {
    std::error_code ec;
    fs::path p = fs::absolute(paths[i], ec);
    if (ec) p = paths[i];
    auto [it, fresh] = seen.try_emplace(p.lexically_normal().string(), i);
    if (!fresh) {
      const std::string& first = paths[it->second];
      return Error{paths[i] + " is given twice" +
                   (first == paths[i] ? std::string() : " (also as " + first + ")") +
                   ": each rank file once"};
    }
  }
  return {};
}

Result<SessionPtr> openSessionFiles(const std::vector<std::string>& paths,
                                    const OpenOptions& options, const Progress& progress) {
  if (paths.empty()) return Error{"no file to open"};
  TS_RETURN_IF_ERROR(checkDistinctFiles(paths));
  for (const std::string& path : paths) {
    std::error_code ec;
    if (!fs::exists(path, ec)) return Error::notFound(path + ": no such file");
    if (fs::is_directory(path, ec)) return Error{path + ": is a directory"};
  }
  if (paths.size() == 1 && isSqliteFile(paths[0])) {
    auto db = SqliteDb::open(paths[0], true);
    if (db && (db->hasTable("tscope_meta") || !isNsysExport(db.value()))) {
      return loadSession(paths[0], progress);  // a session, or the reader's precise refusal
    }
  }
  SessionBuilder b;
  std::vector<ImportInfo> infos(paths.size());
  const double share = 0.9 / static_cast<double>(paths.size());
  std::string damaged;  // every damaged file's error, so that one question covers them all
  const unsigned threads =
      options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  const bool parallel = paths.size() > 1 && threads > 1;
  if (parallel) {
    // Fewer files than cores: each file's events are also read on several threads.
    const auto files = static_cast<unsigned>(std::min<size_t>(threads, paths.size()));
    TS_RETURN_IF_ERROR(importRanks(paths, b, infos, progress, options.recover, files,
                                   std::max(1u, threads / files), damaged));
  }
  for (size_t i = 0; i < paths.size(); ++i) {
    if (!parallel) {
      Status st =
          importTrace(paths[i], b, b.rank(static_cast<int32_t>(i)), infos[i],
                      stage(progress, share * i, share * (i + 1)), options.recover, threads);
      if (!st) {
        if (st.failure().code != ErrorCode::Damaged) return st.failure();
        damaged += (damaged.empty() ? "" : "\n") + st.error();
        continue;
      }
    }
    addSkipped(b.provenance().skipped, infos[i].skipped);
    // A recovered trace: the session says it is incomplete, and why, wherever it is shown.
    if (infos[i].damage.any()) {
      Provenance& p = b.provenance();
      p.incomplete = true;
      p.incompleteReason +=
          (p.incompleteReason.empty() ? "" : "\n") + paths[i] + ": " + infos[i].damage.summary;
    }
  }
  if (!damaged.empty()) return Error{damaged, ErrorCode::Damaged};
  TS_RETURN_IF_ERROR(checkOneJob(paths, infos));
  for (const ImportInfo& info : infos) {  // one job: checkOneJob found them agreeing
    if (info.worldSize > 0 && info.worldSize <= INT32_MAX)
      b.provenance().worldSize = static_cast<int32_t>(info.worldSize);
  }
  if (paths.size() > 1) {
    std::vector<TimeNs> own(paths.size());
    for (size_t i = 0; i < paths.size(); ++i)
      own[i] = b.rankInfo(static_cast<uint32_t>(i)).clockOffsetNs;
    const std::vector<TimeNs> offsets = alignRankClocks(infos, own);
    for (size_t i = 0; i < paths.size(); ++i) {
      Rank& r = b.rankInfo(static_cast<uint32_t>(i));
      r.rank = infos[i].distributedRank >= 0 ? infos[i].distributedRank : static_cast<int32_t>(i);
      // A host only when the trace names one (the advisor places ranks by it); the label falls
      // back on the file's name.
      r.host = infos[i].host;
      r.label = rankLabel(r.rank, r.host, paths[i]);
      r.clockOffsetNs = offsets[i];
    }
  }
  for (const auto& [index, shift] : options.shiftNs) {
    if (index >= paths.size()) return Error{"--shift: there is no file " + std::to_string(index)};
    b.rankInfo(static_cast<uint32_t>(index)).clockOffsetNs += shift;
  }
  return b.build(stage(progress, 0.9, 1.0));
}

Status writeSessionFile(const Session& session, const std::string& path,
                        const WriteOptions& options, const Progress& progress) {
  auto endsWith = [&](std::string_view suffix) {
    return path.size() > suffix.size() &&
           path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (endsWith(".tscope")) return saveSession(session, path, progress);
  if (endsWith(".json") || endsWith(".json.gz")) return exportChromeJson(session, path, progress);
  if (endsWith(".csv")) return exportCsv(session, options.csvTable, path, progress);
  return Error{path + ": cannot write '" + fs::path(path).extension().string() +
               "' files (supported: .tscope, .json, .json.gz, .csv)"};
}

}  // namespace ts
