// A small training-like loop, the second capture sample: per step a forward and a backward pass
// over a few "layers" (a tiled matmul-like kernel and an elementwise activation), on several
// streams, with pinned and pageable copies, and NVTX ranges named forward/<layer> and
// backward/<layer> so that measured kernels map to layers.
// Usage: train_loop [STEPS] [TIMES_FILE]: TIMES_FILE receives each step's wall time in
// nanoseconds, one a line (tests/gpu/gpu-check.sh compares steady-state steps with and without
// capture, leaving out start-up and the save).
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define CHECK(call)                                                                \
  do {                                                                             \
    cudaError_t e_ = (call);                                                       \
    if (e_ != cudaSuccess) {                                                       \
      std::fprintf(stderr, "train_loop: %s: %s\n", #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                                \
    }                                                                              \
  } while (0)

constexpr int kTile = 16;

// out[m×n] = a[m×k] · b[k×n], tiled through shared memory.
__global__ void matmul(const float* a, const float* b, float* out, int m, int n, int k) {
  __shared__ float ta[kTile][kTile], tb[kTile][kTile];
  int row = blockIdx.y * kTile + threadIdx.y, col = blockIdx.x * kTile + threadIdx.x;
  float acc = 0;
  for (int t = 0; t < k; t += kTile) {
    ta[threadIdx.y][threadIdx.x] =
        row < m && t + threadIdx.x < k ? a[row * k + t + threadIdx.x] : 0.f;
    tb[threadIdx.y][threadIdx.x] =
        col < n && t + threadIdx.y < k ? b[(t + threadIdx.y) * n + col] : 0.f;
    __syncthreads();
    for (int i = 0; i < kTile; ++i) acc += ta[threadIdx.y][i] * tb[i][threadIdx.x];
    __syncthreads();
  }
  if (row < m && col < n) out[row * n + col] = acc;
}

__global__ void relu(float* x, size_t n) {
  size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n) x[i] = x[i] > 0 ? x[i] : 0;
}

__global__ void sgdUpdate(float* w, const float* grad, float lr, size_t n) {
  size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n) w[i] -= lr * grad[i];
}

int main(int argc, char** argv) {
  const int steps = argc > 1 ? std::atoi(argv[1]) : 20;
  const int layers = 4, dim = 512, batch = 256;
  std::vector<float*> weights(layers), grads(layers), acts(layers + 1);
  for (int l = 0; l < layers; ++l) {
    CHECK(cudaMalloc(&weights[l], dim * dim * sizeof(float)));
    CHECK(cudaMalloc(&grads[l], dim * dim * sizeof(float)));
    CHECK(cudaMemset(weights[l], 0, dim * dim * sizeof(float)));
  }
  for (float*& a : acts) CHECK(cudaMalloc(&a, batch * dim * sizeof(float)));
  cudaStream_t compute, copy, update;
  CHECK(cudaStreamCreate(&compute));
  CHECK(cudaStreamCreate(&copy));
  CHECK(cudaStreamCreate(&update));
  float* pinned;
  CHECK(cudaMallocHost(&pinned, batch * dim * sizeof(float)));
  std::vector<float> pageable(batch * dim, 0.5f), loss(batch * dim);
  dim3 block(kTile, kTile), grid((dim + kTile - 1) / kTile, (batch + kTile - 1) / kTile);
  const size_t elems = static_cast<size_t>(batch) * dim;

  std::vector<long long> stepNs;
  stepNs.reserve(steps > 0 ? steps : 0);
  for (int step = 0; step < steps; ++step) {
    const auto stepStart = std::chrono::steady_clock::now();
    nvtxRangePushA(("step " + std::to_string(step)).c_str());
    // Input batch: pinned copy on its own stream, overlapping the previous step's update.
    for (size_t i = 0; i < elems; ++i) pinned[i] = pageable[i];
    CHECK(cudaMemcpyAsync(acts[0], pinned, elems * sizeof(float), cudaMemcpyHostToDevice, copy));
    CHECK(cudaStreamSynchronize(copy));
    for (int l = 0; l < layers; ++l) {
      nvtxRangePushA(("forward/layer" + std::to_string(l)).c_str());
      matmul<<<grid, block, 0, compute>>>(acts[l], weights[l], acts[l + 1], batch, dim, dim);
      relu<<<(elems + 255) / 256, 256, 0, compute>>>(acts[l + 1], elems);
      nvtxRangePop();
    }
    for (int l = layers - 1; l >= 0; --l) {
      nvtxRangePushA(("backward/layer" + std::to_string(l)).c_str());
      matmul<<<grid, block, 0, compute>>>(acts[l + 1], weights[l], acts[l], batch, dim,
                                          dim);  // input gradient
      matmul<<<dim3(dim / kTile, dim / kTile), block, 0, compute>>>(
          weights[l], weights[l], grads[l], dim, dim, dim);  // weight gradient
      nvtxRangePop();
    }
    CHECK(cudaStreamSynchronize(compute));
    nvtxRangePushA("optimizer");
    for (int l = 0; l < layers; ++l)
      sgdUpdate<<<(dim * dim + 255) / 256, 256, 0, update>>>(weights[l], grads[l], 1e-3f,
                                                             dim * dim);
    nvtxRangePop();
    // The loss comes back through pageable memory (a synchronous copy).
    CHECK(cudaMemcpy(loss.data(), acts[layers], elems * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaStreamSynchronize(update));
    nvtxRangePop();
    stepNs.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(
                         std::chrono::steady_clock::now() - stepStart)
                         .count());
  }
  if (argc > 2) {
    std::FILE* f = std::fopen(argv[2], "w");
    if (!f) {
      std::fprintf(stderr, "train_loop: cannot write %s\n", argv[2]);
      return 1;
    }
    for (long long ns : stepNs) std::fprintf(f, "%lld\n", ns);
    if (std::fclose(f) != 0) {
      std::fprintf(stderr, "train_loop: cannot write %s\n", argv[2]);
      return 1;
    }
  }
  std::printf("train_loop: %d steps of %d layers\n", steps, layers);
  return 0;
}
