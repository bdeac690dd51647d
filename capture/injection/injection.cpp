// libtensorscope_inject: loaded into the captured program by the CUDA driver
// (CUDA_INJECTION64_PATH) during cuInit, which calls InitializeInjection. It enables CUPTI activity
// records, turns every completed buffer into wire frames (CuptiDecoder) and sends them to the
// launcher over the Unix socket named in TSCOPE_CAPTURE_SOCKET — one connection per process, so
// child processes that load it too arrive as streams of their own. No CUDA calls happen here (the
// driver forbids them during injection); CUPTI calls are allowed.
//
// Threads, and why: CUPTI calls bufferCompleted from its worker thread and from whichever
// application thread flushes, so the callback only decodes into a queue and never touches the
// socket — a slow launcher can never stop the training. A sender thread owns the writes; a
// listener answers the launcher's flush requests; a flusher hands back partial buffers about five
// times a second (CUPTI's own periodic flush returns only full ones, and keeps a buffer per
// thread, so without it the live view would stay empty until the program exits). No lock is held
// across a CUPTI call: CUPTI may deliver records on the calling thread (device records during
// cuInit) and would re-enter.
#include <pthread.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "capture/capture_kinds.h"
#include "capture/cupti_decoder.h"
#include "capture/injection/cupti_api.h"
#include "capture/wire_format.h"

namespace {

using namespace ts::capture;
using namespace std::chrono_literals;

constexpr size_t kBufferBytes = 4u << 20;  // CUPTI fills a few MiB per buffer
constexpr size_t kBufferAlign = 8;
constexpr size_t kChunkBytes = 1u << 20;             // frames are queued in chunks of about this
constexpr size_t kDefaultBacklogBytes = 256u << 20;  // beyond it, records are dropped and counted
constexpr auto kFlushInterval = 200ms;
constexpr auto kExitDrainWait = 5s;  // at exit, for the launcher to take what is queued

enum class Phase { Off, Recording, Finished };

// Everything a callback or one of our threads touches. Allocated once and never destroyed: CUPTI's
// worker may deliver a buffer while exit() destroys statics. Lock order, where nested:
// decodeLock → queueLock → buffersLock.
struct State {
  const CuptiApi* cupti = nullptr;
  std::atomic<Phase> phase{Phase::Off};
  std::atomic<bool> disarmed{false};  // a fork() child: the stream and the threads are the parent's
  std::vector<CUpti_ActivityKind> enabled;

  std::mutex decodeLock;  // the writer and the decoder
  FrameWriter writer;
  CuptiDecoder* decoder = nullptr;

  std::mutex queueLock;  // frames waiting for the sender
  std::condition_variable queueChanged;
  std::deque<std::string> queue;
  size_t queuedBytes = 0, backlogLimit = kDefaultBacklogBytes;
  uint64_t backlogDropped = 0;  // records dropped since the last Dropped frame about them
  bool ended = false;           // End is queued (or the launcher is gone): nothing more is queued
  bool senderDone = false;

  std::mutex buffersLock;  // CUPTI buffers given back, reused
  std::vector<uint8_t*> freeBuffers;

  int socket = -1;
  std::atomic<int> socketUsers{0};  // the sender and the listener: the last one out closes it

