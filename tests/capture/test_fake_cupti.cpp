// The real injection library and the real launcher against a fake CUPTI (fake_cupti.cpp) that
// delivers records as CUPTI does — per-thread buffers, partial ones only on a flush, device
// records on the enabling thread, END before START, late buffers at exit — driven by a stand-in
// program (fake_target cupti …) that may fork. Also run under the asan preset.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "capture/launcher.h"
#include "capture/record_sink.h"
#include "command_test.h"
#include "io/open_session.h"
#include "session/session_summary.h"

namespace ts::capture {

namespace fs = std::filesystem;

namespace {

class FakeCupti : public testing::TempDirTest {
 protected:
  // A capture of the stand-in with the fake CUPTI; the fake's log is read back after.
  CaptureOptions options(std::vector<std::string> args) {
    CaptureOptions o;
    o.argv = {TSCOPE_FAKE_TARGET, "cupti"};
    o.argv.insert(o.argv.end(), args.begin(), args.end());
    o.output = path("fake.tscope");
    o.env = {{"TSCOPE_CUPTI_LIBRARY", TSCOPE_FAKE_CUPTI}, {"TSCOPE_FAKE_CUPTI_LOG", log()}};
    return o;
  }
  std::string log() { return path("fake-cupti.log"); }
  // The numbers after `word` in the log, in order.
  std::vector<uint64_t> logged(const std::string& word) {
    std::ifstream in(log());
    std::vector<uint64_t> out;
    std::string w;
    uint64_t n = 0;
    while (in >> w) {
      if (w == "nvtx") continue;
      in >> n;
      if (w == word) out.push_back(n);
    }
    return out;
  }
};

SessionPtr open(const std::string& file) {
  auto s = openSessionFile(file);
  EXPECT_TRUE(s.ok()) << s.error();
  return s.ok() ? *s : nullptr;
}

// Every kernel's correlation id, all tracks.
std::vector<uint32_t> kernelIds(const Session& s) {
  std::vector<uint32_t> ids;
  for (const Track& t : s.tracks) {
    if (t.kind == EventKind::Kernel)
      ids.insert(ids.end(), t.kernels.correlation.begin(), t.kernels.correlation.end());
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

bool mentions(const std::vector<std::string>& messages, const std::string& text) {
  return std::any_of(messages.begin(), messages.end(),
                     [&](const std::string& m) { return m.find(text) != std::string::npos; });
}

}  // namespace

// Four threads, 2.5 s: the session grows while the program runs (CUPTI hands partial buffers back
// only when flushed), and ends with every kernel exactly once, the device CUPTI announced while
// the kinds were enabled, the threads by their OS ids, and each NVTX range whole although its END
// arrived first.
TEST_F(FakeCupti, LiveSnapshotsWhileRunningAndEveryRecordOnce) {
  CaptureOptions o = options({"4", "25", "40", "100"});
  o.saveIntervalSeconds = 0.5;
  std::vector<size_t> live;
  CaptureHooks hooks;
  hooks.snapshot = [&](SessionPtr s) { live.push_back(summarize(*s).kernels); };
  auto r = runCapture(o, hooks);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->exitCode, 0);
  EXPECT_FALSE(r->incomplete) << ::testing::PrintToString(r->messages);
  ASSERT_FALSE(live.empty());
  // Snapshots before the last: at least two taken while kernels were still coming.
  const size_t during =
      std::count_if(live.begin(), live.end() - 1, [](size_t k) { return k > 0 && k < 4000; });
  EXPECT_GE(during, 2u) << ::testing::PrintToString(live);

  SessionPtr s = open(o.output);
  ASSERT_TRUE(s);
  std::vector<uint32_t> ids = kernelIds(*s);
  ASSERT_EQ(ids.size(), 4000u);
  EXPECT_EQ(logged("produced"), std::vector<uint64_t>{4000});
  EXPECT_EQ(std::adjacent_find(ids.begin(), ids.end()), ids.end()) << "a kernel came twice";
  ASSERT_EQ(s->devices.size(), 1u);
  EXPECT_EQ(s->devices[0].name, "Fake H200");
  EXPECT_EQ(s->devices[0].smCount, 132);

  std::vector<uint64_t> tids = logged("tid");
  std::set<int64_t> sessionTids;
  for (const Thread& t : s->threads) sessionTids.insert(t.tid);
  for (uint64_t t : tids) EXPECT_TRUE(sessionTids.count(static_cast<int64_t>(t))) << t;

  // Records a GPU could give: a stream's kernels and a thread's calls one at a time, each on one
  // lane (the stand-in once overlapped them, and the hour's memory counted lanes no capture has).
  for (const Track& t : s->tracks) {
    if (t.kind == EventKind::Kernel || t.kind == EventKind::Api) {
      EXPECT_EQ(t.laneCount(), 1u)
          << toString(t.kind) << " track of stream " << t.stream << ", thread " << t.thread;
    }
  }

  SessionSummary sum = summarize(*s);
  EXPECT_EQ(sum.nvtxRanges, 4000u / 50);
  EXPECT_EQ(sum.apiCalls, 4000u);
  EXPECT_EQ(s->provenance.profiler, "CUPTI 13.0.1, built with 13.0.1");
  // The two records the fake CUPTI could not complete or read are counted, not drawn.
  EXPECT_TRUE(
      mentions(r->messages, "1 record CUPTI could not complete (no timestamps) was left out"))
      << ::testing::PrintToString(r->messages);
  EXPECT_TRUE(mentions(r->messages, "1 record CUPTI handed back could not be read"));
}

// A child forked while threads record (a data-loader worker) exits through exit(): it must not
// flush its copy of the parent's buffers into the parent's stream, nor hang on a lock.
TEST_F(FakeCupti, AForkedChildSendsNothingIntoItsParentsStream) {
  CaptureOptions o = options({"3", "20", "30", "50", "fork"});
  auto r = runCapture(o);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->exitCode, 0);  // 7: the child did not exit cleanly
  EXPECT_FALSE(r->incomplete) << ::testing::PrintToString(r->messages);
  SessionPtr s = open(o.output);
  ASSERT_TRUE(s);
  std::vector<uint32_t> ids = kernelIds(*s);
  EXPECT_EQ(ids.size(), 3u * 20 * 30);
  EXPECT_EQ(std::adjacent_find(ids.begin(), ids.end()), ids.end()) << "a kernel came twice";
  EXPECT_EQ(s->processes.size(), 1u);
}

// Stop (here --duration) on a program that would run forever: the processes are asked to flush,
// each answers, and only then is the program terminated — a complete session holding everything
// recorded up to the flush.
TEST_F(FakeCupti, AStopFlushesFirstAndGivesACompleteSession) {
  CaptureOptions o = options({"2", "0", "20", "20", "forever"});
  o.durationSeconds = 1.5;
  auto r = runCapture(o);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->signal, SIGTERM);
  EXPECT_FALSE(r->incomplete) << ::testing::PrintToString(r->messages);
  SessionPtr s = open(o.output);
  ASSERT_TRUE(s);
  EXPECT_FALSE(s->provenance.incomplete);
  std::vector<uint64_t> forced = logged("forced");
  ASSERT_FALSE(forced.empty());
  std::vector<uint32_t> ids = kernelIds(*s);
  EXPECT_GE(ids.size(), forced.back());
  EXPECT_GT(ids.size(), 0u);
  EXPECT_EQ(std::adjacent_find(ids.begin(), ids.end()), ids.end());
}

