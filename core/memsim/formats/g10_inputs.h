// G10's own inputs, read directly: a folder laid out like G10's repository (ours is
// ../shared/data/g10-inputs; a G10 checkout works too) holds frontend/Nets/<Net>.txt, the model
// files, and results/<Model>/cudnn<B>{,PF,InputPF,Workspace}.txt, the kernel times and workspaces
// G10 measured on an A100 for every batch size it traced. From these, any model and batch G10
// traced becomes a workload without running G10: its frontend (g10_frontend.h) builds the
// kernels and tensors, the traces give each kernel its three times and its workspace — equal,
// tensor by tensor and kernel by kernel, to the kernels.config and tensors.config G10 writes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "memsim/formats/g10_frontend.h"
#include "memsim/formats/g10_workload.h"
#include "util/result.h"

namespace ts::memsim {

// The models of G10's evaluation, as its configuration generator (src/resources/genconfigs.py)
// sets them up.
struct G10ModelInfo {
  const char* experiment;  // "BERT", "VIT", "Inceptionv3", "ResNet152", "SENet154"
  const char* net;         // frontend/Nets/<net>.txt
  const char* results;     // results/<results>/
  bool transformer;
  G10Family family;  // CNNs
  int imageSize;     // CNNs: input height = width
  int globalBelow;   // transformers: ids below it are weights (G10's trans_borden)
};
const std::vector<G10ModelInfo>& g10Models();
// By experiment name, ignoring case; nullptr when G10 has no such model.
const G10ModelInfo* findG10Model(std::string_view experiment);
// "BERT, VIT, Inceptionv3, ResNet152, SENet154"
std::string g10ModelNames();

// What a G10 folder holds: per model whose net file is there, the batch sizes with all four
// traces, ascending.
struct G10InputsModel {
  const G10ModelInfo* info = nullptr;
  std::vector<int64_t> batches;
};
Result<std::vector<G10InputsModel>> listG10Inputs(const std::string& root);

// A trace of kernel times (cudnn<B>{,PF,InputPF}.txt): `count` times in ms, as G10's cycles at
// 1.2 GHz (truncated, as G10 reads them). Errors name the file and the kernel.
Result<std::vector<int64_t>> readG10TraceCycles(const std::string& path, size_t count);

// The workload of `experiment` at `batch` (its directory field is the root; its name
// "<experiment>-<batch>"). Errors name the file and the problem: a missing trace lists the batch
// sizes that are there, a trace with more or fewer kernels than the model says so.
Result<G10Workload> loadG10Inputs(const std::string& root, const std::string& experiment,
                                  int64_t batch);

}  // namespace ts::memsim
