// runIsolated: what the child returns comes back; its crash, exception, runaway allocation or
// hang becomes an outcome that says what happened and where, and the caller carries on.
#include <gtest/gtest.h>

#include <csignal>
#include <new>
#include <stdexcept>
#include <thread>
#include <vector>

#include "util/isolated_call.h"

namespace ts {

TEST(IsolatedCall, ReturnsTheChildsBytes) {
  std::string big(300'000, 'x');  // larger than a pipe's buffer
  big[12345] = '\0';
  IsolatedOutcome out = runIsolated([&](const StageReporter& stage) {
    stage("copying");
    return big;
  });
  ASSERT_TRUE(out.finished()) << out.describe();
  EXPECT_EQ(out.payload, big);
  EXPECT_EQ(out.stage, "copying");
}

TEST(IsolatedCall, ACrashIsAnOutcomeNamingTheSignalAndTheStage) {
  IsolatedOutcome out = runIsolated([](const StageReporter& stage) -> std::string {
    stage("inferring shapes");
    std::raise(SIGSEGV);
    return "not reached";
  });
  EXPECT_EQ(out.end, IsolatedOutcome::End::Crashed);
  EXPECT_EQ(out.signal, SIGSEGV);
  EXPECT_EQ(out.describe(), "crashed (Segmentation fault) while inferring shapes");
}

TEST(IsolatedCall, AnAbortIsACrashToo) {
  IsolatedOutcome out = runIsolated([](const StageReporter&) -> std::string { std::abort(); });
  EXPECT_EQ(out.end, IsolatedOutcome::End::Crashed);
  EXPECT_EQ(out.signal, SIGABRT);
}

TEST(IsolatedCall, AnExceptionComesBackAsItsMessage) {
  IsolatedOutcome out = runIsolated([](const StageReporter& stage) -> std::string {
    stage("checking");
    throw std::runtime_error("bad node 3");
  });
  EXPECT_EQ(out.end, IsolatedOutcome::End::Threw);
  EXPECT_EQ(out.describe(), "failed: bad node 3 while checking");
  IsolatedOutcome oom =
      runIsolated([](const StageReporter&) -> std::string { throw std::bad_alloc(); });
  EXPECT_EQ(oom.end, IsolatedOutcome::End::OutOfMemory);
}

TEST(IsolatedCall, AHangIsStoppedAtTheTimeLimit) {
  IsolationLimits limits;
  limits.timeoutMs = 300;
  auto start = std::chrono::steady_clock::now();
  IsolatedOutcome out = runIsolated(
      [](const StageReporter& stage) -> std::string {
        stage("waiting forever");
        for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
      },
      limits);
  EXPECT_EQ(out.end, IsolatedOutcome::End::TimedOut);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  EXPECT_NE(out.describe().find("while waiting forever"), std::string::npos) << out.describe();
}

#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
TEST(IsolatedCall, MemoryPastTheLimitIsRefused) {
  IsolationLimits limits;
  limits.extraMemoryBytes = int64_t{256} << 20;
  IsolatedOutcome out = runIsolated(
      [](const StageReporter&) {
        std::vector<char> huge(size_t{1} << 30, 1);  // 1 GiB against a 256 MiB allowance
        return std::string(1, huge[12345]);
      },
      limits);
  EXPECT_EQ(out.end, IsolatedOutcome::End::OutOfMemory) << out.describe();
}
#endif

}  // namespace ts
