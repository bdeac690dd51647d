// The launcher without a GPU: programs that never touch CUDA, missing programs, exit codes and
// signals, a stop by duration, and the injection library's connection (loaded by a stand-in for
// the CUDA driver) — one record stream per process.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "capture/launcher.h"
#include "command_test.h"
#include "io/open_session.h"
#include "session/session_summary.h"

namespace ts::capture {

namespace fs = std::filesystem;

namespace {

using Launcher = testing::TempDirTest;
using testing::runCommand;

bool namesTheMissingDriver(const std::vector<std::string>& messages) {
  for (const std::string& m : messages)
    if (m.find("libcuda.so.1") != std::string::npos) return true;
  return false;
}

bool driverInstalled() {
  void* driver = ::dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (driver) ::dlclose(driver);
  return driver != nullptr;
}

}  // namespace

TEST_F(Launcher, AProgramWithoutCudaGivesACleanEmptySessionAndItsExitCode) {
  CaptureOptions o;
  o.argv = {"sh", "-c", "echo out; exit 3"};
  o.output = path("plain.tscope");
  auto r = runCapture(o);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->exitCode, 3);
  EXPECT_FALSE(r->incomplete);
  auto s = openSessionFile(o.output);
  ASSERT_TRUE(s.ok()) << s.error();
  EXPECT_EQ(summarize(**s).events, 0u);
  EXPECT_EQ((*s)->provenance.exitCode, 3);
  EXPECT_EQ((*s)->provenance.captureCommand, "sh -c echo out; exit 3");
  EXPECT_FALSE((*s)->provenance.incomplete);
  EXPECT_EQ(r->gpuEvents, 0u);
  // No GPU records: where no driver is installed, the user is told why.
  EXPECT_EQ(namesTheMissingDriver(r->messages), !driverInstalled())
      << ::testing::PrintToString(r->messages);
}

TEST_F(Launcher, ErrorsBeforeLaunch) {
  CaptureOptions o;
  o.argv = {"no-such-program-here"};
  o.output = path("x.tscope");
  auto r = runCapture(o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("no-such-program-here"), std::string::npos) << r.error();
  o.argv = {"true"};
  o.output = path("missing-dir/x.tscope");
  r = runCapture(o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("missing-dir"), std::string::npos) << r.error();
  EXPECT_FALSE(fs::exists(path("x.tscope")));
}

TEST_F(Launcher, SignalsAndStopByDuration) {
  CaptureOptions o;
  o.argv = {"sh", "-c", "kill -9 $$"};
  o.output = path("killed.tscope");
  auto r = runCapture(o);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->signal, 9);
  auto s = openSessionFile(o.output);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ((*s)->provenance.exitCode, 128 + 9);

  o.argv = {"sleep", "30"};
  o.output = path("stopped.tscope");
  o.durationSeconds = 0.3;
  auto t0 = std::chrono::steady_clock::now();
  r = runCapture(o);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
  EXPECT_EQ(r->signal, 15);  // asked to terminate
  EXPECT_TRUE(fs::exists(o.output));
}

TEST_F(Launcher, EveryProcessThatLoadsTheLibraryConnects) {
  CaptureOptions o;
  o.argv = {TSCOPE_FAKE_TARGET, "fork", "4"};
  o.output = path("fake.tscope");
  ASSERT_FALSE(findInjectionLibrary().empty());
  auto r = runCapture(o);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->exitCode, 4);
  auto s = openSessionFile(o.output);
  ASSERT_TRUE(s.ok()) << s.error();
  // The parent and its child each said hello on a connection of their own. Without a GPU, CUPTI
  // does not start, and the library says why instead of failing silently.
  EXPECT_EQ((*s)->processes.size(), 2u);
  bool explained = false;
  for (const std::string& m : r->messages) explained |= m.find("CUPTI") != std::string::npos;
  EXPECT_TRUE(explained || r->events > 0);
}

TEST_F(Launcher, ACuptiLibraryThatCannotBeLoadedIsReportedNotFatal) {
  // CUPTI is opened at run time (no RUNPATH into a toolkit): a wrong one is named in a message,
  // and the capture still ends complete with the program's exit status.
  CaptureOptions o;
  o.argv = {TSCOPE_FAKE_TARGET, "5"};
  o.output = path("nocupti.tscope");
  o.env = {{"TSCOPE_CUPTI_LIBRARY", path("no-such-libcupti.so")}};
  auto r = runCapture(o);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->exitCode, 5);
  EXPECT_FALSE(r->incomplete);
  bool named = false;
  for (const std::string& m : r->messages) {
    named |= m.find("CUPTI could not start: the CUPTI library") != std::string::npos &&
             m.find("no-such-libcupti.so") != std::string::npos;
  }
  EXPECT_TRUE(named) << ::testing::PrintToString(r->messages);
}

