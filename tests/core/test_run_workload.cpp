// A run planned without a model: its kernels and its own allocations as the workload, by hand and
// on TraceLens's ViT trace, whose simulated step peak is the allocator's own.
#include <gtest/gtest.h>

#include "analysis/measured_tensors.h"
#include "io/open_session.h"
#include "memsim/engine/step_memory.h"
#include "memsim/formats/run_workload.h"
#include "memsim/reports/memory_comparison.h"
#include "session/session_builder.h"

namespace ts::memsim {

namespace {

// Four kernels (launched when they start: no flows) and the allocator's records around them.
SessionPtr handMadeRun(bool addresses = true) {
  SessionBuilder b;
  const uint32_t rank = b.rank(0);
  const uint32_t device = b.device(rank, 0);
  const uint32_t stream = b.stream(device, 7);
  for (int k = 0; k < 4; ++k)
    b.addKernel(stream, 100 * (k + 1), 100 * (k + 1) + 50, b.intern("k" + std::to_string(k)), {});
  int64_t total = 1000;  // held before the records
  b.addCounterSample("Memory allocated", "bytes", device, kNone, {0, 1000.0, 0, 0});
  auto record = [&](TimeNs t, int64_t bytes, uint64_t address) {
    total += bytes;
    b.addCounterSample("Memory allocated", "bytes", device, kNone,
                       {t, static_cast<double>(total), bytes, addresses ? address : 0});
  };
  record(50, 20, 0xD);    // before the first launch, freed inside: read from kernel 0
  record(60, 40, 0xE);    // held through the iteration
  record(150, 100, 0xA);  // written by k1 (launched at 200), last read by k2 (300)
  record(210, 50, 0xB);   // freed before any kernel launched after it: no kernel uses it
  record(250, -50, 0xB);
  record(320, -20, 0xD);
  record(350, -100, 0xA);
  record(380, 30, 0xC);  // written by k3, kept past the iteration
  auto s = b.build();
  EXPECT_TRUE(s.ok()) << s.error();
  return *s;
}

}  // namespace

TEST(RunWorkload, TheRunsOwnAllocationsAmongItsKernels) {
  SessionPtr run = handMadeRun();
  MappingSummary mapping;
  RunWorkloadNotes notes;
  auto w = workloadOfRun(*run, "run.json", {}, &mapping, &notes);
  ASSERT_TRUE(w.ok()) << w.error();
  ASSERT_EQ(w->kernels.size(), 4u);
  EXPECT_EQ(w->kernels[1].duration, 50);
  EXPECT_EQ(mapping.kernels.kernels.size(), 4u);
  EXPECT_EQ(mapping.kernels.kernels[2].group, w->kernels[2].group);
  EXPECT_EQ(notes.allocations, 5u);
  EXPECT_EQ(notes.withoutKernel, 1u);
  EXPECT_EQ(notes.withoutKernelBytes, 50);
  EXPECT_EQ(notes.heldThroughBytes, 1040);  // E and the 1,000 bytes before the records
  const std::vector<TensorLifetime> lives = tensorLifetimes(*w);
  auto lifeOf = [&](int64_t bytes) {
    for (size_t t = 0; t < w->tensors.size(); ++t)
      if (w->tensors[t].bytes == bytes) return lives[t];
    ADD_FAILURE() << "no tensor of " << bytes << " bytes";
    return TensorLifetime{};
  };
  EXPECT_EQ(lifeOf(100).from, 1);  // A
  EXPECT_EQ(lifeOf(100).to, 3);
  EXPECT_EQ(lifeOf(20).from, 0);  // D
  EXPECT_EQ(lifeOf(20).to, 3);
  EXPECT_EQ(lifeOf(30).from, 3);  // C, to the iteration's end
  EXPECT_EQ(lifeOf(30).to, 4);
  EXPECT_TRUE(lifeOf(1040).global);
  for (const SimKernel& k : w->kernels) EXPECT_FALSE(k.inputs.empty());  // the held memory
  // The allocator's peak (1,210 B with B) less what no kernel used: the plan's peak.
  EXPECT_EQ(stepMemory(*w).peak, 1160);
  EXPECT_NE(notes.sentence().find("1 of them"), std::string::npos) << notes.sentence();
}

TEST(RunWorkload, RecordsWithoutAddressesOrNoneAreRefused) {
  auto noAddresses = workloadOfRun(*handMadeRun(false), "old.json", {});
  ASSERT_FALSE(noAddresses.ok());
  EXPECT_NE(noAddresses.error().find("old.json: GPU 0's allocation records carry no addresses"),
            std::string::npos)
      << noAddresses.error();
  SessionBuilder b;
  const uint32_t device = b.device(b.rank(0), 0);
  b.addKernel(b.stream(device, 1), 0, 10, b.intern("k"), {});
  auto bare = b.build();
  ASSERT_TRUE(bare.ok());
  auto none = workloadOfRun(**bare, "bare.json", {});
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().find("bare.json: GPU 0 has no allocation records"), std::string::npos)
      << none.error();
}

