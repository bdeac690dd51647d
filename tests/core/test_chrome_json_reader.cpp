// Kineto / Chrome JSON import on the real traces in ../shared/data/kineto. Expected counts were
// computed independently with Python's json module (count of X events per category, memcpy kinds
// from the names, i/I instants).
#include <gtest/gtest.h>
#include <simdjson.h>
#include <unistd.h>
#include <zlib.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "io/chrome_json_reader.h"
#include "io/chrome_json_writer.h"
#include "io/open_session.h"
#include "io/text_file.h"
#include "io/tscope_file.h"
#include "session/occupancy.h"
#include "session/op_inputs.h"
#include "session/session_builder.h"
#include "session/session_summary.h"
#include "session_fixture.h"
#include "util/format.h"

namespace ts {

namespace fs = std::filesystem;

namespace {

// `json` written to a temporary file named after `name`, opened as users open files, removed.
Result<SessionPtr> openJsonText(const std::string& name, const std::string& json) {
  const fs::path p =
      fs::temp_directory_path() / (name + "-" + std::to_string(::getpid()) + ".json");
  std::ofstream(p) << json;
  auto s = openSessionFile(p.string());
  fs::remove(p);
  return s;
}

std::string kineto(const std::string& name) {
  return std::string(TSCOPE_SHARED_DATA) + "/kineto/" + name;
}

struct Expected {
  const char* file;
  size_t kernels, htod, dtoh, dtod, memsets, api, nvtxRanges, marks, other;
  size_t memory = 0;  // PyTorch's [memory] instants: a memory counter sample each, not marks
};

// Python: X events by cat; memcpy kind = name.split()[1]; marks = ph in (i, I); other = X of any
// category not listed in the reader (cuda_sync, python_function, ...). The profiler's
// bookkeeping is not counted: the X event of category Trace, "Iteration Start: …" marks on pid
// "Traces", "Record Window End" on an empty pid.
const Expected kExpected[] = {
    {"hta-amd_trace--mi250_minitoy_train_ROCm6_2_kineto.json.gz", 14, 2, 0, 0, 0, 21, 75, 0, 0},
    {"hta-critical_path--alexnet--benchmark_result_2869224_1695835535_trace.json.gz", 79, 16, 0, 0,
     3, 361, 367, 0, 41},
    {"hta-critical_path--cuda_event_sync--event_sync_trace.json.gz", 4, 0, 1, 0, 0, 12, 11, 0, 4},
    {"hta-trace_filter--sampled_rank-0.json.gz", 1154, 24, 8, 8, 10, 1204, 2402, 0, 0},
    {"hta-trace_filter--sampled_rank-1.json.gz", 1104, 24, 8, 8, 10, 1154, 2367, 0, 0},
    {"hta-triton_example--triton_example.json.gz", 1, 0, 0, 0, 0, 2, 4, 0, 0},
    {"kineto-tb_plugin--resnet50_num_workers_0--worker0.1623143089861.pt.trace.json.gz", 8772, 12,
     0, 0, 312, 11923, 23646, 0, 0, 12838},
    {"param--et_replay--linear_kineto.json.gz", 8716, 0, 0, 0, 1640, 14515, 37078, 0, 0},
};

SessionPtr open(const std::string& path) {
  auto s = openSessionFile(path);
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error());
  return s.ok() ? s.value() : nullptr;
}

// The first kernel (by start) of a session.
std::pair<const Track*, uint32_t> firstKernel(const Session& s) {
  const Track* best = nullptr;
  uint32_t index = 0;
  for (const Track& t : s.tracks) {
    if (t.kind == EventKind::Kernel && t.size() &&
        (!best || t.hot.start[0] < best->hot.start[index])) {
      best = &t, index = 0;
    }
  }
  return {best, index};
}

std::string gunzip(const std::string& path) {
  auto text = readTextFile(path);
  EXPECT_TRUE(text.ok());
  return std::string(text->view());
}

}  // namespace

TEST(ChromeJson, CountsPerCategoryMatchAnIndependentCount) {
  for (const Expected& e : kExpected) {
    SCOPED_TRACE(e.file);
    SessionPtr s = open(kineto(e.file));
    ASSERT_TRUE(s);
    SessionSummary r = summarize(*s);
    EXPECT_EQ(r.kernels, e.kernels);
    EXPECT_EQ(r.memcpyCount[static_cast<size_t>(CopyKind::HtoD)], e.htod);
    EXPECT_EQ(r.memcpyCount[static_cast<size_t>(CopyKind::DtoH)], e.dtoh);
    EXPECT_EQ(r.memcpyCount[static_cast<size_t>(CopyKind::DtoD)], e.dtod);
    EXPECT_EQ(r.memsets, e.memsets);
    EXPECT_EQ(r.apiCalls, e.api);
    EXPECT_EQ(r.nvtxRanges, e.nvtxRanges);
    EXPECT_EQ(r.nvtxMarks, e.marks);
    EXPECT_EQ(r.otherRanges, e.other);
    size_t memory = 0;
    for (const CounterTrack& c : s->counters)
      if (c.name == "Memory allocated" || c.name == "Allocated since trace start")
        memory += c.size();
    EXPECT_EQ(memory, e.memory);
  }
}

TEST(ChromeJson, AlexNetFieldsAndFlows) {
  SessionPtr s = open(kineto(kExpected[1].file));
  ASSERT_TRUE(s);
  auto [track, i] = firstKernel(*s);
  ASSERT_TRUE(track);
  // {"ts": 1695835573023613, "dur": 71, grid [864,1,1], block [256,1,1], 47 registers, stream 7}
  EXPECT_EQ(track->hot.start[i], 1695835573023613000);
  EXPECT_EQ(track->hot.end[i] - track->hot.start[i], 71000);
  EXPECT_EQ(track->kernels.launchOf(i).gridX, 864u);
  EXPECT_EQ(track->kernels.launchOf(i).blockX, 256u);
  EXPECT_EQ(track->kernels.launchOf(i).registersPerThread, 47u);
  EXPECT_EQ(s->streams[track->stream].streamId, 7u);
  EXPECT_EQ(s->devices[track->device].name, "NVIDIA A100-PG509-200");
  EXPECT_EQ(s->devices[track->device].smCount, 108);
  EXPECT_EQ(s->devices[track->device].maxWarpsPerSm, 64);
  // Every kernel, copy and memset is linked to its launch call by correlation id.
  EXPECT_EQ(summarize(*s).flows, 79u + 16u + 3u);
  EXPECT_EQ(s->processes.size() >= 1, true);
  bool named = false;
  for (const Process& p : s->processes) named = named || p.name == "python3.10";
  EXPECT_TRUE(named);
  // A PyTorch profiler trace is said to be one (its cpu_op and cuda_runtime events).
  ASSERT_EQ(s->provenance.sources.size(), 1u);
  EXPECT_EQ(s->provenance.sources[0].format, "kineto-json");
}

