#include "advisor/hetero_timeline.h"

#include <algorithm>
#include <cmath>

#include "session/session_builder.h"
#include "util/format.h"

namespace ts::advisor {

Result<SessionPtr> dataParallelTimeline(const std::vector<HeteroDevice>& devices,
                                        const DataSplit& split, int64_t globalBatch,
                                        const std::vector<PipelineLayer>& layers,
                                        int64_t gradientBytes, const std::string& title) {
  if (devices.empty() || split.batch.size() != devices.size())
    return Error{"the split does not belong to these devices"};
  SessionBuilder b;
  const uint32_t rank = b.rank(0);
  b.rankInfo(rank).label = "predicted: " + title;
  const bool phases = !layers.empty() && layers.front().forwardNs.size() == devices.size();
  std::vector<uint32_t> streams;
  std::vector<TimeNs> computed(devices.size(), 0);
  // Forward and backward: each device on its own from 0.
  for (size_t i = 0; i < devices.size(); ++i) {
    const uint32_t device = b.device(rank, static_cast<int32_t>(i));
    b.deviceInfo(device).name = devices[i].type;
    streams.push_back(b.stream(device, 7));
    const double scale = static_cast<double>(split.batch[i]) /
                         static_cast<double>(std::max<int64_t>(1, globalBatch));
    TimeNs at = 0;
    auto kernel = [&](const std::string& name, TimeNs ns) {
      ns = std::max<TimeNs>(1, ns);
      b.addKernel(streams[i], at, at + ns, b.intern(name), {});
      at += ns;
    };
    if (phases) {
      for (const PipelineLayer& l : layers)
        kernel("forward/" + l.name, static_cast<TimeNs>(std::llround(l.forwardNs[i] * scale)));
      for (auto l = layers.rbegin(); l != layers.rend(); ++l)
        kernel("backward/" + l->name, static_cast<TimeNs>(std::llround(l->backwardNs[i] * scale)));
      // Their sum is the split's compute time: both come from the same estimate.
    } else {
      kernel("forward + backward (batch " + std::to_string(split.batch[i]) + ")",
             split.computeNs[i]);
    }
    computed[i] = phases ? at : split.computeNs[i];
  }
  // The all-reduce starts everywhere once the slowest is done, then each device updates.
  const TimeNs reduceAt = *std::max_element(computed.begin(), computed.end());
  const std::string reduce =
      "ncclAllReduce (predicted, " +
      formatBytes(static_cast<uint64_t>(std::max<int64_t>(0, gradientBytes))) + ")";
  for (size_t i = 0; i < devices.size(); ++i) {
    TimeNs at = reduceAt;
    if (split.allReduceNs > 0) {
      b.addKernel(streams[i], at, at + split.allReduceNs, b.intern(reduce), {});
      at += split.allReduceNs;
    }
    if (phases) {
      for (const PipelineLayer& l : layers) {
        const TimeNs ns = std::max<TimeNs>(1, l.updateNs[i]);
        b.addKernel(streams[i], at, at + ns, b.intern("update/" + l.name), {});
        at += ns;
      }
    } else if (devices[i].updateNs > 0) {
      b.addKernel(streams[i], at, at + devices[i].updateNs, b.intern("optimizer update"), {});
    }
  }
  b.provenance().sources.push_back({title, "prediction"});
  Provenance::Simulation mark;
  mark.workload = title;
  mark.policies = {"heterogeneous data parallel"};
  b.provenance().simulation = std::move(mark);
  auto built = b.build();
  if (!built) return std::move(built).failure();
  return SessionPtr(*built);
}

Result<SessionPtr> pipelineTimeline(const std::vector<HeteroDevice>& devices,
                                    const PipelineSplit& split,
                                    const std::vector<PipelineLayer>& layers, int steps,
                                    const std::string& title) {
  if (split.stages.empty() || steps < 1 || split.stepNs <= 0) return Error{"no pipeline to draw"};
  SessionBuilder b;
  const uint32_t rank = b.rank(0);
  b.rankInfo(rank).label = "predicted: " + title;
  std::vector<uint32_t> streams;
  for (size_t d = 0; d < split.stages.size(); ++d) {
    const PipelineStage& stage = split.stages[d];
    const uint32_t device = b.device(rank, static_cast<int32_t>(d));
    b.deviceInfo(device).name = devices[stage.device].type;
    streams.push_back(b.stream(device, 7));
  }
  const TimeNs period = split.stepNs;
  for (int k = 0; k < steps; ++k) {
    for (size_t d = 0; d < split.stages.size(); ++d) {
      const PipelineStage& stage = split.stages[d];
      TimeNs at = (static_cast<TimeNs>(k) + static_cast<TimeNs>(d)) * period;
      if (stage.transferNs > 0) {
        MemcpyDetail m;
        m.copyKind = CopyKind::PtoP;
        m.srcDevice = static_cast<int32_t>(d) - 1, m.dstDevice = static_cast<int32_t>(d);
        if (stage.firstLayer > 0)
          m.bytes = static_cast<uint64_t>(layers[stage.firstLayer - 1].activationBytes);
        b.addMemcpy(streams[d], at, at + stage.transferNs,
                    b.intern("activation in, gradient out (batch " + std::to_string(k + 1) + ")"),
                    m);
        at += stage.transferNs;
      }
      const std::string name = layers[stage.firstLayer].name + " … " +
                               layers[stage.endLayer - 1].name + " (batch " +
                               std::to_string(k + 1) + ")";
      b.addKernel(streams[d], at, at + std::max<TimeNs>(1, stage.computeNs), b.intern(name), {});
    }
  }
  b.provenance().sources.push_back({title, "prediction"});
  Provenance::Simulation mark;
  mark.workload = title;
  mark.policies = {"heterogeneous pipeline"};
  b.provenance().simulation = std::move(mark);
  auto built = b.build();
  if (!built) return std::move(built).failure();
  return SessionPtr(*built);
}

}  // namespace ts::advisor
