// The simulation overlay on a measured timeline, built from a hand-written SimResult: where its
// rows go, what each tensor lane says at chosen times, tier counters, and the ties between
// transfers, simulated kernels and measured kernels.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "io/atomic_file.h"
#include "io/open_session.h"
#include "memsim/engine/tier_config.h"
#include "memsim/reports/mapping_report.h"
#include "memsim/reports/measured_rows.h"
#include "memsim/reports/memory_comparison.h"
#include "memsim/reports/overlay.h"
#include "memsim/reports/overlay_run.h"
#include "memsim/reports/what_if.h"
#include "model/model_zoo.h"
#include "session/session_builder.h"
#include "session_fixture.h"

namespace ts::memsim {
namespace {

constexpr int64_t GiB = int64_t{1} << 30;

struct Fixture {
  SessionPtr measured;
  model::KernelMapping mapping;
  SimWorkload w;
  SimResult r;
  TierConfig tiers;
  uint32_t kernelTrack = kNone;  // the measured kernels' track
};

Fixture fixture() {
  Fixture f;
  f.measured = testing::makeLayerRun({{"forward/L1", 0, 1000, 100},
                                      {"forward/L2", 1000, 2000, 200},
                                      {"backward/L1", 2000, 3000, 100}});
  for (uint32_t i = 0; i < f.measured->tracks.size(); ++i) {
    if (f.measured->tracks[i].kind == EventKind::Kernel) f.kernelTrack = i;
  }
  f.mapping.method = model::MappingMethod::Nvtx;
  f.mapping.device = 0;
  f.mapping.iterations = {{20, 2120}};
  f.mapping.kernels = {
      {f.kernelTrack, 0, "forward/L1", model::MappingMethod::Nvtx, model::Certainty::Stated, 100},
      {f.kernelTrack, 1, "forward/L2", model::MappingMethod::Nvtx, model::Certainty::Stated, 200},
      {f.kernelTrack, 2, "backward/L1", model::MappingMethod::Nvtx, model::Certainty::Stated, 100}};
  f.mapping.totalNs = f.mapping.mappedNs = 400;

  f.w.name = "toy";
  f.w.tensors = {{"w", GiB, true, TensorClass::Weight, "[16, 16]"},
                 {"a", 2 * GiB, false, TensorClass::Activation}};
  f.w.kernels = {{"fwd", 100, {0}, {1}, 0, "forward/L1"},
                 {"mid", 200, {}, {}, 0, "forward/L2"},
                 {"bwd", 100, {0, 1}, {}, 0, "backward/L1"}};

  f.r.policy = Policy::G10;
  f.r.summary.iteration = 450;
  f.r.summary.stall = 50;
  f.r.summary.linkBytes[static_cast<size_t>(Link::HostToGpu)] = 2 * GiB;
  f.r.kernels = {{0, 100, 0}, {100, 300, 0}, {350, 450, 50}};
  f.r.migrations = {{1, Tier::Gpu, Tier::Host, Link::GpuToHost, 100, 150, 2 * GiB, false},
                    {1, Tier::Host, Tier::Gpu, Link::HostToGpu, 250, 350, 2 * GiB, true}};
  // As the simulator records them: a tensor takes its new tier when the move is decided (80, 250),
  // the copy itself may start later on a busy link (100).
  f.r.residency = {{0, Tier::Gpu, 0, 450},
                   {1, Tier::Gpu, 0, 80},
                   {1, Tier::Host, 80, 250},
                   {1, Tier::Gpu, 250, 450}};
  f.r.usage = {
      {0, 3 * GiB, 0, 0}, {100, GiB, 2 * GiB, 0}, {350, 3 * GiB, 0, 0}, {450, 3 * GiB, 0, 0}};
  f.tiers = *tierPreset("g10-default");
  f.tiers.gpuBytes = 4 * GiB;
  return f;
}

using State = std::pair<std::string, std::string>;  // name, category

size_t rowNamed(const TimelineRows& rows, const std::string& label) {
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].label == label) return i;
  }
  return kNone;
}

size_t rowStarting(const TimelineRows& rows, const std::string& prefix) {
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].label.rfind(prefix, 0) == 0) return i;
  }
  return kNone;
}

// The event of a one-track row covering t, with its category.
std::pair<std::string, std::string> stateAt(const Session& s, const TimelineRow& row, TimeNs t) {
  for (const auto& lane : row.lanes) {
    for (const LaneView& v : lane) {
      uint32_t e = v.track->eventAt(v.lane, t);
      if (e != kNone)
        return {std::string(s.str(v.track->hot.name[e])),
                std::string(s.str(v.track->ranges.category[e]))};
    }
  }
  return {};
}

