// The memory-tier planners and simulator: invariants on small hand-made workloads (exact times
// where the arithmetic is simple), and the comparison with G10's published results for the two
// configurations it gives (BERT batch 256, ResNet-152 batch 1280): per policy within ±5 % (g10,
// ideal) or ±15 % (the others), and the same ranking. The other three G10 workloads must run
// with sensible results.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include "io/tscope_file.h"
#include "memsim/engine/planners.h"
#include "memsim/engine/simulation.h"
#include "memsim/engine/step_memory.h"
#include "memsim/formats/from_model.h"
#include "memsim/formats/g10_published.h"
#include "memsim/formats/g10_workload.h"
#include "memsim/formats/sim_session.h"
#include "memsim/formats/sweep_table.h"
#include "memsim/reports/layer_compare.h"
#include "memsim/reports/sim_report.h"
#include "model/measured_times.h"
#include "model/model_zoo.h"
#include "model/onnx_loader.h"
#include "session/session_builder.h"
#include "session/session_summary.h"
#include "session_fixture.h"

namespace ts::memsim {

namespace {

constexpr int64_t GiB = int64_t{1} << 30;

std::string g10(const std::string& name) {
  return std::string(TSCOPE_SHARED_DATA) + "/g10/" + name;
}

// A chain of kernels, each reading the previous activation and writing the next, with `weights`
// global tensors read by the forward kernels: a toy training step with a loss in the middle.
SimWorkload chain(int forward, int64_t activationBytes, int64_t weightBytes, TimeNs kernelNs) {
  SimWorkload w;
  w.name = "chain";
  for (int i = 0; i <= forward; ++i)
    w.tensors.push_back({"act" + std::to_string(i), activationBytes, false});
  for (int i = 0; i < forward; ++i)
    w.tensors.push_back({"w" + std::to_string(i), weightBytes, true});
  const int weight0 = forward + 1;
  for (int i = 0; i < forward; ++i)
    w.kernels.push_back({"fwd" + std::to_string(i), kernelNs, {i, weight0 + i}, {i + 1}, 0, {}});
  w.lossKernel = static_cast<int>(w.kernels.size());
  w.kernels.push_back({"loss", kernelNs, {forward}, {forward}, 0, {}});
  // Backward reads each activation again, last first: the long idle intervals G10 exploits.
  for (int i = forward - 1; i >= 0; --i)
    w.kernels.push_back({"bwd" + std::to_string(i), kernelNs, {i, i + 1, weight0 + i}, {}, 0, {}});
  return w;
}

TierConfig smallTiers(int64_t gpu) {
  TierConfig t = *tierPreset("g10-default");
  t.gpuBytes = gpu;
  return t;
}

void expectSound(const SimWorkload& w, const SimResult& r, const TierConfig& tiers) {
  SCOPED_TRACE(toString(r.policy));
  ASSERT_EQ(r.kernels.size(), w.kernels.size());
  TimeNs previous = 0;
  for (size_t k = 0; k < r.kernels.size(); ++k) {
    EXPECT_EQ(r.kernels[k].start - r.kernels[k].stall, previous)
        << k;  // a kernel waits only for data
    EXPECT_EQ(r.kernels[k].end - r.kernels[k].start, w.kernels[k].duration) << k;
    EXPECT_GE(r.kernels[k].stall, 0);
    previous = r.kernels[k].end;
  }
  EXPECT_EQ(r.summary.iteration, previous);
  EXPECT_EQ(r.summary.ideal, w.idealTime());
  EXPECT_GE(r.summary.iteration, r.summary.ideal);
  TimeNs stall = 0;
  for (const SimKernelTime& k : r.kernels) stall += k.stall;
  EXPECT_EQ(r.summary.stall, stall);
  EXPECT_EQ(r.summary.compute + r.summary.overlap, r.summary.ideal);
  std::array<int64_t, kLinkCount> bytes{};
  for (const Migration& m : r.migrations) {
    bytes[static_cast<size_t>(m.link)] += m.bytes;
    EXPECT_LE(m.start, m.end);
  }
  EXPECT_EQ(bytes, r.summary.linkBytes);
  if (r.policy != Policy::Ideal) {
    // G10's simulator gives its GPUDirect variants 4× the memory: over capacity is said, not
    // hidden.
    bool over = false;
    for (const TierUsage& u : r.usage) over |= u.gpu > tiers.gpuBytes;
    if (r.policy == Policy::G10Gds || r.policy == Policy::G10Host)
      EXPECT_EQ(over, !r.caveat.empty()) << r.caveat;
    else
      EXPECT_FALSE(over) << "GPU over capacity";
  }
}

}  // namespace

// G10's copy simulator lets an offloaded tensor named "tensor24" through when it does not fit
// (G10's one exception by name, src/analysis.cc): born at the kernel, the kernel runs without its
// memory; alive already, G10 stops at its own check. Any other name is out of memory at once.
TEST(MemsimSim, G10CopiesLetTensor24ThroughAsG10Does) {
  // 16 pages (4 x a GPU of 4): the weight takes 10, the offloaded tensor needs 12.
  auto workload = [](const std::string& name, bool usedAgain) {
    SimWorkload w;
    w.tensors = {{"weights", 10 * 4096, true}, {name, 12 * 4096, false}};
    w.kernels = {{"k0", 1'000'000, {0}, {1}, 0, ""}, {"k1", 1'000'000, {0}, {}, 0, ""}};
    if (usedAgain) w.kernels[1].inputs.push_back(1);
    return w;
  };
  Plan plan;
  plan.policy = Policy::G10Gds;
  plan.unifiedMemory = false;
  plan.g10Copies = true;
  plan.hostAllowed = false;
  plan.actions = {{1, 1, Action::EvictToSsd}};
  TierConfig tiers = smallTiers(4 * 4096);

  const SimResult born = simulateG10Copies(workload("tensor24", false), plan, tiers);
  EXPECT_TRUE(born.feasible) << born.problem;
  EXPECT_EQ(born.summary.stall, 0);
  const SimResult alive = simulateG10Copies(workload("tensor24", true), plan, tiers);
  EXPECT_FALSE(alive.feasible);
  EXPECT_NE(alive.problem.find("stops here: tensor24 does not fit before kernel 1"),
            std::string::npos)
      << alive.problem;
  const SimResult other = simulateG10Copies(workload("tensor25", false), plan, tiers);
  EXPECT_FALSE(other.feasible);
  EXPECT_NE(other.problem.find("runs out of contiguous GPU memory for kernel 0"), std::string::npos)
      << other.problem;
}

TEST(MemsimSim, EverythingFitsMeansIdealEverywhere) {
  SimWorkload w = chain(6, 100 << 20, 10 << 20, 1'000'000);
  TierConfig tiers = smallTiers(4 * GiB);
  auto runs = runPolicies(w, allPolicies(), tiers);
  ASSERT_TRUE(runs.ok()) << runs.error();
  for (const PolicyRun& run : *runs) {
    expectSound(w, run.result, tiers);
    EXPECT_TRUE(run.result.feasible);
    EXPECT_EQ(run.result.summary.iteration, w.idealTime()) << toString(run.result.policy);
    EXPECT_TRUE(run.result.migrations.empty()) << toString(run.result.policy);
  }
}

TEST(MemsimSim, OvercommittedChainMovesDataAndStaysUnderCapacity) {
  // 12 activations of 1 GiB on a 5 GiB GPU: most must leave during the forward pass.
  SimWorkload w = chain(12, GiB, 64 << 20, 100'000'000);
  TierConfig tiers = smallTiers(5 * GiB);
  auto runs = runPolicies(w, allPolicies(), tiers);
  ASSERT_TRUE(runs.ok()) << runs.error();
  std::map<Policy, SimResult> by;
  for (PolicyRun& run : *runs) {
    expectSound(w, run.result, tiers);
    by[run.result.policy] = run.result;
  }
  EXPECT_EQ(by[Policy::Ideal].summary.iteration, w.idealTime());
  EXPECT_TRUE(by[Policy::Ideal].migrations.empty());
  for (Policy p : {Policy::G10, Policy::Lru, Policy::DeepUm, Policy::G10Gds, Policy::G10Host}) {
    EXPECT_FALSE(by[p].migrations.empty()) << toString(p);
  }
  // Plain UVM writes back what it evicts and faults everything in on use; G10 plans ahead.
  EXPECT_LT(by[Policy::G10].summary.iteration, by[Policy::Lru].summary.iteration);
  EXPECT_GT(by[Policy::Lru].summary.faults, 0);
  EXPECT_EQ(by[Policy::G10Gds].summary.linkBytes[static_cast<size_t>(Link::GpuToHost)],
            0);  // no host memory
  for (const Migration& m : by[Policy::FlashNeuron].migrations) EXPECT_NE(m.to, Tier::Host);
  // G10's plan moves each activation out once and back once per iteration: balanced traffic.
  const auto& g = by[Policy::G10].summary.linkBytes;
  EXPECT_EQ(g[static_cast<size_t>(Link::GpuToHost)] + g[static_cast<size_t>(Link::GpuToSsd)],
            g[static_cast<size_t>(Link::HostToGpu)] + g[static_cast<size_t>(Link::SsdToGpu)]);
}

TEST(MemsimSim, LruFaultTimesAreExact) {
  // Three 1 GiB tensors used round-robin by three 1 ms kernels on a GPU that holds two: every
  // kernel of the steady state faults its tensor in from host memory while the least recently
  // used one is written out, both at the PCIe rate, then pays the fault batch's system latency.
  SimWorkload w;
  w.name = "round robin";
  for (int i = 0; i < 3; ++i) w.tensors.push_back({"t" + std::to_string(i), GiB, true});
  for (int i = 0; i < 3; ++i)
    w.kernels.push_back({"k" + std::to_string(i), 1'000'000, {i}, {}, 0, {}});
  TierConfig tiers = smallTiers(2 * GiB);
  auto runs = runPolicies(w, {Policy::Lru}, tiers);
  ASSERT_TRUE(runs.ok());
  const SimResult& r = (*runs)[0].result;
  expectSound(w, r, tiers);
  const auto transfer =
      static_cast<TimeNs>(std::llround(static_cast<double>(GiB) * 1e9 / tiers.gpuHostBandwidth));
  for (const SimKernelTime& k : r.kernels) EXPECT_EQ(k.stall, transfer + tiers.systemLatencyNs);
  EXPECT_EQ(r.summary.faults, 3);
  EXPECT_EQ(r.summary.linkBytes[static_cast<size_t>(Link::HostToGpu)], 3 * GiB);
  EXPECT_EQ(r.summary.linkBytes[static_cast<size_t>(Link::GpuToHost)], 3 * GiB);
}

TEST(MemsimSim, BadInputIsAnErrorOrInfeasibleNeverACrash) {
  SimWorkload w = chain(4, 3 * GiB, GiB, 1'000'000);
  // The first forward kernel reads an activation and a weight and writes one: 7 GiB at once.
  auto runs = runPolicies(w, allPolicies(), smallTiers(6 * GiB));
  ASSERT_FALSE(runs.ok());
  EXPECT_NE(runs.error().find("kernel 0 (fwd0)"), std::string::npos) << runs.error();
  EXPECT_NE(runs.error().find("7 GiB"), std::string::npos) << runs.error();
  EXPECT_NE(runs.error().find("6 GiB"), std::string::npos) << runs.error();

  // Fits kernel by kernel, but FlashNeuron's reservation (weights + the largest working set)
  // leaves nothing for the activations it keeps: infeasible, reported, the others still run.
  SimWorkload heavy = chain(4, GiB, 2 * GiB, 1'000'000);
  auto mixed = runPolicies(heavy, allPolicies(), smallTiers(12 * GiB));
  ASSERT_TRUE(mixed.ok()) << mixed.error();
  for (const PolicyRun& run : *mixed) {
    if (run.result.policy == Policy::FlashNeuron) {
      EXPECT_FALSE(run.result.feasible);
      EXPECT_NE(run.result.problem.find("no GPU memory for activations"), std::string::npos)
          << run.result.problem;
    } else {
      EXPECT_TRUE(run.result.feasible) << toString(run.result.policy);
    }
  }
  std::string json = simulationJson(heavy, *mixed);
  EXPECT_NE(json.find("\"feasible\": false"), std::string::npos);

  SimWorkload noLoss = chain(3, GiB, GiB, 1'000'000);
  noLoss.lossKernel = -1;
  auto unknown = runPolicies(noLoss, {Policy::FlashNeuron}, smallTiers(40 * GiB));
  ASSERT_TRUE(unknown.ok());
  EXPECT_FALSE((*unknown)[0].result.feasible);

  TierConfig broken = smallTiers(GiB);
  broken.gpuHostBandwidth = 0;
  auto invalid = runPolicies(w, {Policy::G10}, broken);
  ASSERT_FALSE(invalid.ok());
  EXPECT_NE(invalid.error().find("bandwidth"), std::string::npos);
  EXPECT_FALSE(runPolicies(SimWorkload{}, {Policy::G10}, smallTiers(GiB)).ok());
}

TEST(MemsimSim, PublishedTableParsesAndBadFilesAreNamed) {
  auto rows = loadG10Published(g10("published.txt"));
  ASSERT_TRUE(rows.ok()) << rows.error();
  ASSERT_EQ(rows->size(), 2u);
  const PublishedRow* bert = findPublished(*rows, "BERT-256");
  ASSERT_TRUE(bert);
  EXPECT_EQ(bert->cycles.at(Policy::G10), 8773229325);
  EXPECT_EQ(bert->cycles.at(Policy::Ideal), 8742558777);
  EXPECT_EQ(bert->cycles.at(Policy::G10Gds), 10851936000);
  EXPECT_TRUE(findPublished(*rows, "ResNet152-1280"));
  EXPECT_FALSE(findPublished(*rows, "VIT-1280"));

  std::string bad = (std::filesystem::temp_directory_path() /
                     ("tscope-published-" + std::to_string(::getpid()) + ".txt"))
                        .string();
  std::ofstream(bad) << "## Figure 11: x\nlru | warp\n";
  auto error = loadG10Published(bad);
  ASSERT_FALSE(error.ok());
  EXPECT_NE(error.error().find(bad + ":2"), std::string::npos) << error.error();
  std::ofstream(bad) << "## Figure 11: x\nlru | ideal\n\nBERT|B = 256|M = 1%\n12 nope\n";
  error = loadG10Published(bad);
  ASSERT_FALSE(error.ok());
  EXPECT_NE(error.error().find(bad + ":5"), std::string::npos) << error.error();
  std::filesystem::remove(bad);
}

// The comparison the issue asks for: G10's defaults, two published configurations.
TEST(MemsimSim, MatchesG10sPublishedResults) {
  auto rows = loadG10Published(g10("published.txt"));
  ASSERT_TRUE(rows.ok()) << rows.error();
  const TierConfig tiers = *tierPreset("g10-default");
  for (const char* dir : {"BERT-256", "ResNet152-1280"}) {
    SCOPED_TRACE(dir);
    auto g = loadG10Workload(g10(dir));
    ASSERT_TRUE(g.ok()) << g.error();
    const PublishedRow* published = findPublished(*rows, g->workload.name);
    ASSERT_TRUE(published);
    auto runs = runPolicies(g->workload, allPolicies(), tiers);
    ASSERT_TRUE(runs.ok()) << runs.error();
    std::map<Policy, double> ours, theirs;
    for (const PolicyRun& run : *runs) {
      const Policy p = run.result.policy;
      ASSERT_TRUE(run.result.feasible) << toString(p);
      expectSound(g->workload, run.result, tiers);
      ours[p] = static_cast<double>(run.result.summary.iteration);
      theirs[p] = static_cast<double>(published->cycles.at(p)) / 1.2;  // cycles at 1.2 GHz → ns
      const double tolerance = p == Policy::G10 || p == Policy::Ideal ? 0.05 : 0.15;
      EXPECT_NEAR(ours[p] / theirs[p], 1.0, tolerance)
          << toString(p) << ": ours " << ours[p] * 1e-9 << " s, G10 " << theirs[p] * 1e-9 << " s";
    }
    // Same ranking: whenever G10 puts one policy ahead of another, so do we (a tie is not an
    // inversion), also where G10's two are close (ResNet152-1280: its g10 1.1 % ahead of its
    // g10-host).
    for (const auto& [a, ta] : theirs) {
      for (const auto& [b, tb] : theirs) {
        if (ta < tb) {
          EXPECT_LE(ours[a], ours[b] * 1.0001)
              << toString(a) << " should not be slower than " << toString(b);
        }
      }
    }
    StatsTable table = simulationTable(*runs, published, tiers.gpuClockHz);
    EXPECT_EQ(table.rows.size(), allPolicies().size());
    EXPECT_EQ(table.columns.back().key, "vs_published_pct");
  }
}

TEST(MemsimSim, TheOtherG10WorkloadsRunSensibly) {
  const TierConfig tiers = *tierPreset("g10-default");
  for (const char* dir : {"VIT-1280", "Inceptionv3-1536", "SENet154-1024"}) {
    SCOPED_TRACE(dir);
    auto g = loadG10Workload(g10(dir));
    ASSERT_TRUE(g.ok()) << g.error();
    auto runs = runPolicies(g->workload, allPolicies(), tiers);
    ASSERT_TRUE(runs.ok()) << runs.error();
    std::map<Policy, TimeNs> t;
    for (const PolicyRun& run : *runs) {
      if (!run.result.feasible) {
        EXPECT_EQ(run.result.policy, Policy::FlashNeuron);  // the only policy allowed to give up
        continue;
      }
      expectSound(g->workload, run.result, tiers);
      t[run.result.policy] = run.result.summary.iteration;
    }
    EXPECT_EQ(t[Policy::Ideal], g->workload.idealTime());
    // (g10 runs G10's own plan, g10-host our planner on our explicit copies: no order between
    // them is assumed; published results decide, see MatchesG10sPublishedResults.)
    EXPECT_LT(t[Policy::G10], t[Policy::Lru]);
    EXPECT_LE(t[Policy::G10Host], t[Policy::G10Gds]);  // host memory can only help
    EXPECT_LT(t[Policy::Lru], 20 * t[Policy::Ideal]);
  }
}

TEST(MemsimSim, SimulatedTimelineIsASession) {
  SimWorkload w = chain(10, GiB, 64 << 20, 50'000'000);
  TierConfig tiers = smallTiers(5 * GiB);
  auto runs = runPolicies(w, {Policy::G10, Policy::Lru}, tiers);
  ASSERT_TRUE(runs.ok());
  auto built = simulationSession(w, *runs, tiers);
  ASSERT_TRUE(built.ok()) << built.error();
  SessionPtr s = *built;
  std::string path = (std::filesystem::temp_directory_path() /
                      ("tscope-sim-" + std::to_string(::getpid()) + ".tscope"))
                         .string();
  ASSERT_TRUE(saveSession(*s, path).ok());
  auto loaded = loadSession(path);
  std::filesystem::remove(path);
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  SessionSummary summary = summarize(**loaded);
  EXPECT_EQ((*loaded)->ranks.size(), 2u);  // one per policy
  EXPECT_EQ(summary.kernels, 2 * w.kernels.size());
  size_t migrations = (*runs)[0].result.migrations.size() + (*runs)[1].result.migrations.size();
  EXPECT_EQ(summary.memcpys(), migrations);
  // Host and SSD at every kernel and the end; the GPU's allocated bytes at each change (and its
  // resident pages beside them where a policy keeps more).
  size_t samples = 0;
  for (const PolicyRun& run : *runs) {
    samples += 2 * (w.kernels.size() + 1) + allocatedOnGpu(w, run.result).size();
    if (keepsFreedPages(w, run.result)) samples += w.kernels.size() + 1;
  }
  EXPECT_EQ(summary.counterSamples, samples);
  EXPECT_GT(summary.otherRanges, 0u);  // stalls and tensor locations
  // The explicit provenance mark survives the file, and is what readers go by: a renamed rank
  // still reads as its policy; a measured session is not simulated.
  const Session& back = **loaded;
  ASSERT_TRUE(back.provenance.simulation.has_value());
  EXPECT_EQ(back.provenance.simulation->workload, w.name);
  EXPECT_EQ(back.provenance.simulation->policies, (std::vector<std::string>{"g10", "lru"}));
  EXPECT_EQ(simulatedPolicy(back, 1), "lru");
  // Each transfer says whether the plan moved it or a kernel's need did (as the run has it); each
  // stall names its kernel and, where a copy ended inside it, the last tensor to arrive.
  size_t planned = 0, onDemand = 0, stalls = 0, namedTensor = 0;
  std::map<std::string, int> expected;  // "planned"/"demand" counts from the runs
  for (const PolicyRun& run : *runs)
    for (const Migration& m : run.result.migrations) ++expected[m.demand ? "demand" : "planned"];
  for (const Track& t : back.tracks) {
    for (uint32_t e = 0; e < t.size(); ++e) {
      if (auto p = simulatedTransferPlanned(back, t, e)) ++(*p ? planned : onDemand);
      if (t.kind == EventKind::Range && back.str(t.hot.name[e]) == "stall (waiting for data)") {
        ++stalls;
        std::string args(back.str(t.ranges.args[e]));
        EXPECT_TRUE(args.rfind("before fwd", 0) == 0 || args.rfind("before bwd", 0) == 0 ||
                    args.rfind("before loss", 0) == 0)
            << args;
        if (args.find(" · last in: act") != std::string::npos ||
            args.find(" · last in: w") != std::string::npos)
          ++namedTensor;
      }
    }
  }
  EXPECT_EQ(planned, static_cast<size_t>(expected["planned"]));
  EXPECT_EQ(onDemand, static_cast<size_t>(expected["demand"]));
  EXPECT_GT(planned, 0u);
  EXPECT_GT(onDemand, 0u);
  EXPECT_GT(stalls, 0u);
  EXPECT_GT(namedTensor, 0u);
  // A measured session's copies are neither: their async flag is the program's.
  SessionPtr measuredRun = testing::makeFixtureSession();
  size_t measuredCopies = 0;
  for (const Track& t : measuredRun->tracks) {
    if (t.kind != EventKind::Memcpy) continue;
    for (uint32_t e = 0; e < t.size(); ++e) {
      ++measuredCopies;
      EXPECT_FALSE(simulatedTransferPlanned(*measuredRun, t, e));
    }
  }
  EXPECT_GT(measuredCopies, 0u);
  // The tensor a stall names is one of its kernel's, and its copy to the GPU ended inside the
  // stall (each policy's kernels and stalls, in time order).
  size_t checked = 0;
  for (uint32_t rank = 0; rank < runs->size(); ++rank) {
    std::vector<std::pair<TimeNs, std::string>> stallArgs;  // by start
    for (const Track& t : back.tracks) {
      if (t.kind != EventKind::Range || t.device == kNone || back.devices[t.device].rank != rank)
        continue;
      for (uint32_t e = 0; e < t.size(); ++e)
        if (back.str(t.hot.name[e]) == "stall (waiting for data)")
          stallArgs.emplace_back(t.hot.start[e], std::string(back.str(t.ranges.args[e])));
    }
    std::sort(stallArgs.begin(), stallArgs.end());
    const SimResult& run = (*runs)[rank].result;
    size_t stalled = 0;
    for (size_t k = 0; k < run.kernels.size(); ++k) {
      const SimKernelTime& kt = run.kernels[k];
      if (kt.stall <= 0) continue;
      ASSERT_LT(stalled, stallArgs.size());
      const std::string& args = stallArgs[stalled++].second;
      EXPECT_EQ(args.rfind("before " + w.kernels[k].name, 0), 0u) << args;
      const size_t at = args.find(" · last in: ");
      if (at == std::string::npos) continue;
      const size_t from = at + std::string(" · last in: ").size();
      const std::string name = args.substr(from, args.find(" (", from) - from);
      bool arrived = false;
      for (const auto* list : {&w.kernels[k].inputs, &w.kernels[k].outputs}) {
        for (int t : *list) {
          if (w.tensors[static_cast<size_t>(t)].name != name) continue;
          for (const Migration& m : run.migrations)
            arrived |= m.tensor == t && m.to == Tier::Gpu && m.end > kt.start - kt.stall &&
                       m.end <= kt.start;
        }
      }
      EXPECT_TRUE(arrived) << args;
      ++checked;
    }
    EXPECT_EQ(stalled, stallArgs.size());
  }
  EXPECT_GT(checked, 0u);
  SessionBuilder b;
  b.rankInfo(b.rank(0)).label = "my own label";
  b.provenance().simulation = Provenance::Simulation{"toy", {"ideal"}};
  auto relabelled = b.build();
  ASSERT_TRUE(relabelled.ok());
  EXPECT_TRUE(isSimulated(**relabelled));
  EXPECT_EQ(simulatedPolicy(**relabelled, 0), "ideal");
  auto read = readSimulatedSession(**relabelled);
  ASSERT_TRUE(read.ok()) << read.error();
  EXPECT_EQ(read->front().policy, "ideal");
  EXPECT_EQ(read->front().workload, "toy");
  EXPECT_FALSE(isSimulated(*testing::makeFixtureSession()));
  EXPECT_FALSE(simulatedPolicy(*testing::makeFixtureSession(), 0).has_value());
}

// A measured run annotated per layer (NVTX forward/conv1, backward/conv1 around the launches)
// feeds the simulation of its model; with infinite memory the simulated layer takes exactly
// the measured time, and the layer comparison says so.
TEST(MemsimSim, LayersCompareMeasuredWithSimulated) {
  SessionPtr measured =
      testing::makeLayerRun({{"forward/conv1", 0, 2'000'000, 1'000'000},
                             {"backward/conv1", 3'000'000, 6'000'000, 2'000'000}});
  ASSERT_TRUE(measured);

  auto bytes = model::zooModelBytes("resnet50", 8);
  ASSERT_TRUE(bytes.ok());
  auto graph = model::loadOnnxBytes(*bytes, "resnet50.onnx");
  ASSERT_TRUE(graph.ok()) << graph.error();
  model::TrainingStep step = model::expandTrainingStep(*graph);
  ASSERT_EQ(model::applyMeasuredTimes(*graph, model::measureLayerTimes(*measured), step).method,
            model::MappingMethod::Nvtx);
  SimWorkload w = workloadFromModel(*graph, step);
  EXPECT_EQ(w.kernels.front().name, "conv1");
  EXPECT_EQ(w.kernels.front().group, "forward/conv1");
  EXPECT_GE(w.lossKernel, 1);
  auto runs = runPolicies(w, {Policy::Ideal, Policy::G10}, smallTiers(40 * GiB));
  ASSERT_TRUE(runs.ok()) << runs.error();
  auto built = simulationSession(w, *runs, smallTiers(40 * GiB));
  ASSERT_TRUE(built.ok()) << built.error();
  SessionPtr sim = *built;
  auto table = compareLayers(*measured, *sim, "ideal");
  ASSERT_TRUE(table.ok()) << table.error();
  ASSERT_FALSE(table->rows.empty());
  std::map<std::string, size_t> row;
  for (size_t i = 0; i < table->rows.size(); ++i) row[table->text(i, 0)] = i;
  ASSERT_TRUE(row.count("conv1 (forward)") && row.count("conv1 (backward)"));
  EXPECT_EQ(table->number(row["conv1 (forward)"], 1), 1'000'000);
  EXPECT_EQ(table->number(row["conv1 (forward)"], 2), 1'000'000);  // ideal, measured times: equal
  EXPECT_EQ(table->number(row["conv1 (backward)"], 1), 2'000'000);
  EXPECT_EQ(table->number(row["conv1 (backward)"], 2), 2'000'000);
  EXPECT_EQ(table->number(row["conv1 (backward)"], 3), 0);
  EXPECT_GT(table->rows.size(), 100u);  // every ResNet-50 layer both ways, measured or not
  EXPECT_FALSE(compareLayers(*measured, *sim, "lru").ok());    // not simulated
  EXPECT_FALSE(compareLayers(*sim, *sim, "ideal").ok());       // no measured layers
  EXPECT_FALSE(compareLayers(*measured, *measured, "").ok());  // not a simulation
}

TEST(MemsimSim, SweepTableReadsBackWhatItWrites) {
  SweepTable sweep;
  sweep.key = "gpu-mem";
  sweep.points.push_back({4e9, "g10", true, 2'000'000, 1'000'000, 2.0, 300'000});
  sweep.points.push_back({4e9, "odd, \"quoted\" name", false, 0, 1'000'000, 0, 0});
  sweep.notes.push_back("gpu-mem = 4000000000: too small");
  const std::string csv = statsToCsv(toStatsTable(sweep));
  const std::string file = ::testing::TempDir() + "/sweep-roundtrip.csv";
  std::ofstream(file) << csv;
  auto back = loadSweepCsv(file);
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back->key, "gpu-mem");
  ASSERT_EQ(back->points.size(), 2u);
  EXPECT_EQ(back->points[0].iteration, 2'000'000);
  EXPECT_EQ(back->points[0].stall, 300'000);
  EXPECT_DOUBLE_EQ(back->points[0].slowdown, 2.0);
  EXPECT_EQ(back->points[1].policy, "odd, \"quoted\" name");  // a comma inside quotes
  EXPECT_FALSE(back->points[1].feasible);
  EXPECT_EQ(back->points[1].ideal, 1'000'000);

  // Columns are found by name, not by position; a missing one or an open quote is named.
  std::ofstream(file) << "batch,ideal_ns,policy,feasible,iteration_ns,slowdown,stall_ns\n"
                         "32,100,ideal,yes,100,1,0\n";
  back = loadSweepCsv(file);
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back->points[0].value, 32);
  EXPECT_EQ(back->points[0].iteration, 100);
  std::ofstream(file) << "batch,policy,feasible,iteration_ns,slowdown,stall_ns\n";
  back = loadSweepCsv(file);
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.error().find("no 'ideal_ns' column"), std::string::npos) << back.error();
  std::ofstream(file) << "batch,ideal_ns,policy,feasible,iteration_ns,slowdown,stall_ns\n"
                         "32,100,\"ideal,yes,100,1,0\n";
  back = loadSweepCsv(file);
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.error().find(file + ":2: a quoted field is not closed"), std::string::npos)
      << back.error();
}

}  // namespace ts::memsim
