#include "summary/diagnosis_part.h"

#include <simdjson.h>

#include "summary/part_reader.h"
#include "summary/stats_part.h"
#include "util/json_writer.h"

namespace ts {

namespace {

constexpr const char* kKind = "tensorscope diagnosis summary";
constexpr int64_t kVersion = 1;

using Judgement = RankDiagnosis::Judgement;

const char* kindName(Judgement::Kind k) {
  switch (k) {
    case Judgement::Kind::Steps:
      return "steps";
    case Judgement::Kind::NoSteps:
      return "no_steps";
    case Judgement::Kind::Window:
      return "window";
  }
  return "steps";
}

void writeOptional(JsonWriter& w, const char* key, const std::optional<TimeNs>& v) {
  w.key(key);
  if (v)
    w.value(*v);
  else
    w.null();
}

void writeStep(JsonWriter& w, const Step& s) {
  w.beginObject();
  w.key("number").value(s.number);
  w.key("start_ns").value(s.start);
  w.key("end_ns").value(s.end);
  w.key("gpu_start_ns").value(s.gpuStart);
  w.key("gpu_end_ns").value(s.gpuEnd);
  w.key("gpu_from_ns").value(s.gpuFrom);
  w.key("ops").value(static_cast<uint64_t>(s.ops));
  w.key("busy_ns").value(s.busy);
  w.key("by_type_ns").beginArray();
  for (TimeNs t : s.byType) w.value(t);
  w.endArray();
  w.key("exposed_comm_ns").value(s.exposedCommunication);
  w.key("idle_ns").beginArray();
  for (TimeNs t : s.idle) w.value(t);
  w.endArray();
  writeOptional(w, "dataloader_ns", s.dataLoader);
  writeOptional(w, "forward_ns", s.forward);
  writeOptional(w, "backward_ns", s.backward);
  writeOptional(w, "optimizer_ns", s.optimizer);
  w.endObject();
}

void writeFinding(JsonWriter& w, const Finding& f) {
  w.beginObject();
  w.key("rule").value(f.rule);
  w.key("count").value(static_cast<uint64_t>(f.count));
  w.key("start_ns").value(f.start);
  w.key("end_ns").value(f.end);
  w.key("cost_ns").value(f.cost);
  w.key("message").value(f.message);
  w.key("advice").value(f.advice);
  w.key("occurrence").value(f.occurrence);
  w.endObject();
}

void writeRank(JsonWriter& w, const RankDiagnosis& r) {
  const StatsSummary::Source& src = r.source;
  const Diagnosis& o = r.operations;
  w.beginObject();
  w.key("path").value(src.path);
  w.key("index").value(static_cast<uint64_t>(src.index));
  w.key("label").value(src.label);
  w.key("absolute_clock").value(src.absoluteClock);
  w.key("first_ns").value(src.firstTimestamp);
  w.key("clock_offset_ns").value(src.clockOffset);
  w.key("world_size").value(src.worldSize);
  w.key("rank").value(int64_t{r.rank});
  w.key("session_rank").value(int64_t{r.sessionRank});
  w.key("empty").value(r.empty);
  w.key("start_ns").value(r.start);
  w.key("end_ns").value(r.end);
  w.key("temporal").beginArray();  // span, idle, compute, non-compute
  for (const TemporalBreakdown& t : o.temporal)
    w.beginArray().value(t.span).value(t.idle).value(t.compute).value(t.nonCompute).endArray();
  w.endArray();
  w.key("kernel_types").beginArray();  // type set, time
  for (const TypeSetTime& t : o.kernelTypes)
    w.beginArray().value(int64_t{t.types}).value(t.time).endArray();
  w.endArray();
  w.key("idle").beginArray();  // stream number, time by cause, gaps by cause
  for (const StreamIdle& t : o.idle) {
    w.beginArray().value(int64_t{t.streamId});
    for (TimeNs v : t.time) w.value(v);
    for (uint32_t v : t.gaps) w.value(int64_t{v});
    w.endArray();
  }
  w.endArray();
  w.key("comm_overlap").beginArray();  // communicating, overlapped
  for (const CommOverlap& t : o.commOverlap)
    w.beginArray().value(t.communicating).value(t.overlapped).endArray();
  w.endArray();
  w.key("launch").beginArray();
  for (const LaunchSummary& l : o.launch.byName) {
    w.beginObject();
    w.key("name").value(l.label);
    w.key("count").value(l.count);
    w.key("cpu_ns").value(l.cpuTotal);
    w.key("gpu_ns").value(l.gpuTotal);
    w.key("delay_ns").value(l.delayTotal);
    w.key("delay_max_ns").value(l.delayMax);
    w.key("short").value(l.shortOps);
    w.key("runtime_outliers").value(l.runtimeOutliers);
    w.key("delay_outliers").value(l.delayOutliers);
    w.endObject();
  }
  w.endArray();
  w.key("launch_ops").value(o.launch.ops);
  w.key("launch_known").value(o.launch.withLaunch);
  w.key("queue").beginArray();  // stream number, operations, max, mean, full time
  for (const StreamQueue& q : o.queues) {
    w.beginArray().value(int64_t{q.streamId}).value(q.ops).value(int64_t{q.maxLength});
    w.value(q.meanLength).value(q.fullTime).endArray();
  }
  w.endArray();
  w.key("gpu_ops").value(static_cast<uint64_t>(o.gpuOps));
  w.key("gpu_ops_with_launch").value(static_cast<uint64_t>(o.gpuOpsWithLaunch));
  w.key("gpu_ops_in_session").value(static_cast<uint64_t>(o.gpuOpsInSession));
  w.key("step_candidates").beginArray();
  for (uint64_t c : r.candidates) w.value(c);
  w.endArray();
  w.key("annotated").beginArray();
  for (bool a : r.annotated) w.value(a);
  w.endArray();
  w.key("first_layer").value(r.firstLayer);
  w.key("first_layer_ns").value(r.firstLayerAt);
  w.key("judgements").beginArray();
  for (const Judgement& j : r.judgements) {
    w.beginObject();
    w.key("kind").value(kindName(j.kind));
    w.key("source").value(toString(j.source));
    w.key("steps").beginArray();
    for (const Step& s : j.steps) writeStep(w, s);
    w.endArray();
    w.key("findings").beginArray();
    for (const Finding& f : j.findings) writeFinding(w, f);
    w.endArray();
    w.key("notes").beginArray();
    for (const RuleNote& n : j.notes) w.beginArray().value(n.rule).value(n.count).endArray();
    w.endArray();
    w.endObject();
  }
  w.endArray();
  w.key("collectives").beginObject();  // name: its starts
  for (const auto& [name, starts] : r.collectives) {
    w.key(name).beginArray();
    for (const CommStart& c : starts) w.value(c.start);
    w.endArray();
  }
  w.endObject();
  w.endObject();
}

class DiagnosisPartReader : public PartReader {
 public:
  using PartReader::PartReader;

