// Measured tensor lifetimes: the allocator's records paired by address, each tied to the op
// around it and classed; by hand, then on a real PyTorch trace recorded with profile_memory=True.
#include <gtest/gtest.h>

#include "analysis/measured_tensors.h"
#include "io/open_session.h"
#include "session/session_builder.h"

namespace ts {

namespace {

// One step by hand: forward (an activation kept for backward, a temporary inside one op),
// backward (an activation gradient, a weight gradient kept to the next zero_grad), an optimizer
// step that makes its state, a free with nothing allocated before it, and a record without an op.
SessionPtr handMadeStep() {
  SessionBuilder b;
  const uint32_t rank = b.rank(0);
  const uint32_t device = b.device(rank, 0);
  const uint32_t thread = b.thread(b.process(rank, 1), 1);
  auto op = [&](TimeNs start, TimeNs end, const char* name) {
    b.addNvtx(thread, start, end, b.intern(name), {b.intern("cpu_op"), 0, 0});
  };
  op(100, 200, "aten::conv2d");
  op(105, 115, "aten::empty");  // where PyTorch makes the output: the tensor is conv2d's
  op(515, 525, "aten::empty");
  op(300, 400, "aten::relu");
  op(500, 700, "autograd::engine::evaluate_function: ConvolutionBackward0");
  op(510, 690, "ConvolutionBackward0");
  op(800, 900, "Optimizer.step#SGD.step");
  op(810, 820, "aten::clone");
  op(1000, 1100, "Optimizer.zero_grad#SGD.zero_grad");
  int64_t total = 0;
  auto record = [&](TimeNs t, int64_t bytes, uint64_t address) {
    total += bytes;
    b.addCounterSample("Memory allocated", "bytes", device, kNone,
                       {t, static_cast<double>(total), bytes, address});
  };
  record(50, -64, 0xdead);    // allocated before the trace
  record(110, 1000, 0x1000);  // conv output, freed in backward: an activation
  record(120, 300, 0x2000);   // conv workspace, freed inside conv: temporary
  record(150, -300, 0x2000);
  record(310, 500, 0x3000);  // relu output, freed after it, before backward: activation
  record(450, -500, 0x3000);
  record(520, 2000, 0x4000);  // gradient of the input, freed inside the backward node
  record(530, 4000, 0x5000);  // weight gradient, freed by zero_grad
  record(522, 700, 0x8000);   // made in the node (inside its aten::empty), freed after it
  record(600, -2000, 0x4000);
  record(650, -1000, 0x1000);
  record(750, -700, 0x8000);
  record(815, 4000, 0x6000);  // momentum, kept past the step
  record(1050, -4000, 0x5000);
  record(1200, 8, 0x7000);  // outside any op
  auto s = b.build();
  EXPECT_TRUE(s.ok()) << s.error();
  return s.ok() ? *s : nullptr;
}

}  // namespace

TEST(MeasuredTensors, PairedByAddressTiedToTheirOpsAndClassed) {
  SessionPtr s = handMadeStep();
  ASSERT_TRUE(s);
  std::vector<MeasuredMemory> all = measureTensorLifetimes(*s);
  ASSERT_EQ(all.size(), 1u);
  const MeasuredMemory& m = all[0];
  EXPECT_TRUE(m.addresses);
  EXPECT_EQ(m.counter, "Memory allocated");
  EXPECT_EQ(m.unmatchedFrees, 1);
  EXPECT_EQ(m.unmatchedFreeBytes, 64);
  ASSERT_EQ(m.tensors.size(), 8u);
  auto at = [&](uint64_t address) -> const MeasuredTensor& {
    for (const MeasuredTensor& t : m.tensors) {
      if (t.address == address) return t;
    }
    ADD_FAILURE() << "no tensor at " << address;
    return m.tensors[0];
  };
  EXPECT_EQ(at(0x1000).kind, MeasuredClass::Activation);
  EXPECT_EQ(at(0x1000).allocated, 110);
  EXPECT_EQ(at(0x1000).freed, 650);
  EXPECT_EQ(s->str(s->tracks[at(0x1000).allocTrack].hot.name[at(0x1000).allocEvent]),
            "aten::conv2d");
  EXPECT_EQ(s->str(s->tracks[at(0x1000).freeTrack].hot.name[at(0x1000).freeEvent]),
            "ConvolutionBackward0");
  EXPECT_EQ(at(0x2000).kind, MeasuredClass::Temporary);
  EXPECT_EQ(at(0x8000).kind, MeasuredClass::ActivationGradient);
  EXPECT_EQ(s->str(s->tracks[at(0x8000).allocTrack].hot.name[at(0x8000).allocEvent]),
            "ConvolutionBackward0");  // not the aten::empty inside it
  EXPECT_EQ(at(0x3000).kind, MeasuredClass::Activation);
  EXPECT_EQ(at(0x4000).kind, MeasuredClass::Temporary);  // freed inside the node that made it
  EXPECT_EQ(at(0x5000).kind, MeasuredClass::WeightGradient);
  EXPECT_EQ(at(0x6000).kind, MeasuredClass::OptimizerState);
  EXPECT_EQ(at(0x6000).freed, kStillAllocated);
  EXPECT_EQ(at(0x7000).kind, MeasuredClass::Unknown);
  EXPECT_EQ(m.peak, 1000 + 2000 + 4000 - 2000 - 1000 + 4000 - 64);  // once the momentum is made
}

// A zero_grad that zeroes gradients in place keeps them between iterations; one that sets them to
// None (no aten::zero_ inside it) frees them. The tb_plugin ResNet-50 trace (PyTorch 1.8) does
// the former; an inference has no zero_grad at all.
TEST(MeasuredTensors, WhetherZeroGradKeepsTheGradients) {
  SessionPtr s = handMadeStep();
  ASSERT_TRUE(s);
  EXPECT_FALSE(zeroGradKeepsGradients(*s));
  SessionBuilder b;
  const uint32_t thread = b.thread(b.process(b.rank(0), 1), 1);
  b.addNvtx(thread, 0, 100, b.intern("Optimizer.zero_grad#SGD.zero_grad"), {});
  b.addNvtx(thread, 10, 20, b.intern("aten::zero_"), {});
  auto inPlace = b.build();
  ASSERT_TRUE(inPlace.ok());
  EXPECT_TRUE(zeroGradKeepsGradients(**inPlace));
  const std::string kineto = std::string(TSCOPE_SHARED_DATA) + "/kineto/";
  auto resnet = openSessionFile(
      kineto + "kineto-tb_plugin--resnet50_num_workers_0--worker0.1623143089861.pt.trace.json.gz");
  ASSERT_TRUE(resnet.ok()) << resnet.error();
  EXPECT_TRUE(zeroGradKeepsGradients(**resnet));
  auto vit =
      openSessionFile(kineto + "tracelens-h100-Falconsai_nsfw_image_detection__1016002.json.gz");
  ASSERT_TRUE(vit.ok()) << vit.error();
  EXPECT_FALSE(zeroGradKeepsGradients(**vit));
}

// TraceLens's ViT inference trace on an H100 (PyTorch 2.x, profile_memory=True): its CUDA
// allocations pair up by address, each inside an op; what an inference allocates is activations
// and temporaries.
TEST(MeasuredTensors, ARealTraceWithAddresses) {
  auto s =
      openSessionFile(std::string(TSCOPE_SHARED_DATA) +
                      "/kineto/tracelens-h100-Falconsai_nsfw_image_detection__1016002.json.gz");
  ASSERT_TRUE(s.ok()) << s.error();
  std::vector<MeasuredMemory> all = measureTensorLifetimes(**s);
  ASSERT_EQ(all.size(), 1u);  // one GPU (the CPU's records are a process's counter)
  const MeasuredMemory& m = all[0];
  EXPECT_TRUE(m.addresses);
  size_t allocations = 0, frees = 0, inOps = 0, inModules = 0;
  for (const MeasuredTensor& t : m.tensors) {
    ++allocations;
    frees += t.freed != kStillAllocated;
    inOps += t.allocTrack != kNone;
    if (t.moduleTrack != kNone) {
      ++inModules;
      EXPECT_TRUE((*s)->str((*s)->tracks[t.moduleTrack].hot.name[t.moduleEvent])
                      .starts_with("nn.Module: "));
    }
    EXPECT_NE(t.kind, MeasuredClass::WeightGradient);
    EXPECT_NE(t.kind, MeasuredClass::OptimizerState);
  }
  // The trace's 572 CUDA records: each allocation or free (the file's own count).
  EXPECT_EQ(allocations + frees + static_cast<size_t>(m.unmatchedFrees), 572u);
  EXPECT_GT(inOps, allocations * 9 / 10);
  // The trace has with_modules: the ViT's layers own most of its allocations.
  EXPECT_GT(inModules, allocations / 2) << inModules << " of " << allocations;
}

}  // namespace ts
