#include "summary/stats_part.h"

#include <simdjson.h>

#include <algorithm>
#include <map>

#include "summary/part_reader.h"
#include "summary/stats_combine.h"
#include "util/format.h"
#include "util/json_writer.h"

namespace ts {

namespace {

constexpr const char* kKind = "tensorscope stats summary";
constexpr int64_t kVersion = 1;

int64_t deviceNumber(uint32_t device) {
  return device == kNone ? -1 : static_cast<int64_t>(device);
}

void writeIntervals(JsonWriter& w, const std::vector<Interval>& iv) {
  w.beginArray();  // start, end, start, end, ...
  for (const Interval& i : iv) w.value(i.start).value(i.end);
  w.endArray();
}

void writeRuns(JsonWriter& w, const ValueRuns& runs) {
  w.beginArray();  // value, count, value, count, ...
  for (size_t i = 0; i < runs.value.size(); ++i) w.value(runs.value[i]).value(runs.count[i]);
  w.endArray();
}

void writeGroups(JsonWriter& w, const char* key, const std::vector<StatsSummary::Group>& groups) {
  w.key(key).beginArray();
  for (const StatsSummary::Group& g : groups) {
    w.beginObject();
    w.key("gpu").value(deviceNumber(g.device));
    w.key("label").value(g.label);
    w.key("values");
    writeRuns(w, g.values);
    if (!g.bytes.value.empty()) {
      w.key("bytes");
      writeRuns(w, g.bytes);
    }
    w.endObject();
  }
  w.endArray();
}

void writeRank(JsonWriter& w, const StatsSummary& s) {
  const StatsSummary::Source& src = s.sources.at(0);
  w.beginObject();
  w.key("path").value(src.path);
  w.key("index").value(static_cast<uint64_t>(src.index));
  w.key("label").value(src.label);
  w.key("absolute_clock").value(src.absoluteClock);
  w.key("first_ns").value(src.firstTimestamp);
  w.key("clock_offset_ns").value(src.clockOffset);
  w.key("world_size").value(src.worldSize);
  w.key("empty").value(s.empty);
  w.key("start_ns").value(s.start);
  w.key("end_ns").value(s.end);
  w.key("devices").beginArray();
  for (const StatsSummary::Device& d : s.devices) {
    w.beginObject();
    w.key("label").value(d.label);
    w.key("active").value(d.active);
    w.key("kernels").value(d.kernels);
    w.key("gaps").value(d.gaps);
    w.key("busy");
    writeIntervals(w, d.busy);
    w.key("streams").beginArray();
    for (const StatsSummary::StreamBusy& st : d.streams) {
      w.beginObject();
      w.key("label").value(st.label);
      w.key("kernels").value(st.kernels);
      w.key("busy");
      writeIntervals(w, st.busy);
      w.endObject();
    }
    w.endArray();
    w.endObject();
  }
  w.endArray();
  writeGroups(w, "kernels", s.kernels);
  writeGroups(w, "api", s.api);
  writeGroups(w, "memory", s.memory);
  writeGroups(w, "layers", s.layers);
  w.key("layer_ranges").value(s.layerRanges);
  w.key("gap_list").beginArray();
  for (const StatsSummary::Gap& g : s.gaps) {
    w.beginObject();
    w.key("gpu").value(deviceNumber(g.device));
    w.key("start_ns").value(g.at.start);
    w.key("end_ns").value(g.at.end);
    w.key("cpu").value(g.cpu);
    w.endObject();
  }
  w.endArray();
  w.key("overlap").beginArray();
  for (const StatsSummary::OverlapRow& r : s.overlap) {
    w.beginObject();
    w.key("gpu").value(deviceNumber(r.device));
    w.key("kind").value(r.kind);
    w.key("count").value(r.count);
    w.key("copy_ns").value(r.copy);
    w.key("overlap_ns").value(r.overlap);
    w.key("compute_ns").value(r.compute);
    w.endObject();
  }
  w.endArray();
  w.endObject();
}

class StatsPartReader : public PartReader {
 public:
  using PartReader::PartReader;

  bool groups(simdjson::dom::object o, const char* key, size_t devices, bool memory,
              std::vector<StatsSummary::Group>& out) {
    simdjson::dom::array a;
    if (!array(o, key, a)) return false;
    for (simdjson::dom::element e : a) {
      simdjson::dom::object g;
      StatsSummary::Group group;
      if (!object(e, g, key) || !device(g, devices, true, group.device) ||
          !text(g, "label", group.label) || !runs(g, "values", group.values))
        return false;
      if (memory) {
        if (!runs(g, "bytes", group.bytes)) return false;
        if (group.bytes.size() != group.values.size())
          return fail("a memory group has " + std::to_string(group.values.size()) +
                      " durations but " + std::to_string(group.bytes.size()) + " sizes");
      }
      out.push_back(std::move(group));
    }
    return true;
  }

