#include <gtest/gtest.h>

#include "session/session_summary.h"
#include "session_fixture.h"
#include "synth/synthetic_session.h"

namespace ts {

TEST(SyntheticSession, SameSpecSameSession) {
  SyntheticSpec spec{20'001, 2, 3, 7};
  auto a = generateSyntheticSession(spec);
  auto b = generateSyntheticSession(spec);
  ASSERT_TRUE(a.ok() && b.ok());
  std::string why;
  EXPECT_TRUE(testing::sameSession(**a, **b, &why)) << why;
  spec.seed = 8;
  auto c = generateSyntheticSession(spec);
  EXPECT_FALSE(testing::sameSession(**a, **c, nullptr));
}

TEST(SyntheticSession, ExactEventCountAndShape) {
  for (uint64_t n : {0ull, 1ull, 2ull, 3ull, 1000ull, 12'345ull}) {
    auto s = generateSyntheticSession({n, 2, 4, 1});
    ASSERT_TRUE(s.ok());
    EXPECT_EQ((*s)->eventCount(), n);
  }
  auto s = generateSyntheticSession({100'000, 4, 4, 1});
  ASSERT_TRUE(s.ok());
  SessionSummary r = summarize(**s);
  EXPECT_EQ(r.devices.size(), 4u);
  EXPECT_EQ(r.streams, 16u);
  EXPECT_GT(r.kernels, 30'000u);
  EXPECT_GT(r.memcpyCount[static_cast<size_t>(CopyKind::PtoP)], 0u);
  // Every GPU op has its launch call, and each is linked by a flow.
  EXPECT_EQ(r.apiCalls, r.kernels + r.memcpys() + r.memsets);
  EXPECT_EQ(r.flows, r.apiCalls);
}

TEST(SyntheticSession, RejectsImpossibleSpecs) {
  EXPECT_FALSE(generateSyntheticSession({10, 0, 1, 1}).ok());
  EXPECT_FALSE(generateSyntheticSession({10, 1, 0, 1}).ok());
  EXPECT_FALSE(generateSyntheticSession({10, 65, 1, 1}).ok());
}

}  // namespace ts