  std::mutex flushLock;
  std::condition_variable flushWake;
  bool stopFlusher = false;
  bool flusherRunning = false;
};

State& S = *new State;

std::string cuptiError(CUptiResult r) {
  const char* text = nullptr;
  if (S.cupti) S.cupti->getResultString(r, &text);
  return text ? text : "CUPTI error " + std::to_string(static_cast<int>(r));
}

// Queues a chunk of frames for the sender; never waits for the socket. Past the backlog limit the
// chunk's records are counted instead, and the count goes out with the next chunk that fits.
// `force`: End and FlushDone, which are tiny and must not be lost.
void enqueue(std::string bytes, uint64_t records, bool force = false) {
  if (bytes.empty()) return;
  std::lock_guard<std::mutex> lock(S.queueLock);
  if (S.ended || S.disarmed) return;
  if (!force && S.queuedBytes + bytes.size() > S.backlogLimit) {
    S.backlogDropped += records;
    return;
  }
  if (S.backlogDropped) {
    FrameWriter w;
    CountFrame f;
    f.count = S.backlogDropped;
    f.detail = static_cast<uint32_t>(DropCause::Backlog);
    w.begin(FrameType::Dropped, f).end();
    S.backlogDropped = 0;
    bytes.insert(0, w.bytes());
  }
  S.queuedBytes += bytes.size();
  S.queue.push_back(std::move(bytes));
  S.queueChanged.notify_all();
}

// What the writer holds, queued. Called with decodeLock held.
void queueWriter(uint64_t records, bool force = false) {
  enqueue(S.writer.take(), records, force);
}

// The last frame of the stream: nothing is queued after it.
void queueEnd() {
  std::lock_guard<std::mutex> lock(S.decodeLock);
  S.writer.begin(FrameType::End).end();
  queueWriter(0, true);
  std::lock_guard<std::mutex> q(S.queueLock);
  S.ended = true;
  S.queueChanged.notify_all();
}

void releaseSocket() {
  if (S.socketUsers.fetch_sub(1) == 1) ::close(S.socket);
}

bool sendAll(const std::string& bytes) {
  size_t sent = 0;
  while (sent < bytes.size()) {
    ssize_t n = ::send(S.socket, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    sent += static_cast<size_t>(n);
  }
  return true;
}

// The sender: the only thread that writes to the socket. Ends after End, or when the launcher is
// gone (the program carries on, unrecorded).
void sendLoop() {
  for (;;) {
    std::string chunk;
    {
      std::unique_lock<std::mutex> lock(S.queueLock);
      S.queueChanged.wait(lock, [] { return !S.queue.empty() || S.ended; });
      if (S.queue.empty()) break;
      chunk = std::move(S.queue.front());
      S.queue.pop_front();
    }
    const bool ok = sendAll(chunk);
    std::lock_guard<std::mutex> lock(S.queueLock);
    S.queuedBytes -= chunk.size();
    if (!ok) {
      S.ended = true;
      S.queuedBytes = 0;
      S.queue.clear();
      break;
    }
  }
  {
    std::lock_guard<std::mutex> lock(S.queueLock);
    S.senderDone = true;
    S.queueChanged.notify_all();
  }
  ::shutdown(S.socket, SHUT_RDWR);  // wakes the listener
  releaseSocket();
}

// Answers a flush request: what CUPTI holds, then FlushDone behind it. cuptiActivityFlushAll is
// blocking: the buffers it hands back have been decoded and queued when it returns.
void answerFlush() {
  if (S.phase == Phase::Recording) S.cupti->activityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::lock_guard<std::mutex> lock(S.decodeLock);
  S.writer.begin(FrameType::FlushDone).end();
  queueWriter(0, true);
}

// The launcher's requests (one byte, kFlushRequest), until it hangs up or the sender shuts the
// socket down.
void listenLoop() {
  for (;;) {
    char request = 0;
    ssize_t n = ::recv(S.socket, &request, 1, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    if (request == kFlushRequest) answerFlush();
  }
  releaseSocket();
}

// Hands back partial buffers now and then, for the live view.
void flushLoop() {
  std::unique_lock<std::mutex> lock(S.flushLock);
  while (!S.stopFlusher) {
    S.flushWake.wait_for(lock, kFlushInterval);
    if (S.stopFlusher) break;
    lock.unlock();
    if (S.phase == Phase::Recording && !S.disarmed) S.cupti->activityFlushAll(0);
    lock.lock();
  }
  S.flusherRunning = false;
  S.flushWake.notify_all();
}

// Stops the flusher and waits (a while) for it to leave a flush it is in, so that no call of ours
// into CUPTI outlives finish(): what exit() destroys after it may be CUPTI's own.
void stopFlusher() {
  std::unique_lock<std::mutex> lock(S.flushLock);
  S.stopFlusher = true;
  S.flushWake.notify_all();
  S.flushWake.wait_for(lock, 2s, [] { return !S.flusherRunning; });
}

void CUPTIAPI bufferRequested(uint8_t** buffer, size_t* size, size_t* maxNumRecords) {
  uint8_t* b = nullptr;
  {
    std::lock_guard<std::mutex> lock(S.buffersLock);
    if (!S.freeBuffers.empty()) {
      b = S.freeBuffers.back();
      S.freeBuffers.pop_back();
    }
  }
  if (!b) b = static_cast<uint8_t*>(std::aligned_alloc(kBufferAlign, kBufferBytes));
  *buffer = b;
  *size = b ? kBufferBytes : 0;
  *maxNumRecords = 0;
}

bool inside(const uint8_t* buffer, size_t size, const void* p) {
  auto* at = static_cast<const uint8_t*>(p);
  return at >= buffer && at < buffer + size;
}

void countFrame(FrameType type, uint64_t count, uint32_t detail) {
  if (!count) return;
  CountFrame f;
  f.count = count;
  f.detail = detail;
  S.writer.begin(type, f).end();
}

// Decodes one completed buffer into the queue (while recording; late buffers after End, and a
// fork child's, are only walked to free what CUPTI allocated for us). A record CUPTI cannot read
// is counted and skipped when CUPTI moved past it; when it did not, the rest of the buffer cannot
// be walked and the count says one.
void CUPTIAPI bufferCompleted(CUcontext context, uint32_t streamId, uint8_t* buffer, size_t,
                              size_t validSize) {
  {
    std::lock_guard<std::mutex> lock(S.decodeLock);
    const bool keep = S.phase == Phase::Recording && !S.disarmed;
    uint64_t records = 0, unreadable = 0;
    CUpti_Activity* record = nullptr;
    for (;;) {
      CUpti_Activity* previous = record;
      CUptiResult r = S.cupti->activityGetNextRecord(buffer, validSize, &record);
      if (r == CUPTI_ERROR_MAX_LIMIT_REACHED) break;
      if (r != CUPTI_SUCCESS) {
        ++unreadable;
        if (record && record > previous && inside(buffer, validSize, record)) continue;
        break;
      }
      if (keep) {
        S.decoder->decode(record);
        ++records;
      }
      releaseClientMemory(record);
      if (keep && S.writer.bytes().size() > kChunkBytes) {
        queueWriter(records);
        records = 0;
      }
    }
    if (keep) {
      size_t dropped = 0;
      if (S.cupti->activityGetNumDroppedRecords(context, streamId, &dropped) == CUPTI_SUCCESS)
        countFrame(FrameType::Dropped, dropped, static_cast<uint32_t>(DropCause::Cupti));
      countFrame(FrameType::Dropped, unreadable, static_cast<uint32_t>(DropCause::Unreadable));
      uint32_t kind = 0;
      const uint64_t unknown = S.decoder->takeUnknown(kind);
      countFrame(FrameType::Unknown, unknown, kind);
      queueWriter(records);
    }
  }
  std::lock_guard<std::mutex> lock(S.buffersLock);
  S.freeBuffers.push_back(buffer);
}

// At exit: what CUPTI still holds, then End so the launcher knows nothing was lost, then a moment
// for the sender to hand it over (also when CUPTI never started: the message saying why is still
// queued). Records CUPTI delivers after this are walked and dropped.
void finish() {
  if (S.disarmed) return;
  if (S.phase == Phase::Recording) {
    stopFlusher();
    S.cupti->activityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    for (CUpti_ActivityKind k : S.enabled) S.cupti->activityDisable(k);
    S.cupti->activityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);  // what came in meanwhile
    {
      std::lock_guard<std::mutex> lock(S.decodeLock);
      S.phase = Phase::Finished;
    }
    queueEnd();
  }
  std::unique_lock<std::mutex> lock(S.queueLock);
  if (S.ended) S.queueChanged.wait_for(lock, kExitDrainWait, [] { return S.senderDone; });
}

// fork() without exec (data-loader workers): the child inherits the socket, the atexit handler
// and perhaps a lock another thread held. Our locks are taken across the fork so none is copied
// held; the child then owns nothing: its copy of the socket is closed (the parent's stream is
// untouched) and its exit sends nothing.
void beforeFork() {
  S.decodeLock.lock();
  S.queueLock.lock();
  S.buffersLock.lock();
}
void afterForkInParent() {
  S.buffersLock.unlock();
  S.queueLock.unlock();
  S.decodeLock.unlock();
}
void afterForkInChild() {
  S.disarmed = true;
  S.ended = true;
  S.queue.clear();
  S.queuedBytes = 0;
  S.buffersLock.unlock();
  S.queueLock.unlock();
  S.decodeLock.unlock();
  if (S.socket >= 0) ::close(S.socket);
  S.socket = -1;
}

int rankFromEnvironment() {
  for (const char* name : {"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID"}) {
    if (const char* v = std::getenv(name); v && *v) return std::atoi(v);
  }
  return -1;
}

std::string commandLine() {
  std::ifstream f("/proc/self/cmdline", std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(f)), {});
  for (char& c : text) {
    if (c == '\0') c = ' ';
  }
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

std::string callbackName(bool driver, uint32_t cbid) {
  const char* name = nullptr;
  CUptiResult r = S.cupti->getCallbackName(
      driver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API, cbid, &name);
  return r == CUPTI_SUCCESS && name ? name : "";
}

void message(const std::string& text) {
  std::lock_guard<std::mutex> lock(S.decodeLock);
  S.writer.begin(FrameType::Message).string(text).end();
  queueWriter(0, true);
}

// finish() as exit()'s handler. exit() runs its handlers and destroys static objects in the
// reverse order they were registered, so this is called only once CUPTI is loaded and started:
// a program that had not loaded CUPTI itself (a plain CUDA program, unlike PyTorch) gets CUPTI's
// statics when we load it, and a handler registered before that would flush into a CUPTI already
// torn down (seen on a GPU: SIGSEGV at exit, the last records lost). A client linked against
// libcupti never meets this: the loader made CUPTI's statics before any handler of the client.
void finishAtExit() {
  std::atexit(finish);
}

// CUPTI cannot record this process: say why, then End, so the capture is complete (not marked
// incomplete) and the launcher stops waiting for this connection.
int giveUp(const std::string& why) {
  message(why);
  queueEnd();
  finishAtExit();  // nothing to flush: it waits for the sender to hand the message over
  return 1;        // InitializeInjection's value: the program runs on, unprofiled
}

// Subscribing is what cupti_callbacks.h asks of every client before it starts: it fails when
// another profiler (an in-process torch.profiler, Nsight) holds CUPTI, and names that profiler.
CUptiResult subscribe(std::string* holder) {
  static CUpti_SubscriberHandle subscriber = nullptr;
  char old[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 1] = {};
  CUpti_SubscriberParams params{};
  params.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
  params.subscriberName = "Tensorscope";
  params.oldSubscriberName = old;
  params.oldSubscriberSize = sizeof old - 1;
  CUptiResult r = S.cupti->subscribe(
      &subscriber, [](void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}, nullptr,
      &params);
  *holder = old;
  return r;
}

// The kinds the launcher asked for (TSCOPE_CAPTURE_KINDS), and those always on: what the others
// refer to, and what costs the program time.
std::vector<CUpti_ActivityKind> wantedKinds() {
  const char* env = std::getenv("TSCOPE_CAPTURE_KINDS");
  const std::string kinds = env ? env : "";
  struct Kind {
    const char* name;
    CUpti_ActivityKind kind;
  };
  const Kind table[] = {
      {"kernel", CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL},
      {"memcpy", CUPTI_ACTIVITY_KIND_MEMCPY},
      {"memcpy", CUPTI_ACTIVITY_KIND_MEMCPY2},
      {"memset", CUPTI_ACTIVITY_KIND_MEMSET},
      {"runtime", CUPTI_ACTIVITY_KIND_RUNTIME},
      {"driver", CUPTI_ACTIVITY_KIND_DRIVER},
      {"nvtx", CUPTI_ACTIVITY_KIND_MARKER},
      {"sync", CUPTI_ACTIVITY_KIND_SYNCHRONIZATION},
      {"memory", CUPTI_ACTIVITY_KIND_MEMORY2},
  };
  std::vector<CUpti_ActivityKind> out = {CUPTI_ACTIVITY_KIND_DEVICE, CUPTI_ACTIVITY_KIND_CONTEXT,
                                         CUPTI_ACTIVITY_KIND_STREAM, CUPTI_ACTIVITY_KIND_OVERHEAD};
  for (const Kind& k : table) {
    if (captureKindWanted(kinds, k.name)) out.push_back(k.kind);
  }
  return out;
}

// Subscribes, sets CUPTI up and enables the kinds; the reason when CUPTI refuses.
std::string startCupti() {
  std::string holder;
  CUptiResult r = subscribe(&holder);
  if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
    return (holder.empty() ? std::string("another profiler") : holder) +
           " is already profiling this process (CUPTI allows one profiler at a time); "
           "Tensorscope records nothing from it";
  }
  if (r != CUPTI_SUCCESS) return "CUPTI could not start: " + cuptiError(r);
  // OS thread ids (gettid), as /proc, Nsight Systems and PyTorch show them, not pthread_self().
  if (CUptiResult t = S.cupti->setThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
      t != CUPTI_SUCCESS) {
    message("CPU thread ids are CUPTI's own, not the system's: " + cuptiError(t));
  }
  // Only synchronisations that waited for something: a polling cudaEventQuery loop would
  // otherwise flood the record stream with failed queries.
  S.cupti->activityEnableAllSyncRecords(0);
  r = S.cupti->activityRegisterCallbacks(bufferRequested, bufferCompleted);
  if (r != CUPTI_SUCCESS) return "CUPTI could not start: " + cuptiError(r);
  S.phase = Phase::Recording;  // device records may be delivered while the kinds are enabled
  for (CUpti_ActivityKind k : wantedKinds()) {
    r = S.cupti->activityEnable(k);
    if (r == CUPTI_SUCCESS) {
      S.enabled.push_back(k);
    } else if (r != CUPTI_ERROR_NOT_COMPATIBLE) {
      for (CUpti_ActivityKind e : S.enabled) S.cupti->activityDisable(e);
      S.phase = Phase::Off;
      return "CUPTI could not start: " + cuptiError(r);
    }
  }
  return "";
}

// Connects to the launcher; -1 when none listens (the program then runs untouched).
int connectToLauncher(const char* path) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  if (fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) return fd;
  if (fd >= 0) ::close(fd);
  return -1;
}