  // A list of whole numbers of a known length (`of` names what it is).
  bool row(simdjson::dom::element e, size_t n, const char* of, std::vector<int64_t>& out) {
    simdjson::dom::array a;
    if (e.get_array().get(a) || a.size() != n)
      return fail(std::string(of) + " is not a list of " + std::to_string(n) + " numbers");
    out.clear();
    for (simdjson::dom::element v : a) {
      int64_t x;
      if (v.get_int64().get(x)) return fail(std::string(of) + " holds a non-integer");
      if (x < -kPartLimit || x > kPartLimit)
        return fail(std::string(of) + " holds a number out of range");
      out.push_back(x);
    }
    return true;
  }
  bool optionalTime(simdjson::dom::object o, const char* key, std::optional<TimeNs>& out) {
    simdjson::dom::element e;
    if (!field(o, key, e)) return false;
    if (e.is_null()) return true;
    int64_t v;
    if (e.get_int64().get(v) || v < 0 || v > kPartLimit)
      return fail("\"" + std::string(key) + "\" is neither null nor a duration");
    out = v;
    return true;
  }
  bool rows(simdjson::dom::object o, const char* key, size_t n,
            std::vector<std::vector<int64_t>>& out) {
    simdjson::dom::array a;
    if (!array(o, key, a)) return false;
    for (simdjson::dom::element e : a) {
      std::vector<int64_t> r;
      if (!row(e, n, key, r)) return false;
      out.push_back(std::move(r));
    }
    return true;
  }