  bool rank(simdjson::dom::element e, size_t files, StatsSummary& s) {
    simdjson::dom::object o;
    if (!object(e, o, "a rank")) return false;
    StatsSummary::Source src;
    int64_t index = 0;
    if (!text(o, "path", src.path) || !count(o, "index", index)) return false;
    if (static_cast<uint64_t>(index) >= files)
      return fail("rank file index " + std::to_string(index) + " is past its " +
                  std::to_string(files) + " files");
    src.index = static_cast<size_t>(index);
    at("rank file " + std::to_string(index) + " (" + src.path + "): ");
    if (!text(o, "label", src.label) || !boolean(o, "absolute_clock", src.absoluteClock) ||
        !time(o, "first_ns", src.firstTimestamp) || !time(o, "clock_offset_ns", src.clockOffset) ||
        !integer(o, "world_size", src.worldSize) || !boolean(o, "empty", s.empty) ||
        !time(o, "start_ns", s.start) || !time(o, "end_ns", s.end))
      return false;
    s.sources.push_back(std::move(src));
    simdjson::dom::array devices;
    if (!array(o, "devices", devices)) return false;
    for (simdjson::dom::element de : devices) {
      simdjson::dom::object d;
      StatsSummary::Device device;
      simdjson::dom::array streams;
      if (!object(de, d, "a GPU") || !text(d, "label", device.label) ||
          !boolean(d, "active", device.active) || !count(d, "kernels", device.kernels) ||
          !count(d, "gaps", device.gaps) || !intervals(d, "busy", device.busy) ||
          !array(d, "streams", streams))
        return false;
      for (simdjson::dom::element se : streams) {
        simdjson::dom::object st;
        StatsSummary::StreamBusy stream;
        if (!object(se, st, "a stream") || !text(st, "label", stream.label) ||
            !count(st, "kernels", stream.kernels) || !intervals(st, "busy", stream.busy))
          return false;
        device.streams.push_back(std::move(stream));
      }
      s.devices.push_back(std::move(device));
    }
    const size_t n = s.devices.size();
    if (!groups(o, "kernels", n, false, s.kernels) || !groups(o, "api", n, false, s.api) ||
        !groups(o, "memory", n, true, s.memory) || !groups(o, "layers", n, false, s.layers) ||
        !boolean(o, "layer_ranges", s.layerRanges))
      return false;
    simdjson::dom::array gaps, overlap;
    if (!array(o, "gap_list", gaps) || !array(o, "overlap", overlap)) return false;
    for (simdjson::dom::element ge : gaps) {
      simdjson::dom::object g;
      StatsSummary::Gap gap;
      if (!object(ge, g, "a gap") || !device(g, n, false, gap.device) ||
          !time(g, "start_ns", gap.at.start) || !time(g, "end_ns", gap.at.end) ||
          !text(g, "cpu", gap.cpu))
        return false;
      if (gap.at.end < gap.at.start) return fail("a gap ends before it starts");
      s.gaps.push_back(std::move(gap));
    }
    for (simdjson::dom::element re : overlap) {
      simdjson::dom::object r;
      StatsSummary::OverlapRow row;
      if (!object(re, r, "an overlap row") || !device(r, n, false, row.device) ||
          !text(r, "kind", row.kind) || !count(r, "count", row.count) ||
          !count(r, "copy_ns", row.copy) || !count(r, "overlap_ns", row.overlap) ||
          !count(r, "compute_ns", row.compute))
        return false;
      s.overlap.push_back(std::move(row));
    }
    at("");
    return true;
  }
};

// What differs between two parts' reports and options, as the command line says it; "" if
// nothing.
std::string difference(const StatsPart& a, const StatsPart& b) {
  auto reports = [](const std::vector<StatsReport>& v) {
    std::string out;
    for (StatsReport r : v) out += (out.empty() ? "" : ",") + std::string(toString(r));
    return out;
  };
  const StatsOptions &x = a.options, &y = b.options;
  if (a.reports != b.reports)
    return "--report " + reports(a.reports) + " against " + reports(b.reports);
  if (x.device != y.device) return "another --gpu";
  if (x.perGpu != y.perGpu) return "--per-gpu in one only";
  if (x.buckets != y.buckets)
    return "--buckets " + std::to_string(x.buckets) + " against " + std::to_string(y.buckets);
  if (x.minGap != y.minGap)
    return "--min-gap " + formatDuration(x.minGap) + " against " + formatDuration(y.minGap);
  if (x.maxGaps != y.maxGaps)
    return "--max-gaps " + std::to_string(x.maxGaps) + " against " + std::to_string(y.maxGaps);
  return "";
}

}  // namespace

std::vector<size_t> shardFiles(size_t files, size_t shard, size_t shards) {
  std::vector<size_t> mine;
  for (size_t i = shard; shards > 0 && i < files; i += shards) mine.push_back(i);
  return mine;
}

std::string statsPartToJson(const StatsPart& part) {
  JsonWriter w(false);
  w.beginObject();
  w.key("format").value(kKind);
  w.key("version").value(kVersion);
  w.key("shard").value(static_cast<uint64_t>(part.shard));
  w.key("shards").value(static_cast<uint64_t>(part.shards));
  w.key("files").beginArray();
  for (const std::string& f : part.files) w.value(f);
  w.endArray();
  w.key("reports").beginArray();
  for (StatsReport r : part.reports) w.value(toString(r));
  w.endArray();
  const StatsOptions& o = part.options;
  w.key("options").beginObject();
  w.key("gpu").value(deviceNumber(o.device));
  w.key("per_gpu").value(o.perGpu);
  w.key("buckets").value(o.buckets);
  w.key("min_gap_ns").value(o.minGap);
  w.key("max_gaps").value(static_cast<uint64_t>(o.maxGaps));
  w.endObject();
  w.key("ranks").beginArray();
  for (const StatsSummary& s : part.ranks) writeRank(w, s);
  w.endArray();
  w.endObject();
  return w.str() + "\n";
}

Result<StatsPart> statsPartFromJson(const std::string& path, std::string_view text) {
  const PartKind kind{kKind, "stats summary",
                      "tensorscope-cli stats FILE... --shard I/N --summary-out PART", kVersion};
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  simdjson::padded_string padded(text);
  TS_RETURN_IF_ERROR(parsePart(parser, padded, path, kind, doc));
  StatsPartReader in(path);
  auto head = readPartHead(in, path, doc, kind);
  if (!head) return head.failure();
  StatsPart part;
  part.shard = head->shard;
  part.shards = head->shards;
  part.files = std::move(head->files);
  simdjson::dom::object options = head->options;
  simdjson::dom::array reports, ranks = head->ranks;
  if (!in.array(head->root, "reports", reports)) return Error{in.error()};
  for (simdjson::dom::element r : reports) {
    std::string_view v;
    std::optional<StatsReport> report;
    if (!r.get_string().get(v)) report = statsReportFromString(v);
    if (!report || !summarisable(*report))
      return Error{path + ": \"reports\" holds something not a summarised report"};
    part.reports.push_back(*report);
  }
  int64_t buckets = 0, maxGaps = 0;
  uint32_t device = kNone;
  if (!in.device(options, SIZE_MAX, true, device) ||
      !in.boolean(options, "per_gpu", part.options.perGpu) ||
      !in.integer(options, "buckets", buckets) ||
      !in.count(options, "min_gap_ns", part.options.minGap) ||
      !in.count(options, "max_gaps", maxGaps))
    return Error{in.error()};
  if (buckets < 1 || buckets > 1000)
    return Error{path + ": \"buckets\" must be between 1 and 1000"};
  part.options.device = device;
  part.options.buckets = static_cast<int>(buckets);
  part.options.maxGaps = static_cast<size_t>(maxGaps);
  for (simdjson::dom::element r : ranks) {
    StatsSummary s;
    s.reports = part.reports;
    if (!in.rank(r, part.files.size(), s)) return Error{in.error()};
    part.ranks.push_back(std::move(s));
  }
  return part;
}

Result<MergedStats> mergeStatsParts(std::vector<StatsPart> parts,
                                    const std::vector<std::string>& partPaths) {
  if (parts.empty()) return Error{"no part to merge"};
  const StatsPart& first = parts[0];
  std::vector<PartShard> shards;
  for (size_t p = 0; p < parts.size(); ++p) {
    const StatsPart& part = parts[p];
    if (std::string d = difference(part, first); !d.empty())
      return Error{partPaths.at(p) + " was made with other reports or options than " +
                   partPaths.at(0) + " (" + d + ")"};
    PartShard shard{&part.files, part.shard, part.shards, {}};
    for (const StatsSummary& s : part.ranks) shard.held.push_back(s.sources.at(0).index);
    shards.push_back(std::move(shard));
  }
  TS_RETURN_IF_ERROR(checkShards(shards, partPaths));
  std::vector<StatsSummary> ranks;
  for (StatsPart& part : parts) {
    for (StatsSummary& s : part.ranks) ranks.push_back(std::move(s));
  }
  MergedStats out;
  out.reports = first.reports;
  out.options = first.options;
  auto summary = combineRankSummaries(std::move(ranks));
  if (!summary) return summary.failure();
  out.summary = std::move(*summary);
  if (out.options.device != kNone && out.options.device >= out.summary.devices.size())
    return Error{"no GPU " + std::to_string(out.options.device) + ": the session has " +
                 std::to_string(out.summary.devices.size())};
  return out;
}

}  // namespace ts