void sayHello(const CuptiApi* cupti) {
  HelloFrame hello;
  hello.pid = static_cast<int32_t>(::getpid());
  hello.ppid = static_cast<int32_t>(::getppid());
  hello.rank = rankFromEnvironment();
  hello.cuptiBuiltVersion = CUPTI_API_VERSION;
  uint64_t now = 0;
  if (cupti) {
    hello.cuptiVersion = cupti->version;
    cupti->getTimestamp(&now);
  } else {
    timespec ts{};  // CUPTI's timestamps are CLOCK_REALTIME too
    ::clock_gettime(CLOCK_REALTIME, &ts);
    now = static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
  }
  hello.clockStartNs = static_cast<int64_t>(now);
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  std::lock_guard<std::mutex> lock(S.decodeLock);
  S.writer.begin(FrameType::Hello, hello).string(host).string(commandLine()).end();
  queueWriter(0, true);
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  static std::atomic<bool> once{false};
  const char* path = std::getenv("TSCOPE_CAPTURE_SOCKET");
  if (!path || !*path || once.exchange(true)) return 1;
  const int fd = connectToLauncher(path);
  if (fd < 0) return 1;
  S.socket = fd;
  S.socketUsers = 2;
  if (const char* mb = std::getenv("TSCOPE_CAPTURE_BACKLOG_MB"); mb && std::atoll(mb) > 0)
    S.backlogLimit = static_cast<size_t>(std::atoll(mb)) << 20;
  std::thread(sendLoop).detach();
  std::thread(listenLoop).detach();
  ::pthread_atfork(beforeFork, afterForkInParent, afterForkInChild);

  std::string loadError;
  S.cupti = loadCupti(TSCOPE_CUPTI_SONAME, &loadError);
  sayHello(S.cupti);
  if (!S.cupti) return giveUp("CUPTI could not start: " + loadError);
  if (!S.cupti->versionNote.empty()) message(S.cupti->versionNote);
  S.decoder = new CuptiDecoder(S.writer, callbackName);  // never destroyed, as S
  if (std::string why = startCupti(); !why.empty()) return giveUp(why);
  S.flusherRunning = true;
  std::thread(flushLoop).detach();
  finishAtExit();
  return 1;
}

// NVTX's injection entry point. The launcher points NVTX_INJECTION64_PATH here rather than at a
// libcupti path fixed when Tensorscope was built: the call goes to the CUPTI this process records
// with (PyTorch's own, when it loaded one), not to a second copy that would see nothing.
extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(
    const void* (*getExportTable)(uint32_t)) {
  std::string error;
  const CuptiApi* cupti = loadCupti(TSCOPE_CUPTI_SONAME, &error);
  if (!cupti || !cupti->initializeNvtx) return 0;  // NVTX then stays a no-op
  return cupti->initializeNvtx(getExportTable);
}