TEST(ChromeJson, BaseTimeAndDriverCalls) {
  SessionPtr s = open(kineto(kExpected[5].file));  // triton: baseTimeNanoseconds, cuLaunchKernel
  ASSERT_TRUE(s);
  auto [track, i] = firstKernel(*s);
  ASSERT_TRUE(track);
  EXPECT_EQ(track->hot.start[i], 1727743122000000000 + 2413669097444592);  // base + ts, exactly
  EXPECT_EQ(track->hot.end[i] - track->hot.start[i], 1760);
  ASSERT_EQ(s->flows.srcTrack.size(), 1u);
  const Track& api = s->tracks[s->flows.srcTrack[0]];
  EXPECT_EQ(s->str(api.hot.name[s->flows.srcEvent[0]]), "cuLaunchKernel");
  EXPECT_EQ(api.apis.domain[s->flows.srcEvent[0]], ApiDomain::Driver);
}

TEST(ChromeJson, LegacyCategoriesAndStringTids) {
  SessionPtr s = open(kineto(kExpected[6].file));  // 2021: Kernel/Runtime/Operator, tid "stream 7"
  ASSERT_TRUE(s);
  ASSERT_EQ(s->streams.size(), 1u);
  EXPECT_EQ(s->streams[0].streamId, 7u);
  EXPECT_EQ(s->devices[s->streams[0].device].name, "Tesla V100-DGXS-32GB");
  EXPECT_EQ(summarize(*s).flows, 8772u + 12u + 312u);
}