TEST(Overlay, RowsSitUnderTheMeasuredComputeRow) {
  Fixture f = fixture();
  auto o = buildOverlay(f.measured, f.mapping, f.w, f.r, f.tiers);
  ASSERT_TRUE(o.ok()) << o.error();
  EXPECT_EQ(o->origin, 20);
  const TimelineRows& rows = *o->rows;
  TimelineRows plain(f.measured);
  // The measured rows come first and unchanged: GPU, Compute, its kernel-name row.
  ASSERT_GE(rows.size(), 3u);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(rows[i].label, plain[i].label);
  EXPECT_EQ(rows[1].kind, TimelineRow::Kind::Compute);
  EXPECT_EQ(rows[3].label, "Simulation: g10 · toy");
  EXPECT_EQ(rows[3].depth, rows[1].depth);
  EXPECT_EQ(rows[4].kind, TimelineRow::Kind::Extension);
  EXPECT_EQ(rows[4].extension, kSimKernelsRow);
  EXPECT_EQ(rows[4].depth, rows[1].depth + 1);
  // GPU memory shows beside the kernels; host memory, SSD and the links start folded in a group,
  // so the simulation takes a few rows, not the screen.
  const size_t gpuRow = rowNamed(rows, "GPU memory (simulated)"),
               folded = rowNamed(rows, "Host, SSD and links");
  ASSERT_NE(folded, size_t{kNone});
  EXPECT_EQ(rows[gpuRow].depth, rows[4].depth);
  EXPECT_EQ(rows[folded].kind, TimelineRow::Kind::Group);
  EXPECT_TRUE(rows[folded].startsCollapsed);
  for (const char* inside :
       {"Host memory (simulated)", "SSD (simulated)", "host → GPU (simulated)"}) {
    const size_t at = rowNamed(rows, inside);
    ASSERT_NE(at, size_t{kNone}) << inside;
    EXPECT_GT(at, folded) << inside;
    EXPECT_EQ(rows[at].depth, rows[folded].depth + 1) << inside;
  }
  // Every measured row is still there, once.
  for (size_t i = 0; i < plain.size(); ++i)
    EXPECT_NE(rowNamed(rows, plain[i].label), size_t{kNone}) << plain[i].label;
  ASSERT_EQ(o->layout->gpus.size(), 1u);
  EXPECT_EQ(o->layout->gpus[0].device, 0u);
  EXPECT_EQ(rows.size(), plain.size() + o->layout->gpus[0].rows.size());
  // The overlay's tracks are drawn by its rows only, not as a process of their own.
  EXPECT_EQ(rowStarting(rows, "Tensorscope simulation"), size_t{kNone});

  // Simulated kernels aligned at the measured iteration's start, stalls marked before them.
  const Session& s = *o->session;
  EXPECT_EQ(stateAt(s, rows[4], 20 + 50), State("fwd", kSimKernel));
  EXPECT_EQ(stateAt(s, rows[4], 20 + 320), State("stall", kSimStall));
  EXPECT_EQ(stateAt(s, rows[4], 20 + 400), State("bwd", kSimKernel));
  // Every category the overlay draws has a style the views colour by (typed: no names are
  // matched there); simulated kernels keep their names' colours.
  for (uint32_t ti = 0; ti < s.tracks.size(); ++ti) {
    const Track& t = s.tracks[ti];
    if (t.kind != EventKind::Range || !o->layout->ownsTrack[ti]) continue;
    for (uint32_t e = 0; e < t.size(); ++e) {
      const std::string_view category = s.str(t.ranges.category[e]);
      EXPECT_EQ(o->layout->styleOf(t.ranges.category[e]) == EventStyle::Default,
                category == kSimKernel)
          << category;
    }
  }
  EXPECT_EQ(stateAt(s, rows[4], 20 + 500).first, "");  // after the iteration

  // Tier usage with capacity, values held between samples.
  size_t gpu = rowNamed(rows, "GPU memory (simulated)");
  ASSERT_NE(gpu, size_t{kNone});
  EXPECT_EQ(rows[gpu].kind, TimelineRow::Kind::Counter);
  EXPECT_DOUBLE_EQ(rows[gpu].capacity, 4.0 * GiB);
  const CounterTrack& c = *rows[gpu].counter;
  // Bytes allocated on the GPU: both tensors, then only the weight while the activation is in
  // host memory (from when its copy out ends, as the simulator frees the bytes), both again, and
  // the weight held on at the end.
  ASSERT_EQ(c.size(), 4u);
  EXPECT_EQ(c.samples.time[1], 20 + 150);
  EXPECT_DOUBLE_EQ(c.samples.value[0], 3.0 * GiB);
  EXPECT_DOUBLE_EQ(c.samples.value[1], 1.0 * GiB);
  EXPECT_EQ(c.samples.time[3], 20 + 450);
  EXPECT_DOUBLE_EQ(c.samples.value[3], 1.0 * GiB);
  EXPECT_DOUBLE_EQ(rows[gpu].counterSummary->max, 3.0 * GiB);
  size_t host = rowNamed(rows, "Host memory (simulated)");
  ASSERT_NE(host, size_t{kNone});
  EXPECT_DOUBLE_EQ(rows[host].counter->samples.value[1], 2.0 * GiB);
  EXPECT_NE(rowNamed(rows, "SSD (simulated)"), size_t{kNone});

  // A row per link, the four main ones even when idle.
  for (const char* link : {"host → GPU (simulated)", "GPU → host (simulated)",
                           "SSD → GPU (simulated)", "GPU → SSD (simulated)"}) {
    EXPECT_NE(rowNamed(rows, link), size_t{kNone}) << link;
  }
  EXPECT_EQ(rowNamed(rows, "SSD → host (simulated)"), size_t{kNone});
  size_t in = rowNamed(rows, "host → GPU (simulated)");
  EXPECT_EQ(rows[in].extension, kTransferRow);
  EXPECT_EQ(rows[in].events, 1u);
  EXPECT_EQ(stateAt(s, rows[in], 20 + 300),
            State("a", std::string(kMigrationPrefix) + "host-to-gpu"));
  EXPECT_EQ(rows[rowNamed(rows, "SSD → GPU (simulated)")].events, 0u);

  // Tensor lanes, grouped by layer, coloured by state.
  size_t tensors = rowNamed(rows, "Tensors (2 of 2)");
  ASSERT_NE(tensors, size_t{kNone});
  EXPECT_TRUE(rows[tensors].startsCollapsed);
  size_t layer = rowNamed(rows, "L1");
  ASSERT_NE(layer, size_t{kNone});
  EXPECT_EQ(rows[layer].kind, TimelineRow::Kind::Group);
  size_t a = rowNamed(rows, "a");
  ASSERT_NE(a, size_t{kNone});
  EXPECT_EQ(rows[a].extension, kTensorRow);
  EXPECT_EQ(rows[a].depth, rows[layer].depth + 1);
  EXPECT_EQ(rows[a].lanes.size(), 1u);  // transfers cut the residency spans: one lane
  EXPECT_EQ(stateAt(s, rows[a], 20 + 50).second, kTensorOnGpu);
  EXPECT_EQ(stateAt(s, rows[a], 20 + 90),
            State("on GPU, queued for host", kTensorOnGpu));  // waiting for the link
  EXPECT_EQ(stateAt(s, rows[a], 20 + 120), State("GPU → host", kTensorMoving));
  EXPECT_EQ(stateAt(s, rows[a], 20 + 200).second, kTensorInHost);
  EXPECT_EQ(stateAt(s, rows[a], 20 + 300).second, kTensorMoving);
  EXPECT_EQ(stateAt(s, rows[a], 20 + 400).second, kTensorOnGpu);
  EXPECT_EQ(stateAt(s, rows[a], 20 + 500).first, "");  // not allocated
  EXPECT_NE(rows[a].info.find("activation · 2 GiB"), std::string::npos) << rows[a].info;
  EXPECT_NE(rows[a].info.find("allocated from kernel #0 fwd to the end of #2 bwd"),
            std::string::npos)
      << rows[a].info;
  EXPECT_NE(rows[a].info.find("inactive: #1–#2"), std::string::npos) << rows[a].info;
  size_t wRow = rowNamed(rows, "w");
  EXPECT_NE(rows[wRow].info.find("weight · [16, 16] · 1 GiB"), std::string::npos)
      << rows[wRow].info;
  EXPECT_NE(rows[wRow].info.find("lives across iterations"), std::string::npos);
  EXPECT_LT(wRow, a);  // by birth, then as given

  // Ties: a tensor to its kernels (simulated and measured), a transfer to the kernel that needed
  // it, a simulated kernel to the measured kernels of its layer and back.
  const uint32_t simTrack = rows[4].lanes[0][0].track - s.tracks.data();
  auto simEvent = [&](TimeNs t) { return s.tracks[simTrack].eventAt(0, t); };
  ASSERT_NE(rows[a].uses, nullptr);
  std::vector<std::pair<uint32_t, uint32_t>> expected = {{simTrack, simEvent(20 + 50)},
                                                         {simTrack, simEvent(20 + 400)},
                                                         {f.kernelTrack, 2},
                                                         {f.kernelTrack, 0}};
  EXPECT_EQ(*rows[a].uses, expected);
  const uint32_t inTrack = rows[in].lanes[0][0].track - s.tracks.data();
  const auto* needed = o->layout->linksOf(inTrack, 0);
  ASSERT_NE(needed, nullptr);
  EXPECT_EQ(*needed, (std::vector<std::pair<uint32_t, uint32_t>>{{simTrack, simEvent(20 + 400)},
                                                                 {f.kernelTrack, 2}}));
  const auto* measuredOfMid = o->layout->linksOf(simTrack, simEvent(20 + 200));
  ASSERT_NE(measuredOfMid, nullptr);
  EXPECT_EQ(*measuredOfMid, (std::vector<std::pair<uint32_t, uint32_t>>{{f.kernelTrack, 1}}));
  const auto* back = o->layout->linksOf(f.kernelTrack, 1);
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(*back, (std::vector<std::pair<uint32_t, uint32_t>>{{simTrack, simEvent(20 + 200)}}));
}