TEST_F(Launcher, TheCuptiLibraryComesFromTheEnvironmentFirstThenCudaHome) {
  const char* saved[] = {std::getenv("TSCOPE_CUPTI_LIBRARY"), std::getenv("CUDA_HOME")};
  const std::string keep[] = {saved[0] ? saved[0] : "", saved[1] ? saved[1] : ""};
  fs::create_directories(path("cuda/lib64"));
  const std::string inHome = path("cuda/lib64/libcupti.so");
  { std::ofstream(inHome) << "not a library"; }
  ::setenv("TSCOPE_CUPTI_LIBRARY", "libcupti-as-given.so", 1);
  ::setenv("CUDA_HOME", path("cuda").c_str(), 1);
  EXPECT_EQ(findCuptiLibrary(), "libcupti-as-given.so");  // passed on as it is, even a soname
  ::unsetenv("TSCOPE_CUPTI_LIBRARY");
  EXPECT_EQ(findCuptiLibrary(), fs::absolute(inHome).string());  // $CUDA_HOME before the rest
  saved[0] ? ::setenv("TSCOPE_CUPTI_LIBRARY", keep[0].c_str(), 1)
           : ::unsetenv("TSCOPE_CUPTI_LIBRARY");
  saved[1] ? ::setenv("CUDA_HOME", keep[1].c_str(), 1) : ::unsetenv("CUDA_HOME");
}

TEST_F(Launcher, TheSessionGrowsWhileTheProgramRunsAndIsSavedAsItGoes) {
  CaptureOptions o;
  o.argv = {TSCOPE_FAKE_TARGET, "frames", "5", "100", "0"};
  o.output = path("live.tscope");
  o.saveIntervalSeconds = 0.3;
  std::vector<size_t> seen;
  CaptureHooks hooks;
  hooks.snapshot = [&](SessionPtr s) { seen.push_back(summarize(*s).kernels); };
  auto r = runCapture(o, hooks);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->exitCode, 0);
  EXPECT_EQ(r->events, 500u);
  EXPECT_FALSE(r->incomplete);
  ASSERT_GE(seen.size(), 3u);  // periodic saves while it ran, then the final one
  EXPECT_LT(seen.front(), 500u);
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
  EXPECT_EQ(seen.back(), 500u);
  auto s = openSessionFile(o.output);
  ASSERT_TRUE(s.ok()) << s.error();
  EXPECT_EQ(summarize(**s).kernels, 500u);
  EXPECT_FALSE((*s)->provenance.incomplete);
  EXPECT_EQ((*s)->devices[0].name, "Fake GPU");
  // GPU records arrived (from the stand-in): no word of a missing driver, wherever this runs.
  EXPECT_EQ(r->gpuEvents, 500u);
  EXPECT_FALSE(namesTheMissingDriver(r->messages)) << ::testing::PrintToString(r->messages);
}

