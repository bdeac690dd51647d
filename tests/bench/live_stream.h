// The stand-in program's record stream for the live-capture benchmarks (bench_live_snapshot,
// bench_live_view): what the launcher's sink receives during a long capture.
#pragma once

#include <cstdint>

#include "capture/record_sink.h"
#include "capture/wire_format.h"

namespace ts::capture::bench {

// The stand-in program's record stream: events [first, first + n) of a training loop — half
// kernels (alternating between two streams and two names), half the cudaLaunchKernel calls that
// launched them, one pair every 40 µs (50 k events per second).
class Stream {
 public:
  explicit Stream(RecordSink& sink) : sink_(sink), c_(sink.open()) {
    HelloFrame hello;
    hello.pid = 4242;
    w_.begin(FrameType::Hello, hello).string("benchhost").string("bench").end();
    DeviceFrame device;
    device.smCount = 132;
    w_.begin(FrameType::Device, device).string("Bench GPU").string("00").end();
    ContextFrame context;
    context.contextId = 1;
    w_.begin(FrameType::Context, context).end();
    (void)sink_.feed(c_, w_.take());
  }

  void play(int64_t n) {
    for (int64_t k = 0; k < n / 2; ++k, ++i_) {
      const int64_t t = 1'000'000'000 + i_ * 40'000;
      ApiFrame a;
      a.start = t, a.end = t + 4'000, a.processId = 4242, a.threadId = 4243;
      a.correlationId = static_cast<uint32_t>(i_ + 1), a.cbid = 211;
      w_.begin(FrameType::Api, a).string("cudaLaunchKernel_v7000").end();
      KernelFrame kf;
      kf.start = t + 6'000, kf.end = t + 16'000, kf.contextId = 1;
      kf.streamId = i_ % 2 ? 7 : 13, kf.correlationId = a.correlationId;
      kf.gridX = kf.gridY = kf.gridZ = 1, kf.blockX = 256, kf.blockY = kf.blockZ = 1;
      w_.begin(FrameType::Kernel, kf).string(i_ % 2 ? "_Z4gemmv" : "_Z4reluv").end();
      if (w_.bytes().size() > (1 << 20)) (void)sink_.feed(c_, w_.take());
    }
    (void)sink_.feed(c_, w_.take());
  }

 private:
  RecordSink& sink_;
  size_t c_;
  FrameWriter w_;
  int64_t i_ = 0;
};

constexpr int64_t kEventsPerSecond = 50'000;
constexpr ts::TimeNs kHoldback = 1'000'000'000;  // as the launcher's live snapshots

}  // namespace ts::capture::bench