TEST(Overlay, FilterSortAndErrors) {
  Fixture f = fixture();
  OverlayOptions weights;
  weights.classes = {TensorClass::Weight};
  auto o = buildOverlay(f.measured, f.mapping, f.w, f.r, f.tiers, weights);
  ASSERT_TRUE(o.ok()) << o.error();
  EXPECT_NE(rowNamed(*o->rows, "Tensors (1 of 2)"), size_t{kNone});
  EXPECT_EQ(rowNamed(*o->rows, "a"), size_t{kNone});
  EXPECT_EQ(o->tensorsShown, 1u);

  OverlayOptions bySize;
  bySize.sort = OverlayOptions::SortBy::Size;
  o = buildOverlay(f.measured, f.mapping, f.w, f.r, f.tiers, bySize);
  ASSERT_TRUE(o.ok());
  EXPECT_LT(rowNamed(*o->rows, "a"), rowNamed(*o->rows, "w"));  // 2 GiB before 1 GiB

  // Without a mapping the first GPU and the session start are used.
  o = buildOverlay(f.measured, model::KernelMapping{}, f.w, f.r, f.tiers);
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->origin, f.measured->startTime());

  SimResult infeasible = f.r;
  infeasible.feasible = false;
  infeasible.problem = "does not fit";
  auto bad = buildOverlay(f.measured, f.mapping, f.w, infeasible, f.tiers);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("does not fit"), std::string::npos);
  SimResult other = f.r;
  other.kernels.pop_back();
  EXPECT_FALSE(buildOverlay(f.measured, f.mapping, f.w, other, f.tiers).ok());
}

