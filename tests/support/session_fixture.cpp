#include "session_fixture.h"

#include <sstream>

#include "session/session_builder.h"

namespace ts::testing {

Device a100Device() {
  Device d;
  d.name = "NVIDIA A100-SXM4-40GB";
  d.uuid = "GPU-1234";
  d.computeMajor = 8;
  d.computeMinor = 0;
  d.smCount = 108;
  d.memoryBytes = 42'505'273'344ull;
  d.memoryBandwidthBytesPerSecond = 1'555'000'000'000ull;
  d.clockKHz = 1'410'000;
  d.maxWarpsPerSm = 64;
  d.maxBlocksPerSm = 32;
  d.maxThreadsPerBlock = 1024;
  d.maxRegistersPerSm = 65536;
  d.maxRegistersPerBlock = 65536;
  d.maxSharedMemoryPerSm = 167936;
  d.maxSharedMemoryPerBlock = 49152;
  return d;
}

SessionPtr makeFixtureSession(bool multiRank) {
  SessionBuilder b;
  for (int r = 0; r < (multiRank ? 2 : 1); ++r) {
    uint32_t rank = b.rank(r);
    b.rankInfo(rank).host = "node" + std::to_string(r);
    b.rankInfo(rank).label = "rank " + std::to_string(r) + " / node" + std::to_string(r);
    b.rankInfo(rank).clockOffsetNs = r * 1000;
    uint32_t dev = b.device(rank, 0);
    Device& d = b.deviceInfo(dev);
    Device a100 = a100Device();
    a100.rank = d.rank;
    a100.ordinal = d.ordinal;
    d = a100;
    uint32_t dev1 = b.device(rank, 1);
    b.deviceInfo(dev1).name = "NVIDIA A100-SXM4-40GB";
    uint32_t proc = b.process(rank, 100 + r);
    b.processInfo(proc).name = "python";
    b.processInfo(proc).sortIndex = 5;
    uint32_t main = b.thread(proc, 100 + r);
    b.threadInfo(main).name = "MainThread";
    b.threadInfo(main).sortIndex = -2;
    uint32_t ctx = b.context(dev, 1);
    b.contextInfo(ctx).process = proc;
    uint32_t s7 = b.stream(dev, 7);
    b.streamInfo(s7).context = ctx;
    b.streamInfo(s7).name = "compute";
    b.streamInfo(s7).priority = -1;
    uint32_t s13 = b.stream(dev, 13);
    b.streamInfo(s13).context = ctx;
    uint32_t s20 = b.stream(dev1, 20);

    const TimeNs t0 = 1'000'000 + r * 10;
    // Added out of order on purpose: the builder sorts.
    KernelDetail k;
    k.mangled = b.intern("_Z6kernelPf");
    k.correlation = 11;
    k.context = 1;
    k.gridX = 864, k.gridY = 2, k.gridZ = 3;
    k.blockX = 256, k.blockY = 1, k.blockZ = 1;
    k.registersPerThread = 47;
    k.staticSharedMemory = 1024;
    k.dynamicSharedMemory = 2048;
    k.localMemoryPerThread = 16;
    k.launchType = 1;
    k.graphId = 9;
    EventRef late = b.addKernel(s7, t0 + 5000, t0 + 9000, b.intern("kernel(float*)"), k);
    k.correlation = 10;
    k.graphId = 0;
    b.addKernel(s7, t0 + 1000, t0 + 4000, b.intern("sgemm_128x64"), k);
    MemcpyDetail m;
    m.bytes = 1 << 20;
    m.copyKind = CopyKind::HtoD;
    m.srcKind = MemoryKind::Pinned;
    m.dstKind = MemoryKind::Device;
    m.srcDevice = -1;
    m.dstDevice = 0;
    m.async = 1;
    m.correlation = 12;
    m.context = 1;
    b.addMemcpy(s13, t0 + 200, t0 + 900, b.intern("Memcpy HtoD (Pinned -> Device)"), m);
    m.copyKind = CopyKind::PtoP;
    m.srcKind = MemoryKind::Device;
    m.srcDevice = 0;
    m.dstDevice = 1;
    m.correlation = 0;
    b.addMemcpy(s20, t0 + 3000, t0 + 3500, b.intern("Memcpy PtoP (Device -> Device)"), m);
    b.addMemset(s13, t0 + 9500, t0 + 9600, b.intern("Memset (Device)"),
                {4096, 7, MemoryKind::Device, 13, 1});
    b.addApi(main, t0 + 100, t0 + 300, b.intern("cudaMemcpyAsync"), {12, 0, ApiDomain::Runtime});
    b.addApi(main, t0 + 400, t0 + 600, b.intern("cudaLaunchKernel"), {10, 0, ApiDomain::Runtime});
    EventRef launch = b.addApi(main, t0 + 700, t0 + 800, b.intern("cuLaunchKernel"),
                               {11, 719, ApiDomain::Driver});
    b.addApi(main, t0 + 850, t0 + 880, b.intern("cudaMemsetAsync"), {13, 0, ApiDomain::Runtime});
    b.addNvtx(main, t0 + 50, t0 + 2000, b.intern("forward/conv1"),
              {b.intern("pytorch"), 0xFF00FF00u, 0});
    b.addNvtx(main, t0 + 0, t0 + 10000, b.intern("step 0"), {b.intern("pytorch"), 0xFFFF0000u, 0});
    b.addNvtx(main, t0 + 60, t0 + 1000, b.intern("aten::conv2d"), {0, 0, 0});
    b.addNvtx(main, t0 + 3000, t0 + 3000, b.intern("checkpoint"), {0, 0xFF0000FFu, 1});
    b.addRange(main, t0 + 20, t0 + 9000, b.intern("train.py(42): step"),
               {b.intern("python_function"), b.intern("{\"Python id\": 3}")});
    b.addStreamNvtx(s7, t0 + 1000, t0 + 9000, b.intern("forward"), {0, 0, 0});
    b.addFlow(launch, late);  // duplicates the correlation flow: kept once
    b.addCounterSample("GPU memory used", "bytes", dev, kNone, t0 + 500, 1e9);
    b.addCounterSample("GPU memory used", "bytes", dev, kNone, t0 + 100, 0.5e9);
    b.addCounterSample("CPU utilization", "%", kNone, proc, t0 + 100, 42.5);
  }
  b.provenance().sources.push_back({"fixture.json", "kineto-json"});
  b.provenance().createdUtc = "2026-11-29T12:00:00Z";
  b.provenance().captureCommand = "python train.py --epochs 1";
  b.provenance().exitCode = 3;
  b.provenance().incomplete = true;
  b.provenance().droppedRecords = 12;
  auto built = b.build();
  return built.ok() ? built.value() : nullptr;
}

namespace {

template <class Columns>
bool sameColumns(const Columns& a, const Columns& b, const std::string& where, std::string* why) {
  bool same = true;
  std::vector<std::string> names;
  a.visit([&](const char* name, const auto&) { names.emplace_back(name); });
  size_t i = 0;
  // Walk both tables' columns in step: same layout, same order.
  std::vector<bool> equal;
  a.visit([&](const char*, const auto& va) {
    size_t j = 0;
    b.visit([&](const char*, const auto& vb) {
      if (j++ != i) return;
      if constexpr (std::is_same_v<decltype(va), decltype(vb)>) equal.push_back(va == vb);
    });
    ++i;
  });
  for (size_t c = 0; c < equal.size(); ++c) {
    if (!equal[c]) {
      if (why) *why = where + ": column " + names[c] + " differs";
      same = false;
      break;
    }
  }
  return same;
}

}  // namespace

bool sameSession(const Session& a, const Session& b, std::string* why) {
  auto fail = [&](const std::string& text) {
    if (why) *why = text;
    return false;
  };
  if (a.strings.size() != b.strings.size()) return fail("string count");
  for (StringId i = 0; i < a.strings.size(); ++i) {
    if (a.str(i) != b.str(i)) return fail("string " + std::to_string(i));
  }
  if (a.ranks.size() != b.ranks.size()) return fail("rank count");
  for (size_t i = 0; i < a.ranks.size(); ++i) {
    const Rank &x = a.ranks[i], &y = b.ranks[i];
    if (x.rank != y.rank || x.host != y.host || x.label != y.label ||
        x.clockOffsetNs != y.clockOffsetNs) {
      return fail("rank " + std::to_string(i));
    }
  }
  if (a.devices.size() != b.devices.size()) return fail("device count");
  for (size_t i = 0; i < a.devices.size(); ++i) {
    const Device &x = a.devices[i], &y = b.devices[i];
    if (x.rank != y.rank || x.ordinal != y.ordinal || x.name != y.name || x.uuid != y.uuid ||
        x.computeMajor != y.computeMajor || x.computeMinor != y.computeMinor ||
        x.smCount != y.smCount || x.memoryBytes != y.memoryBytes ||
        x.memoryBandwidthBytesPerSecond != y.memoryBandwidthBytesPerSecond ||
        x.clockKHz != y.clockKHz || x.maxWarpsPerSm != y.maxWarpsPerSm ||
        x.maxBlocksPerSm != y.maxBlocksPerSm || x.maxThreadsPerBlock != y.maxThreadsPerBlock ||
        x.maxRegistersPerSm != y.maxRegistersPerSm ||
        x.maxRegistersPerBlock != y.maxRegistersPerBlock ||
        x.maxSharedMemoryPerSm != y.maxSharedMemoryPerSm ||
        x.maxSharedMemoryPerBlock != y.maxSharedMemoryPerBlock || x.warpSize != y.warpSize) {
      return fail("device " + std::to_string(i));
    }
  }
  if (a.processes.size() != b.processes.size()) return fail("process count");
  for (size_t i = 0; i < a.processes.size(); ++i) {
    const Process &x = a.processes[i], &y = b.processes[i];
    if (x.rank != y.rank || x.pid != y.pid || x.name != y.name || x.sortIndex != y.sortIndex) {
      return fail("process " + std::to_string(i));
    }
  }
  if (a.threads.size() != b.threads.size()) return fail("thread count");
  for (size_t i = 0; i < a.threads.size(); ++i) {
    const Thread &x = a.threads[i], &y = b.threads[i];
    if (x.process != y.process || x.tid != y.tid || x.name != y.name ||
        x.sortIndex != y.sortIndex) {
      return fail("thread " + std::to_string(i));
    }
  }
  if (a.contexts.size() != b.contexts.size()) return fail("context count");
  for (size_t i = 0; i < a.contexts.size(); ++i) {
    const Context &x = a.contexts[i], &y = b.contexts[i];
    if (x.device != y.device || x.contextId != y.contextId || x.process != y.process) {
      return fail("context " + std::to_string(i));
    }
  }
  if (a.streams.size() != b.streams.size()) return fail("stream count");
  for (size_t i = 0; i < a.streams.size(); ++i) {
    const Stream &x = a.streams[i], &y = b.streams[i];
    if (x.device != y.device || x.streamId != y.streamId || x.context != y.context ||
        x.priority != y.priority || x.name != y.name) {
      return fail("stream " + std::to_string(i));
    }
  }
  if (a.tracks.size() != b.tracks.size()) return fail("track count");
  for (size_t i = 0; i < a.tracks.size(); ++i) {
    const Track &x = a.tracks[i], &y = b.tracks[i];
    std::string where = "track " + std::to_string(i);
    if (x.kind != y.kind || x.device != y.device || x.stream != y.stream || x.thread != y.thread) {
      return fail(where + " owner");
    }
    if (!sameColumns(x.hot, y.hot, where, why) || !sameColumns(x.kernels, y.kernels, where, why) ||
        !sameColumns(x.memcpys, y.memcpys, where, why) ||
        !sameColumns(x.memsets, y.memsets, where, why) ||
        !sameColumns(x.apis, y.apis, where, why) || !sameColumns(x.nvtx, y.nvtx, where, why) ||
        !sameColumns(x.ranges, y.ranges, where, why)) {
      return false;
    }
  }
  if (a.counters.size() != b.counters.size()) return fail("counter count");
  for (size_t i = 0; i < a.counters.size(); ++i) {
    const CounterTrack &x = a.counters[i], &y = b.counters[i];
    if (x.name != y.name || x.unit != y.unit || x.device != y.device || x.process != y.process) {
      return fail("counter " + std::to_string(i));
    }
    if (!sameColumns(x.samples, y.samples, "counter " + std::to_string(i), why)) return false;
  }
  if (!sameColumns(a.flows, b.flows, "flows", why)) return false;
  const Provenance &p = a.provenance, &q = b.provenance;
  if (p.toolVersion != q.toolVersion || p.createdUtc != q.createdUtc ||
      p.captureCommand != q.captureCommand || p.exitCode != q.exitCode ||
      p.incomplete != q.incomplete || p.droppedRecords != q.droppedRecords ||
      p.skipped != q.skipped || p.sources.size() != q.sources.size()) {
    return fail("provenance");
  }
  for (size_t i = 0; i < p.sources.size(); ++i) {
    if (p.sources[i].path != q.sources[i].path || p.sources[i].format != q.sources[i].format) {
      return fail("source " + std::to_string(i));
    }
  }
  if (a.startTime() != b.startTime() || a.endTime() != b.endTime()) return fail("time span");
  return true;
}

SessionPtr makeLayerRun(const std::vector<LayerRange>& ranges, int gpus) {
  SessionBuilder b;
  uint32_t r = b.rank(0);
  uint32_t correlation = 1;
  for (int g = 0; g < gpus; ++g) {
    uint32_t stream = b.stream(b.device(r, g), 7);
    uint32_t thread = b.thread(b.process(r, 1 + g), 1 + g);
    for (const LayerRange& range : ranges) {
      if (!range.name.empty()) b.addNvtx(thread, range.start, range.end, b.intern(range.name), {});
      ApiDetail api;
      api.correlation = correlation;
      b.addApi(thread, range.start + 10, range.start + 15, b.intern("cudaLaunchKernel"), api);
      KernelDetail k;
      k.correlation = correlation++;
      b.addKernel(stream, range.start + 20, range.start + 20 + range.kernelNs * (g + 1),
                  b.intern(range.kernel), k);
    }
  }
  auto built = b.build();
  return built.ok() ? *built : nullptr;
}

}  // namespace ts::testing
