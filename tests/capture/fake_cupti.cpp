// libtscope_fake_cupti: a stand-in for libcupti that the injection library loads in its place
// (TSCOPE_CUPTI_LIBRARY), so the real injection and the real launcher run without a GPU. It
// delivers hand-built CUDA 13 records the way CUPTI does: a buffer per application thread,
// full buffers handed back from a worker thread of its own, partial ones only on
// cuptiActivityFlushAll (global buffer first, so an NVTX range's END comes before its START),
// device records delivered on the enabling thread during initialisation, buffers delivered late,
// after the kinds were disabled at exit, and static objects that exit() destroys. The stand-in
// program (fake_target cupti …) drives it through the tscopeFake* functions.
//
// Environment: TSCOPE_FAKE_CUPTI_LOG (a file: "tid N", "forced N" at each forced flush —
// kernels produced so far —, "nvtx", "produced N"), TSCOPE_FAKE_CUPTI_HOLDER (another profiler
// holds CUPTI: cuptiSubscribe_v2 fails and names it), TSCOPE_FAKE_CUPTI_VERSION (cuptiGetVersion),
// TSCOPE_FAKE_CUPTI_BUFFER (bytes a buffer holds before it is full; default 16 KiB).
#include <cupti.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <iterator>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cupti_records.h"

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

using ts::capture::testing::record;

struct Buffer {
  uint8_t* data = nullptr;
  size_t size = 0, used = 0;
};

// Never destroyed: the worker and the late deliveries run while the process exits.
struct Fake {
  std::mutex lock;
  std::condition_variable wake;
  CUpti_BuffersCallbackRequestFunc request = nullptr;
  CUpti_BuffersCallbackCompleteFunc complete = nullptr;
  std::set<int> enabled;
  CUpti_ActivityThreadIdType threadIdType = CUPTI_ACTIVITY_THREAD_ID_TYPE_DEFAULT;
  std::map<pid_t, Buffer> perThread;
  std::map<uint32_t, uint64_t> streamEnd;  // when each stream's last kernel ends
  std::map<pid_t, uint64_t> callEnd;       // when each thread's last call ends
  Buffer global;
  std::deque<Buffer> full;  // for the worker
  int inFlight = 0;         // buffers the worker is delivering
  bool lateWanted = false, workerStarted = false;
  size_t capacity = 16 << 10;
  std::atomic<uint64_t> produced{0};
  std::atomic<uint32_t> correlation{0};
};

Fake& F = *new Fake;

pid_t tid() {
  return static_cast<pid_t>(::syscall(SYS_gettid));
}

uint64_t now() {
  timespec t{};
  ::clock_gettime(CLOCK_REALTIME, &t);
  return static_cast<uint64_t>(t.tv_sec) * 1000000000u + static_cast<uint64_t>(t.tv_nsec);
}

void log(const std::string& line) {
  const char* path = std::getenv("TSCOPE_FAKE_CUPTI_LOG");
  if (!path) return;
  if (FILE* f = std::fopen(path, "a")) {
    std::fprintf(f, "%s\n", line.c_str());
    std::fclose(f);
  }
}

// Each record is stored as [u64 size][record, padded to 8 bytes].
size_t slot(size_t bytes) {
  return 8 + ((bytes + 7) & ~size_t{7});
}

Buffer requestBuffer() {
  Buffer b;
  size_t maxRecords = 0;
  F.request(&b.data, &b.size, &maxRecords);
  return b;
}

// Appends a record; a buffer that cannot take it is full and goes to `out`. F.lock held.
void append(Buffer& b, const void* record, size_t bytes, std::vector<Buffer>& out) {
  if (b.data && b.used + slot(bytes) > std::min(b.size, F.capacity)) {
    out.push_back(b);
    b = Buffer{};
  }
  if (!b.data) b = requestBuffer();
  if (!b.data) return;  // declined: CUPTI would drop the record
  const uint64_t size = bytes;
  std::memcpy(b.data + b.used, &size, 8);
  std::memcpy(b.data + b.used + 8, record, bytes);
  b.used += slot(bytes);
}

void deliver(const std::vector<Buffer>& buffers) {
  for (const Buffer& b : buffers) F.complete(nullptr, 0, b.data, b.size, b.used);
}

// Full buffers go to the worker, as CUPTI's full buffers do.
void toWorker(std::vector<Buffer>& buffers) {
  for (const Buffer& b : buffers) F.full.push_back(b);
  if (!buffers.empty()) F.wake.notify_all();
  buffers.clear();
}

