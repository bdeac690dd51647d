#include "synth/synthetic_session.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "session/session_builder.h"

namespace ts {

namespace {

// splitmix64: tiny, fast and identical everywhere (std:: distributions are not).
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint64_t below(uint64_t n) { return next() % n; }
  // Log-uniform in [lo, hi): kernel durations span orders of magnitude.
  int64_t logUniform(int64_t lo, int64_t hi) {
    double u = static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0);
    return static_cast<int64_t>(
        std::exp(std::log(double(lo)) + u * (std::log(double(hi)) - std::log(double(lo)))));
  }

 private:
  uint64_t state_;
};

struct KernelShape {
  const char* name;
  const char* mangled;
  uint32_t grid, block;
  uint16_t registers;
  uint32_t sharedMemory;
};

constexpr std::array<KernelShape, 12> kKernels = {{
    {"ampere_sgemm_128x64_tn", "ampere_sgemm_128x64_tn", 864, 256, 122, 0},
    {"ampere_sgemm_64x32_sliced1x4_nn", "ampere_sgemm_64x32_sliced1x4_nn", 432, 128, 120, 0},
    {"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>",
     "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEEEEviT0_", 1728, 128, 16,
     0},
    {"void cudnn::winograd_nonfused::winogradForwardData4x4<float, float>",
     "_ZN5cudnn18winograd_nonfused22winogradForwardData4x4IffEEvNS0_15WinogradDataParamsIT_T0_EE",
     392, 256, 64, 8192},
    {"void at::native::(anonymous namespace)::max_pool_forward_nchw<float, float>",
     "_ZN2at6native12_GLOBAL__N_121max_pool_forward_nchwIffEEviPKT_", 5400, 256, 32, 0},
    {"void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>",
     "_ZN7cutlass6KernelI50cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4EEvNT_6ParamsE", 108,
     128, 230, 65536},
    {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float>>",
     "_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIfEEEEvT1_", 80, 512, 32, 16},
    {"void at::native::elementwise_kernel<128, 2, at::native::AddFunctor<float>>",
     "_ZN2at6native18elementwise_kernelILi128ELi2ENS0_10AddFunctorIfEEEEviT1_", 2048, 128, 24, 0},
    {"void at::native::cunn_SoftMaxForward<4, float, float, float>",
     "_ZN2at6native19cunn_SoftMaxForwardILi4EfffEEvPT1_PKT_i", 64, 1024, 40, 4096},
    {"void at::native::batch_norm_collect_statistics_kernel<float, float, float>",
     "_ZN2at6native36batch_norm_collect_statistics_kernelIfffEEvT_", 256, 512, 38, 2048},
    {"void at::native::unrolled_elementwise_kernel<at::native::ReluFunctor<float>>",
     "_ZN2at6native27unrolled_elementwise_kernelINS0_11ReluFunctorIfEEEEviT_", 3456, 64, 20, 0},
    {"void splitKreduce_kernel<32, 16, int, float, float, float, float>",
     "_Z19splitKreduce_kernelILi32ELi16EifffffEv18cublasSplitKParams", 24, 384, 30, 0},
}};

constexpr std::array<const char*, 6> kLayers = {"conv1", "conv2",     "fc1",
                                                "fc2",   "attention", "norm"};

}  // namespace

