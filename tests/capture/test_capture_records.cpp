// Capture without a GPU: CUPTI records built by hand (the CUDA 13 structs) go through the decoder
// and the record sink into a session; truncated and corrupt streams, unknown kinds, NVTX pairing,
// peer copies, demangling and dropped counts.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "analysis/measured_tensors.h"
#include "capture/cupti_decoder.h"
#include "capture/record_sink.h"
#include "cupti_records.h"
#include "io/open_session.h"
#include "session/session_summary.h"

namespace ts::capture {

namespace {

using testing::record;

std::string namer(bool driver, uint32_t cbid) {
  if (driver && cbid == 307) return "cuLaunchKernel";
  if (!driver && cbid == 211) return "cudaLaunchKernel_v7000";
  if (!driver && cbid == 41) return "cudaMemcpyAsync_v3020";
  return "";
}

// A process's stream: hello, a device, a context, then the given records, then End (unless cut).
std::string stream(const std::vector<const CUpti_Activity*>& records, bool end = true,
                   int pid = 4242) {
  FrameWriter w;
  HelloFrame hello;
  hello.pid = pid;
  hello.rank = 3;
  w.begin(FrameType::Hello, hello)
      .string("node7")
      .string("/opt/conda/bin/python train.py --out /mnt/x")
      .end();
  CuptiDecoder decoder(w, namer);
  for (const CUpti_Activity* r : records) decoder.decode(r);
  uint32_t kind = 0;
  if (uint64_t unknown = decoder.takeUnknown(kind)) {
    CountFrame f;
    f.count = unknown;
    f.detail = kind;
    w.begin(FrameType::Unknown, f).end();
  }
  CountFrame dropped;
  dropped.count = 7;
  w.begin(FrameType::Dropped, dropped).end();
  if (end) w.begin(FrameType::End).end();
  return w.bytes();
}

struct Records {
  CUpti_ActivityDevice5 device = record<CUpti_ActivityDevice5>(CUPTI_ACTIVITY_KIND_DEVICE);
  CUpti_ActivityDevice5 device1 = record<CUpti_ActivityDevice5>(CUPTI_ACTIVITY_KIND_DEVICE);
  CUpti_ActivityDevice5 hidden = record<CUpti_ActivityDevice5>(CUPTI_ACTIVITY_KIND_DEVICE);
  CUpti_ActivityContext3 context = record<CUpti_ActivityContext3>(CUPTI_ACTIVITY_KIND_CONTEXT);
  CUpti_ActivityKernel10 kernel =
      record<CUpti_ActivityKernel10>(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  CUpti_ActivityAPI launch = record<CUpti_ActivityAPI>(CUPTI_ACTIVITY_KIND_RUNTIME);
  CUpti_ActivityMemcpy6 htod = record<CUpti_ActivityMemcpy6>(CUPTI_ACTIVITY_KIND_MEMCPY);
  CUpti_ActivityMemcpyPtoP4 peer = record<CUpti_ActivityMemcpyPtoP4>(CUPTI_ACTIVITY_KIND_MEMCPY2);
  CUpti_ActivityMemset4 memset = record<CUpti_ActivityMemset4>(CUPTI_ACTIVITY_KIND_MEMSET);
  CUpti_ActivityMarker2 start = record<CUpti_ActivityMarker2>(CUPTI_ACTIVITY_KIND_MARKER);
  CUpti_ActivityMarker2 end = record<CUpti_ActivityMarker2>(CUPTI_ACTIVITY_KIND_MARKER);
  CUpti_ActivityMarker2 mark = record<CUpti_ActivityMarker2>(CUPTI_ACTIVITY_KIND_MARKER);
  CUpti_ActivityStream stream = record<CUpti_ActivityStream>(CUPTI_ACTIVITY_KIND_STREAM);
  CUpti_ActivitySynchronization2 sync =
      record<CUpti_ActivitySynchronization2>(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
  CUpti_ActivityAPI driverCall = record<CUpti_ActivityAPI>(CUPTI_ACTIVITY_KIND_DRIVER);
  CUpti_ActivityExternalCorrelation external =
      record<CUpti_ActivityExternalCorrelation>(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
  CUpti_ActivityOverhead3 overhead = record<CUpti_ActivityOverhead3>(CUPTI_ACTIVITY_KIND_OVERHEAD);
  CUpti_Activity unknown{CUPTI_ACTIVITY_KIND_PC_SAMPLING};

  Records() {
    device.id = 0;
    device.name = "NVIDIA H200";
    device.numMultiprocessors = 132;
    device.computeCapabilityMajor = 9;
    device.globalMemorySize = 141ull << 30;
    device.maxWarpsPerMultiprocessor = 64;
    device.maxBlocksPerMultiprocessor = 32;
    device.maxRegistersPerMultiprocessor = 65536;
    device.maxSharedMemoryPerMultiprocessor = 233472;
    device.maxThreadsPerBlock = 1024;
    device.isCudaVisible = 1;
    device1 = device;
    device1.id = 1;
    hidden = device;
    hidden.id = 2, hidden.isCudaVisible = 0;  // hidden by CUDA_VISIBLE_DEVICES
    context.contextId = 1, context.deviceId = 0;
    kernel.start = 1'000'000, kernel.end = 1'500'000;
    kernel.deviceId = 0, kernel.contextId = 1, kernel.streamId = 13, kernel.correlationId = 77;
    kernel.gridX = 864, kernel.gridY = kernel.gridZ = 1, kernel.blockX = 256,
    kernel.blockY = kernel.blockZ = 1;
    kernel.registersPerThread = 47;
    kernel.staticSharedMemory = 1024, kernel.dynamicSharedMemory = 4096;
    kernel.name = "_Z6addOnePfi";
    launch.cbid = 211, launch.start = 900'000, launch.end = 950'000;
    launch.processId = 4242, launch.threadId = 4243, launch.correlationId = 77;
    htod.copyKind = 1, htod.srcKind = 1, htod.dstKind = 3, htod.bytes = 1 << 20;
    htod.start = 100'000, htod.end = 300'000, htod.deviceId = 0, htod.contextId = 1,
    htod.streamId = 13;
    htod.correlationId = 5, htod.runtimeCorrelationId = 76;
    peer.copyKind = 10, peer.srcKind = 3, peer.dstKind = 3, peer.bytes = 4096;
    peer.start = 2'000'000, peer.end = 2'100'000, peer.deviceId = 0, peer.contextId = 1,
    peer.streamId = 14;
    peer.srcDeviceId = 0, peer.dstDeviceId = 1;
    memset.bytes = 512, memset.value = 0, memset.memoryKind = 3;
    memset.start = 400'000, memset.end = 410'000, memset.deviceId = 0, memset.contextId = 1,
    memset.streamId = 13;
    start.flags = CUPTI_ACTIVITY_FLAG_MARKER_START, start.id = 9, start.timestamp = 800'000;
    start.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD, start.objectId.pt.processId = 4242,
    start.objectId.pt.threadId = 4243;
    start.name = "forward/conv1";
    end = start;
    end.flags = CUPTI_ACTIVITY_FLAG_MARKER_END, end.timestamp = 1'600'000, end.name = nullptr;
    mark = start;
    mark.flags = CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS, mark.id = 10, mark.timestamp = 1'700'000,
    mark.name = "step";
    stream.contextId = 1, stream.streamId = 13, stream.priority = 0;
    sync.start = 2'200'000, sync.end = 2'300'000, sync.contextId = 1, sync.streamId = 13;
    sync.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
    driverCall.cbid = 307, driverCall.start = 960'000, driverCall.end = 970'000;
    driverCall.processId = 4242, driverCall.threadId = 4243, driverCall.correlationId = 78;
  }
  std::vector<const CUpti_Activity*> all() const {
    auto p = [](const auto& r) { return reinterpret_cast<const CUpti_Activity*>(&r); };
    return {p(device), p(device1), p(hidden),     p(context),  p(stream),   p(kernel),
            p(launch), p(htod),    p(peer),       p(memset),   p(start),    p(end),
            p(mark),   p(sync),    p(driverCall), p(external), p(overhead), p(unknown)};
  }
};

const CUpti_Activity* activity(const auto& r) {
  return reinterpret_cast<const CUpti_Activity*>(&r);
}

// `records` as one process's whole stream, into `sink`.
void feedProcess(RecordSink& sink, const std::vector<const CUpti_Activity*>& records) {
  size_t c = sink.open();
  ASSERT_TRUE(sink.feed(c, stream(records)).ok());
  sink.close(c);
}

SessionPtr build(RecordSink& sink) {
  Provenance p;
  auto s = sink.snapshot(p);
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error());
  return s.ok() ? *s : nullptr;
}

// A session written out by what it holds, not by how its tables happen to be numbered: each
// track by kind and owner with its events' times, names, lanes and details (names, not string
// ids), each flow by its ends, the entities by what they are. Snapshots taken along the way may
// number streams and tracks in another order (first mention) and still hold the same session.
std::string meaning(const Session& s) {
  auto owner = [&](uint32_t ti) {
    const Track& t = s.tracks[ti];
    std::string o = std::string(toString(t.kind));
    if (t.stream != kNone) {
      const Stream& st = s.streams[t.stream];
      o += " gpu " + std::to_string(s.devices[st.device].ordinal) + " stream " +
           std::to_string(st.streamId) + " " + st.name;
    }
    if (t.thread != kNone) o += " tid " + std::to_string(s.threads[t.thread].tid);
    return o;
  };
  const std::set<std::string> named = {"mangled", "domain", "category", "args", "inputs"};
  std::vector<std::string> tracks;
  for (uint32_t ti = 0; ti < s.tracks.size(); ++ti) {
    const Track& t = s.tracks[ti];
    std::string out = owner(ti) + ":";
    for (uint32_t i = 0; i < t.size(); ++i) {
      out += "\n  " + std::to_string(t.hot.start[i]) + " " + std::to_string(t.hot.end[i]) + " " +
             std::string(s.str(t.hot.name[i])) + " lane " + std::to_string(t.hot.lane[i]);
      auto field = [&](const char* column, long long v) {
        out +=
            std::string(" ") + column + "=" +
            (named.count(column) && (t.kind == EventKind::Nvtx || std::string(column) != "domain")
                 ? std::string(s.str(static_cast<StringId>(v)))
                 : std::to_string(v));
      };
#define TS_FIELD(type, member, column) field(column, static_cast<long long>(row.member));
      switch (t.kind) {
        case EventKind::Kernel: {
          KernelDetail row = t.kernels.row(i);
          TS_KERNEL_COLUMNS(TS_FIELD)
          break;
        }
        case EventKind::Memcpy: {
          MemcpyDetail row = t.memcpys.row(i);
          TS_MEMCPY_COLUMNS(TS_FIELD)
          break;
        }
        case EventKind::Memset: {
          MemsetDetail row = t.memsets.row(i);
          TS_MEMSET_COLUMNS(TS_FIELD)
          break;
        }
        case EventKind::Api: {
          ApiDetail row = t.apis.row(i);
          TS_API_COLUMNS(TS_FIELD)
          break;
        }
        case EventKind::Nvtx: {
          NvtxDetail row = t.nvtx.row(i);
          TS_NVTX_COLUMNS(TS_FIELD)
          break;
        }
        case EventKind::Range: {
          RangeDetail row = t.ranges.row(i);
          TS_RANGE_COLUMNS(TS_FIELD)
          break;
        }
      }
#undef TS_FIELD
    }
    tracks.push_back(out);
  }
  for (size_t f = 0; f < s.flows.srcTrack.size(); ++f) {
    tracks.push_back("flow " + owner(s.flows.srcTrack[f]) + " #" +
                     std::to_string(s.flows.srcEvent[f]) + " -> " + owner(s.flows.dstTrack[f]) +
                     " #" + std::to_string(s.flows.dstEvent[f]));
  }
  for (const Device& d : s.devices) tracks.push_back("device " + d.name + " " + d.uuid);
  for (const Process& p : s.processes) tracks.push_back("process " + p.name);
  for (const Rank& r : s.ranks) tracks.push_back("rank " + r.label + " " + r.host);
  std::sort(tracks.begin(), tracks.end());
  std::string all = "span " + std::to_string(s.startTime()) + " " + std::to_string(s.endTime());
  for (const std::string& t : tracks) all += "\n" + t;
  return all;
}

const Track* trackOf(const Session& s, EventKind kind) {
  for (const Track& t : s.tracks) {
    if (t.kind == kind && t.size()) return &t;
  }
  return nullptr;
}

}  // namespace

TEST(CaptureRecords, EveryKindBecomesTheSessionEvent) {
  Records r;
  RecordSink sink;
  size_t c = sink.open();
  ASSERT_TRUE(sink.feed(c, stream(r.all())).ok());
  sink.close(c);
  EXPECT_TRUE(sink.complete());
  EXPECT_EQ(sink.dropped(), 7u);
  EXPECT_EQ(sink.unknown(), 1u);  // PC sampling: counted, not fatal
  SessionPtr s = build(sink);
  ASSERT_TRUE(s);
  SessionSummary sum = summarize(*s);
  EXPECT_EQ(sum.kernels, 1u);
  EXPECT_EQ(sum.apiCalls, 2u);     // a runtime and a driver call
  EXPECT_EQ(sum.otherRanges, 1u);  // the stream synchronisation
  EXPECT_EQ(sum.memcpyCount[static_cast<int>(CopyKind::HtoD)], 1u);
  EXPECT_EQ(sum.memcpyCount[static_cast<int>(CopyKind::PtoP)], 1u);
  EXPECT_EQ(sum.memsets, 1u);
  EXPECT_EQ(sum.nvtxRanges, 1u);
  EXPECT_EQ(sum.nvtxMarks, 1u);
  EXPECT_FALSE(s->provenance.incomplete);
  EXPECT_EQ(s->provenance.droppedRecords, 7u);
  ASSERT_EQ(s->ranks.size(), 1u);
  EXPECT_EQ(s->ranks[0].label, "rank 3 / node7");
  ASSERT_FALSE(s->processes.empty());  // the program's name first, its directories left out
  EXPECT_EQ(s->processes[0].name, "python train.py --out /mnt/x");
  ASSERT_EQ(s->devices.size(), 2u);  // the hidden GPU is not one of the program's
  EXPECT_EQ(s->devices[0].name, "NVIDIA H200");
  EXPECT_EQ(s->devices[0].smCount, 132);

  const Track* k = trackOf(*s, EventKind::Kernel);
  ASSERT_TRUE(k);
  EXPECT_EQ(s->str(k->hot.name[0]), "addOne(float*, int)");  // demangled
  EXPECT_EQ(s->str(k->kernels.mangled[0]), "_Z6addOnePfi");
  EXPECT_EQ(k->hot.start[0], 1'000'000);
  EXPECT_EQ(k->kernels.launchOf(0).gridX, 864u);
  EXPECT_EQ(k->kernels.launchOf(0).registersPerThread, 47u);
  EXPECT_EQ(k->kernels.launchOf(0).dynamicSharedMemory, 4096u);
  EXPECT_EQ(s->streams[k->stream].streamId, 13u);
  const Track* api = trackOf(*s, EventKind::Api);
  ASSERT_TRUE(api);
  ASSERT_EQ(api->size(), 2u);
  EXPECT_EQ(s->str(api->hot.name[0]), "cudaLaunchKernel");  // version suffix dropped
  EXPECT_EQ(api->apis.domain[0], ApiDomain::Runtime);
  EXPECT_EQ(s->str(api->hot.name[1]), "cuLaunchKernel");
  EXPECT_EQ(api->apis.domain[1], ApiDomain::Driver);
  const Track* sync = trackOf(*s, EventKind::Range);
  ASSERT_TRUE(sync);
  EXPECT_EQ(s->str(sync->hot.name[0]), "Stream Sync");
  EXPECT_EQ(s->streams[sync->stream].streamId, 13u);
  EXPECT_EQ(s->threads[api->thread].tid, 4243);
  // The launch and its kernel are tied by correlation id.
  ASSERT_EQ(s->flows.srcTrack.size(), 1u);
  EXPECT_EQ(&s->tracks[s->flows.dstTrack[0]], k);

  for (const Track& t : s->tracks) {
    if (t.kind != EventKind::Memcpy) continue;
    if (t.memcpys.copyKind[0] == CopyKind::PtoP) {
      EXPECT_EQ(t.memcpys.srcDevice[0], 0);
      EXPECT_EQ(t.memcpys.dstDevice[0], 1);
      EXPECT_EQ(t.memcpys.bytes[0], 4096u);
    } else {
      EXPECT_EQ(t.memcpys.srcKind[0], MemoryKind::Pageable);
      EXPECT_EQ(t.memcpys.dstKind[0], MemoryKind::Device);
      EXPECT_EQ(t.memcpys.srcDevice[0], -1);
      EXPECT_EQ(t.memcpys.dstDevice[0], 0);
      EXPECT_EQ(s->str(t.hot.name[0]), "Memcpy HtoD (Pageable -> Device)");
    }
  }
  const Track* nvtx = nullptr;
  for (const Track& t : s->tracks) {
    if (t.kind == EventKind::Nvtx && t.nvtx.isMark[0] == 0) nvtx = &t;
  }
  ASSERT_TRUE(nvtx);
  EXPECT_EQ(s->str(nvtx->hot.name[0]), "forward/conv1");  // START and END paired by id
  EXPECT_EQ(nvtx->hot.start[0], 800'000);
  EXPECT_EQ(nvtx->hot.end[0], 1'600'000);
}

// CUDA allocations (CUPTI memory records) become the GPU's allocated-bytes counter, in time order
// whatever order CUPTI's buffers came in, each sample keeping its size and address: they pair into
// allocations as a PyTorch trace's do, a free of memory allocated before the capture counted.
// Pinned host memory is the process's counter; arrays are left out and counted.
TEST(CaptureRecords, CudaAllocationsBecomeTheGpusMemoryCounter) {
  Records r;
  auto memory = [](uint64_t t, int op, int kind, uint64_t address, uint64_t bytes) {
    auto m = record<CUpti_ActivityMemory4>(CUPTI_ACTIVITY_KIND_MEMORY2);
    m.timestamp = t;
    m.memoryOperationType = static_cast<CUpti_ActivityMemoryOperationType>(op);
    m.memoryKind = static_cast<CUpti_ActivityMemoryKind>(kind);
    m.address = address, m.bytes = bytes, m.deviceId = 0, m.contextId = 1, m.processId = 4242;
    return m;
  };
  const CUpti_ActivityMemory4 records[] = {
      memory(1'200'000, 2, 3, 0xa000, 1 << 20),  // A's free, handed over first
      memory(500'000, 1, 3, 0xa000, 1 << 20),    // A
      memory(600'000, 1, 2, 0xb000, 4096),       // pinned host memory
      memory(700'000, 1, 5, 0xc000, 2 << 20),    // managed, never freed
      memory(800'000, 2, 3, 0xd000, 512),        // allocated before the capture
      memory(900'000, 1, 4, 0xe000, 64),         // a CUDA array
  };
  std::vector<const CUpti_Activity*> all = {reinterpret_cast<const CUpti_Activity*>(&r.device),
                                            reinterpret_cast<const CUpti_Activity*>(&r.context)};
  for (const auto& m : records) all.push_back(reinterpret_cast<const CUpti_Activity*>(&m));
  RecordSink sink;
  size_t c = sink.open();
  ASSERT_TRUE(sink.feed(c, stream(all)).ok());
  sink.close(c);
  SessionPtr s = build(sink);
  ASSERT_TRUE(s);
  const CounterTrack* gpu = nullptr;
  const CounterTrack* host = nullptr;
  for (const CounterTrack& k : s->counters) {
    if (k.name == "CUDA memory allocated") gpu = &k;
    if (k.name == "Pinned host memory allocated") host = &k;
  }
  ASSERT_TRUE(gpu);
  ASSERT_TRUE(host);
  EXPECT_EQ(s->devices[gpu->device].ordinal, 0);
  EXPECT_NE(host->process, kNone);
  ASSERT_EQ(gpu->size(), 4u);
  EXPECT_EQ(gpu->samples.time[0], 500'000);
  EXPECT_EQ(gpu->samples.value[0], 1 << 20);
  EXPECT_EQ(gpu->samples.value[1], 3 << 20);  // with the managed allocation
  EXPECT_EQ(gpu->samples.value[2], 3 << 20);  // a free of nothing it saw allocated
  EXPECT_EQ(gpu->samples.change[2], -512);
  EXPECT_EQ(gpu->samples.value[3], 2 << 20);  // A freed
  EXPECT_EQ(gpu->samples.address[0], 0xa000u);
  EXPECT_EQ(host->samples.value[0], 4096);
  EXPECT_EQ(s->provenance.skipped.at("CUDA memory records of arrays or unknown kinds"), 1u);
  const std::vector<MeasuredMemory> measured = measureTensorLifetimes(*s);
  ASSERT_EQ(measured.size(), 1u);
  ASSERT_EQ(measured[0].tensors.size(), 2u);
  EXPECT_EQ(measured[0].tensors[0].allocated, 500'000);
  EXPECT_EQ(measured[0].tensors[0].freed, 1'200'000);
  EXPECT_EQ(measured[0].tensors[1].freed, kStillAllocated);
  EXPECT_EQ(measured[0].unmatchedFrees, 1);
  EXPECT_EQ(measured[0].unmatchedFreeBytes, 512);
}

// The live view's snapshots, taken while the records come, change nothing in the final session:
// the stream fed in pieces with a snapshot after each (some holding back the latest records)
// ends as the stream fed at once; every snapshot along the way is a whole valid session.
TEST(CaptureRecords, LiveSnapshotsAlongTheWayLeaveTheFinalSessionAsOneSnapshotMakesIt) {
  Records r;
  const std::string bytes = stream(r.all());
  Provenance p;
  p.createdUtc = "2026-12-05T00:00:00Z";
  RecordSink whole;
  size_t c = whole.open();
  ASSERT_TRUE(whole.feed(c, bytes).ok());
  whole.close(c);
  Result<SessionPtr> once = whole.snapshot(p);
  ASSERT_TRUE(once.ok()) << once.error();
  for (size_t piece : {1u, 7u, 64u, 300u}) {
    SCOPED_TRACE("pieces of " + std::to_string(piece) + " bytes");
    RecordSink sink;
    c = sink.open();
    for (size_t at = 0, k = 0; at < bytes.size(); at += piece, ++k) {
      ASSERT_TRUE(sink.feed(c, std::string_view(bytes).substr(at, piece)).ok());
      Result<SessionPtr> live = sink.snapshot(p, k % 3 == 0 ? 0 : 500'000);
      ASSERT_TRUE(live.ok()) << live.error();
      Status valid = copySession(**live)->finalize();
      ASSERT_TRUE(valid.ok()) << valid.error();
    }
    sink.close(c);
    Result<SessionPtr> last = sink.snapshot(p);
    ASSERT_TRUE(last.ok()) << last.error();
    EXPECT_EQ(meaning(**last), meaning(**once));
  }
}

// --delay: only what reaches into the window is kept, in live snapshots as in one made at the end.
// An NVTX range begun before the window waits (not shown) until it ends or the records pass the
// window: one that ends before it is left out, one that spans it is kept whole.
TEST(CaptureRecords, ADelayKeepsWhatReachesIntoTheWindowAlsoWhenTakenLive) {
  Records r;
  CUpti_ActivityMarker2 earlyStart = r.start, earlyEnd = r.end;
  earlyStart.id = earlyEnd.id = 11;
  earlyStart.timestamp = 200'000, earlyEnd.timestamp = 500'000;
  earlyStart.name = "warm-up";
  // In time order, as a thread's markers come (out of order by less than the holdback): live
  // snapshots between a start and its end see the range open.
  const std::string bytes =
      stream({activity(r.device), activity(r.context), activity(r.start), activity(earlyStart),
              activity(r.htod), activity(r.memset), activity(earlyEnd), activity(r.launch),
              activity(r.kernel), activity(r.end), activity(r.mark)});
  const TimeNs from = 1'000'000;  // the kernel (to 1.5 ms) and conv1 (0.8 to 1.6 ms) reach it
  Provenance p;
  RecordSink whole;
  whole.setWindowStart(from);
  size_t c = whole.open();
  ASSERT_TRUE(whole.feed(c, bytes).ok());
  whole.close(c);
  Result<SessionPtr> once = whole.snapshot(p);
  ASSERT_TRUE(once.ok()) << once.error();
  std::vector<std::string> ranges;
  const Track* nvtx = trackOf(**once, EventKind::Nvtx);
  ASSERT_TRUE(nvtx);
  for (uint32_t i = 0; i < nvtx->size(); ++i) ranges.emplace_back((*once)->str(nvtx->hot.name[i]));
  EXPECT_EQ(ranges, (std::vector<std::string>{"forward/conv1", "step"}));
  const SessionSummary sum = summarize(**once);
  EXPECT_EQ(sum.kernels, 1u);
  EXPECT_EQ(sum.memcpys() + sum.memsets + sum.apiCalls, 0u);  // all before the window
  EXPECT_EQ(whole.events(), (*once)->eventCount());  // what the status bar and the CLI count

  for (size_t piece : {16u, 64u, 200u}) {
    SCOPED_TRACE("pieces of " + std::to_string(piece) + " bytes");
    RecordSink sink;
    sink.setWindowStart(from);
    c = sink.open();
    for (size_t at = 0; at < bytes.size(); at += piece) {
      ASSERT_TRUE(sink.feed(c, std::string_view(bytes).substr(at, piece)).ok());
      ASSERT_TRUE(sink.snapshot(p, 300'000).ok());
    }
    sink.close(c);
    Result<SessionPtr> last = sink.snapshot(p);
    ASSERT_TRUE(last.ok()) << last.error();
    EXPECT_EQ(meaning(**last), meaning(**once));
  }
}

// CUPTI hands its buffers over in any order: a synchronisation (and a stream's priority) that
// names a context whose record comes in a later snapshot is kept until it does.
TEST(CaptureRecords, ARecordBeforeItsContextWaitsForIt) {
  Records r;
  std::vector<const CUpti_Activity*> first = {activity(r.device), activity(r.sync)};
  std::vector<const CUpti_Activity*> rest = r.all();
  rest.erase(std::remove(rest.begin(), rest.end(), activity(r.sync)), rest.end());
  RecordSink sink;
  size_t c = sink.open();
  ASSERT_TRUE(sink.feed(c, stream(first, false)).ok());
  Result<SessionPtr> before = sink.snapshot({}, 1);
  ASSERT_TRUE(before.ok()) << before.error();
  EXPECT_FALSE(trackOf(**before, EventKind::Range));
  FrameWriter w;  // the rest on the same connection: no second Hello
  CuptiDecoder decoder(w, namer);
  for (const CUpti_Activity* x : rest) decoder.decode(x);
  w.begin(FrameType::End).end();
  ASSERT_TRUE(sink.feed(c, w.bytes()).ok());
  sink.close(c);
  SessionPtr s = build(sink);
  ASSERT_TRUE(s);
  const Track* sync = trackOf(*s, EventKind::Range);
  ASSERT_TRUE(sync);
  EXPECT_EQ(s->str(sync->hot.name[0]), "Stream Sync");
  EXPECT_EQ(sync->hot.start[0], 2'200'000);
}

// CUPTI keeps a buffer per thread, so a range's END may be delivered before its START: they still
// pair by id. A peer record within one device is a DtoD copy, not PtoP.
TEST(CaptureRecords, EndBeforeStartPairsAndSameDevicePeerCopiesAreDtoD) {
  Records r;
  r.peer.dstDeviceId = 0;  // from device 0 to device 0
  RecordSink sink;
  feedProcess(sink, {activity(r.device), activity(r.context), activity(r.end), activity(r.peer),
                     activity(r.start)});
  SessionPtr s = build(sink);
  ASSERT_TRUE(s);
  const Track* nvtx = trackOf(*s, EventKind::Nvtx);
  ASSERT_TRUE(nvtx);
  ASSERT_EQ(nvtx->size(), 1u);
  EXPECT_EQ(s->str(nvtx->hot.name[0]), "forward/conv1");
  EXPECT_EQ(nvtx->hot.start[0], 800'000);
  EXPECT_EQ(nvtx->hot.end[0], 1'600'000);  // its END, not the last record seen
  const Track* copy = trackOf(*s, EventKind::Memcpy);
  ASSERT_TRUE(copy);
  EXPECT_EQ(copy->memcpys.copyKind[0], CopyKind::DtoD);
  EXPECT_EQ(copy->memcpys.srcDevice[0], 0);
  EXPECT_EQ(copy->memcpys.dstDevice[0], 0);
}

// A synchronisation that failed (cudaEventQuery before the event was reached) waited for nothing:
// a polling loop would otherwise flood the row with "Event Sync" ranges.
TEST(CaptureRecords, FailedSynchronisationsAreNotRanges) {
  Records r;
  CUpti_ActivitySynchronization2 query = r.sync;
  query.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE;
  query.returnValue = 600;  // CUDA_ERROR_NOT_READY
  query.start = 2'400'000, query.end = 2'400'100;
  RecordSink sink;
  feedProcess(sink, {activity(r.device), activity(r.context), activity(r.sync), activity(query)});
  SessionPtr s = build(sink);
  ASSERT_TRUE(s);
  const Track* syncs = trackOf(*s, EventKind::Range);
  ASSERT_TRUE(syncs);
  ASSERT_EQ(syncs->size(), 1u);
  EXPECT_EQ(s->str(syncs->hot.name[0]), "Stream Sync");
}

// CUPTI leaves the timestamps of a record it could not complete at zero: left out and counted,
// not placed at t = 0 (which stretched the session back to the epoch).
TEST(CaptureRecords, RecordsWithoutTimestampsAreCountedNotPlacedAtZero) {
  Records r;
  CUpti_ActivityKernel10 unfinished = r.kernel;
  unfinished.start = 0, unfinished.end = 0;
  CUpti_ActivityAPI noEnd = r.launch;
  noEnd.end = 0;
  RecordSink sink;
  feedProcess(sink, {activity(r.device), activity(r.context), activity(r.kernel),
                     activity(unfinished), activity(r.launch), activity(noEnd)});
  EXPECT_EQ(sink.incompleteRecords(), 2u);
  EXPECT_EQ(sink.lost(), 9u);  // what the user is told was lost: both causes
  std::vector<std::string> warnings = sink.warnings();
  // Each cause of loss is told apart: the 7 CUPTI dropped (stream()), the 2 without timestamps.
  EXPECT_EQ(warnings, (std::vector<std::string>{
                          "2 records CUPTI could not complete (no timestamps) were left out",
                          "7 records CUPTI dropped (its buffers were full)"}));
  SessionPtr s = build(sink);
  ASSERT_TRUE(s);
  EXPECT_EQ(summarize(*s).kernels, 1u);
  EXPECT_EQ(summarize(*s).apiCalls, 1u);
  EXPECT_EQ(s->startTime(), 900'000);  // the launch, not 0
  EXPECT_EQ(s->provenance.droppedRecords, 9u);
  // The causes go with the session, into its file, and add up when files are opened together.
  const std::map<std::string, uint64_t> causes = {
      {"dropped by CUPTI (its buffers were full)", 7},
      {"without timestamps (CUPTI could not complete them)", 2}};
  EXPECT_EQ(s->provenance.lost, causes);
  EXPECT_EQ(sink.lostByCause(), causes);
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("tscope_lost_" + std::to_string(::getpid()) + ".tscope"))
                               .string();
  ASSERT_TRUE(writeSessionFile(*s, path).ok());
  Result<SessionPtr> back = openSessionFile(path);
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ((*back)->provenance.droppedRecords, 9u);
  EXPECT_EQ((*back)->provenance.lost, causes);
  const std::string second = path + ".2.tscope";
  std::filesystem::copy_file(path, second, std::filesystem::copy_options::overwrite_existing);
  Result<SessionPtr> both = openSessionFiles({path, second});
  std::filesystem::remove(path);
  std::filesystem::remove(second);
  ASSERT_TRUE(both.ok()) << both.error();
  EXPECT_EQ((*both)->provenance.droppedRecords, 18u);
  EXPECT_EQ((*both)->provenance.lost.at("dropped by CUPTI (its buffers were full)"), 14u);
}

TEST(CaptureRecords, ATruncatedStreamKeepsWhatCameBeforeTheCut) {
  Records r;
  std::string bytes = stream(r.all(), /*end=*/false);
  // The process died in the middle of its last frame.
  std::string cut = bytes.substr(0, bytes.size() - 3);
  RecordSink sink;
  size_t c = sink.open();
  // Delivered in small pieces, as a socket may.
  for (size_t at = 0; at < cut.size(); at += 7)
    ASSERT_TRUE(sink.feed(c, std::string_view(cut).substr(at, 7)).ok());
  sink.close(c);
  EXPECT_FALSE(sink.complete());
  SessionPtr s = build(sink);
  ASSERT_TRUE(s);
  EXPECT_TRUE(s->provenance.incomplete);
  SessionSummary sum = summarize(*s);
  EXPECT_EQ(sum.kernels, 1u);
  EXPECT_EQ(sum.memsets, 1u);
  EXPECT_EQ(sink.dropped(), 0u);  // the Dropped frame was the one cut
}

TEST(CaptureRecords, ChildProcessesAreStreamsOfTheirOwn) {
  Records r;
  RecordSink sink;
  size_t parent = sink.open(), child = sink.open();
  ASSERT_TRUE(sink.feed(parent, stream(r.all(), true, 4242)).ok());
  Records other;
  other.launch.processId = 5151, other.launch.threadId = 5152;
  ASSERT_TRUE(
      sink.feed(child, stream({reinterpret_cast<const CUpti_Activity*>(&other.launch)}, true, 5151))
          .ok());
  SessionPtr s = build(sink);
  ASSERT_TRUE(s);
  bool sawChild = false;
  for (const Process& p : s->processes) sawChild |= p.pid == 5151;
  EXPECT_TRUE(sawChild);
  EXPECT_EQ(summarize(*s).apiCalls, 3u);  // the parent's runtime and driver calls, the child's call
}

// CUPTI numbers contexts and streams per process, so two processes on one GPU both have context 1
// and stream 13: each keeps a context and a stream row of its own, rows say whose they are, and
// every kernel stays tied to its own process's launch.
TEST(CaptureRecords, ProcessesSharingContextAndStreamNumbersStayApart) {
  Records a, b;
  b.launch.processId = 5151, b.launch.threadId = 5152;
  b.kernel.start = 3'000'000, b.kernel.end = 3'200'000;
  b.launch.start = 2'900'000, b.launch.end = 2'950'000;
  RecordSink sink;
  size_t first = sink.open(), second = sink.open();
  ASSERT_TRUE(sink.feed(first, stream({activity(a.device), activity(a.context), activity(a.kernel),
                                       activity(a.launch)},
                                      true, 4242))
                  .ok());
  ASSERT_TRUE(sink.feed(second, stream({activity(b.device), activity(b.context), activity(b.kernel),
                                        activity(b.launch)},
                                       true, 5151))
                  .ok());
  SessionPtr s = build(sink);
  ASSERT_TRUE(s);
  ASSERT_EQ(s->devices.size(), 1u);
  ASSERT_EQ(s->contexts.size(), 2u);
  EXPECT_NE(s->contexts[0].contextId, s->contexts[1].contextId);
  EXPECT_NE(s->contexts[0].process, s->contexts[1].process);
  std::vector<std::string> names;
  for (const Stream& st : s->streams) {
    EXPECT_EQ(st.streamId, 13u);
    names.push_back(st.name);
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"pid 4242", "pid 5151"}));
  ASSERT_EQ(s->flows.srcTrack.size(), 2u);
  for (size_t f = 0; f < s->flows.srcTrack.size(); ++f) {
    const Track& launch = s->tracks[s->flows.srcTrack[f]];
    const Track& kernel = s->tracks[s->flows.dstTrack[f]];
    int pid = s->processes[s->threads[launch.thread].process].pid;
    const Stream& st = s->streams[kernel.stream];
    EXPECT_EQ(s->contexts[st.context].process, s->threads[launch.thread].process);
    EXPECT_EQ(st.name, "pid " + std::to_string(pid));
    // The launch precedes its own kernel (the other process's kernel is elsewhere in time).
    EXPECT_LT(launch.hot.start[s->flows.srcEvent[f]], kernel.hot.start[s->flows.dstEvent[f]]);
    EXPECT_GT(launch.hot.start[s->flows.srcEvent[f]] + 200'000,
              kernel.hot.start[s->flows.dstEvent[f]]);
  }
}

// cudaDeviceSynchronize names no stream (CUPTI_SYNCHRONIZATION_INVALID_VALUE): the wait is drawn on
// the context's NULL stream, not on a row for a stream 4294967295 that does not exist.
TEST(CaptureRecords, AContextWideSynchronisationIsOnTheNullStream) {
  Records r;
  r.context.nullStreamId = 7;
  CUpti_ActivitySynchronization2 wait = r.sync;
  wait.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
  wait.streamId = 0xFFFFFFFFu;
  RecordSink sink;
  feedProcess(sink, {activity(r.device), activity(r.context), activity(wait)});
  SessionPtr s = build(sink);
  ASSERT_TRUE(s);
  const Track* syncs = trackOf(*s, EventKind::Range);
  ASSERT_TRUE(syncs);
  ASSERT_EQ(syncs->size(), 1u);
  ASSERT_EQ(s->streams.size(), 1u);
  EXPECT_EQ(s->streams[syncs->stream].streamId, 7u);
  EXPECT_EQ(s->streams[syncs->stream].context, 0u);
}

TEST(CaptureRecords, CorruptStreamsAreErrorsNotCrashes) {
  RecordSink sink;
  size_t c = sink.open();
  std::string junk("\x02\x00\x00\x00\xff\xff\xff\x7f", 8);  // a kernel frame claiming 2 GiB
  EXPECT_FALSE(sink.feed(c, junk).ok());
  size_t d = sink.open();
  FrameWriter w;
  w.begin(FrameType::Kernel, KernelFrame{}).string("k").end();  // no hello first
  EXPECT_FALSE(sink.feed(d, w.bytes()).ok());
  size_t e = sink.open();
  FrameWriter v;
  HelloFrame hello;
  hello.version = 99;
  v.begin(FrameType::Hello, hello).string("h").string("c").end();
  Status st = sink.feed(e, v.bytes());
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().find("version 99"), std::string::npos) << st.error();
  EXPECT_TRUE(build(sink));  // what was valid still builds
}

TEST(CaptureRecords, NamesAndOutputPatterns) {
  EXPECT_EQ(apiName("cudaLaunchKernel_v7000"), "cudaLaunchKernel");
  EXPECT_EQ(apiName("cuLaunchKernel"), "cuLaunchKernel");
  EXPECT_EQ(apiName("odd_v"), "odd_v");
  EXPECT_EQ(demangle("_ZN2at6native18elementwise_kernelEv"), "at::native::elementwise_kernel()");
  EXPECT_EQ(demangle("plain_c_kernel"), "plain_c_kernel");
  EXPECT_EQ(demangle("_Zbroken"), "_Zbroken");
}

}  // namespace ts::capture