// A buffer delivered after the stream's end (the kinds disabled at exit).
void deliverLate() {
  if (!F.request || !F.complete) return;
  Buffer b = requestBuffer();
  if (!b.data) return;
  auto k = record<CUpti_ActivityKernel10>(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  k.start = now(), k.end = k.start + 100, k.correlationId = 0xFFFFFFu, k.name = "_Z4latev";
  std::vector<Buffer> unused;
  append(b, &k, sizeof k, unused);
  F.complete(nullptr, 0, b.data, b.size, b.used);
}

void workerLoop() {
  std::unique_lock<std::mutex> lock(F.lock);
  for (;;) {
    F.wake.wait(lock, [] { return !F.full.empty() || F.lateWanted; });
    if (F.lateWanted && F.full.empty()) {
      F.lateWanted = false;
      lock.unlock();
      std::this_thread::sleep_for(std::chrono::milliseconds(30));
      deliverLate();
      lock.lock();
      continue;
    }
    Buffer b = F.full.front();
    F.full.pop_front();
    ++F.inFlight;
    lock.unlock();
    F.complete(nullptr, 0, b.data, b.size, b.used);
    lock.lock();
    --F.inFlight;
    F.wake.notify_all();
  }
}

// The fake's lock across a fork, so the child never inherits it held.
void forkPrepare() {
  F.lock.lock();
}
void forkRelease() {
  F.lock.unlock();
}

// CUPTI is a C++ library: exit() destroys its static objects in the reverse order they were
// made, among the atexit handlers. A client that registered its exit handler before it loaded
// CUPTI runs that handler after CUPTI's statics are gone, and its last flush crashes there (seen
// on a GPU: plain CUDA programs died with SIGSEGV at exit). The fake's statics are made when it
// is loaded; after they are destroyed, a call that needs CUPTI's state aborts, naming itself.
std::atomic<bool> tornDown{false};
struct Statics {
  ~Statics() { tornDown = true; }
} statics;

void requireAlive(const char* function) {
  if (!tornDown) return;
  std::fprintf(stderr, "fake CUPTI: %s called after CUPTI's static objects were destroyed\n",
               function);
  std::abort();
}

// Run at exit (or unload): one more buffer, after the client finished.
__attribute__((destructor)) void lateAtUnload() {
  if (F.enabled.empty() && F.complete) deliverLate();
}

}  // namespace