  bool step(simdjson::dom::element e, Step& s) {
    simdjson::dom::object o;
    int64_t ops = 0;
    std::vector<int64_t> byType, idle;
    if (!object(e, o, "a step") || !integer(o, "number", s.number) ||
        !time(o, "start_ns", s.start) || !time(o, "end_ns", s.end) ||
        !time(o, "gpu_start_ns", s.gpuStart) || !time(o, "gpu_end_ns", s.gpuEnd) ||
        !time(o, "gpu_from_ns", s.gpuFrom) || !count(o, "ops", ops) ||
        !count(o, "busy_ns", s.busy) || !count(o, "exposed_comm_ns", s.exposedCommunication))
      return false;
    simdjson::dom::element by, id;
    if (!field(o, "by_type_ns", by) || !row(by, kOpTypeCount, "\"by_type_ns\"", byType) ||
        !field(o, "idle_ns", id) || !row(id, kIdleCauseCount, "\"idle_ns\"", idle) ||
        !optionalTime(o, "dataloader_ns", s.dataLoader) ||
        !optionalTime(o, "forward_ns", s.forward) || !optionalTime(o, "backward_ns", s.backward) ||
        !optionalTime(o, "optimizer_ns", s.optimizer))
      return false;
    if (s.end < s.start) return fail("a step ends before it starts");
    // What the tables compute from a step (GPU time, GPU idle) stays within range.
    if (ops > 0 && (s.gpuFrom > s.gpuStart || s.gpuStart > s.gpuEnd ||
                    s.busy > s.gpuEnd - s.gpuFrom || s.exposedCommunication > s.busy))
      return fail("a step's GPU times are not in order (from <= start <= end, busy within)");
    s.ops = static_cast<size_t>(ops);
    for (int t = 0; t < kOpTypeCount; ++t) s.byType[t] = byType[t];
    for (int c = 0; c < kIdleCauseCount; ++c) s.idle[c] = idle[c];
    return true;
  }

  bool finding(simdjson::dom::element e, Finding& f) {
    simdjson::dom::object o;
    int64_t n = 0;
    if (!object(e, o, "a finding") || !text(o, "rule", f.rule) || !count(o, "count", n) ||
        !time(o, "start_ns", f.start) || !time(o, "end_ns", f.end) ||
        !count(o, "cost_ns", f.cost) || !text(o, "message", f.message) ||
        !text(o, "advice", f.advice) || !text(o, "occurrence", f.occurrence))
      return false;
    if (ruleIndex(f.rule) >= expertRules().size())
      return fail("a finding of an unknown rule '" + f.rule + "'");
    f.count = static_cast<size_t>(n);
    return true;
  }

  bool judgement(simdjson::dom::element e, Judgement& j) {
    simdjson::dom::object o;
    std::string kind, source;
    simdjson::dom::array steps, findings, notes;
    if (!object(e, o, "a judgement") || !text(o, "kind", kind) || !text(o, "source", source) ||
        !array(o, "steps", steps) || !array(o, "findings", findings) || !array(o, "notes", notes))
      return false;
    if (kind == "steps")
      j.kind = Judgement::Kind::Steps;
    else if (kind == "no_steps")
      j.kind = Judgement::Kind::NoSteps;
    else if (kind == "window")
      j.kind = Judgement::Kind::Window;
    else
      return fail("a judgement of an unknown kind '" + kind + "'");
    j.source = StepSource::None;
    for (StepSource s : kStepSources) {
      if (toString(s) == source) j.source = s;
    }
    if ((j.kind == Judgement::Kind::Steps) != (j.source != StepSource::None))
      return fail("a judgement of steps names no step source, or one of no steps names one");
    for (simdjson::dom::element se : steps) {
      Step s;
      if (!step(se, s)) return false;
      j.steps.push_back(s);
    }
    for (simdjson::dom::element fe : findings) {
      Finding f;
      if (!finding(fe, f)) return false;
      j.findings.push_back(std::move(f));
    }
    for (simdjson::dom::element ne : notes) {
      simdjson::dom::array a;
      std::string_view rule;
      int64_t n = 0;
      if (ne.get_array().get(a) || a.size() != 2 || a.at(0).get_string().get(rule) ||
          a.at(1).get_int64().get(n) || n < 0 || n > kPartLimit ||
          ruleIndex(rule) >= expertRules().size())
        return fail("a note is not a known rule and a count");
      j.notes.push_back({std::string(rule), static_cast<uint64_t>(n)});
    }
    return true;
  }

