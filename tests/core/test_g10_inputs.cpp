// G10's frontend rebuilt (memsim/formats/g10_inputs.h): from G10's model files and traces
// (../shared/data/g10-inputs) the workload of each of the five configurations in ../shared/data/g10
// equals the kernels.config and tensors.config G10 wrote for it — every tensor's size and kind,
// every kernel's name, time and tensors. Also the listing of a G10 folder and the errors of bad
// inputs (a wrong batch, a trace of another model, an unknown operator).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <tuple>

#include "memsim/engine/g10_quirks.h"
#include "memsim/engine/planners.h"
#include "memsim/engine/simulation.h"
#include "memsim/engine/simulator.h"
#include "memsim/engine/tier_config.h"
#include "memsim/formats/g10_frontend.h"
#include "memsim/formats/g10_inputs.h"
#include "memsim/formats/g10_plan.h"
#include "memsim/formats/g10_workload.h"
#include "memsim/reports/g10_reproduce.h"

namespace ts::memsim {

namespace fs = std::filesystem;

namespace {

std::string shared(const std::string& rest) {
  return std::string(TSCOPE_SHARED_DATA) + rest;
}
const std::string kInputs = shared("/g10-inputs");

std::set<int> ids(const G10Workload& g, const std::vector<int>& tensors) {
  std::set<int> out;
  for (int t : tensors) out.insert(g.tensorIds[static_cast<size_t>(t)]);
  return out;
}

struct Config {
  const char* dir;
  const char* model;
  int batch;
};

class G10Frontend : public ::testing::TestWithParam<Config> {};

TEST_P(G10Frontend, EqualsG10sOwnKernelsAndTensors) {
  const Config c = GetParam();
  auto expected = loadG10Workload(shared("/g10/") + c.dir);
  ASSERT_TRUE(expected.ok()) << expected.error();
  auto built = loadG10Inputs(kInputs, c.model, c.batch);
  ASSERT_TRUE(built.ok()) << built.error();
  const SimWorkload& e = expected->workload;
  const SimWorkload& b = built->workload;

  ASSERT_EQ(b.tensors.size(), e.tensors.size());
  std::vector<int> byId(e.tensors.size(), -1);  // G10 id → index in expected
  for (size_t i = 0; i < e.tensors.size(); ++i) {
    const int id = expected->tensorIds[i];
    ASSERT_GE(id, 0);
    ASSERT_LT(static_cast<size_t>(id), byId.size());
    byId[static_cast<size_t>(id)] = static_cast<int>(i);
  }
  int tensorMismatches = 0;
  for (size_t id = 0; id < b.tensors.size(); ++id) {
    const SimTensor& want = e.tensors[static_cast<size_t>(byId[id])];
    const SimTensor& got = b.tensors[id];
    if (got.bytes != want.bytes || got.global != want.global) {
      if (++tensorMismatches <= 5)
        ADD_FAILURE() << "tensor" << id << ": " << got.bytes << " B global " << got.global
                      << ", G10: " << want.bytes << " B global " << want.global;
    }
  }
  EXPECT_EQ(tensorMismatches, 0);

  ASSERT_EQ(b.kernels.size(), e.kernels.size());
  EXPECT_EQ(b.lossKernel, e.lossKernel);
  int kernelMismatches = 0;
  for (size_t k = 0; k < e.kernels.size(); ++k) {
    const SimKernel& want = e.kernels[k];
    const SimKernel& got = b.kernels[k];
    const bool same = got.name == want.name && built->cycles[k] == expected->cycles[k] &&
                      got.duration == want.duration &&
                      ids(*built, got.inputs) == ids(*expected, want.inputs) &&
                      ids(*built, got.outputs) == ids(*expected, want.outputs);
    if (!same && ++kernelMismatches <= 5) {
      auto list = [](const std::set<int>& s) {
        std::string out;
        for (int i : s) out += " " + std::to_string(i);
        return out;
      };
      ADD_FAILURE() << "kernel " << k << ": " << got.name << " " << built->cycles[k] << " in"
                    << list(ids(*built, got.inputs)) << " out" << list(ids(*built, got.outputs))
                    << "\n  G10: " << want.name << " " << expected->cycles[k] << " in"
                    << list(ids(*expected, want.inputs)) << " out"
                    << list(ids(*expected, want.outputs));
    }
  }
  EXPECT_EQ(kernelMismatches, 0);
  // G10's times with faults are never below the time without.
  ASSERT_EQ(built->pfCycles.size(), e.kernels.size());
  for (size_t k = 0; k < e.kernels.size(); ++k) {
    EXPECT_GE(built->inputPfCycles[k], built->cycles[k]);
    EXPECT_GE(built->pfCycles[k], built->inputPfCycles[k]);
  }
}

INSTANTIATE_TEST_SUITE_P(FiveConfigurations, G10Frontend,
                         ::testing::Values(Config{"BERT-256", "BERT", 256},
                                           Config{"VIT-1280", "VIT", 1280},
                                           Config{"Inceptionv3-1536", "Inceptionv3", 1536},
                                           Config{"ResNet152-1280", "ResNet152", 1280},
                                           Config{"SENet154-1024", "SENet154", 1024}),
                         [](const auto& info) {
                           std::string name = info.param.dir;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

// Built or read from G10's files (both with G10's traces, so g10, lru and deepum run in G10's
// unified-memory simulator), a workload simulates the same: exactly for the planned policies; the
// demand-paging ones fault a kernel's tensors in the order of its tensor set, which G10 prints in
// hash order and we build in id order — within 2 % (0.1 % for deepum on BERT-256).
TEST(G10Inputs, SimulatesAsG10sOwnFiles) {
  const TierConfig tiers = *tierPreset("g10-default");
  for (Config c : {Config{"BERT-256", "BERT", 256}, Config{"ResNet152-1280", "ResNet152", 1280}}) {
    auto expected = loadG10Workload(shared("/g10/") + c.dir);
    auto built = loadG10Inputs(kInputs, c.model, c.batch);
    ASSERT_TRUE(expected.ok() && built.ok());
    auto a = runPolicies(built->workload, allPolicies(), tiers);
    auto b = runPolicies(expected->workload, allPolicies(), tiers);
    ASSERT_TRUE(a.ok() && b.ok());
    ASSERT_EQ(a->size(), b->size());
    for (size_t i = 0; i < a->size(); ++i) {
      const SimResult& x = (*a)[i].result;
      const SimResult& y = (*b)[i].result;
      SCOPED_TRACE(std::string(c.dir) + " " + toString(x.policy));
      ASSERT_EQ(x.feasible, y.feasible);
      const bool demand =
          x.policy == Policy::Lru || x.policy == Policy::DeepUm || x.policy == Policy::FlashNeuron;
      if (!demand)
        EXPECT_EQ(x.summary.iteration, y.summary.iteration);
      else
        EXPECT_NEAR(static_cast<double>(x.summary.iteration),
                    static_cast<double>(y.summary.iteration),
                    0.02 * static_cast<double>(y.summary.iteration));
    }
  }
}

// G10's code plans BERT at batch 512 (SSD under 6.3 GiB/s) against 1.394× the GPU's memory
// (g10_quirks.h): with that rule our g10 lands within 5 % of G10's published 17,607,178,175
// cycles (../shared/data/g10-inputs/published-bert-batchsize.txt), without it 18 % below. The
// rule is G10's, for that configuration only: BERT at 256 and a faster SSD keep the plain target.
TEST(G10Inputs, G10sLoosenedTargetForBert512) {
  auto w = loadG10Inputs(kInputs, "BERT", 512);
  ASSERT_TRUE(w.ok()) << w.error();
  EXPECT_EQ(w->workload.g10Model, "BERT");
  EXPECT_EQ(w->workload.g10Batch, 512);
  TierConfig tiers = *tierPreset("g10-default");
  auto runs = runPolicies(w->workload, {Policy::G10}, tiers);
  ASSERT_TRUE(runs.ok()) << runs.error();
  const double cycles = static_cast<double>((*runs)[0].result.summary.iteration) * 1.2;
  EXPECT_NEAR(cycles, 17607178175.0, 0.05 * 17607178175.0);
  EXPECT_NE((*runs)[0].plan.note.find("1.39× the GPU's memory"), std::string::npos)
      << (*runs)[0].plan.note;
  EXPECT_EQ(g10Quirks(w->workload, tiers, Policy::G10).targetScale, 1.394);
  EXPECT_EQ(g10Quirks(w->workload, tiers, Policy::G10Gds).targetScale, 1.060606);  // every one
  tiers.ssdGpuBandwidth = tiers.ssdHostBandwidth = 12.8 * (1 << 30);
  EXPECT_EQ(g10Quirks(w->workload, tiers, Policy::G10).targetScale, 1.0);
  auto bert256 = loadG10Workload(shared("/g10/BERT-256"));
  ASSERT_TRUE(bert256.ok());
  EXPECT_EQ(bert256->workload.g10Batch, 256);  // known from its directory's name
  EXPECT_EQ(g10Quirks(bert256->workload, *tierPreset("g10-default"), Policy::G10).targetScale, 1.0);
}

// --reproduce: the experiments G10's scripts run, with G10's published numbers attached from a
// file in its own format, and the agreement counted.
TEST(G10Reproduce, BertBatchSweepAgainstG10sFile) {
  auto run = reproduceG10(kInputs, G10Experiment::Batch, "bert");
  ASSERT_TRUE(run.ok()) << run.error();
  // genconfigs.py's BERT batches × lru, FlashNeuron, deepUM, G10, ideal.
  EXPECT_EQ(run->points.size(), 7u * 5u);
  EXPECT_EQ(run->simulations, 35);
  ASSERT_TRUE(attachPublished(*run, kInputs + "/published-bert-batchsize.txt", "BERT").ok());
  int attached = 0;
  for (const ReproducePoint& p : run->points) {
    if (!p.published) continue;
    ++attached;
    if (p.batch == 512 && p.policy == Policy::Lru) {
      EXPECT_EQ(*p.published, 97051580903);
    }
    if (p.batch == 768 && p.policy == Policy::FlashNeuron) {
      EXPECT_EQ(*p.published, -1);  // inf
    }
    if (p.policy == Policy::Ideal) {
      EXPECT_EQ(*p.published, p.cycles);
    }
  }
  EXPECT_EQ(attached, 25);  // the file's five batches × five policies; 384 and 640 absent
  StatsTable t = reproduceTable(*run);
  EXPECT_EQ(t.rows.size(), 35u);
  bool counted = false;
  for (const std::string& n : t.notes) counted |= n.rfind("ideal: 5 of 5 within ±5 %", 0) == 0;
  EXPECT_TRUE(counted);
  // As sweeps for export --sweep: one per model, keyed by batch.
  auto sweeps = reproduceSweeps(*run);
  ASSERT_EQ(sweeps.size(), 1u);
  EXPECT_EQ(sweeps[0].second.key, "batch");
  EXPECT_EQ(sweeps[0].second.points.size(), 35u);
  // Each point carries its stall (demand paging stalls; the ideal never does).
  TimeNs lruStall = 0;
  for (const SweepPoint& sp : sweeps[0].second.points) {
    if (sp.policy == "lru" && sp.feasible) lruStall = std::max(lruStall, sp.stall);
    if (sp.policy == "ideal") {
      EXPECT_EQ(sp.stall, 0);
    }
  }
  EXPECT_GT(lruStall, 0);
}

TEST(G10Reproduce, Figure11AndBadFiles) {
  auto run = reproduceG10(kInputs, G10Experiment::Figure11, "");
  ASSERT_TRUE(run.ok()) << run.error();
  EXPECT_EQ(run->points.size(), 5u * 7u);
  ASSERT_TRUE(attachPublished(*run, shared("/g10/published.txt"), "").ok());
  int attached = 0;
  for (const ReproducePoint& p : run->points) attached += p.published.has_value();
  EXPECT_EQ(attached, 14);  // BERT-256 and ResNet152-1280, seven policies each

  // The SSD sweep: five bandwidths at the figure's batch, PCIe at 32 GiB/s.
  auto ssd = reproduceG10(kInputs, G10Experiment::SsdBandwidth, "BERT");
  ASSERT_TRUE(ssd.ok()) << ssd.error();
  EXPECT_EQ(ssd->points.size(), 25u);
  EXPECT_EQ(ssd->points.front().batch, 512);
  EXPECT_EQ(ssd->points.front().setting, 6.4);

  const fs::path bad = fs::temp_directory_path() / ("g10pub-" + std::to_string(::getpid()));
  std::ofstream(bad) << "lru | FlashNeuron | deepUM | prefetch_lru | ideal\n\n6.4\n1 2 3\n";
  Status s = attachPublished(*ssd, bad.string(), "BERT");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().find(":4: expected 5 values, found 3"), std::string::npos) << s.error();
  std::ofstream(bad) << "lru | fast\n\n6.4\n1 2\n";
  s = attachPublished(*ssd, bad.string(), "BERT");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().find("unknown policy 'fast'"), std::string::npos) << s.error();
  fs::remove(bad);
  EXPECT_FALSE(reproduceG10(kInputs, G10Experiment::Batch, "AlexNet").ok());
  EXPECT_FALSE(parseG10Experiment("pcie").has_value());
}

// Our g10 plans as G10's code does: for the two configurations whose plan G10 wrote
// (prefetch_guide.config), every hint — allocations, frees, evictions to host and SSD,
// prefetches, at their kernels — is G10's, and none more. Executed by our simulator (G10's
// simulator of unified memory, written again), G10's plan and ours give the same iteration, and
// it is G10's own simulation of it to within 1 % (both within 0.001 %).
TEST(G10Reference, PlansEveryHintG10Planned) {
  const TierConfig tiers = *tierPreset("g10-default");
  struct Case {
    const char* dir;
    const char* guide;
    size_t hints;
    int64_t published;
  };
  for (Case c : {Case{"BERT-256", "prefetch_guide.config", 2660, 8773229325},
                 Case{"ResNet152-1280", "prefetch_guide.config.gz", 7034, 137304113890}}) {
    SCOPED_TRACE(c.dir);
    auto g = loadG10Workload(shared("/g10/") + c.dir);
    ASSERT_TRUE(g.ok()) << g.error();
    auto theirs = loadG10Plan(shared("/g10/") + c.dir + "/" + c.guide, *g);
    ASSERT_TRUE(theirs.ok()) << theirs.error();
    const Plan ours = planG10Reference(Policy::G10, g->workload, tiers);
    auto hints = [](const Plan& p) {
      std::multiset<std::tuple<int, int, int>> out;
      for (const Action& a : p.actions) {
        // G10 writes allocations and prefetches alike (To: In_gpu).
        const int kind = a.kind == Action::Allocate ? Action::Prefetch : a.kind;
        out.insert({a.kernel, a.tensor, kind});
      }
      return out;
    };
    EXPECT_EQ(theirs->actions.size(), c.hints);
    EXPECT_TRUE(hints(ours) == hints(*theirs));
    const SimResult a = simulate(g->workload, ours, tiers);
    const SimResult b = simulate(g->workload, *theirs, tiers);
    EXPECT_EQ(a.summary.iteration, b.summary.iteration);
    const double cycles = static_cast<double>(b.summary.iteration) * 1.2;
    EXPECT_NEAR(cycles / static_cast<double>(c.published), 1.0, 0.01);
  }
  // A hint file that is not one names the line.
  const fs::path bad = fs::temp_directory_path() / ("guide-" + std::to_string(::getpid()));
  std::ofstream(bad) << "Issued Time: 3 Tensor: 15 G:x From: Not_Known, To: In_gpu\nnonsense\n";
  auto g = loadG10Workload(shared("/g10/BERT-256"));
  ASSERT_TRUE(g.ok());
  auto plan = loadG10Plan(bad.string(), *g);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.error().find(":2: not a G10 hint"), std::string::npos) << plan.error();
  fs::remove(bad);
}

// G10's per-link traffic (Figure 14 of ../shared/data/g10/published.txt, 4 KiB pages): g10's and
// deepum's on every link and lru's on BERT-256 (G10's simulator of unified memory), and
// FlashNeuron's (its simulator of explicit copies) are G10's to the page. lru on ResNet152-1280 is
// not (its time is +12 %: docs/g10-fidelity.md §6).
TEST(G10Reference, TrafficPerLinkAsG10Published) {
  const TierConfig tiers = *tierPreset("g10-default");
  struct Expect {
    const char* dir;
    Policy policy;
    Link link;
    int64_t pages;
    int64_t slack;
  };
  const std::vector<Expect> expected = {
      {"BERT-256", Policy::G10, Link::SsdToGpu, 565248, 0},
      {"BERT-256", Policy::G10, Link::GpuToSsd, 565248, 0},
      {"BERT-256", Policy::G10, Link::HostToGpu, 1769472, 0},
      {"BERT-256", Policy::G10, Link::GpuToHost, 1769472, 0},
      {"BERT-256", Policy::FlashNeuron, Link::SsdToGpu, 2657376, 0},
      {"BERT-256", Policy::FlashNeuron, Link::GpuToSsd, 2657376, 0},
      {"BERT-256", Policy::Lru, Link::HostToGpu, 45385726, 0},
      {"BERT-256", Policy::Lru, Link::GpuToHost, 45385726, 0},
      {"BERT-256", Policy::DeepUm, Link::HostToGpu, 13094159, 0},
      {"BERT-256", Policy::DeepUm, Link::GpuToHost, 13094159, 0},
      {"ResNet152-1280", Policy::G10, Link::SsdToGpu, 28533808, 0},
      {"ResNet152-1280", Policy::G10, Link::GpuToSsd, 28533808, 0},
      {"ResNet152-1280", Policy::G10, Link::HostToGpu, 35827967, 0},
      {"ResNet152-1280", Policy::G10, Link::GpuToHost, 35827967, 0},
      {"ResNet152-1280", Policy::DeepUm, Link::SsdToGpu, 35845670, 0},
      {"ResNet152-1280", Policy::DeepUm, Link::GpuToSsd, 35845670, 0},
      {"ResNet152-1280", Policy::DeepUm, Link::HostToGpu, 38077759, 0},
      {"ResNet152-1280", Policy::DeepUm, Link::GpuToHost, 38077759, 0},
      {"ResNet152-1280", Policy::FlashNeuron, Link::SsdToGpu, 65040772, 1},
      {"ResNet152-1280", Policy::FlashNeuron, Link::GpuToSsd, 65040772, 1},
  };
  std::map<std::pair<std::string, Policy>, SimResult> runs;
  for (const Expect& e : expected) {
    auto key = std::make_pair(std::string(e.dir), e.policy);
    if (!runs.count(key)) {
      auto g = loadG10Workload(shared("/g10/") + e.dir);
      ASSERT_TRUE(g.ok()) << g.error();
      auto r = runPolicies(g->workload, {e.policy}, tiers);
      ASSERT_TRUE(r.ok()) << r.error();
      runs[key] = (*r)[0].result;
    }
    const int64_t pages = runs[key].summary.linkBytes[static_cast<size_t>(e.link)] / 4096;
    EXPECT_NEAR(static_cast<double>(pages), static_cast<double>(e.pages),
                static_cast<double>(e.slack))
        << e.dir << " " << toString(e.policy) << " " << toString(e.link);
  }
}

// G10's other special cases, each only where G10's code applies it.
TEST(G10Inputs, G10sOtherSpecialCases) {
  SimWorkload vit;
  vit.g10Model = "VIT";
  vit.g10Batch = 1280;
  TierConfig tiers = *tierPreset("g10-default");  // SSD 3.2 GiB/s
  EXPECT_EQ(g10Quirks(vit, tiers, Policy::G10).targetScale, 1.0);
  tiers.ssdGpuBandwidth = tiers.ssdHostBandwidth = 6.4 * (1 << 30);
  EXPECT_EQ(g10Quirks(vit, tiers, Policy::G10).targetScale, 1.1);  // the SSD sweep's 6.4 point
  EXPECT_EQ(g10Quirks(vit, tiers, Policy::G10Host).targetScale, 1.269366);
  EXPECT_EQ(g10Quirks(vit, tiers, Policy::G10Gds).targetScale, 1.060606);
  EXPECT_EQ(g10Quirks(vit, tiers, Policy::FlashNeuron).flashNeuronGpuScale, 1.0);
  vit.g10Batch = 1024;
  EXPECT_EQ(g10Quirks(vit, tiers, Policy::FlashNeuron).flashNeuronGpuScale, 0.993);
  EXPECT_FALSE(g10Quirks(vit, tiers, Policy::FlashNeuron).note.empty());
  SimWorkload other;  // not one of G10's models: no special case
  other.g10Batch = 1024;
  EXPECT_EQ(g10Quirks(other, tiers, Policy::FlashNeuron).flashNeuronGpuScale, 1.0);
  EXPECT_EQ(g10Quirks(other, tiers, Policy::G10).targetScale, 1.0);
}

TEST(G10Inputs, ListsEveryModelAndBatchG10Traced) {
  auto list = listG10Inputs(kInputs);
  ASSERT_TRUE(list.ok()) << list.error();
  std::map<std::string, std::vector<int64_t>> got;
  for (const auto& m : *list) got[m.info->experiment] = m.batches;
  // The README of ../shared/data/g10-inputs lists them.
  EXPECT_EQ(got["BERT"], (std::vector<int64_t>{128, 256, 384, 512, 640, 768, 1024, 1280, 1536}));
  EXPECT_EQ(got["VIT"], (std::vector<int64_t>{256, 512, 768, 1024, 1280, 1536, 1792, 2048}));
  EXPECT_EQ(got["Inceptionv3"],
            (std::vector<int64_t>{512, 768, 1024, 1152, 1280, 1408, 1536, 1664, 1792}));
  EXPECT_EQ(got["ResNet152"], (std::vector<int64_t>{256, 512, 768, 1024, 1280, 1536, 1792, 2048}));
  EXPECT_EQ(got["SENet154"], (std::vector<int64_t>{256, 512, 768, 1024, 1280, 1536}));
}

// G10's published "ideal" is the sum of the kernel times it read: for BERT at each batch of its
// published sweep (../shared/data/g10-inputs/published-bert-batchsize.txt, last column) ours equals
// it to the cycle.
TEST(G10Inputs, IdealCyclesEqualG10sPublishedIdeal) {
  const std::map<int64_t, int64_t> published = {{128, 7087159999},
                                                {256, 8742558777},
                                                {512, 11799396628},
                                                {768, 16948222288},
                                                {1024, 20928839947}};
  for (auto [batch, cycles] : published) {
    auto w = loadG10Inputs(kInputs, "BERT", batch);
    ASSERT_TRUE(w.ok()) << w.error();
    int64_t sum = 0;
    for (int64_t c : w->cycles) sum += c;
    EXPECT_EQ(sum, cycles) << "batch " << batch;
  }
}

TEST(G10Inputs, EveryTracedBatchBuilds) {
  auto list = listG10Inputs(kInputs);
  ASSERT_TRUE(list.ok()) << list.error();
  for (const auto& m : *list) {
    for (int64_t batch : m.batches) {
      auto w = loadG10Inputs(kInputs, m.info->experiment, batch);
      ASSERT_TRUE(w.ok()) << w.error();
      EXPECT_EQ(w->workload.name, std::string(m.info->experiment) + "-" + std::to_string(batch));
      EXPECT_GT(w->workload.idealTime(), 0);
    }
  }
}

TEST(G10Inputs, BadInputsNameTheFileAndProblem) {
  auto unknown = loadG10Inputs(kInputs, "GPT3", 256);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().find("BERT, VIT, Inceptionv3, ResNet152, SENet154"), std::string::npos);

