// G10's frontend, rebuilt: from a model file of G10's (frontend/Nets/<Net>.txt) and a batch size,
// the training iteration G10 simulates — its kernels in order (forward, the loss, backward with
// each weight's update right after its gradient) and every tensor they read and write — the way
// G10's analysis builds them (its src/ast.cc, src/analysis.cc; docs/g10-fidelity.md lists the
// rules). Tensors are numbered in G10's creation order, so tensor<i> here is tensor<i> in G10's
// tensors.config. Kernel times and workspaces come from G10's traces (g10_inputs.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace ts::memsim {

// The largest tensor a model file may describe (1 PiB): every sum over a workload's tensors then
// stays far inside int64.
inline constexpr int64_t kMaxTensorBytes = int64_t{1} << 50;

struct G10Graph {
  struct Tensor {
    int64_t bytes = 0;  // as requested, before G10 rounds it up to 4 KiB pages
    bool global = false;
  };
  struct Kernel {
    std::string name;         // G10's kernel type: "Conv2d_Forward", "Add_MultiGredient", ...
    std::vector<int> inputs;  // tensor ids, ascending, no repeats (G10 keeps sets)
    std::vector<int> outputs;
  };
  std::vector<Tensor> tensors;
  std::vector<Kernel> kernels;
  int lossKernel = -1;
};

// Which of G10's model families a CNN file belongs to: G10 wires the residual and branch
// connections of the blocks it knows by family (Bottleneck and BasicBlock for ResNets,
// InceptionA–E, SENetUnit); other blocks are chains.
enum class G10Family { Plain, ResNet, Inception, SENet };

// A CNN model file (PyTorch module text) at `batch` with `inputH` x `inputW` images.
Result<G10Graph> buildG10Cnn(std::string_view text, const std::string& file, G10Family family,
                             int64_t batch, int64_t inputH, int64_t inputW);

// A transformer model file (G10's op records): tensor ids below `globalBelow` are weights (G10's
// trans_borden: 210 for BERT, 184 for ViT); the dimension 99 stands for the batch.
Result<G10Graph> buildG10Transformer(std::string_view text, const std::string& file, int64_t batch,
                                     int globalBelow);

}  // namespace ts::memsim
