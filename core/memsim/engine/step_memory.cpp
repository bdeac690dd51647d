#include "memsim/engine/step_memory.h"

#include <algorithm>

namespace ts::memsim {

std::vector<TensorLifetime> tensorLifetimes(const SimWorkload& w) {
  const int n = static_cast<int>(w.kernels.size());
  std::vector<TensorLifetime> lives(w.tensors.size());
  for (int k = 0; k < n; ++k) {
    const SimKernel& kernel = w.kernels[static_cast<size_t>(k)];
    for (const auto* list : {&kernel.inputs, &kernel.outputs}) {
      for (int t : *list) {
        if (t < 0 || static_cast<size_t>(t) >= lives.size()) continue;
        TensorLifetime& life = lives[static_cast<size_t>(t)];
        if (life.from < 0) life.from = k;
        life.to = k + 1;
      }
    }
  }
  for (size_t t = 0; t < lives.size(); ++t) {
    const SimTensor& tensor = w.tensors[t];
    TensorLifetime& life = lives[t];
    if (tensor.global) {
      life = {0, n, true};
    } else if (tensor.untilIterationEnd && life.from >= 0) {
      life.to = n;
    }
  }
  return lives;
}

StepMemory stepMemory(const SimWorkload& w) {
  StepMemory m;
  const size_t n = w.kernels.size();
  if (n == 0) return m;
  // Bytes allocated and freed at each kernel, per class: a sweep, linear in kernels and tensors.
  std::vector<std::array<int64_t, kTensorClassCount>> change(n + 1);
  const std::vector<TensorLifetime> lives = tensorLifetimes(w);
  for (size_t t = 0; t < lives.size(); ++t) {
    if (!lives[t].allocated()) continue;
    const auto c = static_cast<size_t>(w.tensors[t].kind);
    change[static_cast<size_t>(lives[t].from)][c] += w.tensors[t].bytes;
    change[static_cast<size_t>(lives[t].to)][c] -= w.tensors[t].bytes;
  }
  std::vector<int64_t> freed(n + 1, 0);  // bytes whose lifetime ends with each kernel's end
  for (size_t t = 0; t < lives.size(); ++t) {
    if (lives[t].allocated() && !lives[t].global)  // globals go on into the next iteration
      freed[static_cast<size_t>(lives[t].to)] += w.tensors[t].bytes;
  }
  std::array<int64_t, kTensorClassCount> live{};
  m.live.resize(n);
  m.after.resize(n);
  for (size_t k = 0; k < n; ++k) {
    int64_t total = w.kernels[k].workspaceBytes;
    for (size_t c = 0; c < live.size(); ++c) total += live[c] += change[k][c];
    m.live[k] = total;
    m.after[k] = total - w.kernels[k].workspaceBytes - freed[k + 1];
    if (total > m.peak || m.peakKernel < 0) {
      m.peak = total;
      m.peakKernel = static_cast<int>(k);
      m.peakByClass = live;
      m.peakByClass[static_cast<size_t>(TensorClass::Workspace)] += w.kernels[k].workspaceBytes;
    }
  }
  return m;
}

TimeSpan lifetimeSpan(const TensorLifetime& life, const SimResult& r) {
  if (life.global) return {0, r.summary.iteration};
  if (!life.allocated() || static_cast<size_t>(life.to) > r.kernels.size()) return {0, 0};
  const SimKernelTime& first = r.kernels[static_cast<size_t>(life.from)];
  return {first.start - first.stall, r.kernels[static_cast<size_t>(life.to - 1)].end};
}

namespace {

// Per tensor, when it is off the GPU: its stays in host memory or on the SSD, each from the end
// of the copy that took it there (the simulator frees the GPU's bytes then, not when the move is
// decided), merged — G10's page simulator may report a tensor in both tiers at once.
std::vector<std::vector<TimeSpan>> offGpu(const SimWorkload& w, const SimResult& r) {
  std::vector<std::vector<const Migration*>> outward(w.tensors.size());
  for (const Migration& m : r.migrations) {
    if (m.from == Tier::Gpu && m.tensor >= 0 && static_cast<size_t>(m.tensor) < outward.size())
      outward[static_cast<size_t>(m.tensor)].push_back(&m);
  }
  std::vector<std::vector<TimeSpan>> off(w.tensors.size());
  for (const Residency& res : r.residency) {
    if (res.tier == Tier::Gpu || res.tier == Tier::None || res.tensor < 0 ||
        static_cast<size_t>(res.tensor) >= off.size())
      continue;
    TimeNs from = res.start;
    for (const Migration* m : outward[static_cast<size_t>(res.tensor)]) {
      if (m->to == res.tier && m->start >= res.start && m->start < res.end) {
        from = std::min(std::max(from, m->end), res.end);
        break;
      }
    }
    if (res.end > from) off[static_cast<size_t>(res.tensor)].push_back({from, res.end});
  }
  for (auto& spans : off) {
    std::sort(spans.begin(), spans.end(),
              [](const TimeSpan& a, const TimeSpan& b) { return a.start < b.start; });
    std::vector<TimeSpan> merged;
    for (const TimeSpan& x : spans) {
      if (!merged.empty() && x.start <= merged.back().end)
        merged.back().end = std::max(merged.back().end, x.end);
      else
        merged.push_back(x);
    }
    spans = std::move(merged);
  }
  return off;
}

}  // namespace

std::vector<TierUsage> allocatedOnGpu(const SimWorkload& w, const SimResult& r) {
  const std::vector<TensorLifetime> lives = tensorLifetimes(w);
  const std::vector<std::vector<TimeSpan>> off = offGpu(w, r);
  std::vector<std::pair<TimeNs, int64_t>> changes;  // (time, bytes added)
  for (size_t t = 0; t < lives.size(); ++t) {
    TimeSpan life = lifetimeSpan(lives[t], r);
    if (life.end <= life.start) continue;
    // Allocated when its first kernel runs, not while that kernel waits: the stall before it is
    // the policy making room (copying others out), and counting the new tensor then counts the
    // room twice.
    if (!lives[t].global) life.start = r.kernels[static_cast<size_t>(lives[t].from)].start;
    const int64_t bytes = w.tensors[t].bytes;
    changes.emplace_back(life.start, bytes);
    // A global tensor goes on into the next iteration: the curve ends holding it, unless it
    // ends the iteration off the GPU.
    if (!lives[t].global) changes.emplace_back(life.end, -bytes);
    for (const TimeSpan& away : off[t]) {
      const TimeNs from = std::max(away.start, life.start), to = std::min(away.end, life.end);
      if (to <= from) continue;
      changes.emplace_back(from, -bytes);
      if (!lives[t].global || to < life.end) changes.emplace_back(to, bytes);
    }
  }
  for (size_t k = 0; k < w.kernels.size() && k < r.kernels.size(); ++k) {
    if (w.kernels[k].workspaceBytes <= 0) continue;  // a kernel's own scratch, while it runs
    changes.emplace_back(r.kernels[k].start, w.kernels[k].workspaceBytes);
    changes.emplace_back(r.kernels[k].end, -w.kernels[k].workspaceBytes);
  }
  std::sort(changes.begin(), changes.end());
  std::vector<TierUsage> out;
  out.push_back({0, 0, 0, 0});
  int64_t live = 0;
  for (size_t i = 0; i < changes.size();) {
    const TimeNs at = changes[i].first;
    for (; i < changes.size() && changes[i].first == at; ++i) live += changes[i].second;
    if (out.back().time == at)
      out.back().gpu = live;
    else
      out.push_back({at, live, 0, 0});
  }
  if (out.back().time < r.summary.iteration) out.push_back({r.summary.iteration, live, 0, 0});
  return out;
}

int64_t allocatedPeak(const SimWorkload& w, const SimResult& r) {
  int64_t peak = 0;
  for (const TierUsage& u : allocatedOnGpu(w, r)) peak = std::max(peak, u.gpu);
  return peak;
}

bool keepsFreedPages(const SimWorkload& w, const SimResult& r) {
  int64_t resident = 0;
  for (const TierUsage& u : r.usage) resident = std::max(resident, u.gpu);
  const int64_t allocated = allocatedPeak(w, r);
  return resident > allocated + allocated / 100;
}

std::vector<std::string> stepMemoryAssumptions() {
  return {
      "a tensor holds memory from the kernel that writes it to its last use; weights, "
      "optimizer state and the batch throughout; weight gradients until the step ends "
      "(zero_grad(set_to_none=True))",
      "a model's training step as PyTorch runs it: backward keeps only what autograd saves "
      "(a convolution's input, a ReLU's result, BatchNorm's input and batch statistics, max "
      "pooling's indices, dropout's mask); views and torchvision's in-place ReLUs and "
      "residual sums allocate nothing; a convolution's workspace (at most its output's size) "
      "only while it runs",
      "optimizer state: SGD's momentum, or Adam's two moments and, through the updates, the "
      "square roots of all second moments at once (PyTorch's foreach Adam, its default on "
      "GPUs)",
      "the dtype of the model's tensors (fp32 unless the model says otherwise); no activation "
      "checkpointing; the loss's own tensors (a few values per sample) are left out"};
}

}  // namespace ts::memsim