// Our theoretical occupancy, capped by the grid, agrees with the trace's "est. achieved occupancy
// %" (an integer) within one percentage point, for every kernel of every CUDA trace with device
// properties. Exception: kernels using more shared memory per block than the default limit (opt-in
// shared memory, e.g. cuDNN's sm80_xmma kernels with 66 KiB) — the profiler reports 0 % for them
// although they ran; we compute their real occupancy and the test counts them apart.
TEST(ChromeJson, OccupancyAgreesWithThePyTorchProfiler) {
  size_t compared = 0, optIn = 0;
  for (const Expected& e : kExpected) {
    std::string path = kineto(e.file);
    std::string json = gunzip(path);
    simdjson::dom::parser parser;
    simdjson::dom::element doc = parser.parse(json);
    std::multimap<int64_t, double> traceOccupancy;  // start (µs, rounded) → %
    for (simdjson::dom::element ev : doc["traceEvents"].get_array()) {
      std::string_view cat;
      if (ev["cat"].get(cat) || (cat != "kernel" && cat != "Kernel")) continue;
      double occ = 0, ts = 0;
      if (ev["args"]["est. achieved occupancy %"].get(occ) || ev["ts"].get(ts)) continue;
      traceOccupancy.emplace(std::llround(ts), occ);
    }
    if (traceOccupancy.empty()) continue;
    SCOPED_TRACE(e.file);
    SessionPtr s = open(path);
    ASSERT_TRUE(s);
    TimeNs base = s->ranks[0].clockOffsetNs;
    for (const Track& t : s->tracks) {
      if (t.kind != EventKind::Kernel) continue;
      const Device& d = s->devices[t.device];
      if (d.maxWarpsPerSm == 0) continue;  // no deviceProperties in this trace
      for (uint32_t i = 0; i < t.size(); ++i) {
        KernelDetail k = t.kernels.row(i);
        if (static_cast<int64_t>(k.staticSharedMemory) + k.dynamicSharedMemory >
            d.maxSharedMemoryPerBlock) {
          ++optIn;
          continue;
        }
        auto ours = estimatedAchievedOccupancy(d, k);
        ASSERT_TRUE(ours.has_value());
        int64_t ts = std::llround(static_cast<double>(t.hot.start[i] - base) / 1000.0);
        auto range = traceOccupancy.equal_range(ts);
        ASSERT_NE(range.first, range.second) << "no trace kernel at " << ts;
        bool agrees = false;
        for (auto it = range.first; it != range.second; ++it)
          agrees = agrees || std::fabs(*ours * 100 - it->second) <= 1.0;
        EXPECT_TRUE(agrees) << s->str(t.hot.name[i]) << ": ours " << *ours * 100 << " %, trace "
                            << range.first->second << " %";
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 17'000u);
  EXPECT_LT(optIn, compared / 100);
  std::printf("occupancy compared on %zu kernels (%zu with opt-in shared memory set apart)\n",
              compared, optIn);
}

// A rank file of another job (its distributedInfo gives another world size) is refused, both
// files named.
TEST(ChromeJson, RankOfAnotherJobIsRefused) {
  std::string text = gunzip(kineto(kExpected[4].file));
  const size_t at = text.find("\"world_size\": 128");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 17, "\"world_size\": 64");
  const fs::path other =
      fs::temp_directory_path() / ("other-job-" + std::to_string(::getpid()) + ".json");
  std::ofstream(other) << text;
  auto s = openSessionFiles({kineto(kExpected[3].file), other.string()});
  fs::remove(other);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(
      s.error().find(other.string() + " belongs to another job than " + kineto(kExpected[3].file)),
      std::string::npos)
      << s.error();
  EXPECT_NE(s.error().find("64 ranks against 128"), std::string::npos) << s.error();
}

// Rank files read on threads of their own (then added in rank order) give the very session that
// reading them one after another gives: the same strings, entities, events, flows and clocks.
TEST(ChromeJson, RanksReadInParallelAsInSequence) {
  std::vector<std::string> paths = {kineto(kExpected[3].file), kineto(kExpected[4].file),
                                    kineto(kExpected[1].file), kineto(kExpected[6].file),
                                    kineto(kExpected[0].file), TSCOPE_SAMPLE};
  OpenOptions one, many;
  one.threads = 1, many.threads = 3;
  auto a = openSessionFiles(paths, one);
  auto b = openSessionFiles(paths, many);
  ASSERT_TRUE(a.ok()) << a.error();
  ASSERT_TRUE(b.ok()) << b.error();
  // Built a moment apart: the creation time may fall in another second.
  std::shared_ptr<Session> same = copySession(**b);
  same->provenance.createdUtc = (*a)->provenance.createdUtc;
  ASSERT_TRUE(same->finalize().ok());
  std::string why;
  EXPECT_TRUE(testing::sameSession(**a, *same, &why)) << why;
  EXPECT_EQ((*b)->ranks.size(), paths.size());
  // A file that cannot be read is the error, whichever thread read it.
  paths.insert(paths.begin() + 2, "/nonexistent/rank.json");
  auto c = openSessionFiles(paths, many);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().find("/nonexistent/rank.json"), std::string::npos) << c.error();
}

TEST(ChromeJson, SeveralFilesOpenAsOneMultiRankSession) {
  std::vector<std::string> paths = {kineto(kExpected[3].file), kineto(kExpected[4].file)};
  auto s = openSessionFiles(paths);
  ASSERT_TRUE(s.ok()) << s.error();
  const Session& session = **s;
  ASSERT_EQ(session.ranks.size(), 2u);
  EXPECT_EQ(session.ranks[0].label, "rank 0 / hta-trace_filter--sampled_rank-0");
  EXPECT_EQ(session.ranks[1].label, "rank 1 / hta-trace_filter--sampled_rank-1");
  EXPECT_EQ(summarize(session).kernels, 1154u + 1104u);
  EXPECT_EQ(summarize(session).flows, 1204u + 1154u);  // correlation ids never cross ranks
  // Both traces have wall-clock timestamps: kept as they are (first kernels from Python).
  TimeNs first[2] = {INT64_MAX, INT64_MAX};
  for (const Track& t : session.tracks) {
    if (t.kind == EventKind::Kernel) {
      uint32_t r = session.devices[t.device].rank;
      first[r] = std::min(first[r], t.hot.start[0]);
    }
  }
  EXPECT_EQ(first[0], 1682725898082228000);
  EXPECT_EQ(first[1], 1682725898082381000);
  EXPECT_NE(session.deviceLabel(0).find("rank 0 / "), std::string::npos);
  // Two sampled ranks of a 128-rank job: the job's size is kept, and saved.
  EXPECT_EQ(session.provenance.worldSize, 128);
  const std::string saved =
      (fs::temp_directory_path() / ("ranks-" + std::to_string(::getpid()) + ".tscope")).string();
  ASSERT_TRUE(saveSession(session, saved).ok());
  auto back = openSessionFile(saved);
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ((*back)->provenance.worldSize, 128);
  fs::remove(saved);
  // One rank saved, then opened beside the other: the job's size carried through the .tscope.
  auto one = openSessionFile(kineto(kExpected[3].file));
  ASSERT_TRUE(one.ok()) << one.error();
  ASSERT_TRUE(saveSession(**one, saved).ok());
  auto beside = openSessionFiles({saved, kineto(kExpected[4].file)});
  ASSERT_TRUE(beside.ok()) << beside.error();
  EXPECT_EQ((*beside)->provenance.worldSize, 128);
  EXPECT_EQ((*beside)->ranks.size(), 2u);
  fs::remove(saved);

  OpenOptions shifted;
  shifted.shiftNs[1] = -381000;
  auto s2 = openSessionFiles(paths, shifted);
  ASSERT_TRUE(s2.ok());
  TimeNs moved = INT64_MAX;
  for (const Track& t : (*s2)->tracks) {
    if (t.kind == EventKind::Kernel && (*s2)->devices[t.device].rank == 1)
      moved = std::min(moved, t.hot.start[0]);
  }
  EXPECT_EQ(moved, 1682725898082000000);
}

TEST(ChromeJson, RoundTripThroughTscope) {
  SessionPtr s = open(kineto(kExpected[1].file));
  ASSERT_TRUE(s);
  std::string out =
      (fs::temp_directory_path() / ("alexnet-" + std::to_string(::getpid()) + ".tscope")).string();
  ASSERT_TRUE(saveSession(*s, out).ok());
  auto back = loadSession(out);
  ASSERT_TRUE(back.ok()) << back.error();
  std::string why;
  EXPECT_TRUE(testing::sameSession(*s, **back, &why)) << why;
  fs::remove(out);
}

// A trace recorded with shapes: every op keeps its "Input Dims" and "Input type", through a
// .tscope file and a Chrome JSON export.
TEST(ChromeJson, OpInputsAreKept) {
  SessionPtr s = open(
      kineto("kineto-tb_plugin--resnet50_num_workers_0--worker0.1623143089861.pt.trace.json.gz"));
  ASSERT_TRUE(s);
  auto firstConv = [](const Session& session) {
    for (const Track& t : session.tracks) {
      if (t.kind != EventKind::Nvtx) continue;
      for (uint32_t e = 0; e < t.size(); ++e) {
        if (session.str(t.hot.name[e]) == "aten::conv2d")
          return std::string(session.str(t.nvtx.inputs[e]));
      }
    }
    return std::string("(none)");
  };
  // Independently (Python's json module): the first aten::conv2d's input and weight.
  const std::vector<OpInput> inputs = parseOpInputs(firstConv(*s));
  ASSERT_GE(inputs.size(), 2u) << firstConv(*s);
  EXPECT_EQ(inputs[0], (OpInput{"float", {32, 3, 224, 224}}));
  EXPECT_EQ(inputs[1], (OpInput{"float", {64, 3, 7, 7}}));
  size_t withInputs = 0;
  for (const Track& t : s->tracks) {
    if (t.kind != EventKind::Nvtx) continue;
    for (StringId id : t.nvtx.inputs) withInputs += !s->str(id).empty();
  }
  EXPECT_EQ(withInputs,
            23622u);  // the Operator events with a non-empty "Input Dims" or "Input type"

  const fs::path dir = fs::temp_directory_path() / ("tscope-inputs-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  ASSERT_TRUE(saveSession(*s, (dir / "r.tscope").string()).ok());
  auto back = loadSession((dir / "r.tscope").string());
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(firstConv(**back), firstConv(*s));
  ASSERT_TRUE(exportChromeJson(*s, (dir / "r.json").string()).ok());
  auto json = openSessionFile((dir / "r.json").string());
  ASSERT_TRUE(json.ok()) << json.error();
  EXPECT_EQ(firstConv(**json), firstConv(*s));
  fs::remove_all(dir);
}

// The profiler's notes about itself make no rows and do not stretch the session: HTA's sampled
// rank 0 holds 1.230 s of activity (Python, without the bookkeeping) under a 3.37 s trace span.
TEST(ChromeJson, ProfilerBookkeepingIsLeftOut) {
  SessionPtr s = open(kineto("hta-trace_filter--sampled_rank-0.json.gz"));
  ASSERT_TRUE(s);
  EXPECT_EQ(s->duration(), 1'230'289'000);
  for (const Process& p : s->processes) {
    EXPECT_NE(p.name, "Spans");
    EXPECT_NE(p.name, "Traces");
  }
  for (const Thread& t : s->threads) EXPECT_NE(t.name, "PyTorch Profiler");
  // What was left out is counted: AlexNet's trace span, Iteration Start and Record Window End.
  const std::string alexnet =
      kineto("hta-critical_path--alexnet--benchmark_result_2869224_1695835535_trace.json.gz");
  auto text = readTextFile(alexnet);
  ASSERT_TRUE(text.ok());
  SessionBuilder b;
  auto info = importChromeJson(alexnet, text->view(), b, b.rank(0));
  ASSERT_TRUE(info.ok()) << info.error();
  ASSERT_EQ(info->skipped.size(), 1u);
  EXPECT_EQ(info->skipped.begin()->second, 3u);
  EXPECT_NE(info->skipped.begin()->first.find("notes about itself"), std::string::npos);
  // Kineto's own thread names hold the id: the label is the name, not "Thread 25738: thread …".
  SessionPtr r50 = open(
      kineto("kineto-tb_plugin--resnet50_num_workers_0--worker0.1623143089861.pt.trace.json.gz"));
  ASSERT_TRUE(r50);
  std::set<std::string> labels;
  for (uint32_t t = 0; t < r50->threads.size(); ++t) labels.insert(r50->threadLabel(t));
  EXPECT_TRUE(labels.count("Thread 25738 (python)")) << *labels.begin();
  for (const std::string& l : labels) EXPECT_EQ(l.find("Thread "), l.rfind("Thread ")) << l;
}

TEST(OpInputs, TextRoundTrip) {
  const std::vector<OpInput> in = {
      {"float", {32, 256, 56, 56}}, {"long int", {}}, {"Int", {}}, {"TensorList", {}}, {"", {}}};
  const std::string text = formatOpInputs(in);
  EXPECT_EQ(text, "float[32,256,56,56]; long int[]; Int[]; TensorList[]; []");
  EXPECT_EQ(parseOpInputs(text), in);
  EXPECT_TRUE(parseOpInputs("").empty());
  EXPECT_TRUE(isFloatingTensor(in[0]));
  EXPECT_FALSE(isFloatingTensor(in[1]));          // a counter
  EXPECT_FALSE(isFloatingTensor({"float", {}}));  // a scalar
  EXPECT_TRUE(isFloatingTensor({"c10::Half", {8}}));
}

class ChromeJsonBadInput : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tscope-json-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& content) {
    std::string p = (dir_ / name).string();
    std::ofstream(p, std::ios::binary) << content;
    return p;
  }
  void expectError(const std::string& path, const std::string& problem) {
    auto s = openSessionFile(path);
    ASSERT_FALSE(s.ok()) << path << " opened";
    EXPECT_NE(s.error().find(path), std::string::npos) << s.error();
    EXPECT_NE(s.error().find(problem), std::string::npos) << s.error();
  }
  fs::path dir_;
};

TEST_F(ChromeJsonBadInput, TruncatedAtTenPoints) {
  std::string json = gunzip(kineto(kExpected[1].file));
  for (int k = 1; k <= 10; ++k) {
    size_t cut = json.size() * static_cast<size_t>(k) / 11 + static_cast<size_t>(k) * 7;
    std::string p = write("cut" + std::to_string(k) + ".json", json.substr(0, cut));
    auto s = openSessionFile(p);
    EXPECT_FALSE(s.ok()) << "cut at " << cut << " of " << json.size() << " opened";
    if (!s.ok()) {
      EXPECT_NE(s.error().find(p), std::string::npos) << s.error();
    }
  }
}

TEST_F(ChromeJsonBadInput, WrongTypesNameTheByteOffset) {
  expectError(
      write("ts.json",
            R"({"traceEvents": [{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 5, "dur": 1},
      {"ph": "X", "name": "b", "pid": 1, "tid": 1, "ts": "soon", "dur": 1}]})"),
      "'ts' is not a number");
  expectError(
      write("dur.json", R"([{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 5, "dur": [1]}])"),
      "'dur' has the wrong type");
  expectError(
      write(
          "grid.json",
          R"([{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 5, "dur": 1, "args": {"grid": "big"}}])"),
      "'grid' is not an array");
  expectError(write("byte.json", R"([{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 5}])"),
              "byte 1");
  expectError(write("events.json", R"({"traceEvents": 5})"), "'traceEvents' is not an array");
  expectError(write("scalar.json", R"("hello")"), "unrecognised format");
}