// The run's own memory beside the simulation: its allocator's counter right under the simulated
// curve, and its allocations paired into lanes by class and by the op that made them, clipped to
// the mapped iteration; records without addresses give the curve alone, and say so.
TEST(Overlay, TheRunsOwnAllocationsBesideTheSimulated) {
  Fixture f = fixture();
  auto withRecords = [&](bool addresses) {
    std::shared_ptr<Session> run = copySession(*f.measured);
    const uint32_t thread = 0;
    ASSERT_FALSE(run->threads.empty());
    Track ops;
    ops.kind = EventKind::Nvtx;
    ops.thread = thread;
    ops.hot.push({100, 900, run->strings.intern("aten::conv2d"), 0});
    ops.nvtx.push({run->strings.intern("cpu_op"), 0, 0, 0});
    ops.hot.push({2000, 2900, run->strings.intern("ConvolutionBackward0"), 0});
    ops.nvtx.push({run->strings.intern("cpu_op"), 0, 0, 0});
    run->tracks.push_back(std::move(ops));
    CounterTrack memory{"Memory allocated", "bytes", 0, kNone, {}};
    const uint64_t a = addresses ? 0x1000 : 0, b = addresses ? 0x2000 : 0;
    memory.samples.push({0, 0.5 * GiB, 0, 0});
    memory.samples.push({10, 0.25 * GiB, -GiB / 4, addresses ? uint64_t{0x9000} : 0});  // before
    memory.samples.push({150, 1.5 * GiB, GiB, a});       // conv2d's output, kept for backward
    memory.samples.push({200, 1.75 * GiB, GiB / 4, b});  // its scratch
    memory.samples.push({300, 1.5 * GiB, -GiB / 4, b});
    memory.samples.push({2500, 0.5 * GiB, -GiB, a});
    run->counters.push_back(memory);
    ASSERT_TRUE(run->finalize().ok());
    auto o = buildOverlay(run, f.mapping, f.w, f.r, f.tiers);
    ASSERT_TRUE(o.ok()) << o.error();
    const TimelineRows& rows = *o->rows;
    const size_t simulated = rowNamed(rows, "GPU memory (simulated)");
    const size_t measured = rowNamed(rows, "GPU memory (measured)");
    ASSERT_NE(measured, size_t{kNone});
    EXPECT_EQ(measured, simulated + 1);
    EXPECT_EQ(rows[measured].counter->name, "Memory allocated");
    if (!addresses) {
      EXPECT_NE(rowNamed(rows, "No addresses: curve only"), size_t{kNone});
      return;
    }
    EXPECT_NE(rowNamed(rows,
                       "Tensors (measured: 2 allocations; 1 free (256 MiB) of memory "
                       "allocated before the records)"),
              size_t{kNone});
    EXPECT_NE(rowNamed(rows, "activation (measured)"), size_t{kNone});
    EXPECT_NE(rowNamed(rows, "temporary (measured)"), size_t{kNone});
    size_t lanes = 0;
    for (size_t i = 0; i < rows.size(); ++i) {
      if (rows[i].label != "aten::conv2d") continue;
      ++lanes;
      EXPECT_EQ(rows[i].extension, kTensorRow);
      EXPECT_NE(rows[i].info.find("allocations by aten::conv2d"), std::string::npos);
    }
    EXPECT_EQ(lanes, 2u);  // the output and the scratch, each under its class
    const Session& s = *o->session;
    const size_t activation = rowNamed(rows, "activation (measured)") + 1;
    EXPECT_EQ(stateAt(s, rows[activation], 1000), State("aten::conv2d", kTensorOnGpu));
    EXPECT_EQ(stateAt(s, rows[activation], 2600).first, "");  // freed at 2,500
    EXPECT_EQ(stateAt(s, rows[activation], 50).first, "");    // not yet allocated
  };
  withRecords(true);
  withRecords(false);
}

