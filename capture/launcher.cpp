#include "capture/launcher.h"

#include <dlfcn.h>
#include <fcntl.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <future>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "capture/record_sink.h"
#include "capture/snapshot_gate.h"
#include "capture/wire_format.h"
#include "io/open_session.h"
#include "util/version.h"

namespace ts::capture {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

// How far behind the latest record a live snapshot stops: the injection hands CUPTI's buffers
// over about five times a second, per thread, so a second covers records that come out of order.
constexpr TimeNs kLiveHoldback = 1'000'000'000;

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

namespace {

// runCapture()'s steps.

// The captured program's environment: the injection library (for the driver and for NVTX), the
// socket it reports to, the CUPTI it opens unless the program holds one already (a --env
// TSCOPE_CUPTI_LIBRARY wins, else the one found, else the soname through the loader's path: the
// injection library says so when that fails too), the kinds to record, then the user's own
// variables.
std::vector<std::string> captureEnvironment(const CaptureOptions& o, const std::string& injection,
                                            const std::string& socketPath) {
  std::vector<std::string> env = {"CUDA_INJECTION64_PATH=" + injection,
                                  "TSCOPE_CAPTURE_SOCKET=" + socketPath};
  std::string cupti = findCuptiLibrary();
  for (const auto& [k, v] : o.env) {
    if (k == "TSCOPE_CUPTI_LIBRARY" && !v.empty()) cupti = v;
  }
  if (cupti.empty()) cupti = TSCOPE_CUPTI_SONAME;
  env.push_back("TSCOPE_CUPTI_LIBRARY=" + cupti);
  // NVTX goes through the injection library too, which forwards to the CUPTI it records with.
  env.push_back("NVTX_INJECTION64_PATH=" + injection);
  if (!o.kinds.empty()) env.push_back("TSCOPE_CAPTURE_KINDS=" + o.kinds);
  for (const auto& [k, v] : o.env) env.push_back(k + "=" + v);
  return env;
}

// The environment the program starts with: this process's, with `overrides` ("NAME=value")
// replacing variables of the same name and the rest appended, in order.
std::vector<std::string> mergedEnvironment(const std::vector<std::string>& overrides) {
  auto nameOf = [](const std::string& e) { return e.substr(0, e.find('=')); };
  std::vector<std::string> merged;
  for (char** e = environ; e && *e; ++e) merged.emplace_back(*e);
  for (const std::string& o : overrides) {
    const std::string name = nameOf(o);
    auto it = std::find_if(merged.begin(), merged.end(),
                           [&](const std::string& e) { return nameOf(e) == name; });
    if (it != merged.end())
      *it = o;
    else
      merged.push_back(o);
  }
  return merged;
}

// Starts the program; exec failures travel back through a close-on-exec pipe (EOF means the
// program started), so "cannot run" is an error here rather than an exit status later. Its
// arguments and environment are built before fork(): the child of a threaded process (the GUI)
// may only make async-signal-safe calls, and an allocation could wait forever on a malloc lock
// another thread held at the fork.
Result<pid_t> launch(const CaptureOptions& o, const std::string& program,
                     const std::vector<std::string>& env) {
  const std::vector<std::string> environment = mergedEnvironment(env);
  std::vector<char*> envp;
  for (const std::string& e : environment) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  std::vector<char*> args;
  for (const std::string& a : o.argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const char* directory = o.workingDirectory.empty() ? nullptr : o.workingDirectory.c_str();
  int errPipe[2];
  if (::pipe2(errPipe, O_CLOEXEC) != 0) return Error{std::string("pipe: ") + std::strerror(errno)};
  pid_t child = ::fork();
  if (child < 0) {
    ::close(errPipe[0]);
    ::close(errPipe[1]);
    return Error{std::string("fork: ") + std::strerror(errno)};
  }
  if (child == 0) {  // only async-signal-safe calls from here to exec
    ::close(errPipe[0]);
    ::setpgid(0, 0);  // a group of its own: a stop signals the processes it starts too
    if (directory && ::chdir(directory) != 0) {
      int e = errno;
      (void)!::write(errPipe[1], &e, sizeof e);
      ::_exit(127);
    }
    ::execve(program.c_str(), args.data(), envp.data());
    int e = errno;
    (void)!::write(errPipe[1], &e, sizeof e);
    ::_exit(127);
  }
  ::setpgid(child, child);  // as the child does: whichever runs first, the group exists
  ::close(errPipe[1]);
  int execErrno = 0;
  ssize_t got = ::read(errPipe[0], &execErrno, sizeof execErrno);
  ::close(errPipe[0]);
  if (got == sizeof execErrno) {
    ::waitpid(child, nullptr, 0);
    return Error{"cannot run '" + program + "': " + std::strerror(execErrno)};
  }
  return child;
}

// The recording of a running program. A reader thread takes every process's connection into the
// sink as fast as the records come, so a slow save never backs up into the program; this thread
// watches the program, saves snapshots now and then, and handles the stop: a flush request to
// every process, a wait for each to answer (FlushDone) or for the wait to run out, then — unless
// asked to leave it running — SIGTERM to the program's process group.
class Recording {
 public:
  Recording(const CaptureOptions& o, const CaptureHooks& hooks, pid_t child, int listener,
            TimeNs launchedAt, Clock::time_point started, CaptureResult& result)
      : o_(o),
        hooks_(hooks),
        child_(child),
        listener_(listener),
        started_(started),
        lastSave_(started),
        lastProgress_(started),
        result_(result) {
    if (o.delaySeconds > 0)
      sink_.setWindowStart(launchedAt + static_cast<TimeNs>(o.delaySeconds * 1e9));
    provenance_.toolVersion = kVersion;
    provenance_.sources.push_back({o.output, "capture"});
    for (const std::string& a : o.argv)
      provenance_.captureCommand += (provenance_.captureCommand.empty() ? "" : " ") + a;
  }
  ~Recording() {
    gate_.release();  // a write under way finishes without waiting for snapshots
    stopReader();
  }

  // Until the program ended and its processes hung up (or have had 5 s to), or a stop that
  // leaves the program running; then the final save.
  Status run() {
    reader_ = std::thread([this] { readLoop(); });
    for (;;) {
      reap();
      handleStop();
      report();
      if (done()) break;
      if (secondsSince(lastSave_) >= o_.saveIntervalSeconds) {
        lastSave_ = Clock::now();
        if (Status st = publish(); !st) note(st.error());
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    stopReader();
    hooks_.progress.enter("saving");
    TS_RETURN_IF_ERROR(save(true));
    if (status_ && WIFEXITED(*status_)) result_.exitCode = WEXITSTATUS(*status_);
    if (status_ && WIFSIGNALED(*status_)) result_.signal = WTERMSIG(*status_);
    std::lock_guard<std::mutex> lock(lock_);
    result_.events = sink_.events();
    result_.dropped = sink_.lost();
    result_.incomplete = !sink_.complete();
    for (const std::string& m : sink_.warnings()) result_.messages.push_back(m);
    for (const std::string& m : notes_) result_.messages.push_back(m);
    return {};
  }

 private:
  struct Conn {
    int fd;
    size_t id;
    bool flushAsked = false;
  };
  static constexpr double kFlushWait = 3;  // seconds for every process to answer a flush

  // The reader thread: new connections, then whatever arrived, until stopReader().
  void readLoop() {
    std::string buffer(1 << 20, '\0');
    while (!stopReading_) {
      for (int fd; (fd = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC)) >= 0;) {
        std::lock_guard<std::mutex> lock(lock_);
        conns_.push_back({fd, sink_.open()});
      }
      if (flushWanted_) {
        // Under the lock: the main thread reads flushAsked to know when every process answered.
        std::lock_guard<std::mutex> lock(lock_);
        for (Conn& c : conns_) {
          if (!c.flushAsked) (void)!::send(c.fd, &kFlushRequest, 1, MSG_NOSIGNAL);
          c.flushAsked = true;
        }
      }
      std::vector<pollfd> fds;
      fds.push_back({listener_, POLLIN, 0});
      for (const Conn& c : conns_) fds.push_back({c.fd, POLLIN, 0});
      if (::poll(fds.data(), fds.size(), 50) <= 0) {
        ++passes_;
        continue;
      }
      for (size_t i = 1; i < fds.size(); ++i) {
        if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        Conn& c = conns_[i - 1];
        ssize_t r = ::read(c.fd, buffer.data(), buffer.size());
        if (r < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        std::lock_guard<std::mutex> lock(lock_);
        if (r > 0) {
          if (Status st = sink_.feed(c.id, std::string_view(buffer.data(), static_cast<size_t>(r)));
              !st) {
            notes_.push_back(st.error());
          }
          continue;
        }
        sink_.close(c.id);
        ::close(c.fd);
        c.fd = -1;
      }
      std::lock_guard<std::mutex> lock(lock_);
      std::erase_if(conns_, [](const Conn& c) { return c.fd < 0; });
      openConnections_ = conns_.size();
      ++passes_;
    }
  }

  // Stops the reader; connections still open are read no more.
  void stopReader() {
    if (!reader_.joinable()) return;
    stopReading_ = true;
    reader_.join();
    std::lock_guard<std::mutex> lock(lock_);
    for (Conn& c : conns_) {
      sink_.close(c.id);
      ::close(c.fd);
    }
    conns_.clear();
    openConnections_ = 0;
  }

  void note(std::string text) {
    std::lock_guard<std::mutex> lock(lock_);
    notes_.push_back(std::move(text));
  }
  size_t events() {
    std::lock_guard<std::mutex> lock(lock_);
    return sink_.events();
  }

  // The program's exit first, then every connection made before it: a process that connects,
  // writes and exits between two polls is still read to the end.
  void reap() {
    if (status_) return;
    int st = 0;
    if (::waitpid(child_, &st, WNOHANG) == child_) {
      status_ = st;
      exitedAt_ = Clock::now();
      passesAtExit_ = passes_;
    }
  }

  // A stop (the cancel flag, or the duration) first asks every process to flush what CUPTI
  // holds; once all have answered (or kFlushWait ran out) the program is terminated, unless asked
  // to keep running.
  void handleStop() {
    const bool stopWanted =
        hooks_.progress.cancelled() ||
        (o_.durationSeconds > 0 && secondsSince(started_) >= o_.durationSeconds);
    if (stopWanted && !flushAskedAt_) {
      flushAskedAt_ = Clock::now();
      flushWanted_ = true;
    }
    if (!flushAskedAt_ || stopAt_) return;
    bool answered = false;
    {
      std::lock_guard<std::mutex> lock(lock_);
      answered = sink_.flushAnswered() && std::all_of(conns_.begin(), conns_.end(),
                                                      [](const Conn& c) { return c.flushAsked; });
    }
    if (answered || status_ || secondsSince(*flushAskedAt_) >= kFlushWait) {
      stopAt_ = Clock::now();
      if (!answered && !status_) {
        note("not every process answered the flush before the stop within " +
             std::to_string(static_cast<int>(kFlushWait)) +
             " s: records still in its buffers were lost");
      }
      if (!status_ && !keepRunning()) signalProgram(SIGTERM);
    }
  }

  // The program runs in a process group of its own (launch()): the signal reaches the processes
  // it started too.
  void signalProgram(int sig) {
    if (::kill(-child_, sig) != 0) ::kill(child_, sig);
  }

  void report() {
    if (secondsSince(lastProgress_) < 0.1) return;
    lastProgress_ = Clock::now();
    CaptureProgress p{secondsSince(started_), 0, 0, 0, !status_};
    {
      std::lock_guard<std::mutex> lock(lock_);
      p.events = sink_.events(), p.dropped = sink_.lost(), p.processes = sink_.connections();
    }
    if (hooks_.live) hooks_.live(p);
    if (o_.durationSeconds > 0) hooks_.progress.update(secondsSince(started_) / o_.durationSeconds);
  }

  // Done: the program ended and its processes hung up (or have had 5 s to); or a stop that
  // leaves the program running; or a terminated program that would not go (killed after 5 s).
  bool done() {
    // Two reader passes after the exit: one that began after it has accepted and read what the
    // program's processes left.
    if (status_ &&
        ((openConnections_ == 0 && passes_ >= passesAtExit_ + 2) || secondsSince(*exitedAt_) > 5))
      return true;
    if (stopAt_ && keepRunning()) return true;
    if (stopAt_ && !status_ && secondsSince(*stopAt_) > 5) {
      signalProgram(SIGKILL);
      int st = 0;
      ::waitpid(child_, &st, 0);
      status_ = st;
      exitedAt_ = Clock::now();
      passesAtExit_ = passes_;
    }
    return false;
  }

  bool keepRunning() const { return hooks_.keepRunning && hooks_.keepRunning->load(); }

  // Every interval: a snapshot for the live view, of what came since the last one (records that
  // start within kLiveHoldback of the latest wait for the next, so that CUPTI's buffers, handed
  // over a little out of order, still land in order). Taken under the lock (the reader waits
  // meanwhile, the program does not), in time bounded by what is new. The file is written again
  // from it on a thread of its own — a write costs the whole session, so writes are spaced to ten
  // times the last one's length: a long capture spends about a tenth of its time saving, the live
  // view never waits for a write, and a crash still leaves a recent readable file.
  Status publish() {
    Provenance p = provenance_;
    p.incomplete = true;
    Result<SessionPtr> session = Error{""};
    gate_.begin();
    const Clock::time_point begun = Clock::now();
    {
      std::lock_guard<std::mutex> lock(lock_);
      session = sink_.snapshot(p, kLiveHoldback);
    }
    const double took = secondsSince(begun);
    // (An interval of a day at most: beyond it the nanoseconds of a time point would overflow.)
    gate_.end(lastSave_ + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(
                              std::min(o_.saveIntervalSeconds, 86400.0))));
    if (!session) return Error{session.error()};
    const size_t shown = (*session)->eventCount();
    timed(CaptureResult::Timing::What::Snapshot, shown, took);
    if (shown != shownEvents_ && hooks_.snapshot) hooks_.snapshot(*session);
    shownEvents_ = shown;
    // The file follows even when the view has nothing new: a snapshot whose write waited for
    // the gap is written once the gap has passed, however quiet the program has become.
    if (writer_.valid()) {
      if (writer_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return {};
      TS_RETURN_IF_ERROR(finishWrite());
    }
    if (shown == writtenEvents_ || secondsSince(lastWrite_) < writeGap_) return {};
    lastWrite_ = Clock::now();
    writtenEvents_ = shown;
    writer_ = std::async(std::launch::async, [this, output = o_.output, s = *session] {
      // A periodic write is insurance, not urgent: at nice 10 (Linux takes a thread id here and
      // sets that thread only; libstdc++ gives each std::async call a thread of its own) its
      // compression yields the cores to the program being captured, whose timing is what the
      // user measures. (Nice alone did not shorten the longest snapshots of an hour on two
      // cores; BENCHMARKS.md.)
      ::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), 10);
      // And it steps aside for each snapshot (snapshot_gate.h): the write reports its progress
      // at the start and after each column chunk, the pieces the gate times (the report at 1,
      // once the file is in place, ends the write: nothing to wait for).
      gate_.startWrite();
      Progress pieces;
      pieces.report = [this](double done) {
        if (done < 1) gate_.beforePiece();
      };
      const Clock::time_point begun = Clock::now();
      Write w;
      w.status = writeSessionFile(*s, output, {}, pieces);
      w.seconds = std::chrono::duration<double>(Clock::now() - begun).count();
      w.working = w.seconds - std::chrono::duration<double>(gate_.waited()).count();
      w.events = s->eventCount();
      return w;
    });
    return {};
  }

  void timed(CaptureResult::Timing::What what, size_t events, double seconds) {
    result_.timings.push_back({what, secondsSince(started_), events, seconds});
  }

  // The periodic write's outcome; the next one waits ten times as long as it worked (its waits
  // for the snapshots left out: they cost the program nothing).
  Status finishWrite() {
    Write w = writer_.get();
    writeGap_ = std::max(o_.saveIntervalSeconds, 10 * w.working);
    timed(CaptureResult::Timing::What::Write, w.events, w.seconds);
    if (w.status && hooks_.saved) hooks_.saved(w.events);
    return w.status;
  }

  // The final save: everything recorded (nothing held back), flows sorted, written at once.
  Status save(bool final) {
    Provenance p = provenance_;
    p.incomplete = !final;
    if (final && status_) {
      if (WIFEXITED(*status_))
        p.exitCode = WEXITSTATUS(*status_);
      else if (WIFSIGNALED(*status_))
        p.exitCode = 128 + WTERMSIG(*status_);
    }
    gate_.release();  // no more snapshots: the write under way need not wait for one
    if (writer_.valid()) {
      if (Status st = finishWrite(); !st) note(st.error());
    }
#ifdef __GLIBC__
    // The periodic writes allocated and freed their buffers in the writer threads' malloc arenas,
    // which this thread's final snapshot and write do not reuse: hand those pages back first, so
    // they do not add to the capture's peak (an hour's end added 4.1 B/event with this and the
    // in-place flow sort, 10.8 before both; BENCHMARKS.md).
    ::malloc_trim(0);
#endif
    Result<SessionPtr> session = Error{""};
    const Clock::time_point begun = Clock::now();
    {
      std::lock_guard<std::mutex> lock(lock_);
      session = sink_.snapshot(p);
    }
    if (!session) return Error{session.error()};
    TS_RETURN_IF_ERROR(writeSessionFile(**session, o_.output));
    timed(CaptureResult::Timing::What::FinalSave, (*session)->eventCount(), secondsSince(begun));
    for (const Track& t : (*session)->tracks)
      if (t.kind == EventKind::Kernel || t.kind == EventKind::Memcpy || t.kind == EventKind::Memset)
        result_.gpuEvents += t.size();
    if (hooks_.snapshot) hooks_.snapshot(*session);
    return {};
  }

  const CaptureOptions& o_;
  const CaptureHooks& hooks_;
  const pid_t child_;
  const int listener_;
  const Clock::time_point started_;
  Clock::time_point lastSave_, lastProgress_;
  CaptureResult& result_;
  Provenance provenance_;
  std::optional<int> status_;
  std::optional<Clock::time_point> exitedAt_, stopAt_, flushAskedAt_;
  size_t shownEvents_ = 0;    // in the last snapshot the live view got
  size_t writtenEvents_ = 0;  // in the last snapshot a periodic write took
  Clock::time_point lastWrite_{};
  double writeGap_ = 0;  // seconds from one periodic write to the next

  std::thread reader_;
  std::atomic<bool> stopReading_{false}, flushWanted_{false};
  std::atomic<size_t> openConnections_{0};
  std::atomic<uint64_t> passes_{0};  // of the reader's loop
  uint64_t passesAtExit_ = 0;
  std::mutex lock_;  // the sink, the connections and the notes: the reader's and this thread's
  RecordSink sink_;
  std::vector<Conn> conns_;
  std::vector<std::string> notes_;
  struct Write {
    Status status;
    double seconds = 0;  // from its start to the file in place (the timings show this)
    double working = 0;  // of those, not waiting for a snapshot
    size_t events = 0;
  };
  SnapshotGate gate_;  // between the snapshots and the periodic write
  // Last: on the way out (an error) its destructor waits for a write under way while the rest
  // still lives.
  std::future<Write> writer_;  // the periodic write under way
};

}  // namespace

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
  void* driver = ::dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (driver) ::dlclose(driver);

  if (!hooks.progress.enter("launching")) return Error::cancelled("capture stopped before launch");
  SocketDir sock;
  TS_RETURN_IF_ERROR(openSocket(sock));
  const std::vector<std::string> env = captureEnvironment(o, injection, sock.path);
  const TimeNs launchedAt = realtimeNow();
  const Clock::time_point started = Clock::now();
  TS_ASSIGN_OR_RETURN(const pid_t child, launch(o, program, env));
  hooks.progress.enter("recording");  // a stop from here on saves what was recorded
  Recording recording(o, hooks, child, sock.listener, launchedAt, started, result);
  TS_RETURN_IF_ERROR(recording.run());
  // Said once it is known: a program can still bring a driver of its own (a library path of its
  // environment, a stand-in), and then its GPU records are there to see.
  if (!driver && result.gpuEvents == 0)
    result.messages.insert(result.messages.begin(),
                           "no GPU activity was recorded: the CUDA driver (libcuda.so.1) is not "
                           "installed here, so the program could not use a GPU");
  return result;
}

}  // namespace ts::capture