// The disk fills while a capture runs (a file-size limit from the first periodic write on: the
// EFBIG a full quota gives): the saves that no longer fit fail, the capture says so, and the file
// keeps the last snapshot that was written whole.
TEST_F(Launcher, ADiskThatFillsKeepsTheLastSnapshotWritten) {
  CaptureOptions o;
  o.argv = {TSCOPE_FAKE_TARGET, "frames", "6", "2000", "0"};
  o.output = path("full.tscope");
  o.saveIntervalSeconds = 0.2;
  rlimit old{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  auto oldHandler = ::signal(SIGXFSZ, SIG_IGN);
  size_t firstSaved = 0;
  bool limited = false;
  CaptureHooks hooks;
  hooks.saved = [&](size_t events) {
    if (limited) return;
    limited = true;
    firstSaved = events;
    // No larger file fits from now on.
    rlimit full = old;
    full.rlim_cur = std::filesystem::file_size(o.output);
    ::setrlimit(RLIMIT_FSIZE, &full);
  };
  auto r = runCapture(o, hooks);
  ::setrlimit(RLIMIT_FSIZE, &old);
  ::signal(SIGXFSZ, oldHandler);
  ASSERT_TRUE(limited);
  ASSERT_LT(firstSaved, 12000u) << "the program ended before a periodic save";
  ASSERT_FALSE(r.ok()) << "the final save cannot have fit";
  EXPECT_NE(r.error().find(o.output), std::string::npos) << r.error();
  auto s = openSessionFile(o.output);
  ASSERT_TRUE(s.ok()) << s.error();
  EXPECT_EQ(summarize(**s).kernels, firstSaved);
}

TEST_F(Launcher, AProgramThatDiesMidRecordLeavesAReadableIncompleteSession) {
  CaptureOptions o;
  o.argv = {TSCOPE_FAKE_TARGET, "crash", "2", "50"};
  o.output = path("crash.tscope");
  auto r = runCapture(o);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->signal, 9);
  EXPECT_TRUE(r->incomplete);
  auto s = openSessionFile(o.output);
  ASSERT_TRUE(s.ok()) << s.error();
  EXPECT_EQ(summarize(**s).kernels, 100u);  // every whole record before the cut
  EXPECT_TRUE((*s)->provenance.incomplete);
  EXPECT_EQ((*s)->provenance.exitCode, 128 + 9);
}

TEST_F(Launcher, PerRankCapturesOpenAsOneMultiRankSession) {
  std::vector<std::string> files;
  for (int rank : {0, 1}) {
    CaptureOptions o;
    o.argv = {TSCOPE_FAKE_TARGET, "frames", "1", "30", "0"};
    o.env = {{"RANK", std::to_string(rank)}};  // what torchrun sets
    o.output = path("run." + std::to_string(rank) + ".tscope");
    ASSERT_TRUE(runCapture(o).ok());
    files.push_back(o.output);
  }
  auto s = openSessionFiles(files);
  ASSERT_TRUE(s.ok()) << s.error();
  ASSERT_EQ((*s)->ranks.size(), 2u);
  EXPECT_EQ((*s)->ranks[0].label, "rank 0 / fakehost");
  EXPECT_EQ((*s)->ranks[1].label, "rank 1 / fakehost");
  EXPECT_EQ(summarize(**s).kernels, 60u);
}

