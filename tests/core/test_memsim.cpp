// The memory-tier simulator's inputs: G10 workload directories (all five in ../shared/data/g10)
// and tensor vitality, checked against G10's own analysis output (interval.config) tensor by
// tensor; malformed directories give errors that name the file and line.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "io/text_file.h"
#include "memsim/engine/tier_config.h"
#include "memsim/engine/vitality.h"
#include "memsim/formats/from_model.h"
#include "memsim/formats/g10_workload.h"
#include "memsim/formats/run_tiers.h"
#include "model/model_zoo.h"
#include "model/onnx_loader.h"
#include "session/session_builder.h"

namespace ts::memsim {

namespace fs = std::filesystem;

namespace {

std::string g10(const std::string& name) {
  return std::string(TSCOPE_SHARED_DATA) + "/g10/" + name;
}

// G10's interval.config: per tensor its liveness (or "Global!") and its hiding intervals, each
// with its estimated time in µs.
struct G10Life {
  bool global = false;
  int birth = -1, death = -1;
  std::vector<std::pair<int, int>> intervals;
  std::vector<double> estimatedUs;
};

std::map<int, G10Life> readIntervals(const std::string& path) {
  auto text = readTextFile(path);
  EXPECT_TRUE(text.ok());
  std::map<int, G10Life> out;
  std::istringstream in{std::string(text->view())};
  std::regex tensor(R"(^tensor(\d+) Is weight)"), live(R"(Birth: (\d+), Death: (\d+))"),
      interval(R"(interval \d+: (\d+)--------(\d+))"), estimate(R"(Estimated Time:(\S+))");
  int current = -1;
  std::smatch m;
  for (std::string line; std::getline(in, line);) {
    if (std::regex_search(line, m, tensor))
      current = std::stoi(m[1]);
    else if (line.rfind("Global!", 0) == 0)
      out[current].global = true;
    else if (std::regex_search(line, m, live))
      out[current].birth = std::stoi(m[1]), out[current].death = std::stoi(m[2]);
    else if (std::regex_search(line, m, interval))
      out[current].intervals.emplace_back(std::stoi(m[1]), std::stoi(m[2]));
    else if (std::regex_search(line, m, estimate))
      out[current].estimatedUs.push_back(std::stod(m[1]));
  }
  return out;
}

}  // namespace

TEST(Memsim, EveryG10WorkloadLoads) {
  const std::map<std::string, size_t> kernels = {{"BERT-256", 1369},
                                                 {"VIT-1280", 1489},
                                                 {"Inceptionv3-1536", 929},
                                                 {"ResNet152-1280", 1299},
                                                 {"SENet154-1024", 2319}};
  for (const auto& [dir, count] : kernels) {
    auto w = loadG10Workload(g10(dir));
    ASSERT_TRUE(w.ok()) << w.error();
    EXPECT_EQ(w->workload.kernels.size(), count) << dir;
    EXPECT_GT(w->workload.tensors.size(), count / 2) << dir;
  }
  // The sum of G10's kernel times is its "ideal" iteration time (published for BERT-256).
  auto bert = loadG10Workload(g10("BERT-256"));
  ASSERT_TRUE(bert.ok());
  int64_t cycles = 0;
  for (int64_t c : bert->cycles) cycles += c;
  EXPECT_EQ(cycles, 8'742'558'777);
  EXPECT_NEAR(static_cast<double>(bert->workload.idealTime()), 8'742'558'777 / 1.2,
              1369.0);  // ns, rounded per kernel
}

TEST(Memsim, AnOutOfRangeNumberInAG10WorkloadIsAnErrorNamingFileAndLine) {
  // Was: std::stoi threw std::out_of_range and the uncaught throw ended the process.
  auto w = loadG10Workload(std::string(TSCOPE_SHARED_DATA) + "/crashers/g10-stoi-out-of-range");
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.error().find("tensors.config:57: tensor id 57333333333 is out of range"),
            std::string::npos)
      << w.error();

  // The same for kernels.config: a kernel id and an execution time past 64 bits.
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("tscope-g10-range-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "tensors.config")
      << "tensor0 Is weight (global)?: 0, Size in byte: 64, Range:0--64\n";
  std::ofstream(dir / "kernels.config") << "Kernel ID: 99999999999, Name: k\n";
  auto badId = loadG10Workload(dir.string());
  ASSERT_FALSE(badId.ok());
  EXPECT_NE(badId.error().find("kernels.config:1: kernel id 99999999999 is out of range"),
            std::string::npos)
      << badId.error();
  std::ofstream(dir / "kernels.config")
      << "Kernel ID: 0, Name: k\nExecution Time: 99999999999999999999\n";
  auto badTime = loadG10Workload(dir.string());
  ASSERT_FALSE(badTime.ok());
  EXPECT_NE(
      badTime.error().find("kernels.config:2: execution time 99999999999999999999 is out of range"),
      std::string::npos)
      << badTime.error();
  std::filesystem::remove_all(dir);
}

TEST(Memsim, VitalityMatchesG10sOwnAnalysis) {
  for (const char* dir : {"BERT-256", "ResNet152-1280"}) {
    SCOPED_TRACE(dir);
    auto w = loadG10Workload(g10(dir));
    ASSERT_TRUE(w.ok()) << w.error();
    std::string intervals = g10(std::string(dir) + "/interval.config.gz");
    std::map<int, G10Life> expected = readIntervals(intervals);
    std::vector<TensorLife> lives = analyzeVitality(w->workload);
    size_t compared = 0;
    for (const TensorLife& life : lives) {
      int id = w->tensorIds[static_cast<size_t>(life.tensor)];
      auto it = expected.find(id);
      if (it == expected.end()) continue;  // G10 lists only the tensors kernels use
      ++compared;
      const G10Life& e = it->second;
      EXPECT_EQ(life.global, e.global) << "tensor" << id;
      if (!e.global) {
        EXPECT_EQ(life.birth, e.birth) << "tensor" << id;
        EXPECT_EQ(life.death, e.death) << "tensor" << id;
      }
      std::vector<std::pair<int, int>> ours;
      for (const InactiveInterval& i : life.inactive) ours.emplace_back(i.from, i.to);
      EXPECT_EQ(ours, e.intervals) << "tensor" << id;
      ASSERT_EQ(e.estimatedUs.size(), e.intervals.size()) << "tensor" << id;
      for (size_t i = 0; i < ours.size() && i < e.intervals.size(); ++i) {
        // G10 prints six significant digits.
        double us = static_cast<double>(life.inactive[i].duration) / 1e3;
        EXPECT_NEAR(us, e.estimatedUs[i], std::max(1e-5 * e.estimatedUs[i], 0.01))
            << "tensor" << id << " interval " << i;
      }
    }
    EXPECT_EQ(compared, expected.size());
    EXPECT_GT(compared, 1000u);
  }
}

TEST(Memsim, MalformedWorkloadsNameFileAndLine) {
  fs::path dir = fs::temp_directory_path() / ("tscope-g10-" + std::to_string(::getpid()));
  auto write = [&](const std::string& tensors, const std::string& kernels) {
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::ofstream((dir / "tensors.config").string()) << tensors;
    std::ofstream((dir / "kernels.config").string()) << kernels;
    return loadG10Workload(dir.string());
  };
  const std::string tensors =
      "tensor0 Is weight (global)?: 0, Size in byte: 4096, Range:0--4096\n"
      "tensor1 Is weight (global)?: 1, Size in byte: 8192, Range:4096--12288\n";
  auto kernel = [](int id, const std::string& io) {
    return "Kernel ID: " + std::to_string(id) +
           ", Name: K\nParent OP ID:1; Name: Op\nExecution Time: 1200\nInput Tensors:\n" + io +
           "Output Tensors:\n____\n";
  };
  const std::string t0 = "tensor0 Is weight (global)?: 0, Size in byte: 4096, Range:0--4096\n";
  auto ok = write(tensors, kernel(0, t0) + kernel(1, t0));
  ASSERT_TRUE(ok.ok()) << ok.error();
  EXPECT_EQ(ok->workload.kernels[1].duration, 1000);  // 1,200 cycles at 1.2 GHz

  auto gap = write(tensors, kernel(0, t0) + kernel(2, t0));
  ASSERT_FALSE(gap.ok());
  EXPECT_NE(gap.error().find("kernels.config:8:"), std::string::npos) << gap.error();
  EXPECT_NE(gap.error().find("without gaps"), std::string::npos) << gap.error();

  auto undefined = write(
      tensors, kernel(0, "tensor9 Is weight (global)?: 0, Size in byte: 4096, Range:0--4096\n"));
  ASSERT_FALSE(undefined.ok());
  EXPECT_NE(undefined.error().find("tensor9 is not defined"), std::string::npos)
      << undefined.error();

  auto negative =
      write("tensor0 Is weight (global)?: 0, Size in byte: -4096, Range:0--4096\n", kernel(0, ""));
  ASSERT_FALSE(negative.ok());
  EXPECT_NE(negative.error().find("tensors.config:1:"), std::string::npos) << negative.error();

  auto mismatch = write(
      tensors, kernel(0, "tensor1 Is weight (global)?: 0, Size in byte: 8192, Range:0--8192\n"));
  ASSERT_FALSE(mismatch.ok());
  EXPECT_NE(mismatch.error().find("differs from its definition"), std::string::npos)
      << mismatch.error();

  fs::remove_all(dir);
  EXPECT_FALSE(loadG10Workload(dir.string()).ok());
}

}  // namespace ts::memsim

namespace ts::memsim {

// A measured run is simulated on its own GPU: its memory, and the rate of its pinned copies of
// 1 MiB or more (pageable and small ones say little about the link).
TEST(Memsim, TiersForARunTakeItsGpu) {
  SessionBuilder b;
  const uint32_t gpu = b.device(b.rank(0), 0);
  b.deviceInfo(gpu).name = "Tesla V100-SXM2-32GB";
  b.deviceInfo(gpu).memoryBytes = 34'089'730'048;
  const uint32_t stream = b.stream(gpu, 7);
  const StringId copy = b.intern("Memcpy HtoD");
  auto add = [&](TimeNs start, TimeNs ns, uint64_t bytes, MemoryKind host) {
    MemcpyDetail d;
    d.bytes = bytes;
    d.copyKind = CopyKind::HtoD;
    d.srcKind = host;
    d.dstKind = MemoryKind::Device;
    b.addMemcpy(stream, start, start + ns, copy, d);
  };
  add(0, 1'000'000, 12'000'000, MemoryKind::Pinned);           // 12 GB/s
  add(2'000'000, 1'000'000, 11'000'000, MemoryKind::Pinned);   // 11 GB/s: the median of three
  add(4'000'000, 1'000'000, 10'000'000, MemoryKind::Pinned);   // 10 GB/s
  add(6'000'000, 1'000'000, 2'000'000, MemoryKind::Pageable);  // staged: not the link
  add(8'000'000, 1'000, 4'096, MemoryKind::Pinned);            // too small to say
  auto run = b.build();
  ASSERT_TRUE(run.ok()) << run.error();
  const TierConfig g10 = *tierPreset("g10-default");
  RunTiers t = tiersForRun(g10, **run);
  EXPECT_TRUE(t.gpuFromRun && t.linkFromRun);
  EXPECT_EQ(t.tiers.gpuBytes, 34'089'730'048);
  EXPECT_DOUBLE_EQ(t.tiers.gpuHostBandwidth, 11e9);
  EXPECT_EQ(t.tiers.hostBytes, g10.hostBytes);  // the rest stays G10's
  EXPECT_EQ(t.tiers.name, "g10-default with the run's Tesla V100-SXM2-32GB");
  EXPECT_NE(t.note.find("GPU memory 31.75 GiB: the run's Tesla V100-SXM2-32GB"), std::string::npos)
      << t.note;
  EXPECT_NE(tiersSentence(t.tiers).find(
                "GPU 31.7 GiB, host 128 GiB, SSD 2.91 TiB, GPU ↔ host 10.2 GiB/s"),
            std::string::npos)
      << tiersSentence(t.tiers);

  // A run that names no memory and copied nothing pinned keeps G10's and says so.
  SessionBuilder bare;
  bare.device(bare.rank(0), 0);
  auto none = bare.build();
  ASSERT_TRUE(none.ok());
  RunTiers kept = tiersForRun(g10, **none, 0);
  EXPECT_FALSE(kept.gpuFromRun || kept.linkFromRun);
  EXPECT_EQ(kept.tiers.gpuBytes, g10.gpuBytes);
  EXPECT_NE(kept.note.find("the run does not say how much"), std::string::npos) << kept.note;
  EXPECT_NE(kept.note.find("no pinned copy"), std::string::npos) << kept.note;
}

TEST(Memsim, TierPresetsAndValues) {
  for (const std::string& name : tierPresetNames()) {
    auto c = tierPreset(name);
    ASSERT_TRUE(c) << name;
    EXPECT_TRUE(c->validate().ok()) << name;
  }
  TierConfig g10 = *tierPreset("g10-default");  // G10's defaults
  EXPECT_EQ(g10.gpuBytes, 42'949'672'960);      // G10's "40 GB" is GiB (its own log says so)
  EXPECT_EQ(g10.hostBytes, 128LL << 30);
  EXPECT_DOUBLE_EQ(g10.gpuHostBandwidth, 15.754 * (1 << 30));
  EXPECT_DOUBLE_EQ(g10.ssdGpuBandwidth, 3.2 * (1 << 30));
  EXPECT_EQ(g10.ssdReadLatencyNs, 12'000);
  EXPECT_EQ(g10.ssdWriteLatencyNs, 16'000);
  EXPECT_EQ(g10.systemLatencyNs, 45'000);
  EXPECT_EQ(g10.pageBytes, 4096);
  EXPECT_DOUBLE_EQ(g10.gpuClockHz, 1.2e9);
  EXPECT_FALSE(tierPreset("tpu"));
  EXPECT_EQ(parseBytes("40GB"), 40'000'000'000);
  EXPECT_EQ(parseBytes("1.5 GiB"), 1'610'612'736);
  EXPECT_EQ(parseBytes("4096"), 4096);
  EXPECT_FALSE(parseBytes("40 GB/s"));
  EXPECT_FALSE(parseBytes("lots"));
  EXPECT_DOUBLE_EQ(*parseBandwidth("3.2GB/s"), 3.2e9);
  EXPECT_FALSE(parseBandwidth("3.2GB"));
  TierConfig c = g10;
  EXPECT_TRUE(setTierField(c, "gpu-mem", "16GB").ok());
  EXPECT_TRUE(setTierField(c, "ssd-bw", "6.4GB/s").ok());
  EXPECT_DOUBLE_EQ(c.ssdHostBandwidth, 6.4e9);  // one SSD rate both ways unless told
  EXPECT_TRUE(setTierField(c, "system-latency", "30us").ok());
  EXPECT_EQ(c.systemLatencyNs, 30'000);
  EXPECT_TRUE(setTierField(c, "gpu-clock", "1.41GHz").ok());
  Status bad = setTierField(c, "gpu-mem", "sixteen");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("gpu-mem"), std::string::npos);
  EXPECT_FALSE(setTierField(c, "warp-speed", "9").ok());
  // The one list of settings and setTierField agree: each key takes its example, and a wrong
  // unit is refused naming the key; sweeps go over sizes and bandwidths only.
  for (const TierField& f : tierFields()) {
    TierConfig t = g10;
    EXPECT_TRUE(setTierField(t, f.key, f.example).ok()) << f.key << " = " << f.example;
    Status wrong = setTierField(t, f.key, "12 parsecs");
    ASSERT_FALSE(wrong.ok()) << f.key;
    EXPECT_NE(wrong.error().find(f.key), std::string::npos) << wrong.error();
    if (f.sweepable) {
      EXPECT_TRUE(f.unit == TierUnit::Bytes || f.unit == TierUnit::Bandwidth) << f.key;
    }
    EXPECT_EQ(findTierField(f.key), &f);
  }
  EXPECT_EQ(findTierField("warp-speed"), nullptr);
  c.pageBytes = 3000;
  EXPECT_FALSE(c.validate().ok());
}

TEST(Memsim, TierConfigFiles) {
  fs::path dir = fs::temp_directory_path() / ("tscope-tiers-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string text = (dir / "tiers.txt").string(), json = (dir / "tiers.json").string(),
              bad = (dir / "bad.txt").string();
  std::ofstream(text)
      << "# a smaller GPU\ngpu-mem = 24GB\n\npreset = h100-80   # applied first\nssd-bw = 7GB/s\n";
  std::ofstream(json) << R"({"preset": "a100-40", "host-mem": "256GB", "pcie-bw": 25000000000})";
  std::ofstream(bad) << "gpu-mem = 24GB\nssd-bw = fast\n";
  auto t = loadTierConfig(text);
  ASSERT_TRUE(t.ok()) << t.error();
  EXPECT_EQ(t->gpuBytes, 24'000'000'000);
  EXPECT_DOUBLE_EQ(t->gpuHostBandwidth, 63e9);  // from the preset
  EXPECT_DOUBLE_EQ(t->ssdGpuBandwidth, 7e9);
  auto j = loadTierConfig(json);
  ASSERT_TRUE(j.ok()) << j.error();
  EXPECT_EQ(j->hostBytes, 256'000'000'000);
  EXPECT_DOUBLE_EQ(j->gpuHostBandwidth, 25e9);
  EXPECT_EQ(j->gpuBytes, int64_t{40'536} << 20);  // the preset's, as an A100-40GB reports it
  auto b = loadTierConfig(bad);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.error().find("bad.txt:2: ssd-bw"), std::string::npos) << b.error();
  std::ofstream((dir / "broken.json").string()) << R"({"gpu-mem": )";
  auto broken = loadTierConfig((dir / "broken.json").string());
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.error().find("broken.json"), std::string::npos) << broken.error();
  fs::remove_all(dir);
}

}  // namespace ts::memsim

namespace ts::memsim {

// A model's training step becomes a workload whose vitality reads naturally: a weight is read by
// its forward kernel and by its update (its gradient is computed from the activations, not from
// it), and idles between and round the iteration's end.
TEST(Memsim, WorkloadFromATrainingStep) {
  auto g = model::loadOnnxBytes(*model::zooModelBytes("resnet50"), "resnet50");
  ASSERT_TRUE(g.ok()) << g.error();
  model::TrainingStep step = model::expandTrainingStep(*g);
  SimWorkload w = workloadFromStep(step);
  ASSERT_EQ(w.kernels.size(), step.kernels.size());
  EXPECT_EQ(w.idealTime(), step.totalNs());
  std::vector<TensorLife> lives = analyzeVitality(w);
  int conv1 = -1;
  for (size_t t = 0; t < w.tensors.size(); ++t) {
    if (w.tensors[t].name == "conv1.weight") conv1 = static_cast<int>(t);
  }
  ASSERT_GE(conv1, 0);
  const TensorLife& life = lives[static_cast<size_t>(conv1)];
  EXPECT_TRUE(life.global);
  ASSERT_EQ(life.uses.size(), 2u);
  EXPECT_EQ(w.kernels[static_cast<size_t>(life.uses[0])].name, "conv1");
  EXPECT_EQ(w.kernels[static_cast<size_t>(life.uses[1])].name, "conv1.weight.update");
  ASSERT_EQ(life.inactive.size(), 2u);
  EXPECT_FALSE(life.inactive.front().wraps);
  EXPECT_TRUE(life.inactive.back().wraps);
  TimeNs idle = 0;
  for (const InactiveInterval& i : life.inactive) idle += i.duration;
  TimeNs busy = 0;
  for (int k : life.uses) busy += w.kernels[static_cast<size_t>(k)].duration;
  EXPECT_EQ(idle + busy, w.idealTime());  // every kernel is either a use or idle time, once
}

}  // namespace ts::memsim