  auto batch = loadG10Inputs(kInputs, "ResNet152", 300);
  ASSERT_FALSE(batch.ok());
  EXPECT_NE(batch.error().find("cudnn300.txt: missing"), std::string::npos) << batch.error();
  EXPECT_NE(batch.error().find("256, 512, 768"), std::string::npos) << batch.error();

  EXPECT_FALSE(listG10Inputs("/nonexistent").ok());

  // A folder whose ResNet traces are BERT's: the kernel counts differ.
  const fs::path root = fs::temp_directory_path() / ("g10in-" + std::to_string(::getpid()));
  fs::create_directories(root / "frontend/Nets");
  fs::create_directories(root / "results/ResNet152");
  fs::copy_file(kInputs + "/frontend/Nets/ResNet152.txt", root / "frontend/Nets/ResNet152.txt");
  for (const char* kind : {"", "PF", "InputPF", "Workspace"})
    fs::copy_file(kInputs + "/results/BERT_Base/cudnn256" + kind + ".txt",
                  root / ("results/ResNet152/cudnn256" + std::string(kind) + ".txt"));
  auto wrong = loadG10Inputs(root.string(), "ResNet152", 256);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.error().find("cudnn256.txt: 1369 kernels, where the model has"),
            std::string::npos)
      << wrong.error();
  fs::remove_all(root);
}