// Every GPU of a run gets its own simulation, from its own measured times, under its own rows.
TEST(Overlay, EachGpuGetsItsOwnSimulation) {
  SessionPtr run = testing::makeLayerRun({{"forward/features.0", 0, 1'000'000, 100'000},
                                          {"forward/features.3", 1'000'000, 2'000'000, 200'000}},
                                         2);
  ASSERT_TRUE(run);
  const std::string model =
      (std::filesystem::temp_directory_path() / "tensorscope-overlay-alexnet.onnx").string();
  auto bytes = model::zooModelBytes("alexnet");
  ASSERT_TRUE(bytes.ok());
  ASSERT_TRUE(writeBytesAtomically(model, *bytes).ok());
  OverlayRequest request;
  request.source.modelPath = model;
  request.source.batch = 8;
  request.source.session = run;
  request.policy = Policy::Ideal;
  request.tiers = *tierPreset("g10-default");
  std::vector<std::string> stages;
  Progress progress;
  progress.stage = [&](std::string_view s) { stages.emplace_back(s); };
  OverlayRun out = runOverlay(request, progress);
  std::filesystem::remove(model);
  ASSERT_TRUE(out.status.ok()) << out.status.error();
  ASSERT_EQ(out.gpus.size(), 2u);
  EXPECT_EQ(run->devices[out.gpus[0].device].ordinal, 1);  // the busier GPU first
  EXPECT_EQ(run->devices[out.gpus[1].device].ordinal, 0);
  EXPECT_EQ(stages.front(), "mapping kernels");
  EXPECT_EQ(stages.back(), "drawing");
  // Each simulation took its GPU's measured times: features.0's forward kernels sum to them.
  for (const GpuRun& g : out.gpus) {
    TimeNs features0 = 0;
    for (const SimKernel& k : g.workload.kernels)
      features0 += k.group == "forward/features.0" ? k.duration : 0;
    EXPECT_EQ(features0, 100'000 * (run->devices[g.device].ordinal + 1));
  }
  ASSERT_EQ(out.overlay.layout->gpus.size(), 2u);
  EXPECT_EQ(out.overlay.origins.size(), 2u);
  // A simulation group under each GPU, after that GPU's Compute rows.
  const TimelineRows& rows = *out.overlay.rows;
  std::vector<size_t> groups;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].label.rfind("Simulation: ideal", 0) == 0) groups.push_back(i);
  }
  ASSERT_EQ(groups.size(), 2u);
  for (size_t i : groups) {
    EXPECT_EQ(rows[i - 1].kind, TimelineRow::Kind::KernelName);  // Compute's last row
    EXPECT_EQ(rows[i + 1].device, rows[i].device);
  }
  EXPECT_NE(rows[groups[0]].device, rows[groups[1]].device);
}

// The comparison tables on the same hand-made numbers.
TEST(Overlay, MeasuredAgainstSimulatedTables) {
  Fixture f = fixture();
  StatsTable k = kernelComparison(f.w, f.r, f.mapping);
  EXPECT_EQ(k.columns[4].title, "Workload (layer share)");  // not "Measured": a share of it
  ASSERT_EQ(k.rows.size(), 3u);
  EXPECT_EQ(k.text(2, 1), "bwd");
  EXPECT_EQ(k.text(2, 2), "L1 (backward)");
  EXPECT_EQ(k.text(2, 3), "measured");
  EXPECT_EQ(k.number(2, 4), 100);  // the workload's time
  EXPECT_EQ(k.number(2, 5), 150);  // its span, the stall included
  EXPECT_EQ(k.number(2, 6), 50);
  EXPECT_DOUBLE_EQ(k.number(2, 7), 50.0);
  EXPECT_EQ(k.number(2, 8), 50);
  EXPECT_EQ(k.number(1, 6), 0);

  StatsTable l = layerComparison(f.w, f.r, f.mapping);
  ASSERT_EQ(l.rows.size(), 3u);
  EXPECT_EQ(l.text(0, 0), "L1 (forward)");
  EXPECT_EQ(l.number(1, 1), 200);
  EXPECT_EQ(l.number(1, 2), 200);
  EXPECT_EQ(l.text(2, 0), "L1 (backward)");
  EXPECT_EQ(l.number(2, 3), 50);

  StatsTable sum = comparisonSummary(*f.measured, f.w, f.r, f.mapping, f.tiers.gpuBytes);
  ASSERT_EQ(sum.rows.size(), 3u);
  EXPECT_EQ(sum.text(0, 0), "Iteration");
  EXPECT_EQ(sum.number(0, 1), 2100);
  EXPECT_EQ(sum.number(0, 2), 450);
  EXPECT_EQ(sum.number(0, 3), 450 - 2100);
  EXPECT_EQ(sum.number(1, 1), 400);
  EXPECT_EQ(sum.number(1, 2), 400);
  EXPECT_EQ(sum.number(2, 2), 50);
  EXPECT_TRUE(std::holds_alternative<std::monostate>(sum.rows[2][1]));  // a run measures no stall
  EXPECT_NE(sum.notes[0].find("2 GiB host → GPU"), std::string::npos) << sum.notes[0];

  StatsTable traffic = trafficComparison(*f.measured, f.w, f.r, f.mapping);
  ASSERT_EQ(traffic.rows.size(), 7u);
  EXPECT_EQ(traffic.text(0, 0), "host → GPU");
  EXPECT_EQ(traffic.number(0, 1), 0);  // the hand-made run copies nothing
  EXPECT_EQ(traffic.number(0, 2), 2.0 * GiB);
  EXPECT_TRUE(
      std::holds_alternative<std::monostate>(traffic.rows[0][4]));  // no percentage of nothing
  EXPECT_TRUE(
      std::holds_alternative<std::monostate>(traffic.rows[2][1]));  // a run shows no SSD traffic
  EXPECT_EQ(traffic.number(2, 2), 0);
  // No memory counter in the hand-made run: the simulated peak alone, and the note says why.
  EXPECT_EQ(traffic.text(6, 0), "GPU memory at peak");
  EXPECT_TRUE(std::holds_alternative<std::monostate>(traffic.rows[6][1]));
  EXPECT_EQ(traffic.number(6, 2), 3.0 * GiB);
  EXPECT_NE(traffic.notes[1].find("records no GPU memory counter"), std::string::npos)
      << traffic.notes[1];
  // With the allocator's counter (PyTorch's [memory] events): its highest value in the iteration
  // [20, 2120] — the one in force at 20 included, the later one at 5000 not.
  std::shared_ptr<Session> counted = copySession(*f.measured);
  CounterTrack memory{"Memory allocated", "bytes", 0, kNone, {}};
  memory.samples.push({0, 2.5 * GiB, 0, 0});
  memory.samples.push({1500, 2.0 * GiB, 0, 0});
  memory.samples.push({5000, 9.0 * GiB, 0, 0});
  counted->counters.push_back(memory);
  ASSERT_TRUE(counted->finalize().ok());
  StatsTable withCounter = trafficComparison(*counted, f.w, f.r, f.mapping);
  EXPECT_EQ(withCounter.number(6, 1), 2.5 * GiB);
  EXPECT_EQ(withCounter.number(6, 3), 0.5 * GiB);
  EXPECT_NE(withCounter.notes[1].find("\"Memory allocated\" at its highest"), std::string::npos)
      << withCounter.notes[1];

  // The verdicts held against each other: the run fit in 2.5 GiB, within a 4 GiB GPU, yet the
  // simulation stalls 50 ns of its 450 — a contradiction, said; with a GPU of 2 GiB the run would
  // not have fit, and the stall is no contradiction.
  MemoryVerdict fit = memoryVerdict(*counted, f.w, f.r, f.mapping, 4 * GiB);
  ASSERT_TRUE(fit.measuredPeak);
  EXPECT_EQ(*fit.measuredPeak, 5 * GiB / 2);
  EXPECT_EQ(fit.simulatedPeak, 3 * GiB);  // the weight and the activation, with unlimited memory
  EXPECT_NE(fit.sentence.find("the run 2.5 GiB; the simulated step 3 GiB with unlimited memory"),
            std::string::npos)
      << fit.sentence;
  EXPECT_NE(fit.sentence.find("+20.0 %"), std::string::npos) << fit.sentence;
  EXPECT_NE(fit.warning.find("The run fit in 2.5 GiB, within the simulated GPU's 4 GiB, yet the "
                             "simulation stalls 50 ns"),
            std::string::npos)
      << fit.warning;
  EXPECT_NE(sum.notes.back().find("GPU memory at its peak"), std::string::npos);
  EXPECT_TRUE(memoryVerdict(*counted, f.w, f.r, f.mapping, 2 * GiB).warning.empty());
  // The reverse: the run needed 2.5 GiB, more than a 2.2 GiB GPU, yet a simulation without a
  // stall whose step holds less fits there.
  SimResult calm = f.r;
  calm.summary.stall = 0;
  SimWorkload small = f.w;
  small.tensors[1].bytes = GiB;  // a step of 2 GiB
  MemoryVerdict reverse = memoryVerdict(*counted, small, calm, f.mapping, 2 * GiB + GiB / 5);
  EXPECT_NE(reverse.warning.find("The run needed 2.5 GiB, more than the simulated GPU's 2.2 GiB, "
                                 "yet the simulated step fits without stalling"),
            std::string::npos)
      << reverse.warning;
  // No counter: only the simulated side, and why.
  EXPECT_NE(memoryVerdict(*f.measured, f.w, f.r, f.mapping, 4 * GiB)
                .sentence.find("records no GPU memory counter"),
            std::string::npos);

  StatsTable m = mappingTable(*f.measured, f.mapping);
  ASSERT_EQ(m.rows.size(), 3u);
  EXPECT_EQ(m.number(1, 1), 1000);  // from the iteration's first kernel
  EXPECT_EQ(m.number(1, 2), 200);
  EXPECT_EQ(m.text(1, 4), "forward/L2");
  EXPECT_NE(m.title.find("100.0 % of its kernel time mapped"), std::string::npos) << m.title;
}

// A training step's input batch is copied just before its first kernel: the iteration's copies
// run from the iteration before's end, or the Summary said "copied 0 B" for a ResNet step.
TEST(Overlay, IterationCopiesIncludeTheInputBatch) {
  SessionBuilder b;
  const uint32_t stream = b.stream(b.device(b.rank(0), 0), 7);
  auto copy = [&](TimeNs start, uint64_t bytes, CopyKind kind) {
    MemcpyDetail d;
    d.bytes = bytes;
    d.copyKind = kind;
    b.addMemcpy(stream, start, start + 100, b.intern("Memcpy"), d);
  };
  copy(100, 1 << 20, CopyKind::HtoD);   // before the first iteration
  copy(2500, 2 << 20, CopyKind::HtoD);  // between the two: the second's input
  copy(3500, 1 << 10, CopyKind::DtoH);  // within the second
  copy(4500, 4 << 20, CopyKind::HtoD);  // after it: the next one's
  for (TimeNs t : {1000, 3000}) b.addKernel(stream, t, t + 1000, b.intern("k"), {});
  auto run = b.build();
  ASSERT_TRUE(run.ok());
  model::KernelMapping m;
  m.device = 0;
  m.iterations = {{1000, 2000}, {3000, 4000}};
  m.iteration = 1;
  SimResult r;
  StatsTable t = trafficComparison(**run, SimWorkload{}, r, m);
  EXPECT_EQ(t.text(0, 0), "host → GPU");
  EXPECT_EQ(t.number(0, 1), 2 << 20);
  EXPECT_EQ(t.number(1, 1), 1 << 10);
  m.iteration = 0;  // the first counts from the run's start
  t = trafficComparison(**run, SimWorkload{}, r, m);
  EXPECT_EQ(t.number(0, 1), 1 << 20);
  EXPECT_EQ(t.number(1, 1), 0);
}

// The what-if's tier rows are drawn against the tiers' sizes: a peak near the GPU's capacity
// showed as a full row with no line and no "of 40 GiB".
TEST(Overlay, WhatIfTierRowsKnowTheirCapacity) {
  Fixture f = fixture();
  WhatIf w = runWhatIf(f.w, Policy::G10, f.tiers);
  ASSERT_TRUE(w.status.ok()) << w.status.error();
  ASSERT_TRUE(w.rows);
  std::map<std::string, double> capacity;
  for (const TimelineRow& row : w.rows->rows())
    if (row.kind == TimelineRow::Kind::Counter) capacity[row.counter->name] = row.capacity;
  EXPECT_EQ(capacity["GPU memory used"], static_cast<double>(f.tiers.gpuBytes));
  EXPECT_EQ(capacity["Host memory used"], static_cast<double>(f.tiers.hostBytes));
  EXPECT_EQ(capacity["SSD used"], static_cast<double>(f.tiers.ssdBytes));
}

}  // namespace
}  // namespace ts::memsim