TEST_F(ChromeJsonBadInput, EmptyCorruptGzipAndForeignFiles) {
  expectError(write("empty.json", ""), "empty");
  expectError(write("text.json", "hello, world"), "unrecognised format");
  std::string json = gunzip(kineto(kExpected[2].file));
  std::string gz;
  {
    std::ifstream in(kineto(kExpected[2].file), std::ios::binary);
    gz.assign(std::istreambuf_iterator<char>(in), {});
  }
  std::string corrupt = gz;
  for (size_t i = gz.size() / 3; i < gz.size() / 3 + 64; ++i)
    corrupt[i] = static_cast<char>(corrupt[i] ^ 0x5A);
  expectError(write("corrupt.json.gz", corrupt), "gzip");
  expectError(write("short.json.gz", gz.substr(0, gz.size() / 2)), "gzip");
  // Gzipped: nothing, no JSON, JSON only after 256 characters (as the plain file).
  auto gzipped = [&](const std::string& name, const std::string& text) {
    const std::string p = (dir_ / name).string();
    gzFile out = gzopen(p.c_str(), "wb");
    EXPECT_EQ(gzwrite(out, text.data(), static_cast<unsigned>(text.size())),
              static_cast<int>(text.size()));
    gzclose(out);
    return p;
  };
  expectError(gzipped("empty.json.gz", ""), "empty");
  expectError(gzipped("text.json.gz", "hello, world"), "unrecognised format");
  expectError(gzipped("late.json.gz", std::string(300, ' ') + json), "though gzip-compressed");
  expectError(write("late.json", std::string(300, ' ') + json), "unrecognised format");
}