// Nobody reads the socket (a launcher stuck in a save, or a GPU-less test harness): the program
// still runs to its end, its records queued and, past the backlog limit, dropped and counted.
TEST_F(FakeCupti, ALauncherThatDoesNotReadNeverStopsTheProgram) {
  const std::string socketPath = path("s");
  int listener = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, socketPath.c_str(), sizeof addr.sun_path - 1);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(listener, 4), 0);
  const std::string injection = findInjectionLibrary();
  ASSERT_FALSE(injection.empty());
  pid_t child = ::fork();
  if (child == 0) {
    ::setenv("CUDA_INJECTION64_PATH", injection.c_str(), 1);
    ::setenv("TSCOPE_CAPTURE_SOCKET", socketPath.c_str(), 1);
    ::setenv("TSCOPE_CUPTI_LIBRARY", TSCOPE_FAKE_CUPTI, 1);
    ::setenv("TSCOPE_CAPTURE_BACKLOG_MB", "4", 1);
    ::execl(TSCOPE_FAKE_TARGET, TSCOPE_FAKE_TARGET, "cupti", "2", "40", "1000", "0", nullptr);
    ::_exit(127);
  }
  int fd = ::accept(listener, nullptr, nullptr);  // accepted, then never read while it runs
  ASSERT_GE(fd, 0);
  int status = -1;
  for (int i = 0; i < 600 && ::waitpid(child, &status, WNOHANG) == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  if (::waitpid(child, &status, WNOHANG) == 0) {
    ::kill(child, SIGKILL);
    ::waitpid(child, &status, 0);
    FAIL() << "the program was blocked by a launcher that did not read";
  }
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  // What did reach the socket is a well-formed stream.
  RecordSink sink;
  size_t c = sink.open();
  char buffer[1 << 16];
  for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;)
    EXPECT_TRUE(sink.feed(c, std::string_view(buffer, static_cast<size_t>(n))).ok());
  sink.close(c);
  EXPECT_GT(sink.events(), 0u);
  ::close(fd);
  ::close(listener);
}