  bool rank(simdjson::dom::element e, size_t files, RankDiagnosis& r) {
    simdjson::dom::object o;
    if (!object(e, o, "a rank")) return false;
    StatsSummary::Source& src = r.source;
    int64_t index = 0, number = 0, own = 0;
    if (!text(o, "path", src.path) || !count(o, "index", index)) return false;
    if (static_cast<uint64_t>(index) >= files)
      return fail("rank file index " + std::to_string(index) + " is past its " +
                  std::to_string(files) + " files");
    src.index = static_cast<size_t>(index);
    at("rank file " + std::to_string(index) + " (" + src.path + "): ");
    if (!text(o, "label", src.label) || !boolean(o, "absolute_clock", src.absoluteClock) ||
        !time(o, "first_ns", src.firstTimestamp) || !time(o, "clock_offset_ns", src.clockOffset) ||
        !integer(o, "world_size", src.worldSize) || !integer(o, "rank", number) ||
        !integer(o, "session_rank", own) || !boolean(o, "empty", r.empty) ||
        !time(o, "start_ns", r.start) || !time(o, "end_ns", r.end))
      return false;
    if (number < INT32_MIN || number > INT32_MAX || own < INT32_MIN || own > INT32_MAX)
      return fail("\"rank\" or \"session_rank\" is out of range");
    r.rank = static_cast<int32_t>(number);
    r.sessionRank = static_cast<int32_t>(own);
    Diagnosis& d = r.operations;
    std::vector<std::vector<int64_t>> temporal, types, idle, overlap, queue;
    if (!rows(o, "temporal", 4, temporal) || !rows(o, "kernel_types", 2, types) ||
        !rows(o, "idle", 1 + 2 * kIdleCauseCount, idle) || !rows(o, "comm_overlap", 2, overlap))
      return false;
    for (const auto& t : temporal) d.temporal.push_back({0, t[0], t[1], t[2], t[3]});
    for (const auto& t : types) {
      if (t[0] < 1 || t[0] >= (1 << kOpTypeCount))
        return fail("\"kernel_types\" holds no type set");
      d.kernelTypes.push_back({0, static_cast<uint8_t>(t[0]), t[1]});
    }
    for (const auto& t : idle) {
      StreamIdle s;
      if (t[0] < 0 || t[0] > UINT32_MAX) return fail("\"idle\" holds a stream out of range");
      s.streamId = static_cast<uint32_t>(t[0]);
      for (int c = 0; c < kIdleCauseCount; ++c) {
        const int64_t gaps = t[1 + kIdleCauseCount + c];
        if (gaps < 0 || gaps > UINT32_MAX) return fail("\"idle\" holds a gap count out of range");
        s.time[c] = t[1 + c];
        s.gaps[c] = static_cast<uint32_t>(gaps);
      }
      d.idle.push_back(s);
    }
    for (const auto& t : overlap) d.commOverlap.push_back({0, t[0], t[1]});
    simdjson::dom::array launch;
    if (!array(o, "launch", launch)) return false;
    for (simdjson::dom::element le : launch) {
      simdjson::dom::object l;
      LaunchSummary s;
      int64_t n = 0, shortOps = 0, runtime = 0, delay = 0;
      if (!object(le, l, "a launch row") || !text(l, "name", s.label) || !count(l, "count", n) ||
          !count(l, "cpu_ns", s.cpuTotal) || !count(l, "gpu_ns", s.gpuTotal) ||
          !time(l, "delay_ns", s.delayTotal) || !time(l, "delay_max_ns", s.delayMax) ||
          !count(l, "short", shortOps) || !count(l, "runtime_outliers", runtime) ||
          !count(l, "delay_outliers", delay))
        return false;
      if (n < 1) return fail("a launch row counts no operation");
      s.count = static_cast<uint64_t>(n);
      s.shortOps = static_cast<uint64_t>(shortOps);
      s.runtimeOutliers = static_cast<uint64_t>(runtime);
      s.delayOutliers = static_cast<uint64_t>(delay);
      d.launch.byName.push_back(std::move(s));
    }
    int64_t ops = 0, known = 0, gpuOps = 0, withLaunch = 0, inSession = 0;
    if (!count(o, "launch_ops", ops) || !count(o, "launch_known", known) ||
        !count(o, "gpu_ops", gpuOps) || !count(o, "gpu_ops_with_launch", withLaunch) ||
        !count(o, "gpu_ops_in_session", inSession))
      return false;
    d.launch.ops = static_cast<uint64_t>(ops);
    d.launch.withLaunch = static_cast<uint64_t>(known);
    d.gpuOps = static_cast<size_t>(gpuOps);
    d.gpuOpsWithLaunch = static_cast<size_t>(withLaunch);
    d.gpuOpsInSession = static_cast<size_t>(inSession);
    simdjson::dom::array queues;
    if (!array(o, "queue", queues)) return false;
    for (simdjson::dom::element qe : queues) {
      simdjson::dom::array a;
      StreamQueue q;
      int64_t stream = 0, n = 0, max = 0;
      if (qe.get_array().get(a) || a.size() != 5 || a.at(0).get_int64().get(stream) ||
          a.at(1).get_int64().get(n) || a.at(2).get_int64().get(max) ||
          a.at(3).get_double().get(q.meanLength) || a.at(4).get_int64().get(q.fullTime) ||
          stream < 0 || stream > UINT32_MAX || n < 0 || n > kPartLimit || max < 0 ||
          max > UINT32_MAX || q.fullTime < 0 || q.fullTime > kPartLimit)
        return fail("\"queue\" holds a row that is not stream, operations, max, mean, time");
      q.streamId = static_cast<uint32_t>(stream);
      q.ops = static_cast<uint64_t>(n);
      q.maxLength = static_cast<uint32_t>(max);
      d.queues.push_back(q);
    }
    simdjson::dom::element candidates;
    std::vector<int64_t> c;
    if (!field(o, "step_candidates", candidates) ||
        !row(candidates, r.candidates.size(), "\"step_candidates\"", c) ||
        !text(o, "first_layer", r.firstLayer) || !time(o, "first_layer_ns", r.firstLayerAt))
      return false;
    for (size_t i = 0; i < c.size(); ++i) {
      if (c[i] < 0) return fail("\"step_candidates\" holds a negative count");
      r.candidates[i] = static_cast<uint64_t>(c[i]);
    }
    simdjson::dom::array annotated;
    if (!array(o, "annotated", annotated)) return false;
    if (annotated.size() != r.annotated.size())
      return fail("\"annotated\" is not a list of " + std::to_string(r.annotated.size()) +
                  " flags");
    size_t k = 0;
    for (simdjson::dom::element a : annotated) {
      if (a.get_bool().get(r.annotated[k++])) return fail("\"annotated\" holds a non-flag");
    }
    simdjson::dom::array judgements;
    if (!array(o, "judgements", judgements)) return false;
    for (simdjson::dom::element je : judgements) {
      Judgement j;
      if (!judgement(je, j)) return false;
      r.judgements.push_back(std::move(j));
    }
    simdjson::dom::element ce;
    simdjson::dom::object collectives;
    if (!field(o, "collectives", ce) || !object(ce, collectives, "\"collectives\"")) return false;
    for (auto [name, starts] : collectives) {
      std::vector<int64_t> v;
      simdjson::dom::array a;
      if (starts.get_array().get(a)) return fail("\"collectives\" holds something not a list");
      std::vector<CommStart>& out = r.collectives[std::string(name)];
      for (simdjson::dom::element t : a) {
        int64_t x;
        if (t.get_int64().get(x) || x <= -kPartLimit || x >= kPartLimit ||
            (!out.empty() && x < out.back().start))
          return fail("\"collectives\" holds a list that is not of times in order");
        out.push_back({x, kNone, 0});
      }
    }
    at("");
    return true;
  }
};

}  // namespace

bool isDiagnosisPart(std::string_view text) {
  return partFormat(text) == kKind;
}

std::string diagnosisPartToJson(const DiagnosisPart& part) {
  JsonWriter w(false);
  w.beginObject();
  w.key("format").value(kKind);
  w.key("version").value(kVersion);
  w.key("shard").value(static_cast<uint64_t>(part.shard));
  w.key("shards").value(static_cast<uint64_t>(part.shards));
  w.key("files").beginArray();
  for (const std::string& f : part.files) w.value(f);
  w.endArray();
  const DiagnoseOptions& o = part.options;
  const RuleOptions& r = o.rules;
  w.key("options").beginObject();
  w.key("kernel_wait_ns").value(o.kernelWaitBelow);
  w.key("runtime_outlier_ns").value(o.runtimeOutlier);
  w.key("delay_outlier_ns").value(o.delayOutlier);
  w.key("rules").beginArray();
  for (const std::string& name : o.ruleNames) w.value(name);
  w.endArray();
  w.key("gap_threshold_ns").value(r.gapThreshold);
  w.key("low_utilisation").value(r.lowUtilisation);
  w.key("utilisation_chunks").value(int64_t{r.utilisationChunks});
  w.key("host_bound_share").value(r.hostBoundShare);
  w.key("exposed_comm_share").value(r.exposedCommShare);
  w.key("dataloader_share").value(r.dataLoaderShare);
  w.key("launch_bound_share").value(r.launchBoundShare);
  w.key("sync_copy_min_htod").value(r.syncCopyMinHtoD);
  w.endObject();
  w.key("ranks").beginArray();
  for (const RankDiagnosis& rank : part.ranks) writeRank(w, rank);
  w.endArray();
  w.endObject();
  return w.str() + "\n";
}

Result<DiagnosisPart> diagnosisPartFromJson(const std::string& path, std::string_view text) {
  const PartKind kind{kKind, "diagnosis summary",
                      "tensorscope-cli diagnose FILE... --shard I/N --summary-out PART", kVersion};
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  simdjson::padded_string padded(text);
  TS_RETURN_IF_ERROR(parsePart(parser, padded, path, kind, doc));
  DiagnosisPartReader in(path);
  auto head = readPartHead(in, path, doc, kind);
  if (!head) return head.failure();
  DiagnosisPart part;
  part.shard = head->shard;
  part.shards = head->shards;
  part.files = std::move(head->files);
  simdjson::dom::object options = head->options;
  simdjson::dom::array ranks = head->ranks, rules;
  DiagnoseOptions& o = part.options;
  RuleOptions& r = o.rules;
  int64_t chunks = 0, minHtoD = 0;
  auto share = [&](const char* key, double& out) {
    simdjson::dom::element e;
    if (!in.field(options, key, e)) return false;
    if (e.get_double().get(out) || !(out >= 0 && out <= 100))
      return in.fail("\"" + std::string(key) + "\" is not a number from 0 to 100");
    return true;
  };
  if (!in.count(options, "kernel_wait_ns", o.kernelWaitBelow) ||
      !in.count(options, "runtime_outlier_ns", o.runtimeOutlier) ||
      !in.count(options, "delay_outlier_ns", o.delayOutlier) ||
      !in.array(options, "rules", rules) ||
      !in.count(options, "gap_threshold_ns", r.gapThreshold) ||
      !share("low_utilisation", r.lowUtilisation) ||
      !in.count(options, "utilisation_chunks", chunks) ||
      !share("host_bound_share", r.hostBoundShare) ||
      !share("exposed_comm_share", r.exposedCommShare) ||
      !share("dataloader_share", r.dataLoaderShare) ||
      !share("launch_bound_share", r.launchBoundShare) ||
      !in.count(options, "sync_copy_min_htod", minHtoD))
    return Error{in.error()};
  if (chunks < 1 || chunks > 100'000)
    return Error{path + ": \"utilisation_chunks\" must be between 1 and 100000"};
  r.utilisationChunks = static_cast<int>(chunks);
  r.syncCopyMinHtoD = static_cast<uint64_t>(minHtoD);
  for (simdjson::dom::element e : rules) {
    std::string_view name;
    if (e.get_string().get(name) || ruleIndex(name) >= expertRules().size())
      return Error{path + ": \"rules\" holds something not a rule's name"};
    o.ruleNames.emplace_back(name);
  }
  for (simdjson::dom::element e : ranks) {
    RankDiagnosis rank;
    if (!in.rank(e, part.files.size(), rank)) return Error{in.error()};
    part.ranks.push_back(std::move(rank));
  }
  return part;
}

Result<MergedDiagnosis> mergeDiagnosisParts(std::vector<DiagnosisPart> parts,
                                            const std::vector<std::string>& partPaths) {
  if (parts.empty()) return Error{"no part to merge"};
  std::vector<PartShard> shards;
  for (size_t p = 0; p < parts.size(); ++p) {
    const DiagnosisPart& part = parts[p];
    if (!sameDiagnoseOptions(part.options, parts[0].options))
      return Error{partPaths.at(p) + " was made with other options than " + partPaths.at(0) + " (" +
                   diagnoseOptionsDifference(part.options, parts[0].options) + ")"};
    PartShard shard{&part.files, part.shard, part.shards, {}};
    for (const RankDiagnosis& r : part.ranks) shard.held.push_back(r.source.index);
    shards.push_back(std::move(shard));
  }
  TS_RETURN_IF_ERROR(checkShards(shards, partPaths));
  MergedDiagnosis out;
  out.options = parts[0].options;
  std::vector<RankDiagnosis> ranks;
  for (DiagnosisPart& part : parts) {
    for (RankDiagnosis& r : part.ranks) ranks.push_back(std::move(r));
  }
  auto d = combineRankDiagnoses(std::move(ranks), out.options);
  if (!d) return d.failure();
  out.diagnosis = std::move(*d);
  return out;
}

}  // namespace ts
