#include "capture/launcher.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>

#include "capture/record_sink.h"
#include "capture/wire_format.h"
#include "io/open_session.h"
#include "util/version.h"

namespace ts::capture {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

std::string hostName() {
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  return host;
}

int rankFromEnvironment() {
  for (const char* name : {"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID"}) {
    if (const char* v = std::getenv(name); v && *v) return std::atoi(v);
  }
  return 0;
}

// The program's path: as given when it has a '/', else the first match on PATH.
std::string resolveProgram(const std::string& name) {
  if (name.find('/') != std::string::npos) return ::access(name.c_str(), X_OK) == 0 ? name : "";
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t from = 0;
  while (from <= dirs.size()) {
    size_t colon = dirs.find(':', from);
    std::string dir =
        dirs.substr(from, colon == std::string::npos ? std::string::npos : colon - from);
    std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + name;
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        ::access(candidate.c_str(), X_OK) == 0)
      return candidate;
    if (colon == std::string::npos) break;
    from = colon + 1;
  }
  return "";
}

// Can a file be created beside `output`? Checked before the program starts.
Status checkWritable(const std::string& output) {
  fs::path dir = fs::path(output).parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return Error{output + ": the directory " + dir.string() + " does not exist"};
  std::string probe = (dir / (".tscope-probe-" + std::to_string(::getpid()))).string();
  int fd = ::open(probe.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0) return Error{output + ": cannot write there (" + std::strerror(errno) + ")"};
  ::close(fd);
  ::unlink(probe.c_str());
  return {};
}

TimeNs realtimeNow() {
  timespec t{};
  ::clock_gettime(CLOCK_REALTIME, &t);
  return static_cast<TimeNs>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

// Owns the private socket directory for the capture's life.
struct SocketDir {
  std::string dir, path;
  int listener = -1;
  ~SocketDir() {
    if (listener >= 0) ::close(listener);
    if (!path.empty()) ::unlink(path.c_str());
    if (!dir.empty()) ::rmdir(dir.c_str());
  }
};

Status openSocket(SocketDir& s) {
  std::string base = fs::temp_directory_path().string() + "/tensorscope-XXXXXX";
  std::vector<char> name(base.begin(), base.end());
  name.push_back('\0');
  if (!::mkdtemp(name.data()))
    return Error{std::string("cannot create a private directory in ") +
                 fs::temp_directory_path().string() + ": " + std::strerror(errno)};
  s.dir = name.data();  // mkdtemp makes it 0700: only this user can connect
  s.path = s.dir + "/records";
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (s.path.size() >= sizeof addr.sun_path) return Error{"socket path too long: " + s.path};
  std::strncpy(addr.sun_path, s.path.c_str(), sizeof addr.sun_path - 1);
  s.listener = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (s.listener < 0 || ::bind(s.listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(s.listener, 64) != 0) {
    return Error{"cannot listen on " + s.path + ": " + std::strerror(errno)};
  }
  return {};
}

}  // namespace

std::string expandOutputName(const std::string& pattern) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%' || i + 1 >= pattern.size()) {
      out += pattern[i];
      continue;
    }
    char c = pattern[++i];
    if (c == 'p')
      out += std::to_string(::getpid());
    else if (c == 'h')
      out += hostName();
    else if (c == 'r')
      out += std::to_string(rankFromEnvironment());
    else if (c == '%')
      out += '%';
    else
      out += std::string("%") + c;
  }
  return out;
}

namespace {

// The first candidate that exists, as an absolute path; empty when none does.
std::string firstExisting(const std::vector<std::string>& candidates) {
  std::error_code ec;
  for (const std::string& c : candidates) {
    if (fs::exists(c, ec)) return fs::absolute(c).string();
  }
  return "";
}

}  // namespace

std::string findInjectionLibrary(const std::string& requested) {
  std::vector<std::string> candidates;
  if (!requested.empty()) return fs::exists(requested) ? fs::absolute(requested).string() : "";
  if (const char* env = std::getenv("TSCOPE_INJECTION_LIBRARY"); env && *env)
    candidates.emplace_back(env);
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  // bin/../lib/<multiarch>/tensorscope: the layout of both the build tree and an installed package.
  if (!ec) {
    candidates.push_back(
        (self.parent_path().parent_path() / TSCOPE_PRIVATE_LIBDIR / "libtensorscope_inject.so")
            .string());
  }
  return firstExisting(candidates);
}

