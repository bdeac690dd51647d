#include <gtest/gtest.h>

#include "session/occupancy.h"
#include "session_fixture.h"

namespace ts {

namespace {
Device a100() {
  return testing::a100Device();
}

KernelDetail launch(uint32_t grid, uint32_t block, uint16_t registers, uint32_t shared) {
  KernelDetail k;
  k.gridX = grid, k.gridY = k.gridZ = 1;
  k.blockX = block, k.blockY = k.blockZ = 1;
  k.registersPerThread = registers;
  k.staticSharedMemory = shared;
  return k;
}
}  // namespace

TEST(Occupancy, RegisterLimitedA100Launch) {
  // 47 registers, 256 threads: 1536 registers per warp, 10 warps per sub-partition → 5 blocks.
  auto o = theoreticalOccupancy(a100(), launch(864, 256, 47, 0));
  ASSERT_TRUE(o);
  EXPECT_EQ(o->blocksPerSm, 5);
  EXPECT_DOUBLE_EQ(o->theoretical, 0.625);
  EXPECT_EQ(o->limiter, "registers");
  EXPECT_DOUBLE_EQ(*estimatedAchievedOccupancy(a100(), launch(864, 256, 47, 0)), 0.625);
  // A grid of 54 blocks puts half a block on each SM: 4 warps of 64.
  EXPECT_DOUBLE_EQ(*estimatedAchievedOccupancy(a100(), launch(54, 256, 47, 0)), 4.0 / 64);
}

TEST(Occupancy, OtherLimiters) {
  auto warps = theoreticalOccupancy(a100(), launch(1, 1024, 16, 0));
  EXPECT_EQ(warps->blocksPerSm, 2);
  EXPECT_EQ(warps->limiter, "warps");
  auto blocks = theoreticalOccupancy(a100(), launch(1, 32, 16, 0));
  EXPECT_EQ(blocks->blocksPerSm, 32);
  EXPECT_EQ(blocks->limiter, "blocks");
  // 40 KiB + 1 KiB reserved per block: 4 blocks in 164 KiB.
  auto shared = theoreticalOccupancy(a100(), launch(1, 128, 16, 40960));
  EXPECT_EQ(shared->blocksPerSm, 4);
  EXPECT_EQ(shared->limiter, "shared memory");
  EXPECT_FALSE(theoreticalOccupancy(Device{}, launch(1, 128, 16, 0)).has_value());
  EXPECT_FALSE(theoreticalOccupancy(a100(), launch(1, 0, 16, 0)).has_value());
  EXPECT_EQ(theoreticalOccupancy(a100(), launch(1, 2048, 16, 0))->blocksPerSm, 0);
}

TEST(Occupancy, BlockSlotsByComputeCapability) {
  EXPECT_EQ(maxBlocksPerSmFor(7, 0), 32);
  EXPECT_EQ(maxBlocksPerSmFor(7, 5), 16);
  EXPECT_EQ(maxBlocksPerSmFor(8, 0), 32);
  EXPECT_EQ(maxBlocksPerSmFor(8, 6), 16);
  EXPECT_EQ(maxBlocksPerSmFor(8, 9), 24);
  EXPECT_EQ(maxBlocksPerSmFor(9, 0), 32);
  EXPECT_EQ(maxBlocksPerSmFor(0, 0), 0);
}

}  // namespace ts