// A trace cut short: refused with code Damaged, the first problem and what recovery would keep;
// with recovery, exactly the complete events before the cut open, and the session says so.
TEST_F(ChromeJsonBadInput, TruncatedTracesRecoverEveryCompleteEvent) {
  const std::string json = gunzip(kineto(kExpected[1].file));
  auto whole = openSessionFile(write("whole.json", json));
  ASSERT_TRUE(whole.ok()) << whole.error();
  size_t previous = 0;
  for (int k = 1; k <= 10; ++k) {
    const size_t cut = json.size() * static_cast<size_t>(k) / 11 + static_cast<size_t>(k) * 7;
    const std::string p = write("cut" + std::to_string(k) + ".json", json.substr(0, cut));
    auto refused = openSessionFile(p);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.failure().code, ErrorCode::Damaged) << refused.error();
    EXPECT_NE(refused.error().find("events before it are complete"), std::string::npos)
        << refused.error();
    OpenOptions recover;
    recover.recover = true;
    auto s = openSessionFile(p, recover);
    ASSERT_TRUE(s.ok()) << s.error();
    EXPECT_TRUE((*s)->provenance.incomplete);
    EXPECT_EQ(
        (*s)->provenance.incompleteReason.rfind(p + ": the trace ends inside trace event ", 0), 0u)
        << (*s)->provenance.incompleteReason;
    // The events a longer cut keeps include a shorter cut's; none is invented.
    EXPECT_GE((*s)->eventCount(), previous) << "cut " << k;
    EXPECT_LE((*s)->eventCount(), (*whole)->eventCount());
    previous = (*s)->eventCount();
  }
  EXPECT_GT(previous, (*whole)->eventCount() * 8 / 10);
}

// Chrome's JSON Array Format makes the closing ']' optional (a process that died never wrote it):
// such a trace is complete, with or without a trailing comma. Cut inside an event it is damaged.
TEST_F(ChromeJsonBadInput, AnArrayTraceWithoutItsClosingBracketIsComplete) {
  const std::string events = R"([{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 5, "dur": 1},
    {"ph": "X", "name": "b", "pid": 1, "tid": 1, "ts": 7, "dur": 1})";
  for (const std::string& text : {events, events + ",\n"}) {
    auto s = openSessionFile(write("open.json", text));
    ASSERT_TRUE(s.ok()) << s.error();
    EXPECT_EQ((*s)->eventCount(), 2u);
    EXPECT_FALSE((*s)->provenance.incomplete);
  }
  auto cut = openSessionFile(write("cut.json", events.substr(0, events.size() - 5)));
  ASSERT_FALSE(cut.ok());
  EXPECT_EQ(cut.failure().code, ErrorCode::Damaged) << cut.error();
}

// Impossible fields: each such event skipped and counted by its problem, the others kept.
TEST_F(ChromeJsonBadInput, ImpossibleEventsAreSkippedAndCountedByProblem) {
  const std::string p = write("bad.json", R"({"traceEvents": [
    {"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 5, "dur": 1},
    {"ph": "X", "name": "b", "pid": 1, "tid": 1, "ts": 7000, "dur": -3},
    {"ph": "X", "name": "c", "pid": 1, "tid": 1, "ts": "x7", "dur": 3},
    {"ph": "X", "name": "d", "pid": 1, "tid": 1, "ts": 9, "dur": -1},
    {"ph": "X", "name": "e", "pid": 1, "tid": 1, "ts": 12, "dur": 2}]})");
  auto refused = openSessionFile(p);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.failure().code, ErrorCode::Damaged);
  // The first problem as before (file, byte, event, problem), then the count.
  EXPECT_EQ(refused.error().rfind(p + ": byte ", 0), 0u) << refused.error();
  EXPECT_NE(refused.error().find("(trace event 2): negative 'dur'"), std::string::npos)
      << refused.error();
  OpenOptions recover;
  recover.recover = true;
  auto s = openSessionFile(p, recover);
  ASSERT_TRUE(s.ok()) << s.error();
  EXPECT_EQ((*s)->eventCount(), 2u);
  EXPECT_EQ((*s)->duration(), 9000);  // 5 µs to 14 µs: the skipped event at 7 ms left no trace
  EXPECT_EQ((*s)->provenance.incompleteReason,
            p + ": 3 trace events with impossible fields ('ts' is not a number ×1, negative "
                "'dur' ×2)");
  // Text that stops being JSON cannot be stepped over: what precedes it opens.
  const std::string broken = write("broken.json", R"([
    {"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 5, "dur": 1},
    {"ph": "X", "name": "b\q", "pid": 1, "tid": 1, "ts": 7, "dur": 1},
    {"ph": "X", "name": "c", "pid": 1, "tid": 1, "ts": 9, "dur": 1}])");
  auto b = openSessionFile(broken, recover);
  ASSERT_TRUE(b.ok()) << b.error();
  EXPECT_EQ((*b)->eventCount(), 1u);
  EXPECT_NE((*b)->provenance.incompleteReason.find("stops being JSON inside trace event 2"),
            std::string::npos)
      << (*b)->provenance.incompleteReason;
}