namespace ts::memsim {

// With no simulation, the run's own tensors under its GPU: TraceLens's ViT trace on an H100
// (profile_memory=True, addresses), and a memory snapshot of a GPU without kernels.
TEST(MeasuredOverlay, TheRunsOwnTensorsWithoutASimulation) {
  auto run =
      openSessionFile(std::string(TSCOPE_SHARED_DATA) +
                      "/kineto/tracelens-h100-Falconsai_nsfw_image_detection__1016002.json.gz");
  ASSERT_TRUE(run.ok()) << run.error();
  auto o = buildMeasuredOverlay(*run);
  ASSERT_TRUE(o.ok()) << o.error();
  const TimelineRows& rows = *o->rows;
  const size_t group = rowNamed(rows, "Tensors (measured: 286 allocations)");
  ASSERT_NE(group, size_t{kNone});
  EXPECT_GT(o->tensorsShown, 280u);
  // The GPU's own rows come first, the lanes after, under the GPU's header.
  EXPECT_NE(rowNamed(rows, "Compute"), size_t{kNone});
  EXPECT_LT(rowNamed(rows, "Compute"), group);
  EXPECT_EQ(rows[group].depth, rows[rowNamed(rows, "Compute")].depth);  // beside it, not inside
  auto snapshot =
      openSessionFile(std::string(TSCOPE_TEST_DATA) + "/memory_snapshot/vit_h100.pickle");
  ASSERT_TRUE(snapshot.ok()) << snapshot.error();
  auto fromSnapshot = buildMeasuredOverlay(*snapshot);
  ASSERT_TRUE(fromSnapshot.ok()) << fromSnapshot.error();
  EXPECT_NE(rowNamed(*fromSnapshot->rows, "Tensors (measured: 286 allocations)"), size_t{kNone});
  EXPECT_NE(rowNamed(*fromSnapshot->rows, "GPU 0"), size_t{kNone});
  // A run whose records carry no addresses has nothing to add.
  auto old = openSessionFile(
      std::string(TSCOPE_SHARED_DATA) +
      "/kineto/kineto-tb_plugin--resnet50_num_workers_0--worker0.1623143089861.pt.trace.json.gz");
  ASSERT_TRUE(old.ok()) << old.error();
  EXPECT_EQ(buildMeasuredOverlay(*old).failure().code, ErrorCode::NotFound);
}

}  // namespace ts::memsim

