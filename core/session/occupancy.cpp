#include "session/occupancy.h"

#include <algorithm>

namespace ts {

int32_t maxBlocksPerSmFor(int major, int minor) {
  if (major <= 0) return 0;
  if (major < 5) return 16;
  if (major == 7 && minor == 5) return 16;
  if (major == 8 && (minor == 6 || minor == 7)) return 16;
  if (major == 8 && minor == 9) return 24;
  return 32;  // 5.x, 6.x, 7.0, 7.2, 8.0, 9.0 and later
}

std::optional<Occupancy> theoreticalOccupancy(const Device& d, const KernelDetail& k) {
  const int64_t threads = int64_t{k.blockX} * k.blockY * k.blockZ;
  const int warpSize = d.warpSize > 0 ? d.warpSize : 32;
  if (threads <= 0 || d.maxWarpsPerSm <= 0 || d.maxRegistersPerSm <= 0) return std::nullopt;
  if (d.maxThreadsPerBlock > 0 && threads > d.maxThreadsPerBlock)
    return Occupancy{0, 0, 0, "block size"};
  const int64_t warpsPerBlock = (threads + warpSize - 1) / warpSize;
  const int maxBlocks =
      d.maxBlocksPerSm > 0 ? d.maxBlocksPerSm : maxBlocksPerSmFor(d.computeMajor, d.computeMinor);

  Occupancy o;
  int64_t blocks = d.maxWarpsPerSm / warpsPerBlock;
  o.limiter = "warps";
  if (maxBlocks > 0 && maxBlocks < blocks) blocks = maxBlocks, o.limiter = "blocks";
  if (k.registersPerThread > 0) {
    // Registers are allocated per warp in units of 256, from each of the SM's sub-partitions
    // (warp schedulers) separately: a warp's registers cannot straddle two of them.
    int64_t perWarp = (int64_t{k.registersPerThread} * warpSize + 255) / 256 * 256;
    int64_t partitions = d.computeMajor >= 7   ? 4
                         : d.computeMajor == 6 ? (d.computeMinor == 0 ? 2 : 4)
                                               : 1;
    int64_t warpsByRegisters = (d.maxRegistersPerSm / partitions / perWarp) * partitions;
    int64_t byRegisters = warpsByRegisters / warpsPerBlock;
    if (d.maxRegistersPerBlock > 0 && perWarp * warpsPerBlock > d.maxRegistersPerBlock)
      byRegisters = 0;
    if (byRegisters < blocks) blocks = byRegisters, o.limiter = "registers";
  }
  int64_t shared = int64_t{k.staticSharedMemory} + k.dynamicSharedMemory;
  if (shared > 0 && d.maxSharedMemoryPerSm > 0) {
    // Ampere and later reserve 1 KiB per block for the system; allocation is in 128-byte units
    // (256 before Ampere).
    int64_t unit = d.computeMajor >= 8 ? 128 : 256;
    int64_t perBlock = (shared + (d.computeMajor >= 8 ? 1024 : 0) + unit - 1) / unit * unit;
    int64_t bySharedMemory = d.maxSharedMemoryPerSm / perBlock;
    if (bySharedMemory < blocks) blocks = bySharedMemory, o.limiter = "shared memory";
  }
  o.blocksPerSm = static_cast<int>(std::max<int64_t>(blocks, 0));
  o.warpsPerSm = static_cast<int>(o.blocksPerSm * warpsPerBlock);
  o.theoretical = static_cast<double>(o.warpsPerSm) / d.maxWarpsPerSm;
  return o;
}

std::optional<double> estimatedAchievedOccupancy(const Device& d, const KernelDetail& k) {
  auto o = theoreticalOccupancy(d, k);
  if (!o || d.smCount <= 0) return std::nullopt;
  const int warpSize = d.warpSize > 0 ? d.warpSize : 32;
  double blocks = static_cast<double>(uint64_t{k.gridX} * k.gridY * k.gridZ);
  double warpsPerBlock =
      static_cast<double>((int64_t{k.blockX} * k.blockY * k.blockZ + warpSize - 1) / warpSize);
  double gridWarpsPerSm = blocks / d.smCount * warpsPerBlock;
  return std::min<double>(o->warpsPerSm, gridWarpsPerSm) / d.maxWarpsPerSm;
}

}  // namespace ts