TEST(G10Frontend, CnnFileErrorsNameTheLine) {
  auto unknown = buildG10Cnn(
      "Net(\n  (conv): Conv2d(3, 8, kernel_size=(3, 3), stride=(1, 1))\n"
      "  (act): Sigmoid()\n)\n",
      "net.txt", G10Family::Plain, 4, 32, 32);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().find("net.txt:3: 'Sigmoid' is not an operator"), std::string::npos)
      << unknown.error();

  auto truncated = buildG10Cnn("Net(\n  (conv): Conv2d(3, 8, kernel_size=(3, 3)", "net.txt",
                               G10Family::Plain, 4, 32, 32);
  ASSERT_FALSE(truncated.ok());
  EXPECT_NE(truncated.error().find("net.txt:2:"), std::string::npos) << truncated.error();

  auto channels = buildG10Cnn(
      "Net(\n  (a): Conv2d(3, 8, kernel_size=(3, 3), stride=(1, 1))\n"
      "  (b): Conv2d(16, 8, kernel_size=(3, 3), stride=(1, 1))\n)\n",
      "net.txt", G10Family::Plain, 4, 32, 32);
  ASSERT_FALSE(channels.ok());
  EXPECT_NE(channels.error().find("net.txt:3: Conv2d expects 16 input channels, gets 8"),
            std::string::npos)
      << channels.error();

  auto tooSmall = buildG10Cnn(
      "Net(\n  (a): Conv2d(3, 8, kernel_size=(7, 7), stride=(1, 1))\n"
      "  (b): ReLU(inplace=True)\n)\n",
      "net.txt", G10Family::Plain, 4, 5, 5);
  ASSERT_FALSE(tooSmall.ok());
  EXPECT_NE(tooSmall.error().find("leave no image"), std::string::npos) << tooSmall.error();
}