namespace ts::memsim {

// The model's tensors matched to the run's allocations by the layer that makes them and their
// size: the activation the run allocates before conv L1's launch and frees after backward L1's is
// the model's `a`; a tensor of the model the run never allocates, and an allocation of the run no
// tensor is, are said.
TEST(TensorComparison, MatchedByLayerAndSizeWithBirthAndDeath) {
  Fixture f = fixture();
  f.w.tensors.push_back({"c", 4096, false, TensorClass::Activation, "[1024]"});
  f.w.kernels[1].outputs = {2};
  std::shared_ptr<Session> run = copySession(*f.measured);
  CounterTrack memory{"Memory allocated", "bytes", 0, kNone, {}};
  memory.samples.push({5, 2.0 * GiB, 2 * GiB, 0xa000});         // before L1's launch (10)
  memory.samples.push({1005, 2.0 * GiB + 1000, 1000, 0xb000});  // L2's, no tensor of the model
  memory.samples.push({1500, 2.0 * GiB, -1000, 0xb000});
  memory.samples.push({2500, 0, -2 * GiB, 0xa000});  // after backward L1's launch (2010)
  run->counters.push_back(memory);
  ASSERT_TRUE(run->finalize().ok());
  const StatsTable t = tensorComparison(*run, f.w, f.mapping);
  ASSERT_EQ(t.rows.size(), 2u);  // a and c; the weight lives across steps
  EXPECT_EQ(std::get<std::string>(t.rows[0][0]), "a");
  EXPECT_EQ(std::get<std::string>(t.rows[0][3]), "L1 (forward)");
  EXPECT_EQ(std::get<std::string>(t.rows[0][4]), "L1 (backward)");
  EXPECT_EQ(std::get<std::string>(t.rows[0][6]), "L1 (forward)");
  EXPECT_EQ(std::get<std::string>(t.rows[0][7]), "L1 (backward)");
  EXPECT_EQ(std::get<int64_t>(t.rows[0][8]), 2495);
  EXPECT_EQ(std::get<std::string>(t.rows[1][0]), "c");
  EXPECT_EQ(std::get<std::string>(t.rows[1][5]), "(no match)");
  ASSERT_FALSE(t.notes.empty());
  EXPECT_EQ(t.notes[0].rfind("1 of 2 tensors of the simulated step matched", 0), 0u) << t.notes[0];
  EXPECT_NE(t.notes[0].find("1 of them die in the same layer in both. 1000 B of the run's"),
            std::string::npos)
      << t.notes[0];
  // Records without addresses: nothing to match, said.
  std::shared_ptr<Session> old = copySession(*f.measured);
  CounterTrack changes{"Memory allocated", "bytes", 0, kNone, {}};
  changes.samples.push({5, 2.0 * GiB, 2 * GiB, 0});
  old->counters.push_back(changes);
  ASSERT_TRUE(old->finalize().ok());
  const StatsTable none = tensorComparison(*old, f.w, f.mapping);
  EXPECT_TRUE(none.rows.empty());
  ASSERT_FALSE(none.notes.empty());
  EXPECT_NE(none.notes[0].find("carry no addresses"), std::string::npos);
}

}  // namespace ts::memsim