// TraceLens's ViT inference on an H100: the plan's step peak is the allocator's peak over the
// iteration, less the allocations no kernel ran during.
TEST(RunWorkload, ARealRunsPeakIsItsAllocatorsPeak) {
  auto run =
      openSessionFile(std::string(TSCOPE_SHARED_DATA) +
                      "/kineto/tracelens-h100-Falconsai_nsfw_image_detection__1016002.json.gz");
  ASSERT_TRUE(run.ok()) << run.error();
  MappingSummary mapping;
  RunWorkloadNotes notes;
  auto w = workloadOfRun(**run, "vit", {}, &mapping, &notes);
  ASSERT_TRUE(w.ok()) << w.error();
  EXPECT_GT(w->kernels.size(), 100u);
  EXPECT_GT(notes.allocations, 200u);
  const std::vector<MeasuredMemory> measured = measureTensorLifetimes(**run);
  ASSERT_EQ(measured.size(), 1u);
  const int64_t simulated = stepMemory(*w).peak;
  EXPECT_LE(simulated, measured[0].peak);
  EXPECT_GE(simulated, measured[0].peak - notes.withoutKernelBytes);
  EXPECT_GT(simulated, measured[0].peak * 95 / 100);
}

}  // namespace ts::memsim

namespace ts::memsim {

// The tb_plugin ResNet-50 run (V100, batch 32, PyTorch 1.8: a counter from the trace's start,
// zero_grad in place) against ResNet-50's step: per layer within 10 % on average, every layer
// listed in step order, and the error said.
TEST(LayerMemory, TheRunAgainstTheModelLayerByLayer) {
  WorkloadSource in;
  in.modelPath = "resnet50";
  in.batch = 32;
  in.sessionPath =
      std::string(TSCOPE_SHARED_DATA) +
      "/kineto/kineto-tb_plugin--resnet50_num_workers_0--worker0.1623143089861.pt.trace.json.gz";
  auto run = openSessionFile(in.sessionPath);
  ASSERT_TRUE(run.ok()) << run.error();
  in.session = *run;
  MappingSummary mapping;
  auto w = loadWorkload(in, &mapping);
  ASSERT_TRUE(w.ok()) << w.error();
  const StatsTable t = layerMemoryComparison(**run, *w, mapping.kernels);
  ASSERT_GT(t.rows.size(), 150u);
  EXPECT_EQ(std::get<std::string>(t.rows[0][0]), "conv1 (forward)");
  double sum = 0;
  size_t n = 0;
  for (const auto& row : t.rows) {
    if (std::holds_alternative<double>(row[4])) sum += std::abs(std::get<double>(row[4])), ++n;
  }
  ASSERT_GT(n, 150u);
  EXPECT_LT(sum / static_cast<double>(n), 10.0);
  bool errorSaid = false, gradientsSaid = false;
  for (const std::string& note : t.notes) {
    errorSaid |= note.find("Error over " + std::to_string(n) + " layers: mean |Δ|") == 0;
    gradientsSaid |= note.find("zero_grad zeroes them in place") != std::string::npos;
  }
  EXPECT_TRUE(errorSaid);
  EXPECT_TRUE(gradientsSaid);
  // A run without allocation records has nothing to compare, and says so.
  auto sample = openSessionFile(TSCOPE_SAMPLE);
  ASSERT_TRUE(sample.ok());
  const StatsTable none = layerMemoryComparison(**sample, *w, mapping.kernels);
  EXPECT_TRUE(none.rows.empty());
  ASSERT_FALSE(none.notes.empty());
}

}  // namespace ts::memsim