// Hostile model files: errors naming the line, never a crash or an overflow (found in review).
TEST(G10Frontend, HostileFilesGetErrors) {
  // A SENet unit as the model's first layer: G10 wires it to the layer before it.
  std::string unit = "Net(\n  (u): SENetUnit(\n";
  for (int i = 0; i < 14; ++i)
    unit += "    (c" + std::to_string(i) + "): Conv2d(3, 3, kernel_size=(1, 1), stride=(1, 1))\n";
  unit += "  )\n)\n";
  auto first = buildG10Cnn(unit, "net.txt", G10Family::SENet, 2, 8, 8);
  ASSERT_FALSE(first.ok());
  EXPECT_NE(first.error().find("cannot be the model's first layer"), std::string::npos)
      << first.error();
  // A Linear over an enormous image: its C·H·W overflows.
  auto linear = buildG10Cnn(
      "Net(\n  (a): Conv2d(3, 1000000000, kernel_size=(1, 1), stride=(1, 1), "
      "padding=(1000000000, 1000000000))\n  (b): Linear(in_features=1, out_features=1000000000, "
      "bias=True)\n)\n",
      "net.txt", G10Family::Plain, 2, 8, 8);
  ASSERT_FALSE(linear.ok());
  EXPECT_NE(linear.error().find("net.txt:"), std::string::npos) << linear.error();
  // The last layer leaves no image: said with its line.
  auto last = buildG10Cnn(
      "Net(\n  (a): Conv2d(3, 8, kernel_size=(3, 3), stride=(1, 1))\n"
      "  (b): Conv2d(8, 8, kernel_size=(9, 9), stride=(1, 1))\n)\n",
      "net.txt", G10Family::Plain, 2, 8, 8);
  ASSERT_FALSE(last.ok());
  EXPECT_NE(last.error().find("net.txt:3: Conv2d layer's output is"), std::string::npos)
      << last.error();
  // A size far beyond 64 bits (found by fuzzing: it was converted before it was checked).
  auto beyond = buildG10Cnn("Net(\n  (a): Conv2d(3, 8, kernel_size=(2e56, 3), stride=(1, 1))\n)\n",
                            "net.txt", G10Family::Plain, 2, 8, 8);
  ASSERT_FALSE(beyond.ok());
  EXPECT_NE(beyond.error().find("kernel_size must be a whole number from 0 to 10^9"),
            std::string::npos)
      << beyond.error();
  // A transformer weight of 2^63 bytes.
  auto huge = buildG10Transformer(
      "300 Dot 2 1 2 2 1073741823 1073741825 2 99 4\n-------------------\n", "ops.txt", 2, 210);
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(huge.error().find("ops.txt:1: a tensor of more than 1 PiB"), std::string::npos)
      << huge.error();
}