// Another profiler already holds CUPTI (cuptiSubscribe_v2 fails): its name, as CUPTI gives it,
// is the message, and the capture is complete and empty.
TEST_F(FakeCupti, AnotherProfilerHoldingCuptiIsNamed) {
  CaptureOptions o = options({"1", "2", "10", "0"});
  o.env.emplace_back("TSCOPE_FAKE_CUPTI_HOLDER", "CUPTI for Nsight Systems");
  auto r = runCapture(o);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->exitCode, 0);
  EXPECT_FALSE(r->incomplete);
  EXPECT_EQ(r->events, 0u);
  EXPECT_TRUE(mentions(r->messages, "CUPTI for Nsight Systems is already profiling this process"))
      << ::testing::PrintToString(r->messages);
}

// A CUPTI of another CUDA major is refused (its records have other layouts); a newer minor is
// used, with a warning, and both versions are in the session.
TEST_F(FakeCupti, CuptiOfAnotherMajorIsRefusedANewerMinorWarned) {
  CaptureOptions o = options({"1", "2", "10", "0"});
  o.env.emplace_back("TSCOPE_FAKE_CUPTI_VERSION", "28");
  auto r = runCapture(o);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->events, 0u);
  EXPECT_TRUE(mentions(r->messages, "is version API 28 (CUDA 12); this build reads CUDA 13"))
      << ::testing::PrintToString(r->messages);

  o.env.back().second = "130100";
  r = runCapture(o);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->events, 2u * 10 * 2);  // kernels and their launches
  EXPECT_TRUE(mentions(r->messages, "CUPTI 13.1.0 is newer than the 13.0.1"))
      << ::testing::PrintToString(r->messages);
  SessionPtr s = open(o.output);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->provenance.profiler, "CUPTI 13.1.0, built with 13.0.1");
}

// NVTX is pointed at the injection library, which forwards to the CUPTI it records with.
TEST_F(FakeCupti, NvtxReachesTheCuptiTheInjectionLoaded) {
  CaptureOptions o = options({});
  o.argv = {TSCOPE_FAKE_TARGET, "nvtx"};
  auto r = runCapture(o);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->exitCode, 0);
  std::ifstream in(log());
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "nvtx");

  o.argv = {"sh", "-c", "test \"$NVTX_INJECTION64_PATH\" = \"$CUDA_INJECTION64_PATH\""};
  r = runCapture(o);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->exitCode, 0);
}

}  // namespace ts::capture