// Random byte damage anywhere in a real trace: every outcome is a session or an error naming the
// file, never a crash (run under the asan preset too).
TEST_F(ChromeJsonBadInput, DamagedBytesNeverCrash) {
  std::string json = gunzip(kineto(kExpected[2].file));
  uint64_t state = 42;
  auto next = [&] {
    return state = state * 6364136223846793005ull + 1442695040888963407ull, state >> 33;
  };
  const char noise[] = {'{', '}', '[', ']', '"', ',', ':', '\\', '0', 'x', ' ', '\0', '-', '.'};
  size_t errors = 0;
  for (int round = 0; round < 300; ++round) {
    std::string damaged = json;
    for (int k = 0; k < 1 + round % 4; ++k)
      damaged[next() % damaged.size()] = noise[next() % sizeof noise];
    if (round % 7 == 0) damaged.resize(next() % damaged.size());
    std::string p = write("damaged.json", damaged);
    auto s = openSessionFile(p);
    if (!s.ok()) {
      ++errors;
      EXPECT_NE(s.error().find(p), std::string::npos) << s.error();
    }
  }
  EXPECT_GT(errors, 100u);
}

// One event per line, events spread over several lines (line breaks inside args) and a trace on
// one line must give the same session; an error deep in a big trace names its own event's byte.
TEST_F(ChromeJsonBadInput, EveryLayoutGivesTheSameSession) {
  auto event = [](int i, bool multiline) {
    std::string ts = std::to_string(1000 + i * 10);
    std::string args = multiline ? "{\"list\": [1,\n{\"deep\": " + std::to_string(i) + "}]}"
                                 : "{\"n\": " + std::to_string(i) + "}";
    return "{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"f" + std::to_string(i % 97) +
           "\", \"pid\": 1, \"tid\": " + std::to_string(1 + i % 3) + ", \"ts\": " + ts +
           ", \"dur\": 5, \"args\": " + args + "}";
  };
  const int n = 60'000;  // several MiB
  std::string lines = "{\"traceEvents\": [\n", multi = lines, single = "{\"traceEvents\":[";
  for (int i = 0; i < n; ++i) {
    lines += event(i, false) + (i + 1 < n ? ",\n" : "\n");
    multi += event(i, i % 5 == 0) + (i + 1 < n ? ",\n" : "\n");
    single += event(i, false) + (i + 1 < n ? "," : "");
  }
  lines += "]}";
  multi += "]}";
  single += "]}";
  ASSERT_GT(single.size(), 3u << 20);
  for (const auto& [name, text] : {std::pair{"lines.json", &lines}, std::pair{"multi.json", &multi},
                                   std::pair{"single.json", &single}}) {
    SCOPED_TRACE(name);
    auto s = openSessionFile(write(name, *text));
    ASSERT_TRUE(s.ok()) << s.error();
    EXPECT_EQ(summarize(**s).otherRanges, static_cast<size_t>(n));
    TimeNs last = 0;
    for (const Track& t : (*s)->tracks) last = std::max(last, t.maxEnd());
    EXPECT_EQ(last, (1000 + (n - 1) * 10 + 5) * 1000);
  }
  // A broken event deep in a big trace is still reported at its own byte offset.
  std::string broken = lines;
  size_t at = broken.find("\"ts\": 400000");
  ASSERT_NE(at, std::string::npos);
  broken.replace(at, 12, "\"ts\": \"bad!\"");
  auto s = openSessionFile(write("broken.json", broken));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().find("'ts' is not a number"), std::string::npos) << s.error();
  size_t eventStart = broken.rfind('{', at);
  EXPECT_NE(s.error().find("byte " + formatCount(eventStart) + " "), std::string::npos)
      << s.error();
}

TEST(ChromeJson, GenericChromeEvents) {
  // B/E nesting, instants, counters, flows, string pids, metadata names.
  std::string json = R"({"traceEvents": [
    {"ph": "M", "name": "process_name", "pid": "browser", "args": {"name": "Browser"}},
    {"ph": "M", "name": "thread_name", "pid": "browser", "tid": 3, "args": {"name": "Main"}},
    {"ph": "M", "name": "process_sort_index", "pid": "browser", "args": {"sort_index": 7}},
    {"ph": "M", "name": "thread_sort_index", "pid": "browser", "tid": 4, "args": {"sort_index": -1}},
    {"ph": "B", "name": "outer", "cat": "app", "pid": "browser", "tid": 3, "ts": 0},
    {"ph": "B", "name": "inner", "cat": "app", "pid": "browser", "tid": 3, "ts": 1.5},
    {"ph": "s", "name": "f", "cat": "io", "id": 9, "pid": "browser", "tid": 3, "ts": 2},
    {"ph": "E", "pid": "browser", "tid": 3, "ts": 3},
    {"ph": "E", "pid": "browser", "tid": 3, "ts": 10},
    {"ph": "X", "name": "later", "cat": "app", "pid": "browser", "tid": 4, "ts": 20, "dur": 5},
    {"ph": "f", "name": "f", "cat": "io", "id": 9, "bp": "e", "pid": "browser", "tid": 4, "ts": 21},
    {"ph": "i", "name": "tick", "pid": "browser", "tid": 3, "ts": 4, "s": "t"},
    {"ph": "C", "name": "mem", "pid": "browser", "ts": 1, "args": {"heap": 10, "gpu": 2.5}},
    {"ph": "C", "name": "mem", "pid": "browser", "ts": 6, "args": {"heap": 12, "gpu": 3}},
    {"ph": "P", "name": "sample", "pid": "browser", "tid": 3, "ts": 5}
  ]})";
  auto s = openJsonText("generic", json);
  ASSERT_TRUE(s.ok()) << s.error();
  const Session& session = **s;
  ASSERT_EQ(session.processes.size(), 1u);
  EXPECT_EQ(session.processes[0].name, "Browser");
  EXPECT_EQ(session.processes[0].sortIndex, 7);
  for (const Thread& t : session.threads) EXPECT_EQ(t.sortIndex, t.tid == 4 ? -1 : 0);
  SessionSummary r = summarize(session);
  EXPECT_EQ(r.otherRanges, 3u);  // outer, inner, later
  EXPECT_EQ(r.nvtxMarks, 1u);
  const Track* ranges = nullptr;
  for (const Track& t : session.tracks) {
    if (t.kind == EventKind::Range && session.threads[t.thread].tid == 3) ranges = &t;
  }
  ASSERT_TRUE(ranges);
  EXPECT_EQ(session.threadLabel(ranges->thread), "Thread 3: Main");
  ASSERT_EQ(ranges->size(), 2u);
  EXPECT_EQ(session.str(ranges->hot.name[1]), "inner");
  EXPECT_EQ(ranges->hot.start[1], 1500);
  EXPECT_EQ(ranges->hot.end[1], 3000);
  EXPECT_EQ(ranges->hot.lane[1], 1);
  ASSERT_EQ(session.counters.size(), 2u);  // mem.heap, mem.gpu
  ASSERT_EQ(session.flows.srcTrack.size(), 1u);
  EXPECT_EQ(
      session.str(session.tracks[session.flows.srcTrack[0]].hot.name[session.flows.srcEvent[0]]),
      "inner");
  EXPECT_EQ(
      session.str(session.tracks[session.flows.dstTrack[0]].hot.name[session.flows.dstEvent[0]]),
      "later");
  // The sample event (phase P) is not modelled: counted by what it was, not dropped silently.
  EXPECT_EQ(session.provenance.skipped,
            (std::map<std::string, uint64_t>{{"events of phase 'P'", 1}}));
}