// A small chain by hand: what each layer creates and which kernels run, in G10's order.
TEST(G10Frontend, ChainOfConvReluLinear) {
  auto g = buildG10Cnn(
      "Net(\n  (conv): Conv2d(3, 8, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1), "
      "bias=False)\n  (relu): ReLU(inplace=True)\n"
      "  (fc): Linear(in_features=512, out_features=10, bias=True)\n)\n",
      "net.txt", G10Family::Plain, 2, 8, 8);
  ASSERT_TRUE(g.ok()) << g.error();
  // conv: input, output, weight, dweight, dinput; relu (in place): dinput; fc: weight, output,
  // dinput, dweight, bias, dbias; the loss gradient.
  ASSERT_EQ(g->tensors.size(), 13u);
  EXPECT_EQ(g->tensors[0].bytes, 2 * 3 * 8 * 8 * 4);
  EXPECT_EQ(g->tensors[2].bytes, 8 * 3 * 3 * 3 * 4);
  EXPECT_TRUE(g->tensors[2].global);
  EXPECT_EQ(g->tensors[6].bytes, 512 * 10 * 4);  // fc weight: 2 x 8 x 8 x 8 / 512 = 2 rows
  EXPECT_EQ(g->tensors[7].bytes, 2 * 10 * 4);
  std::vector<std::string> names;
  for (const auto& k : g->kernels) names.push_back(k.name);
  EXPECT_EQ(names,
            (std::vector<std::string>{
                "LoadData_A0", "Conv2d_Forward", "ReLU_Forward", "Linear_Forward", "makeLoss",
                "Linear_Backward_Bias", "Linear_Apply_Grad_Bias", "Linear_Backward_Weight",
                "Linear_Backward_Input", "Linear_Apply_Grad_Weight", "ReLU_Backward",
                "Conv2d_Backward_Weight", "Conv2d_Backward_Input", "Conv2d_Apply_Grad"}));
  EXPECT_EQ(g->lossKernel, 4);
  // The in-place ReLU writes the conv's output tensor.
  EXPECT_EQ(g->kernels[2].outputs, std::vector<int>{1});
}

}  // namespace

}  // namespace ts::memsim