TEST_F(Launcher, CommandLine) {
  std::string cli = TSCOPE_CLI;
  auto [code, out] =
      runCommand(cli + " capture -o " + path("cli.%p.tscope") + " -- sh -c 'exit 5'");
  EXPECT_EQ(code, 5) << out;
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir_))
    files += e.path().filename().string().rfind("cli.", 0) == 0;
  EXPECT_EQ(files, 1u);
  std::tie(code, out) = runCommand(cli + " capture -o " + path("nodir/x.tscope") + " -- true");
  EXPECT_EQ(code, 1);
  EXPECT_NE(out.find("does not exist"), std::string::npos) << out;
  std::tie(code, out) = runCommand(cli + " capture -- true");
  EXPECT_EQ(code, 2) << out;
  std::tie(code, out) = runCommand(cli + " capture -o x.tscope --kinds kernel,bogus -- true");
  EXPECT_EQ(code, 2) << out;
  // Snapshots at most ten a second; times finite.
  std::tie(code, out) = runCommand(cli + " capture -o x.tscope --interval 0.05 -- true");
  EXPECT_EQ(code, 2) << out;
  EXPECT_NE(out.find("--interval needs seconds (at least 0.1)"), std::string::npos) << out;
  std::tie(code, out) = runCommand(cli + " capture -o x.tscope --duration inf -- true");
  EXPECT_EQ(code, 2) << out;
  EXPECT_NE(out.find("--duration needs seconds"), std::string::npos) << out;
  // A delay that leaves nothing of the duration: refused before anything runs.
  std::tie(code, out) =
      runCommand(cli + " capture -o " + path("none.tscope") + " --duration 2 --delay 2 -- true");
  EXPECT_EQ(code, 2) << out;
  EXPECT_NE(out.find("--delay 2 leaves nothing of --duration 2"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(path("none.tscope")));
  // Ctrl+C on the CLI: it stops the capture, asks the program to end and saves.
  std::string out2 = path("interrupted.tscope");
  pid_t pid = ::fork();
  if (pid == 0) {
    ::execl(TSCOPE_CLI, TSCOPE_CLI, "capture", "-o", out2.c_str(), "--", "sleep", "30",
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::usleep(300'000);
  ::kill(pid, SIGINT);
  int status = 0;
  auto t0 = std::chrono::steady_clock::now();
  while (::waitpid(pid, &status, WNOHANG) == 0 &&
         std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10)) {
    ::usleep(20'000);
  }
  ASSERT_TRUE(WIFEXITED(status)) << "the CLI did not stop on SIGINT";
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGTERM);  // the program was asked to terminate
  auto saved = openSessionFile(out2);
  ASSERT_TRUE(saved.ok()) << saved.error();
  EXPECT_EQ((*saved)->provenance.exitCode, 128 + SIGTERM);

  EXPECT_EQ(expandOutputName("run.%%.%r"), "run.%." + std::to_string([] {
                                             const char* r = std::getenv("RANK");
                                             return r ? std::atoi(r) : 0;
                                           }()));
}

// The stop is the Progress's cancel flag, as for every long job: before the launch nothing runs;
// while recording, what was recorded is saved, and the program is either terminated or (keep
// running) left alone. The stages come in order.
TEST_F(Launcher, AStopThroughProgressSavesWhatWasRecorded) {
  std::atomic<bool> stop{true};
  std::vector<std::string> stages;
  CaptureHooks hooks;
  hooks.progress.cancel = &stop;
  hooks.progress.stage = [&](std::string_view s) { stages.emplace_back(s); };
  CaptureOptions o;
  o.argv = {"sleep", "30"};
  o.output = path("never.tscope");
  auto r = runCapture(o, hooks);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.cancelled()) << r.error();
  EXPECT_FALSE(fs::exists(o.output));

  // Stopped a moment after the launch, the program left running.
  stop = false;
  stages.clear();
  std::atomic<bool> keep{true};
  hooks.keepRunning = &keep;
  int live = 0;
  hooks.live = [&](const CaptureProgress&) {
    if (++live == 3) stop = true;  // about 0.3 s in
  };
  const std::string pidFile = path("kept.pid");
  o.argv = {"sh", "-c", "echo $$ > '" + pidFile + "'; exec sleep 30"};
  o.output = path("kept.tscope");
  auto t0 = std::chrono::steady_clock::now();
  r = runCapture(o, hooks);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
  EXPECT_FALSE(r->exitCode);  // still running: no exit to report
  EXPECT_FALSE(r->signal);
  EXPECT_TRUE(fs::exists(o.output));
  EXPECT_EQ(stages, (std::vector<std::string>{"launching", "recording", "saving"}));
  // The program it left running is this test's to end.
  pid_t pid = 0;
  std::ifstream(pidFile) >> pid;
  ASSERT_GT(pid, 0);
  EXPECT_EQ(::kill(pid, SIGKILL), 0);  // still there to kill: it was left running
  ::waitpid(pid, nullptr, 0);
}

// The program sees this process's environment, the capture's variables, and the user's --env
// last (it wins over both); the working directory is its own.
TEST_F(Launcher, TheProgramGetsTheMergedEnvironmentAndItsDirectory) {
  ::setenv("TSCOPE_TEST_INHERITED", "kept", 1);
  ::setenv("TSCOPE_TEST_REPLACED", "old", 1);
  CaptureOptions o;
  const std::string out = path("env.txt");
  o.argv = {"sh", "-c",
            "echo \"$TSCOPE_TEST_INHERITED|$TSCOPE_TEST_REPLACED|$TSCOPE_CAPTURE_KINDS|"
            "$TSCOPE_CUPTI_LIBRARY|$(pwd)\" > '" +
                out + "'"};
  o.output = path("env.tscope");
  o.kinds = "kernel";
  o.env = {{"TSCOPE_TEST_REPLACED", "new"}, {"TSCOPE_CUPTI_LIBRARY", "/x/libcupti.so"}};
  o.workingDirectory = fs::temp_directory_path().string();
  auto r = runCapture(o);
  ::unsetenv("TSCOPE_TEST_INHERITED");
  ::unsetenv("TSCOPE_TEST_REPLACED");
  ASSERT_TRUE(r.ok()) << r.error();
  std::string line;
  std::getline(std::ifstream(out), line);
  EXPECT_EQ(line,
            "kept|new|kernel|/x/libcupti.so|" + fs::canonical(fs::temp_directory_path()).string());
}

}  // namespace ts::capture