std::string findCuptiLibrary() {
  if (const char* env = std::getenv("TSCOPE_CUPTI_LIBRARY"); env && *env) return env;  // as given
  std::vector<std::string> roots;
  if (const char* home = std::getenv("CUDA_HOME"); home && *home) roots.emplace_back(home);
  roots.emplace_back("/usr/local/cuda");
  std::vector<std::string> candidates;
  for (const std::string& root : roots) {
    for (const char* dir : {"lib64", "lib", "extras/CUPTI/lib64", "targets/x86_64-linux/lib"}) {
      // The versioned name first: a runtime-only install has no unversioned link.
      candidates.push_back(root + "/" + dir + "/" + TSCOPE_CUPTI_SONAME);
      candidates.push_back(root + "/" + dir + "/libcupti.so");
    }
  }
#ifdef TSCOPE_CUPTI_LIBRARY
  candidates.emplace_back(TSCOPE_CUPTI_LIBRARY);  // where the toolkit built against had it
#endif
  return firstExisting(candidates);
}

Result<CaptureResult> runCapture(const CaptureOptions& o, const CaptureHooks& hooks) {
  if (o.argv.empty()) return Error{"no program to capture"};
  std::string program = resolveProgram(o.argv[0]);
  if (program.empty()) return Error{"program '" + o.argv[0] + "' not found (or not executable)"};
  if (o.output.empty()) return Error{"no output file given"};
  TS_RETURN_IF_ERROR(checkWritable(o.output));
  std::string injection = findInjectionLibrary(o.injectionLibrary);
  if (injection.empty())
    return Error{
        "the capture library libtensorscope_inject.so was not found (set "
        "TSCOPE_INJECTION_LIBRARY)"};
  if (!o.workingDirectory.empty() && !fs::is_directory(o.workingDirectory)) {
    return Error{"working directory '" + o.workingDirectory + "' does not exist"};
  }

  CaptureResult result;
  result.output = o.output;
  if (void* driver = ::dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL)) {
    ::dlclose(driver);
  } else {
    result.messages.push_back(
        "the CUDA driver (libcuda.so.1) is not installed: the program cannot use a GPU, so no GPU "
        "activity will be recorded");
  }

  if (!hooks.progress.enter("launching")) return Error::cancelled("capture stopped before launch");
  SocketDir sock;
  TS_RETURN_IF_ERROR(openSocket(sock));

  // exec failures travel back through a close-on-exec pipe: EOF means the program started.
  int errPipe[2];
  if (::pipe2(errPipe, O_CLOEXEC) != 0) return Error{std::string("pipe: ") + std::strerror(errno)};
  std::vector<std::string> env = {"CUDA_INJECTION64_PATH=" + injection,
                                  "TSCOPE_CAPTURE_SOCKET=" + sock.path};
  // One CUPTI for the activity records and for NVTX: a --env TSCOPE_CUPTI_LIBRARY wins, else
  // the one found, else the soname through the loader's path (the injection library says so
  // when that fails too).
  std::string cupti = findCuptiLibrary();
  for (const auto& [k, v] : o.env) {
    if (k == "TSCOPE_CUPTI_LIBRARY" && !v.empty()) cupti = v;
  }
  if (cupti.empty()) cupti = TSCOPE_CUPTI_SONAME;
  env.push_back("TSCOPE_CUPTI_LIBRARY=" + cupti);
  env.push_back("NVTX_INJECTION64_PATH=" + cupti);
  if (!o.kinds.empty()) env.push_back("TSCOPE_CAPTURE_KINDS=" + o.kinds);
  for (const auto& [k, v] : o.env) env.push_back(k + "=" + v);
  const TimeNs launchedAt = realtimeNow();
  const Clock::time_point started = Clock::now();
  pid_t child = ::fork();
  if (child < 0) return Error{std::string("fork: ") + std::strerror(errno)};
  if (child == 0) {
    ::close(errPipe[0]);
    for (const std::string& e : env) ::putenv(const_cast<char*>(e.c_str()));
    if (!o.workingDirectory.empty() && ::chdir(o.workingDirectory.c_str()) != 0) {
      int e = errno;
      (void)!::write(errPipe[1], &e, sizeof e);
      ::_exit(127);
    }
    std::vector<char*> args;
    for (const std::string& a : o.argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(program.c_str(), args.data());
    int e = errno;
    (void)!::write(errPipe[1], &e, sizeof e);
    ::_exit(127);
  }
  ::close(errPipe[1]);
  int execErrno = 0;
  ssize_t got = ::read(errPipe[0], &execErrno, sizeof execErrno);
  ::close(errPipe[0]);
  if (got == sizeof execErrno) {
    ::waitpid(child, nullptr, 0);
    return Error{"cannot run '" + program + "': " + std::strerror(execErrno)};
  }

  hooks.progress.enter("recording");  // a stop from here on saves what was recorded
  RecordSink sink;
  if (o.delaySeconds > 0)
    sink.setWindowStart(launchedAt + static_cast<TimeNs>(o.delaySeconds * 1e9));
  struct Conn {
    int fd;
    size_t id;
  };
  std::vector<Conn> conns;
  std::optional<int> status;
  std::optional<Clock::time_point> exitedAt, stopAt, flushAskedAt;
  constexpr double kFlushWait = 0.3;  // seconds for the flushed records to arrive
  Clock::time_point lastSave = started, lastProgress = started;
  size_t savedEvents = 0;
  std::string buffer(1 << 20, '\0');

  Provenance provenance;
  provenance.toolVersion = kVersion;
  provenance.sources.push_back({o.output, "capture"});
  for (const std::string& a : o.argv)
    provenance.captureCommand += (provenance.captureCommand.empty() ? "" : " ") + a;

  auto save = [&](bool final) -> Status {
    Provenance p = provenance;
    p.incomplete = !final;
    if (final && status) {
      if (WIFEXITED(*status))
        p.exitCode = WEXITSTATUS(*status);
      else if (WIFSIGNALED(*status))
        p.exitCode = 128 + WTERMSIG(*status);
    }
    auto session = sink.snapshot(p);
    if (!session) return session.failure();
    if (Status st = writeSessionFile(**session, o.output); !st) return st;
    if (hooks.snapshot) hooks.snapshot(*session);
    savedEvents = sink.events();
    return {};
  };

  for (;;) {
    // The program's exit first, then every connection made before it: a process that connects,
    // writes and exits between two polls is still read to the end.
    if (!status) {
      int st = 0;
      if (::waitpid(child, &st, WNOHANG) == child) {
        status = st;
        exitedAt = Clock::now();
      }
    }
    for (int fd; (fd = ::accept4(sock.listener, nullptr, nullptr, SOCK_CLOEXEC)) >= 0;)
      conns.push_back({fd, sink.open()});
    std::vector<pollfd> fds;
    fds.push_back({sock.listener, POLLIN, 0});
    for (const Conn& c : conns) fds.push_back({c.fd, POLLIN, 0});
    if (::poll(fds.data(), fds.size(), 50) > 0) {
      for (size_t i = 1; i < fds.size(); ++i) {
        if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        Conn& c = conns[i - 1];
        ssize_t r = ::read(c.fd, buffer.data(), buffer.size());
        if (r > 0) {
          if (Status st = sink.feed(c.id, std::string_view(buffer.data(), static_cast<size_t>(r)));
              !st) {
            result.messages.push_back(st.error());
          }
        } else if (r == 0 || (errno != EINTR && errno != EAGAIN)) {
          sink.close(c.id);
          ::close(c.fd);
          c.fd = -1;
        }
      }
      std::erase_if(conns, [](const Conn& c) { return c.fd < 0; });
    }
    const bool stopWanted = hooks.progress.cancelled() ||
                            (o.durationSeconds > 0 && secondsSince(started) >= o.durationSeconds);
    const bool keepRunning = hooks.keepRunning && hooks.keepRunning->load();
    if (stopWanted && !flushAskedAt && !stopAt) {
      // First ask every process to flush what CUPTI holds, then (a moment later) stop.
      flushAskedAt = Clock::now();
      for (const Conn& c : conns) (void)!::send(c.fd, &kFlushRequest, 1, MSG_NOSIGNAL);
    }
    if (flushAskedAt && !stopAt &&
        (conns.empty() || status || secondsSince(*flushAskedAt) >= kFlushWait)) {
      stopAt = Clock::now();
      if (!status && !keepRunning) {
        ::kill(child, SIGTERM);
      }
    }
    if (secondsSince(lastProgress) >= 0.1) {
      lastProgress = Clock::now();
      if (hooks.live)
        hooks.live(
            {secondsSince(started), sink.events(), sink.dropped(), sink.connections(), !status});
      if (o.durationSeconds > 0) hooks.progress.update(secondsSince(started) / o.durationSeconds);
    }
    // Done: the program ended and its processes hung up (or have had 5 s to); or a stop that
    // leaves the program running; or a terminated program that would not go.
    if (status && (conns.empty() || secondsSince(*exitedAt) > 5)) break;
    if (stopAt && keepRunning) break;
    if (stopAt && !status && secondsSince(*stopAt) > 5) {
      ::kill(child, SIGKILL);
      int st = 0;
      ::waitpid(child, &st, 0);
      status = st;
      exitedAt = Clock::now();
    }
    if (secondsSince(lastSave) >= o.saveIntervalSeconds && sink.events() != savedEvents) {
      lastSave = Clock::now();
      if (Status st = save(false); !st) result.messages.push_back(st.error());
    }
  }
  for (const Conn& c : conns) {
    sink.close(c.id);
    ::close(c.fd);
  }
  hooks.progress.enter("saving");
  TS_RETURN_IF_ERROR(save(true));
  if (status && WIFEXITED(*status)) result.exitCode = WEXITSTATUS(*status);
  if (status && WIFSIGNALED(*status)) result.signal = WTERMSIG(*status);
  result.events = sink.events();
  result.dropped = sink.dropped();
  result.incomplete = !sink.complete();
  for (const std::string& m : sink.messages()) result.messages.push_back(m);
  return result;
}

}  // namespace ts::capture