FAKE_EXPORT CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc request,
                                                       CUpti_BuffersCallbackCompleteFunc complete) {
  std::lock_guard<std::mutex> lock(F.lock);
  F.request = request;
  F.complete = complete;
  if (const char* cap = std::getenv("TSCOPE_FAKE_CUPTI_BUFFER"); cap && std::atoll(cap) > 0)
    F.capacity = static_cast<size_t>(std::atoll(cap));
  if (!F.workerStarted) {
    F.workerStarted = true;
    std::thread(workerLoop).detach();
    ::pthread_atfork(forkPrepare, forkRelease, forkRelease);
  }
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiActivityEnable(CUpti_ActivityKind kind) {
  requireAlive("cuptiActivityEnable");
  std::vector<Buffer> atOnce;  // delivered on this thread before returning
  {
    std::lock_guard<std::mutex> lock(F.lock);
    if (!F.request) return CUPTI_ERROR_INVALID_OPERATION;
    F.enabled.insert(kind);
    std::vector<Buffer> out;
    if (kind == CUPTI_ACTIVITY_KIND_DEVICE) {
      // Device records arrive during the driver's initialisation, on the enabling thread.
      auto d = record<CUpti_ActivityDevice5>(kind);
      d.id = 0, d.numMultiprocessors = 132, d.computeCapabilityMajor = 9;
      d.globalMemorySize = 141ull << 30;
      d.name = ::strdup("Fake H200");  // the client's to free
      d.isCudaVisible = 1;
      // A second GPU that CUDA_VISIBLE_DEVICES hides: CUPTI describes it all the same.
      auto hidden = d;
      hidden.id = 1;
      hidden.name = ::strdup("Fake hidden H200");
      hidden.isCudaVisible = 0;
      Buffer b = requestBuffer();
      append(b, &d, sizeof d, out);
      append(b, &hidden, sizeof hidden, out);
      atOnce.push_back(b);
    } else if (kind == CUPTI_ACTIVITY_KIND_CONTEXT) {
      auto c = record<CUpti_ActivityContext3>(kind);
      c.contextId = 1, c.deviceId = 0, c.nullStreamId = 7;
      append(F.global, &c, sizeof c, out);
    } else if (kind == CUPTI_ACTIVITY_KIND_OVERHEAD) {
      auto o = record<CUpti_ActivityOverhead3>(kind);
      o.start = now(), o.end = o.start + 10;
      o.overheadData = std::malloc(16);  // the client's to free
      append(F.global, &o, sizeof o, out);
    } else if (kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
      // One kernel CUPTI could not time, and one record it cannot read.
      auto k = record<CUpti_ActivityKernel10>(kind);
      k.name = "_Z10incompletev";
      append(F.global, &k, sizeof k, out);
      CUpti_Activity invalid{CUPTI_ACTIVITY_KIND_INVALID};
      append(F.global, &invalid, sizeof invalid, out);
    }
    toWorker(out);
  }
  deliver(atOnce);
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiActivityDisable(CUpti_ActivityKind kind) {
  requireAlive("cuptiActivityDisable");
  std::lock_guard<std::mutex> lock(F.lock);
  F.enabled.erase(kind);
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiActivityFlushAll(uint32_t flag) {
  requireAlive("cuptiActivityFlushAll");
  std::vector<Buffer> out;
  {
    std::unique_lock<std::mutex> lock(F.lock);
    if (!F.complete) return CUPTI_ERROR_INVALID_OPERATION;
    if (flag & CUPTI_ACTIVITY_FLAG_FLUSH_FORCED) log("forced " + std::to_string(F.produced.load()));
    // Partial buffers: the global one first, then every thread's.
    if (F.global.used) out.push_back(F.global);
    F.global = Buffer{};
    for (auto& [t, b] : F.perThread) {
      if (b.used) out.push_back(b);
      b = Buffer{};
    }
    while (!F.full.empty()) {
      out.push_back(F.full.front());
      F.full.pop_front();
    }
    if ((flag & CUPTI_ACTIVITY_FLAG_FLUSH_FORCED) && F.enabled.empty()) {
      F.lateWanted = true;  // the worker delivers one more buffer after the end
      F.wake.notify_all();
    }
  }
  deliver(out);
  // Blocking, as CUPTI's: returns once the worker's deliveries in flight are done too.
  std::unique_lock<std::mutex> lock(F.lock);
  F.wake.wait(lock, [] { return F.inFlight == 0; });
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiActivityGetNextRecord(uint8_t* buffer, size_t validSize,
                                                   CUpti_Activity** record) {
  size_t at = 0;
  if (*record) {
    uint64_t size = 0;
    std::memcpy(&size, reinterpret_cast<uint8_t*>(*record) - 8, 8);
    at = static_cast<size_t>(reinterpret_cast<uint8_t*>(*record) - buffer) - 8 + slot(size);
  }
  if (at >= validSize) return CUPTI_ERROR_MAX_LIMIT_REACHED;
  *record = reinterpret_cast<CUpti_Activity*>(buffer + at + 8);
  return (*record)->kind == CUPTI_ACTIVITY_KIND_INVALID ? CUPTI_ERROR_INVALID_KIND : CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext, uint32_t, size_t* dropped) {
  *dropped = 0;
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiActivityEnableAllSyncRecords(uint8_t) {
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiGetCallbackName(CUpti_CallbackDomain, uint32_t, const char** name) {
  *name = "cudaLaunchKernel_v7000";
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiGetResultString(CUptiResult, const char** text) {
  *text = "fake CUPTI error";
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiGetTimestamp(uint64_t* timestamp) {
  *timestamp = now();
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiGetVersion(uint32_t* version) {
  const char* v = std::getenv("TSCOPE_FAKE_CUPTI_VERSION");
  *version = v ? static_cast<uint32_t>(std::atol(v)) : CUPTI_API_VERSION;
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiSetThreadIdType(CUpti_ActivityThreadIdType type) {
  std::lock_guard<std::mutex> lock(F.lock);
  F.threadIdType = type;
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiSubscribe_v2(CUpti_SubscriberHandle* subscriber, CUpti_CallbackFunc,
                                          void*, CUpti_SubscriberParams* params) {
  if (const char* holder = std::getenv("TSCOPE_FAKE_CUPTI_HOLDER")) {
    if (params && params->oldSubscriberName && params->oldSubscriberSize)
      std::snprintf(params->oldSubscriberName, params->oldSubscriberSize, "%s", holder);
    return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  }
  static int handle;
  *subscriber = reinterpret_cast<CUpti_SubscriberHandle>(&handle);
  return CUPTI_SUCCESS;
}

FAKE_EXPORT int InitializeInjectionNvtx2(const void* (*)(uint32_t)) {
  log("nvtx");
  return 1;
}

// The kernels launched in turn, as a training step launches a few kernels again and again (a
// capture's name columns then change from launch to launch, as real ones do).
const char* const kKernelNames[] = {
    "_Z6kernelv",
    "_ZN2at6native18elementwise_kernelEv",
    "_ZN2at6native29vectorized_elementwise_kernelEv",
    "_Z17sgemm_128x64_tn_kv",
    "_ZN2at6native13reduce_kernelEv",
    "_Z16softmax_warp_fwdv",
    "_Z16softmax_warp_bwdv",
    "_ZN2at6native24batch_norm_collect_statsEv",
    "_Z21cutlass_80_tensorop_gv",
    "_ZN2at6native19index_elementwise_kEv",
};

// The stand-in program's side: `count` kernel launches from the calling thread, each a kernel
// record on `stream` and its cudaLaunchKernel call; every 50th inside an NVTX range whose END
// goes to the global buffer (delivered first) and START to the thread's.
// The times keep what CUDA guarantees, so that the records are ones a GPU could give: a thread's
// calls follow one another (each lasts 500 ns: the loop waits for the last one's end), and a
// stream runs its kernels one at a time, each 1 µs and queued behind the one before (records that
// overlapped here once laid a stream's kernels out on several lanes, which no capture has).
FAKE_EXPORT void tscopeFakeKernels(uint32_t count, uint32_t stream) {
  std::lock_guard<std::mutex> lock(F.lock);
  std::vector<Buffer> out;
  Buffer& mine = F.perThread[tid()];
  uint64_t& callEnd = F.callEnd[tid()];
  uint64_t& streamEnd = F.streamEnd[stream];
  for (uint32_t i = 0; i < count; ++i) {
    const uint32_t id = ++F.correlation;
    uint64_t t = now();
    while (t < callEnd) t = now();
    callEnd = t + 500;
    if (F.enabled.count(CUPTI_ACTIVITY_KIND_RUNTIME)) {
      auto a = record<CUpti_ActivityAPI>(CUPTI_ACTIVITY_KIND_RUNTIME);
      a.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
      a.start = t, a.end = t + 500, a.correlationId = id;
      a.processId = static_cast<uint32_t>(::getpid());
      // Without cuptiSetThreadIdType(SYSTEM), CUPTI reports pthread_self(), cut to 32 bits.
      a.threadId = F.threadIdType == CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM
                       ? static_cast<uint32_t>(tid())
                       : static_cast<uint32_t>(::pthread_self());
      append(mine, &a, sizeof a, out);
    }
    if (F.enabled.count(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)) {
      auto k = record<CUpti_ActivityKernel10>(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
      k.start = std::max(t + 1000, streamEnd), k.end = k.start + 1000, streamEnd = k.end;
      k.deviceId = 0, k.contextId = 1, k.streamId = stream;
      k.correlationId = id, k.gridX = k.gridY = k.gridZ = 1, k.blockX = 128, k.blockY = 1;
      k.blockZ = 1, k.name = kKernelNames[id % std::size(kKernelNames)];
      append(mine, &k, sizeof k, out);
      ++F.produced;
    }
    if (id % 50 == 0 && F.enabled.count(CUPTI_ACTIVITY_KIND_MARKER)) {
      auto start = record<CUpti_ActivityMarker2>(CUPTI_ACTIVITY_KIND_MARKER);
      start.flags = CUPTI_ACTIVITY_FLAG_MARKER_START, start.timestamp = t, start.id = id;
      start.name = "step", start.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
      start.objectId.pt.processId = static_cast<uint32_t>(::getpid());
      start.objectId.pt.threadId = static_cast<uint32_t>(tid());
      auto end = start;
      end.flags = CUPTI_ACTIVITY_FLAG_MARKER_END, end.timestamp = t + 3000, end.name = nullptr;
      append(F.global, &end, sizeof end, out);
      append(mine, &start, sizeof start, out);
    }
  }
  toWorker(out);
}

FAKE_EXPORT uint64_t tscopeFakeProduced() {
  return F.produced.load();
}