// A flow with a step ('t') is two flows, each bound where its ends fall, in whatever order the
// file holds its events; async ranges ('b'/'e')
// are kept on the thread that opened them, whichever thread closes them; a 'b' never ended ends
// with the trace; an 'e' without its 'b' is left out, and counted.
TEST(ChromeJson, FlowStepsAndAsyncRanges) {
  std::string json = R"({"traceEvents": [
    {"ph": "X", "name": "a", "cat": "app", "pid": 1, "tid": 3, "ts": 0, "dur": 10},
    {"ph": "X", "name": "b", "cat": "app", "pid": 1, "tid": 4, "ts": 20, "dur": 10},
    {"ph": "X", "name": "c", "cat": "app", "pid": 1, "tid": 5, "ts": 40, "dur": 10},
    {"ph": "s", "name": "f", "cat": "io", "id": 7, "pid": 1, "tid": 3, "ts": 2},
    {"ph": "t", "name": "f", "cat": "io", "id": 7, "pid": 1, "tid": 4, "ts": 22},
    {"ph": "f", "name": "f", "cat": "io", "id": 7, "bp": "e", "pid": 1, "tid": 5, "ts": 42},
    {"ph": "b", "name": "load", "cat": "net", "id": "0x1", "pid": 1, "tid": 3, "ts": 5},
    {"ph": "e", "name": "load", "cat": "net", "id": "0x1", "pid": 1, "tid": 4, "ts": 9},
    {"ph": "e", "name": "orphan", "cat": "net", "id": "0x2", "pid": 1, "tid": 4, "ts": 9},
    {"ph": "b", "name": "open", "cat": "net", "id": "0x3", "pid": 1, "tid": 5, "ts": 45},
    {"ph": "f", "name": "f", "cat": "io", "id": 8, "pid": 1, "tid": 5, "ts": 46},
    {"ph": "f", "name": "g", "cat": "fwdbwd", "id": 1, "bp": "e", "pid": 1, "tid": 5, "ts": 41},
    {"ph": "s", "name": "g", "cat": "fwdbwd", "id": 1, "pid": 1, "tid": 3, "ts": 1}
  ]})";
  auto s = openJsonText("steps", json);
  ASSERT_TRUE(s.ok()) << s.error();
  const Session& session = **s;
  auto nameAt = [&](uint32_t track, uint32_t event) {
    return session.str(session.tracks[track].hot.name[event]);
  };
  std::set<std::pair<std::string, std::string>> flows;
  for (size_t i = 0; i < session.flows.srcTrack.size(); ++i)
    flows.emplace(nameAt(session.flows.srcTrack[i], session.flows.srcEvent[i]),
                  nameAt(session.flows.dstTrack[i], session.flows.dstEvent[i]));
  // The fwdbwd flow's finish comes first in the file (as PyTorch writes them): bound all the same.
  EXPECT_EQ(flows,
            (std::set<std::pair<std::string, std::string>>{{"a", "b"}, {"b", "c"}, {"a", "c"}}));
  int loads = 0;
  for (const Track& t : session.tracks) {
    for (uint32_t i = 0; i < t.size(); ++i) {
      EXPECT_NE(session.str(t.hot.name[i]), "orphan");
      if (session.str(t.hot.name[i]) != "load") continue;
      ++loads;
      EXPECT_EQ(session.threads[t.thread].tid, 3);
      EXPECT_EQ(t.hot.start[i], 5000);
      EXPECT_EQ(t.hot.end[i], 9000);
    }
  }
  EXPECT_EQ(loads, 1);
  bool open = false;
  for (const Track& t : session.tracks) {
    for (uint32_t i = 0; i < t.size(); ++i) {
      if (session.str(t.hot.name[i]) != "open") continue;
      open = true;
      EXPECT_EQ(t.hot.start[i], 45000);
      EXPECT_EQ(t.hot.end[i], 50000);  // the trace's end
    }
  }
  EXPECT_TRUE(open);
  EXPECT_EQ(session.provenance.skipped,
            (std::map<std::string, uint64_t>{{"async ends ('e') without their begin", 1},
                                             {"flow steps without their start", 1}}));
}

// PyTorch context kept: a copy's and a memset's External id, a CUDA graph launch's kernels all
// launched by the one cudaGraphLaunch (they share its correlation id) with their graph id.
TEST(ChromeJson, ExternalIdsAndGraphLaunches) {
  std::string json = R"JSON({"traceEvents": [
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaGraphLaunch", "pid": 1, "tid": 1, "ts": 0,
     "dur": 5, "args": {"correlation": 9}},
    {"ph": "X", "cat": "kernel", "name": "k1", "pid": 0, "tid": 7, "ts": 10, "dur": 5,
     "args": {"device": 0, "stream": 7, "correlation": 9, "graph id": 3}},
    {"ph": "X", "cat": "kernel", "name": "k2", "pid": 0, "tid": 7, "ts": 16, "dur": 5,
     "args": {"device": 0, "stream": 7, "correlation": 9, "graph id": 3}},
    {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pinned -> Device)", "pid": 0,
     "tid": 7, "ts": 30, "dur": 2, "args": {"device": 0, "stream": 7, "bytes": 64,
     "External id": 41}},
    {"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "pid": 0, "tid": 7, "ts": 40,
     "dur": 2, "args": {"device": 0, "stream": 7, "bytes": 64, "External id": 0}}
  ]})JSON";
  auto s = openJsonText("graph", json);
  ASSERT_TRUE(s.ok()) << s.error();
  const Session& session = **s;
  EXPECT_EQ(session.flows.srcTrack.size(), 2u);  // the one call launches both kernels
  for (const Track& t : session.tracks) {
    if (t.kind == EventKind::Kernel) {
      for (uint32_t g : t.kernels.graphId) EXPECT_EQ(g, 3u);
    } else if (t.kind == EventKind::Memcpy) {
      EXPECT_EQ(t.memcpys.hasExternalId[0], 1);
      EXPECT_EQ(t.memcpys.externalId[0], 41u);
    } else if (t.kind == EventKind::Memset) {
      EXPECT_EQ(t.memsets.hasExternalId[0], 1);  // 0 is an id
      EXPECT_EQ(t.memsets.externalId[0], 0u);
    }
  }
}

