// pairAdd: add two large arrays on two GPUs (one GPU when that is all there is) — the capture
// sample. Per GPU: pinned host halves copied in (HtoD), an add kernel on each of two streams, then
// GPU 1's result copied to GPU 0 (a peer copy; device-to-device on a single GPU), and the sum
// copied out (DtoH). Checks the result and exits non-zero when it is wrong.
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                              \
  do {                                                                           \
    cudaError_t e_ = (call);                                                     \
    if (e_ != cudaSuccess) {                                                     \
      std::fprintf(stderr, "pair_add: %s: %s\n", #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                              \
    }                                                                            \
  } while (0)

__global__ void addArrays(const float* a, const float* b, float* out, size_t n) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    out[i] = a[i] + b[i];
  }
}

int main(int argc, char** argv) {
  const size_t n =
      argc > 1 ? std::strtoull(argv[1], nullptr, 10) : (size_t{1} << 26);  // 64 Mi floats
  int devices = 0;
  CHECK(cudaGetDeviceCount(&devices));
  const int gpus = devices >= 2 ? 2 : 1;
  const size_t half = n / 2;
  float *a, *b, *sum;
  CHECK(cudaMallocHost(&a, n * sizeof(float)));
  CHECK(cudaMallocHost(&b, n * sizeof(float)));
  CHECK(cudaMallocHost(&sum, n * sizeof(float)));
  for (size_t i = 0; i < n; ++i) a[i] = static_cast<float>(i % 1000), b[i] = 1.0f;

  struct Gpu {
    float *a, *b, *out, *peer;
    cudaStream_t streams[2];
  };
  std::vector<Gpu> g(2);
  for (int d = 0; d < 2; ++d) {
    int device = d % gpus;
    CHECK(cudaSetDevice(device));
    CHECK(cudaMalloc(&g[d].a, half * sizeof(float)));
    CHECK(cudaMalloc(&g[d].b, half * sizeof(float)));
    CHECK(cudaMalloc(&g[d].out, half * sizeof(float)));
    g[d].peer = nullptr;
    for (cudaStream_t& s : g[d].streams) CHECK(cudaStreamCreate(&s));
  }
  if (gpus == 2) {
    int canAccess = 0;
    CHECK(cudaDeviceCanAccessPeer(&canAccess, 0, 1));
    CHECK(cudaSetDevice(0));
    if (canAccess) CHECK(cudaDeviceEnablePeerAccess(1, 0));
  }
  CHECK(cudaSetDevice(0));
  CHECK(cudaMalloc(&g[0].peer, half * sizeof(float)));

  nvtxRangePushA("pairAdd");
  for (int d = 0; d < 2; ++d) {
    CHECK(cudaSetDevice(d % gpus));
    const size_t offset = d * half, quarter = half / 2;
    for (int s = 0; s < 2; ++s) {
      // Each stream copies in its quarter and adds it: copies on one stream overlap the other's
      // kernel.
      size_t at = s * quarter, count = s == 0 ? quarter : half - quarter;
      cudaStream_t st = g[d].streams[s];
      CHECK(cudaMemcpyAsync(g[d].a + at, a + offset + at, count * sizeof(float),
                            cudaMemcpyHostToDevice, st));
      CHECK(cudaMemcpyAsync(g[d].b + at, b + offset + at, count * sizeof(float),
                            cudaMemcpyHostToDevice, st));
      addArrays<<<1024, 256, 0, st>>>(g[d].a + at, g[d].b + at, g[d].out + at, count);
      CHECK(cudaGetLastError());
    }
  }
  for (int d = 0; d < 2; ++d) {
    CHECK(cudaSetDevice(d % gpus));
    CHECK(cudaDeviceSynchronize());
  }
  // GPU 1's half to GPU 0: a peer copy (PtoP) on two GPUs, device to device on one.
  CHECK(cudaSetDevice(0));
  CHECK(cudaMemcpyPeerAsync(g[0].peer, 0, g[1].out, gpus == 2 ? 1 : 0, half * sizeof(float),
                            g[0].streams[0]));
  CHECK(cudaMemcpyAsync(sum, g[0].out, half * sizeof(float), cudaMemcpyDeviceToHost,
                        g[0].streams[0]));
  CHECK(cudaMemcpyAsync(sum + half, g[0].peer, (n - half) * sizeof(float), cudaMemcpyDeviceToHost,
                        g[0].streams[1]));
  CHECK(cudaDeviceSynchronize());
  nvtxRangePop();

  size_t wrong = 0;
  for (size_t i = 0; i < 2 * half; ++i) wrong += sum[i] != static_cast<float>(i % 1000) + 1.0f;
  // "of N visible": the GPUs CUDA lets this program use (CUDA_VISIBLE_DEVICES), which
  // tests/gpu/gpu-check.sh compares with the devices in the capture.
  std::printf("pair_add: %zu floats on %d GPU(s) of %d visible, %zu wrong\n", 2 * half, gpus,
              devices, wrong);
  return wrong == 0 ? 0 : 2;
}
