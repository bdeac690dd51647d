#include "util/isolated_call.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <new>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TS_UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define TS_UNDER_SANITIZER 1
#endif
#endif

namespace ts {

namespace {

// The child's records on the pipe: a kind byte, a 32-bit length, the bytes.
constexpr char kStage = 'S', kResult = 'R', kThrew = 'T', kNoMemory = 'M';

bool writeAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

void sendRecord(int fd, char kind, const std::string& bytes) {
  uint32_t size = static_cast<uint32_t>(bytes.size());
  char header[5];
  header[0] = kind;
  std::memcpy(header + 1, &size, sizeof size);
  // The parent gone (killed it, or died itself): nothing left to tell.
  if (!writeAll(fd, header, sizeof header) || !writeAll(fd, bytes.data(), bytes.size())) ::_exit(3);
}

#ifndef TS_UNDER_SANITIZER
// The address space in use now, from /proc (the limit is set above it).
int64_t addressSpaceInUse() {
  std::ifstream statm("/proc/self/statm");
  int64_t pages = 0;
  statm >> pages;
  return pages * ::sysconf(_SC_PAGESIZE);
}
#endif

[[noreturn]] void runChild(int fd, const std::function<std::string(const StageReporter&)>& work,
                           const IsolationLimits& limits) {
  // A crash is the child's answer, not a report for the caller's crash handlers or a core file.
  for (int sig : {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL}) ::signal(sig, SIG_DFL);
  ::signal(SIGPIPE, SIG_DFL);
  rlimit noCore{0, 0};
  ::setrlimit(RLIMIT_CORE, &noCore);
#ifndef TS_UNDER_SANITIZER
  if (limits.extraMemoryBytes > 0) {
    rlim_t cap = static_cast<rlim_t>(addressSpaceInUse() + limits.extraMemoryBytes);
    rlimit as{cap, cap};
    ::setrlimit(RLIMIT_AS, &as);
  }
#else
  (void)limits;
#endif
  try {
    std::string result = work([fd](const std::string& stage) { sendRecord(fd, kStage, stage); });
    sendRecord(fd, kResult, result);
  } catch (const std::bad_alloc&) {
    sendRecord(fd, kNoMemory, {});
  } catch (const std::exception& e) {
    sendRecord(fd, kThrew, e.what());
  } catch (...) {
    sendRecord(fd, kThrew, "an exception of unknown type");
  }
  ::_exit(0);  // no destructors, no exit handlers: they belong to the caller
}

}  // namespace

std::string IsolatedOutcome::describe() const {
  std::string what;
  switch (end) {
    case End::Finished:
      return "finished";
    case End::Threw:
      what = "failed: " + detail;
      break;
    case End::OutOfMemory:
      what = "ran out of the memory it may use";
      break;
    case End::Crashed:
      what = "crashed";
      if (signal > 0) {
        const char* name = ::strsignal(signal);
        what += std::string(" (") + (name ? name : "signal " + std::to_string(signal)) + ")";
      } else if (!detail.empty()) {
        what += " (" + detail + ")";
      }
      break;
    case End::TimedOut:
      what = "ran past its time limit (" + detail + ") and was stopped";
      break;
    case End::NoChild:
      return "could not be run in a separate process: " + detail;
  }
  if (!stage.empty()) what += " while " + stage;
  return what;
}

IsolatedOutcome runIsolated(const std::function<std::string(const StageReporter&)>& work,
                            const IsolationLimits& limits) {
  IsolatedOutcome out;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    out.detail = std::string("pipe: ") + std::strerror(errno);
    return out;
  }
  pid_t pid = ::fork();
  if (pid < 0) {
    out.detail = std::string("fork: ") + std::strerror(errno);
    ::close(fds[0]);
    ::close(fds[1]);
    return out;
  }
  if (pid == 0) {
    ::close(fds[0]);
    runChild(fds[1], work, limits);
  }
  ::close(fds[1]);

  std::string received;
  bool timedOut = false;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(limits.timeoutMs);
  char buffer[65536];
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
    if (left <= 0) {
      timedOut = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    int ready = ::poll(&p, 1, static_cast<int>(left));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) {
      timedOut = true;
      break;
    }
    ssize_t n = ::read(fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // end of file: the child is done, or dead
    received.append(buffer, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  if (timedOut) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }

  // The records the child managed to send, up to the first cut one.
  bool answered = false;
  for (size_t at = 0; at + 5 <= received.size();) {
    uint32_t size;
    std::memcpy(&size, received.data() + at + 1, sizeof size);
    if (at + 5 + size > received.size()) break;
    char kind = received[at];
    std::string bytes = received.substr(at + 5, size);
    at += 5 + size;
    if (kind == kStage) {
      out.stage = std::move(bytes);
    } else if (kind == kResult) {
      out.end = IsolatedOutcome::End::Finished;
      out.payload = std::move(bytes);
      answered = true;
    } else if (kind == kThrew) {
      out.end = IsolatedOutcome::End::Threw;
      out.detail = std::move(bytes);
      answered = true;
    } else if (kind == kNoMemory) {
      out.end = IsolatedOutcome::End::OutOfMemory;
      answered = true;
    }
  }
  if (timedOut) {
    out.end = IsolatedOutcome::End::TimedOut;
    out.detail = std::to_string(limits.timeoutMs / 1000) + " s";
    out.payload.clear();
  } else if (!answered) {
    out.end = IsolatedOutcome::End::Crashed;
    if (WIFSIGNALED(status))
      out.signal = WTERMSIG(status);
    else if (WIFEXITED(status))
      out.detail = "it exited with status " + std::to_string(WEXITSTATUS(status));
  }
  return out;
}

}  // namespace ts