Result<SessionPtr> generateSyntheticSession(const SyntheticSpec& spec, const Progress& progress) {
  if (spec.gpus < 1 || spec.gpus > 64) return Error{"--gpus must be between 1 and 64"};
  if (spec.streamsPerGpu < 1 || spec.streamsPerGpu > 256) {
    return Error{"--streams must be between 1 and 256"};
  }
  if (spec.events > 2'000'000'000ull) return Error{"--events must be at most 2000000000"};
  Rng rng(spec.seed);
  SessionBuilder b;
  uint32_t rank = b.rank(0);
  uint32_t process = b.process(rank, 4242);
  b.processInfo(process).name = "python train.py (synthetic)";

  struct Gpu {
    uint32_t device, thread, context;
    std::vector<uint32_t> streams;
    std::vector<TimeNs> streamFree;
    TimeNs cpu = 0;
    uint64_t memory = 0;
  };
  std::vector<Gpu> gpus(static_cast<size_t>(spec.gpus));
  for (int g = 0; g < spec.gpus; ++g) {
    Gpu& gpu = gpus[static_cast<size_t>(g)];
    gpu.device = b.device(rank, g);
    Device& d = b.deviceInfo(gpu.device);
    d.name = "Synthetic A100-SXM4-40GB";
    d.uuid = "GPU-00000000-0000-0000-0000-00000000000" + std::to_string(g % 10);
    d.computeMajor = 8;
    d.smCount = 108;
    d.memoryBytes = 40ull << 30;
    d.memoryBandwidthBytesPerSecond = 1555ull * 1000 * 1000 * 1000;
    d.clockKHz = 1410000;
    d.maxWarpsPerSm = 64;
    d.maxBlocksPerSm = 32;
    d.maxThreadsPerBlock = 1024;
    d.maxRegistersPerSm = 65536;
    d.maxRegistersPerBlock = 65536;
    d.maxSharedMemoryPerSm = 167936;
    d.maxSharedMemoryPerBlock = 49152;
    gpu.thread = b.thread(process, 5000 + g);
    b.threadInfo(gpu.thread).name = g == 0 ? "python" : "worker " + std::to_string(g);
    gpu.context = b.context(gpu.device, 1);
    b.contextInfo(gpu.context).process = process;
    for (int s = 0; s < spec.streamsPerGpu; ++s) {
      uint32_t stream = b.stream(gpu.device, 7 + 4 * static_cast<uint32_t>(s));
      b.streamInfo(stream).context = gpu.context;
      gpu.streams.push_back(stream);
      gpu.streamFree.push_back(0);
    }
  }

  const TimeNs epoch = 1'700'000'000'000'000'000;  // absolute, like CUPTI's realtime clock
  uint32_t correlation = 1;
  uint64_t emitted = 0;
  uint64_t op = 0;
  const StringId launchKernel = b.intern("cudaLaunchKernel");
  const StringId memcpyAsync = b.intern("cudaMemcpyAsync");
  const StringId memsetAsync = b.intern("cudaMemsetAsync");
  const StringId nvtxDomain = b.intern("NVTX");
  std::array<StringId, kKernels.size()> kernelNames{}, kernelMangled{};
  for (size_t k = 0; k < kKernels.size(); ++k) {
    kernelNames[k] = b.intern(kKernels[k].name);
    kernelMangled[k] = b.intern(kKernels[k].mangled);
  }
  const std::array<StringId, kCopyKindCount> copyNames = {
      b.intern("Memcpy HtoD (Pinned -> Device)"), b.intern("Memcpy DtoH (Device -> Pinned)"),
      b.intern("Memcpy DtoD (Device -> Device)"), b.intern("Memcpy PtoP (Device -> Device)"),
      b.intern("Memcpy HtoH (Pinned -> Pinned)"), b.intern("Memcpy")};
  const StringId memsetName = b.intern("Memset (Device)");

  while (emitted < spec.events) {
    if ((op & 0xFFFF) == 0) {
      if (progress.cancelled()) return Error::cancelled();
      progress.update(0.5 * static_cast<double>(emitted) / static_cast<double>(spec.events));
    }
    Gpu& gpu = gpus[op % gpus.size()];
    size_t si = rng.below(gpu.streams.size());
    // A layer range opens every 64 ops of a GPU's thread and encloses the launches that follow.
    if ((op / gpus.size()) % 64 == 0 && spec.events - emitted >= 3) {
      std::string text = std::string(op / gpus.size() / 64 % 2 ? "backward/" : "forward/") +
                         kLayers[(op / gpus.size() / 128) % kLayers.size()];
      TimeNs duration = 64 * 9'000;  // about the time the next 64 launches take on the CPU
      b.addNvtx(gpu.thread, epoch + gpu.cpu, epoch + gpu.cpu + duration, b.intern(text),
                {nvtxDomain, 0xFF4E79A7u + static_cast<uint32_t>(op % 7) * 0x101010u, 0});
      ++emitted;
    }
    if (spec.events - emitted == 1) {  // room for one event only: a mark keeps the count exact
      b.addNvtx(gpu.thread, epoch + gpu.cpu, epoch + gpu.cpu, b.intern("end of synthetic run"),
                {nvtxDomain, 0xFFE15759u, 1});
      break;
    }
    TimeNs apiStart = gpu.cpu + 500 + static_cast<TimeNs>(rng.below(2000));
    TimeNs apiEnd = apiStart + 2'000 + static_cast<TimeNs>(rng.below(6'000));
    gpu.cpu = apiEnd;
    uint64_t what = rng.below(100);
    TimeNs gpuStart =
        std::max(gpu.streamFree[si], apiStart + 4'000) + static_cast<TimeNs>(rng.below(1'000));
    TimeNs gpuEnd;
    uint32_t stream = gpu.streams[si];
    if (what < 86) {
      size_t k = rng.below(kKernels.size());
      const KernelShape& shape = kKernels[k];
      gpuEnd = gpuStart + rng.logUniform(1'500, 900'000);
      KernelDetail d;
      d.mangled = kernelMangled[k];
      d.correlation = correlation;
      d.context = 1;
      d.gridX = shape.grid;
      d.gridY = d.gridZ = 1;
      d.blockX = shape.block;
      d.blockY = d.blockZ = 1;
      d.registersPerThread = shape.registers;
      d.dynamicSharedMemory = shape.sharedMemory;
      b.addKernel(stream, epoch + gpuStart, epoch + gpuEnd, kernelNames[k], d);
      b.addApi(gpu.thread, epoch + apiStart, epoch + apiEnd, launchKernel,
               {correlation, 0, ApiDomain::Runtime});
    } else if (what < 97) {
      auto kind = static_cast<CopyKind>(what < 91       ? 0
                                        : what < 94     ? 1
                                        : what < 96     ? 2
                                        : spec.gpus > 1 ? 3
                                                        : 2);
      uint64_t bytes = 4096ull << rng.below(14);
      gpuEnd = gpuStart + 1'000 + static_cast<TimeNs>(bytes / 20);  // ~20 GB/s
      MemcpyDetail d;
      d.bytes = bytes;
      d.copyKind = kind;
      d.srcKind = kind == CopyKind::HtoD ? MemoryKind::Pinned : MemoryKind::Device;
      d.dstKind = kind == CopyKind::DtoH ? MemoryKind::Pinned : MemoryKind::Device;
      d.srcDevice = static_cast<int32_t>(&gpu - gpus.data());
      d.dstDevice = kind == CopyKind::PtoP ? (d.srcDevice + 1) % spec.gpus : d.srcDevice;
      d.async = 1;
      d.correlation = correlation;
      d.context = 1;
      b.addMemcpy(stream, epoch + gpuStart, epoch + gpuEnd, copyNames[static_cast<size_t>(kind)],
                  d);
      b.addApi(gpu.thread, epoch + apiStart, epoch + apiEnd, memcpyAsync,
               {correlation, 0, ApiDomain::Runtime});
      gpu.memory += kind == CopyKind::HtoD ? bytes : 0;
    } else {
      uint64_t bytes = 4096ull << rng.below(12);
      gpuEnd = gpuStart + 800 + static_cast<TimeNs>(bytes / 400);
      b.addMemset(stream, epoch + gpuStart, epoch + gpuEnd, memsetName,
                  {bytes, 0, MemoryKind::Device, correlation, 1});
      b.addApi(gpu.thread, epoch + apiStart, epoch + apiEnd, memsetAsync,
               {correlation, 0, ApiDomain::Runtime});
    }
    gpu.streamFree[si] = gpuEnd;
    emitted += 2;
    ++correlation;
    if (op % 1024 == 0) {
      b.addCounterSample("GPU memory used", "bytes", gpu.device, kNone, epoch + gpuEnd,
                         static_cast<double>(gpu.memory % (40ull << 30)));
    }
    ++op;
  }
  b.provenance().sources.push_back({"generate --events " + std::to_string(spec.events) +
                                        " --gpus " + std::to_string(spec.gpus) + " --streams " +
                                        std::to_string(spec.streamsPerGpu) + " --seed " +
                                        std::to_string(spec.seed),
                                    "synthetic"});
  b.provenance().createdUtc = "2026-01-01T00:00:00Z";  // fixed: the same spec gives the same file
  Progress buildProgress{progress.report ? [&](double f) { progress.update(0.5 + 0.5 * f); }
                                         : std::function<void(double)>{},
                         progress.cancel, progress.stage};
  return b.build(buildProgress);
}

}  // namespace ts
