#include "summary/stats_combine.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <functional>
#include <mutex>
#include <thread>

#include "io/open_session.h"
#include "util/saturate.h"

namespace ts {

namespace {
constexpr TimeNs kTimeLimit = TimeNs{1} << 62;
}  // namespace

Result<StatsSummary> combineRankSummaries(std::vector<StatsSummary> files) {
  if (files.empty()) return Error{"no rank summary to combine"};
  for (const StatsSummary& f : files) {
    if (f.sources.size() != 1)
      return Error{"a rank summary holds one rank file; this one holds " +
                   std::to_string(f.sources.size())};
  }
  std::sort(files.begin(), files.end(), [](const StatsSummary& a, const StatsSummary& b) {
    return a.sources[0].index < b.sources[0].index;
  });
  std::vector<const StatsSummary::Source*> sources;
  for (const StatsSummary& f : files) {
    if (f.reports != files[0].reports) {
      return Error{f.sources[0].path + " was summarised for other reports than " +
                   files[0].sources[0].path};
    }
    sources.push_back(&f.sources[0]);
  }
  auto aligned = alignSources(sources);
  if (!aligned) return aligned.failure();
  const std::vector<TimeNs> offsets = std::move(*aligned);
  const bool multi = files.size() > 1;

  StatsSummary out;
  out.reports = files[0].reports;
  for (size_t i = 0; i < files.size(); ++i) {
    StatsSummary& f = files[i];
    const TimeNs shift = offsets[i];
    // Times stay within ±2^62 once shifted (as a session's do), so that differences of them
    // cannot overflow; a part file could claim anything.
    bool outOfRange = false;
    auto at = [&](TimeNs t) {
      const TimeNs out = saturatingAdd(t, shift);
      outOfRange = outOfRange || out <= -kTimeLimit || out >= kTimeLimit;
      return out;
    };
    auto shifted = [&](Interval iv) { return Interval{at(iv.start), at(iv.end)}; };
    const auto base = static_cast<uint32_t>(out.devices.size());
    auto renumber = [base](uint32_t device) { return device == kNone ? kNone : base + device; };
    if (!f.empty) {
      out.start = out.empty ? at(f.start) : std::min(out.start, at(f.start));
      out.end = out.empty ? at(f.end) : std::max(out.end, at(f.end));
      out.empty = false;
    }
    for (StatsSummary::Device& d : f.devices) {
      d.source = static_cast<uint32_t>(i);
      if (multi) d.label = f.sources[0].label + " · " + d.label;
      for (Interval& iv : d.busy) iv = shifted(iv);
      for (StatsSummary::StreamBusy& st : d.streams) {
        for (Interval& iv : st.busy) iv = shifted(iv);
      }
      out.devices.push_back(std::move(d));
    }
    for (auto* groups : {&f.kernels, &f.api, &f.memory, &f.layers}) {
      std::vector<StatsSummary::Group>& to = groups == &f.kernels  ? out.kernels
                                             : groups == &f.api    ? out.api
                                             : groups == &f.memory ? out.memory
                                                                   : out.layers;
      for (StatsSummary::Group& g : *groups) {
        g.device = renumber(g.device);
        to.push_back(std::move(g));
      }
    }
    for (StatsSummary::Gap& g : f.gaps) {
      g.device = renumber(g.device);
      g.at = shifted(g.at);
      out.gaps.push_back(std::move(g));
    }
    for (StatsSummary::OverlapRow& r : f.overlap) {
      r.device = renumber(r.device);
      out.overlap.push_back(std::move(r));
    }
    if (outOfRange) {
      return Error{f.sources[0].path +
                   ": times out of range once the ranks' clocks are aligned (beyond ±2^62 ns)"};
    }
    out.layerRanges = out.layerRanges || f.layerRanges;
    out.sources.push_back(std::move(f.sources[0]));
  }
  return out;
}

Result<std::vector<TimeNs>> alignSources(const std::vector<const StatsSummary::Source*>& sources) {
  std::vector<std::string> paths;
  std::vector<ImportInfo> infos;
  std::vector<TimeNs> own;
  for (size_t i = 0; i < sources.size(); ++i) {
    const StatsSummary::Source& src = *sources[i];
    if (i > 0 && src.index == sources[i - 1]->index) {
      return Error{"file " + std::to_string(src.index) +
                   " is given twice: " + sources[i - 1]->path + " and " + src.path};
    }
    paths.push_back(src.path);
    ImportInfo info;
    info.absoluteClock = src.absoluteClock;
    info.firstTimestamp = src.firstTimestamp;
    info.worldSize = src.worldSize;
    infos.push_back(info);
    own.push_back(src.clockOffset);
  }
  TS_RETURN_IF_ERROR(checkOneJob(paths, infos));
  return alignRankClocks(infos, own);
}

Status forEachRankFile(const std::vector<std::string>& files, const std::vector<size_t>& which,
                       const OpenOptions& open,
                       const std::function<Status(size_t k, RankFile& rank)>& use,
                       std::vector<std::string>* incomplete, const Progress& progress) {
  TS_RETURN_IF_ERROR(checkDistinctFiles(files));
  // Every file is there before any is read: a shard of a job array learns of a typo at once,
  // not only the shard that holds the file.
  for (const std::string& path : files) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return Error::notFound(path + ": no such file");
  }
  const unsigned threads =
      open.threads ? open.threads : std::max(1u, std::thread::hardware_concurrency());
  // Fewer files than threads: each file is also read on several.
  const auto workers = static_cast<unsigned>(std::min<size_t>(threads, which.size()));
  OpenOptions one = open;
  one.threads = std::max(1u, threads / std::max(1u, workers));
  std::vector<Status> out(which.size());
  std::vector<std::string> notes(which.size());
  std::atomic<size_t> next{0}, done{0};
  std::mutex progressMutex;
  auto work = [&] {
    for (size_t k; (k = next.fetch_add(1)) < which.size();) {
      if (progress.cancelled()) return;
      const std::string& path = files[which[k]];
      try {
        auto rank = openRankFile(path, which[k], one);
        if (!rank) {
          out[k] = rank.failure();
          continue;
        }
        notes[k] = rank->info.damage.any() ? path + ": " + rank->info.damage.summary
                                           : rank->session->provenance.incompleteReason;
        out[k] = use(k, *rank);
      } catch (const std::bad_alloc&) {  // an error naming the file, not std::terminate
        out[k] = Error{path + ": out of memory while reading it"};
      }
      std::lock_guard lock(progressMutex);
      progress.update(static_cast<double>(++done) / static_cast<double>(which.size()));
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < workers; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  if (progress.cancelled()) return Error::cancelled();
  std::string damaged;  // every damaged file's error, so that one question covers them all
  for (size_t k = 0; k < which.size(); ++k) {
    if (!out[k]) {
      if (out[k].failure().code != ErrorCode::Damaged) return out[k].failure();
      damaged += (damaged.empty() ? "" : "\n") + out[k].error();
      continue;
    }
    if (incomplete && !notes[k].empty()) incomplete->push_back(notes[k]);
  }
  if (!damaged.empty()) return Error{damaged, ErrorCode::Damaged};
  return {};
}

StatsSummary::Source rankSource(const std::string& path, size_t index, const RankFile& rank) {
  return {path,
          index,
          rank.label,
          rank.info.absoluteClock,
          rank.info.firstTimestamp,
          rank.info.worldSize,
          rank.clockOffset};
}

Result<std::vector<StatsSummary>> summariseRankFiles(
    const std::vector<std::string>& files, const std::vector<size_t>& which,
    std::span<const StatsReport> reports, const StatsOptions& options, const OpenOptions& open,
    std::vector<std::string>* incomplete, const Progress& progress) {
  std::vector<StatsSummary> summaries(which.size());
  TS_RETURN_IF_ERROR(forEachRankFile(
      files, which, open,
      [&](size_t k, RankFile& rank) -> Status {
        summaries[k] = summariseStats(*rank.session, reports, options);
        summaries[k].sources.push_back(rankSource(files[which[k]], which[k], rank));
        return {};
      },
      incomplete, progress));
  return summaries;
}

}  // namespace ts
