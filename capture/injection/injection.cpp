// libtensorscope_inject: loaded into the captured program by the CUDA driver
// (CUDA_INJECTION64_PATH) during cuInit, which calls InitializeInjection. It enables CUPTI activity
// records, turns every completed buffer into wire frames (CuptiDecoder) and sends them to the
// launcher over the Unix socket named in TSCOPE_CAPTURE_SOCKET — one connection per process, so
// child processes that load it too arrive as streams of their own. No CUDA calls happen here (the
// driver forbids them during injection); CUPTI calls are allowed.
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "capture/capture_kinds.h"
#include "capture/cupti_decoder.h"
#include "capture/injection/cupti_api.h"
#include "capture/wire_format.h"

namespace {

using namespace ts::capture;

constexpr size_t kBufferBytes = 4u << 20;  // CUPTI fills a few MiB per buffer
constexpr size_t kBufferAlign = 8;

std::mutex gLock;  // guards the socket, the writer and the decoder
int gSocket = -1;
FrameWriter gWriter;
CuptiDecoder* gDecoder = nullptr;
std::vector<uint8_t*> gFree;  // buffers CUPTI gave back, reused
std::atomic<bool> gActive{false};
const CuptiApi* gCupti = nullptr;  // set before any CUPTI callback can run

// Sends every byte, or gives up for good (the launcher is gone: the program carries on).
void sendAll(const std::string& bytes) {
  size_t sent = 0;
  while (gSocket >= 0 && sent < bytes.size()) {
    ssize_t n = ::send(gSocket, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(gSocket);
      gSocket = -1;
      gActive = false;
      return;
    }
    sent += static_cast<size_t>(n);
  }
}

void flushWriter() {
  if (gWriter.bytes().empty()) return;
  sendAll(gWriter.bytes());
  gWriter.clear();
}

void message(const std::string& text) {
  gWriter.begin(FrameType::Message).string(text).end();
}

std::string cuptiError(CUptiResult r) {
  const char* text = nullptr;
  gCupti->getResultString(r, &text);
  return text ? text : "CUPTI error " + std::to_string(static_cast<int>(r));
}

void CUPTIAPI bufferRequested(uint8_t** buffer, size_t* size, size_t* maxNumRecords) {
  std::lock_guard<std::mutex> lock(gLock);
  if (!gFree.empty()) {
    *buffer = gFree.back();
    gFree.pop_back();
  } else {
    *buffer = static_cast<uint8_t*>(std::aligned_alloc(kBufferAlign, kBufferBytes));
  }
  *size = *buffer ? kBufferBytes : 0;
  *maxNumRecords = 0;
}

void CUPTIAPI bufferCompleted(CUcontext context, uint32_t streamId, uint8_t* buffer, size_t,
                              size_t validSize) {
  std::lock_guard<std::mutex> lock(gLock);
  CUpti_Activity* record = nullptr;
  while (gCupti->activityGetNextRecord(buffer, validSize, &record) == CUPTI_SUCCESS) {
    if (gDecoder) gDecoder->decode(record);
    if (gWriter.bytes().size() > (1u << 20)) flushWriter();
  }
  size_t dropped = 0;
  if (gCupti->activityGetNumDroppedRecords(context, streamId, &dropped) == CUPTI_SUCCESS &&
      dropped > 0) {
    CountFrame f;
    f.count = dropped;
    gWriter.begin(FrameType::Dropped, f).end();
  }
  uint32_t kind = 0;
  if (uint64_t unknown = gDecoder ? gDecoder->takeUnknown(kind) : 0) {
    CountFrame f;
    f.count = unknown;
    f.detail = kind;
    gWriter.begin(FrameType::Unknown, f).end();
  }
  flushWriter();
  gFree.push_back(buffer);
}

// At exit: everything CUPTI still holds, then End so the launcher knows nothing was lost.
void finish() {
  if (!gActive.exchange(false)) return;
  gCupti->activityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::lock_guard<std::mutex> lock(gLock);
  gWriter.begin(FrameType::End).end();
  flushWriter();
  if (gSocket >= 0) ::close(gSocket);
  gSocket = -1;
}

// The launcher asks for a flush before it stops a capture (one byte, kFlushRequest, on the
// socket): records still in CUPTI's buffers are sent before the program is asked to exit.
void listenForFlush() {
  std::thread([] {
    for (;;) {
      char request = 0;
      int fd = gSocket;
      if (fd < 0) return;
      ssize_t n = ::recv(fd, &request, 1, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;  // the launcher closed its end
      if (request == kFlushRequest && gActive)
        gCupti->activityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    }
  }).detach();
}

// Who else holds CUPTI: the injection libraries of the Nsight tools are in the process.
std::string otherProfiler() {
  std::ifstream maps("/proc/self/maps");
  std::string text((std::istreambuf_iterator<char>(maps)), {});
  if (text.find("ToolsInjection") != std::string::npos ||
      std::getenv("NSYS_PROFILING_SESSION_ID")) {
    return "Nsight Systems";
  }
  if (text.find("TreeLauncher") != std::string::npos ||
      text.find("InterceptorInjection") != std::string::npos) {
    return "Nsight Compute";
  }
  return "another CUDA profiler";
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
  CUptiResult r = gCupti->getCallbackName(
      driver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API, cbid, &name);
  return r == CUPTI_SUCCESS && name ? name : "";
}

// CUPTI cannot record this process: say why, then End, so the capture is complete (not marked
// incomplete) and the launcher stops waiting for this connection. Called with gLock held.
int giveUp(const std::string& why) {
  message(why);
  gWriter.begin(FrameType::End).end();
  flushWriter();
  ::close(gSocket);
  gSocket = -1;
  return 1;  // InitializeInjection's value: the program runs on, unprofiled
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  const char* path = std::getenv("TSCOPE_CAPTURE_SOCKET");
  if (!path || !*path || gActive) return 1;
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    if (fd >= 0) ::close(fd);
    return 1;  // no launcher listening: run the program untouched
  }
  std::lock_guard<std::mutex> lock(gLock);
  gSocket = fd;
  HelloFrame hello;
  hello.pid = static_cast<int32_t>(::getpid());
  hello.ppid = static_cast<int32_t>(::getppid());
  hello.rank = rankFromEnvironment();
  std::string loadError;
  gCupti = loadCupti(TSCOPE_CUPTI_SONAME, &loadError);
  uint64_t now = 0;
  if (gCupti) {
    gCupti->getVersion(&hello.cuptiVersion);
    gCupti->getTimestamp(&now);
  } else {
    timespec ts{};  // CUPTI's timestamps are CLOCK_REALTIME too
    ::clock_gettime(CLOCK_REALTIME, &ts);
    now = static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
  }
  hello.clockStartNs = static_cast<int64_t>(now);
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  gWriter.begin(FrameType::Hello, hello).string(host).string(commandLine()).end();
  if (!gCupti) return giveUp("CUPTI could not start: " + loadError);
  static CuptiDecoder decoder(gWriter, callbackName);
  gDecoder = &decoder;

  const std::string kinds =
      std::getenv("TSCOPE_CAPTURE_KINDS") ? std::getenv("TSCOPE_CAPTURE_KINDS") : "";
  CUptiResult r = gCupti->activityRegisterCallbacks(bufferRequested, bufferCompleted);
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
  };
  // Always on: what the others refer to, and what costs the program time.
  const CUpti_ActivityKind always[] = {
      CUPTI_ACTIVITY_KIND_DEVICE, CUPTI_ACTIVITY_KIND_CONTEXT, CUPTI_ACTIVITY_KIND_STREAM,
      CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, CUPTI_ACTIVITY_KIND_OVERHEAD};
  for (const Kind& k : table) {
    if (r != CUPTI_SUCCESS || !ts::capture::captureKindWanted(kinds, k.name)) continue;
    r = gCupti->activityEnable(k.kind);
  }
  for (CUpti_ActivityKind k : always) {
    if (r == CUPTI_SUCCESS) {
      CUptiResult e = gCupti->activityEnable(k);
      if (e != CUPTI_SUCCESS && e != CUPTI_ERROR_NOT_COMPATIBLE) r = e;
    }
  }
  if (r != CUPTI_SUCCESS) {
    return giveUp(r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
                      ? otherProfiler() +
                            " is already profiling this process (CUPTI allows one profiler at a "
                            "time); Tensorscope records nothing from it"
                      : "CUPTI could not start: " + cuptiError(r));
  }
  gCupti->activityFlushPeriod(100);  // ms: the live view updates about ten times a second
  gActive = true;
  std::atexit(finish);
  flushWriter();
  listenForFlush();
  return 1;
}