// PyTorch's [memory] instants (profile_memory=True) are memory counters of their device, each
// sample keeping the allocation's size and address; a CPU allocation counts for its process. With
// the allocator's totals (PyTorch ≥ 1.10) the counters are those totals; without, the running
// sum of the changes, named for what it is.
TEST(ChromeJson, MemoryEventsAreCounters) {
  std::string json = R"({"traceEvents": [
    {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 7, "tid": 7,
     "ts": 10, "args": {"Device Type": 1, "Device Id": 0, "Addr": 140000000000000,
     "Bytes": 512, "Total Allocated": 1536, "Total Reserved": 2097152}},
    {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 7, "tid": 7,
     "ts": 12, "args": {"Device Type": 1, "Device Id": 0, "Addr": 18446744073709551000,
     "Bytes": -512, "Total Allocated": 1024, "Total Reserved": 2097152}},
    {"ph": "i", "s": "t", "name": "[memory]", "pid": 7, "tid": 7, "ts": 11,
     "args": {"Device Type": 0, "Device Id": -1, "Bytes": 64}},
    {"ph": "i", "s": "t", "name": "[memory]", "pid": 7, "tid": 7, "ts": 13,
     "args": {"Device Type": 0, "Device Id": -1, "Bytes": -16}},
    {"ph": "i", "s": "t", "name": "[memory]", "pid": 7, "tid": 8, "ts": 12,
     "args": {"Device Type": 0, "Device Id": -1, "Bytes": 100}}
  ]})";
  auto s = openJsonText("memory", json);
  ASSERT_TRUE(s.ok()) << s.error();
  const Session& session = **s;
  EXPECT_EQ(summarize(session).nvtxMarks, 0u);
  std::map<std::string, const CounterTrack*> byName;
  for (const CounterTrack& c : session.counters) byName[c.name] = &c;
  ASSERT_EQ(byName.size(), 3u);
  const CounterTrack* gpu = byName["Memory allocated"];
  ASSERT_TRUE(gpu);
  ASSERT_NE(gpu->device, kNone);
  EXPECT_EQ(session.devices[gpu->device].ordinal, 0);
  EXPECT_EQ(gpu->unit, "bytes");
  EXPECT_EQ(gpu->samples.value, (std::vector<double>{1536, 1024}));
  EXPECT_EQ(gpu->samples.change, (std::vector<int64_t>{512, -512}));
  EXPECT_EQ(gpu->samples.address,
            (std::vector<uint64_t>{140000000000000ull, 18446744073709551000ull}));
  ASSERT_TRUE(byName["Memory reserved"]);
  EXPECT_EQ(byName["Memory reserved"]->samples.value, (std::vector<double>{2097152, 2097152}));
  const CounterTrack* cpu = byName["Allocated since trace start"];
  ASSERT_TRUE(cpu);
  EXPECT_EQ(cpu->device, kNone);
  ASSERT_NE(cpu->process, kNone);
  EXPECT_EQ(session.processes[cpu->process].pid, 7);
  // Summed in time order (another thread's allocation at 12 µs comes later in the file).
  EXPECT_EQ(cpu->samples.value, (std::vector<double>{64, 164, 148}));
  EXPECT_EQ(cpu->samples.change, (std::vector<int64_t>{64, 100, -16}));

  // Bad fields name the problem.
  auto bad = openJsonText("memory-bad", R"({"traceEvents": [
    {"ph": "i", "s": "t", "name": "[memory]", "pid": 7, "tid": 7, "ts": 10,
     "args": {"Device Type": 1, "Device Id": 0, "Bytes": "many"}}]})");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("[memory] 'Bytes' is not an integer"), std::string::npos)
      << bad.error();
}

}  // namespace ts

namespace ts {

TEST(ChromeJson, EscapedKeysAndStringsAreUnescaped) {
  // Names, ids and keys are read in place unless they hold escapes; those take the slow path and
  // must come out unescaped (here "ph", "name" and "cat" spelt with \u escapes).
  std::string json = R"([
    {"\u0070h": "X", "n\u0061me": "quote \" back \\ e\u0301", "cat": "app", "pid": "p\"1", "tid": 2, "ts": 1, "dur": 2},
    {"ph": "X", "name": "plain", "\u0063at": "k\u0065rnel", "pid": 0, "tid": 7, "ts": 3, "dur": 1,
     "args": {"\u0064evice": 1, "stream": 7, "grid": [2, 1, 1], "block": [64, 1, 1]}}
  ])";
  auto s = openJsonText("escapes", json);
  ASSERT_TRUE(s.ok()) << s.error();
  const Session& session = **s;
  SessionSummary r = summarize(session);
  EXPECT_EQ(r.otherRanges, 1u);
  EXPECT_EQ(r.kernels, 1u);
  bool sawRange = false;
  for (const Track& t : session.tracks) {
    if (t.kind == EventKind::Range) {
      sawRange = true;
      EXPECT_EQ(session.str(t.hot.name[0]), "quote \" back \\ e\xcc\x81");
      EXPECT_EQ(session.processes[session.threads[t.thread].process].name, "p\"1");
    }
    if (t.kind == EventKind::Kernel) {
      EXPECT_EQ(session.devices[session.streams[t.stream].device].ordinal, 1);
      EXPECT_EQ(t.kernels.launchOf(0).gridX, 2u);
    }
  }
  EXPECT_TRUE(sawRange);
}

}  // namespace ts
