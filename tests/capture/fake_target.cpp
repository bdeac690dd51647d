// Stands in for a CUDA program in the launcher tests.
//   fake_target [fork] CODE        loads the injection library named in CUDA_INJECTION64_PATH and
//                                  calls InitializeInjection, as the CUDA driver does during cuInit
//                                  (CUPTI then finds no GPU and says so); "fork": a child does too
//   fake_target frames B K CODE    plays a GPU program's record stream itself: B batches of K
//                                  kernels, 0.4 s apart, then End — what the live view shows
//   fake_target crash B K          the same, then dies inside a record (no End)
#include <dlfcn.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

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

}  // namespace

int main(int argc, char** argv) {
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
