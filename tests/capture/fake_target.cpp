// Stands in for a CUDA program in the launcher tests.
//   fake_target [fork] CODE        loads the injection library named in CUDA_INJECTION64_PATH and
//                                  calls InitializeInjection, as the CUDA driver does during cuInit
//                                  (CUPTI then finds no GPU and says so); "fork": a child does too
//   fake_target frames B K CODE    plays a GPU program's record stream itself: B batches of K
//                                  kernels, 0.4 s apart, then End — what the live view shows
//   fake_target crash B K          the same, then dies inside a record (no End)
//   fake_target cupti T B K MS [fork] [forever]
//                                  with the fake CUPTI (tests/capture/fake_cupti.cpp) as
//                                  TSCOPE_CUPTI_LIBRARY: T threads launch B batches of K kernels,
//                                  MS ms apart (forever: until terminated); "fork": a child is
//                                  forked in the middle and exits through exit(); the fake's log
//                                  gets each thread's id and the kernels produced
//   fake_target nvtx               calls the injection library's NVTX entry point
#include <dlfcn.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "capture/wire_format.h"

namespace {

void inject() {
  const char* path = std::getenv("CUDA_INJECTION64_PATH");
  if (!path) return;
  void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    std::fprintf(stderr, "fake_target: %s\n", dlerror());
    return;
  }
  auto init = reinterpret_cast<int (*)()>(dlsym(lib, "InitializeInjection"));
  if (init) init();
}

void sendAll(int fd, const std::string& bytes) {
  for (size_t sent = 0; sent < bytes.size();) {
    ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) std::exit(3);
    sent += static_cast<size_t>(n);
  }
}

int playFrames(int batches, int kernels, bool crash) {
  using namespace ts::capture;
  const char* path = std::getenv("TSCOPE_CAPTURE_SOCKET");
  if (!path) return 4;
  int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return 5;
  FrameWriter w;
  HelloFrame hello;
  hello.pid = ::getpid();
  hello.rank = std::getenv("RANK") ? std::atoi(std::getenv("RANK")) : -1;
  w.begin(FrameType::Hello, hello).string("fakehost").string("fake_target frames").end();
  DeviceFrame device;
  device.smCount = 108;
  w.begin(FrameType::Device, device).string("Fake GPU").string("00").end();
  ContextFrame context;
  context.contextId = 1;
  w.begin(FrameType::Context, context).end();
  sendAll(fd, w.bytes());
  int64_t t = 1'000'000'000;
  for (int b = 0; b < batches; ++b) {
    w.clear();
    for (int k = 0; k < kernels; ++k, t += 10'000) {
      KernelFrame f;
      f.start = t, f.end = t + 8'000, f.contextId = 1, f.streamId = 7,
      f.correlationId = static_cast<uint32_t>(b * kernels + k + 1);
      f.gridX = f.gridY = f.gridZ = 1, f.blockX = 128, f.blockY = f.blockZ = 1;
      w.begin(FrameType::Kernel, f).string(k % 2 ? "_Z4gemmv" : "_Z4reluv").end();
    }
    sendAll(fd, w.bytes());
    ::usleep(400'000);
  }
  w.clear();
  if (crash) {
    KernelFrame f;
    w.begin(FrameType::Kernel, f).string("_Z4lostv").end();
    sendAll(fd, w.bytes().substr(0, w.bytes().size() / 2));  // dies inside a record
    ::kill(::getpid(), SIGKILL);                             // killed, as by the OOM killer
  }
  w.begin(FrameType::End).end();
  sendAll(fd, w.bytes());
  ::close(fd);
  return 0;
}

void logLine(const std::string& line) {
  static std::mutex lock;
  std::lock_guard<std::mutex> guard(lock);
  if (const char* path = std::getenv("TSCOPE_FAKE_CUPTI_LOG")) {
    if (FILE* f = std::fopen(path, "a")) {
      std::fprintf(f, "%s\n", line.c_str());
      std::fclose(f);
    }
  }
}

void* fakeCupti(const char* symbol) {
  const char* path = std::getenv("TSCOPE_CUPTI_LIBRARY");
  void* lib = path ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : nullptr;
  void* fn = lib ? dlsym(lib, symbol) : nullptr;
  if (!fn) {
    std::fprintf(stderr, "fake_target: the fake CUPTI (%s) is not loaded\n", path ? path : "-");
    std::exit(6);
  }
  return fn;
}

// The injection is initialised as the driver does, then threads launch kernels into the fake.
int playCupti(int argc, char** argv) {
  const int threads = std::atoi(argv[2]), batches = std::atoi(argv[3]),
            perBatch = std::atoi(argv[4]), gapMs = std::atoi(argv[5]);
  bool forkChild = false, forever = false;
  for (int i = 6; i < argc; ++i) {
    forkChild |= std::strcmp(argv[i], "fork") == 0;
    forever |= std::strcmp(argv[i], "forever") == 0;
  }
  inject();
  auto kernels = reinterpret_cast<void (*)(uint32_t, uint32_t)>(fakeCupti("tscopeFakeKernels"));
  auto produced = reinterpret_cast<uint64_t (*)()>(fakeCupti("tscopeFakeProduced"));
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([=] {
      logLine("tid " + std::to_string(::syscall(SYS_gettid)));
      for (int b = 0; forever || b < batches; ++b) {
        kernels(static_cast<uint32_t>(perBatch), static_cast<uint32_t>(7 + t));
        ::usleep(static_cast<useconds_t>(gapMs) * 1000);
      }
    });
  }
  if (forkChild) {
    ::usleep(static_cast<useconds_t>(gapMs) * 1000 * static_cast<useconds_t>(batches) / 2);
    pid_t child = fork();
    if (child == 0) {
      ::usleep(50'000);
      std::exit(0);  // through the atexit handlers, as a data-loader worker ends
    }
    int status = 0;
    waitpid(child, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return 7;
  }
  for (std::thread& t : pool) t.join();
  logLine("produced " + std::to_string(produced()));
  return 0;
}

int callNvtxEntry() {
  const char* path = std::getenv("CUDA_INJECTION64_PATH");
  void* lib = path ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : nullptr;
  auto init = lib ? reinterpret_cast<int (*)(const void* (*)(uint32_t))>(
                        dlsym(lib, "InitializeInjectionNvtx2"))
                  : nullptr;
  if (!init) return 8;
  return init([](uint32_t) -> const void* { return nullptr; }) == 1 ? 0 : 9;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 6 && std::strcmp(argv[1], "cupti") == 0) return playCupti(argc, argv);
  if (argc == 2 && std::strcmp(argv[1], "nvtx") == 0) return callNvtxEntry();
  if (argc >= 4 && (std::strcmp(argv[1], "frames") == 0 || std::strcmp(argv[1], "crash") == 0)) {
    int played =
        playFrames(std::atoi(argv[2]), std::atoi(argv[3]), std::strcmp(argv[1], "crash") == 0);
    if (played != 0) return played;
    return argc > 4 ? std::atoi(argv[4]) : 0;
  }
  bool forkChild = argc > 1 && std::strcmp(argv[1], "fork") == 0;
  if (forkChild) {
    pid_t child = fork();
    if (child == 0) {
      inject();
      std::exit(0);
    }
    inject();
    waitpid(child, nullptr, 0);
  } else {
    inject();
  }
  std::printf("fake target done\n");
  return argc > 1 ? std::atoi(argv[argc - 1]) : 0;
}
