#include "memsim/formats/g10_workload.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <regex>
#include <sstream>
#include <unordered_map>

#include "io/text_file.h"
#include "memsim/formats/g10_inputs.h"
#include "util/parse_number.h"
#include "util/text.h"

namespace ts::memsim {

namespace {

namespace fs = std::filesystem;

// "<dir>/<name>" or "<dir>/<name>.gz", whichever exists.
std::string findFile(const std::string& dir, const std::string& name) {
  for (const std::string& candidate : {dir + "/" + name, dir + "/" + name + ".gz"}) {
    if (fs::exists(candidate)) return candidate;
  }
  return {};
}

struct TensorLine {
  int id = -1;
  bool weight = false;
  int64_t bytes = 0;
};

// "tensor12 Is weight (global)?: 1, Size in byte: 4096, Range:..." — false when it is not one.
bool parseTensorLine(std::string_view line, TensorLine& out, std::string& problem) {
  static const std::regex re(
      R"(^\s*tensor(\d+) Is weight \(global\)\?: (\d), Size in byte: (-?\d+))");
  std::cmatch m;
  if (!std::regex_search(line.data(), line.data() + line.size(), m, re)) return false;
  auto id = parseInteger<int>(m[1].str());
  auto bytes = parseInteger<int64_t>(m[3].str());
  out.weight = m[2].str() == "1";
  if (!id)
    problem = "tensor id " + m[1].str() + " is out of range";
  else if (!bytes)
    problem = "tensor" + m[1].str() + " has a size out of range (" + m[3].str() + " bytes)";
  else if (*bytes < 0)
    problem = "tensor" + m[1].str() + " has a negative size";
  else if (*bytes > kMaxTensorBytes)
    problem = "tensor" + m[1].str() + " is larger than 1 PiB";
  out.id = id.value_or(-1);
  out.bytes = bytes.value_or(0);
  return true;
}

}  // namespace

Result<G10Workload> loadG10Workload(const std::string& dir) {
  G10Workload g;
  g.directory = dir;
  g.workload.name = fs::path(dir).filename().string();
  if (g.workload.name.empty()) g.workload.name = fs::path(dir).parent_path().filename().string();
  // G10 ships its workloads as <Model>-<Batch> (BERT-256): which model and batch it is matters
  // where G10's code treats a configuration specially (g10_quirks.h).
  if (size_t dash = g.workload.name.rfind('-'); dash != std::string::npos) {
    const G10ModelInfo* model = findG10Model(std::string_view(g.workload.name).substr(0, dash));
    auto batch = parseInteger<int64_t>(std::string_view(g.workload.name).substr(dash + 1));
    if (model && batch && *batch > 0) {
      g.workload.g10Model = model->experiment;
      g.workload.g10Batch = *batch;
    }
  }
  const std::string tensorsPath = findFile(dir, "tensors.config"),
                    kernelsPath = findFile(dir, "kernels.config");
  if (tensorsPath.empty())
    return Error{
        dir +
        ": no tensors.config (a G10 workload directory has kernels.config and tensors.config)"};
  if (kernelsPath.empty()) return Error{dir + ": no kernels.config"};

  auto tensorsText = readTextFile(tensorsPath);
  if (!tensorsText) return tensorsText.failure();
  std::unordered_map<int, int> index;  // G10 id → our index
  auto where = [](const std::string& file, size_t index) { return atLine(file, index + 1); };
  auto tensorLines = splitLines(tensorsText->view());
  for (size_t i = 0; i < tensorLines.size(); ++i) {
    if (tensorLines[i].find_first_not_of(" \t") == std::string_view::npos) continue;
    TensorLine t;
    std::string problem;
    if (!parseTensorLine(tensorLines[i], t, problem))
      return Error{where(tensorsPath, i) + "not a tensor line"};
    if (!problem.empty()) return Error{where(tensorsPath, i) + problem};
    if (!index.try_emplace(t.id, static_cast<int>(g.workload.tensors.size())).second) {
      return Error{where(tensorsPath, i) + "tensor" + std::to_string(t.id) + " is defined twice"};
    }
    g.workload.tensors.push_back({"tensor" + std::to_string(t.id), t.bytes, t.weight});
    if (t.weight) g.workload.tensors.back().kind = TensorClass::Weight;
    g.tensorIds.push_back(t.id);
  }

  auto kernelsText = readTextFile(kernelsPath);
  if (!kernelsText) return kernelsText.failure();
  auto kernelLines = splitLines(kernelsText->view());
  static const std::regex header(R"(^Kernel ID: (-?\d+), Name: (.*)$)");
  static const std::regex time(R"(^Execution Time: (-?\d+))");
  SimKernel* k = nullptr;
  enum { None, Inputs, Outputs } section = None;
  for (size_t i = 0; i < kernelLines.size(); ++i) {
    std::string_view l = kernelLines[i];
    std::cmatch m;
    if (std::regex_search(l.data(), l.data() + l.size(), m, header)) {
      auto parsed = parseInteger<int>(m[1].str());
      if (!parsed)
        return Error{where(kernelsPath, i) + "kernel id " + m[1].str() + " is out of range"};
      int id = *parsed;
      if (id != static_cast<int>(g.workload.kernels.size())) {
        return Error{where(kernelsPath, i) + "kernel " + std::to_string(id) + " where kernel " +
                     std::to_string(g.workload.kernels.size()) +
                     " was due (ids must run 0, 1, 2, ... without gaps)"};
      }
      if (m[2].str() == "makeLoss" && g.workload.lossKernel < 0) g.workload.lossKernel = id;
      g.workload.kernels.push_back({m[2].str(), 0, {}, {}, 0, {}});
      g.cycles.push_back(-1);
      k = &g.workload.kernels.back();
      section = None;
      continue;
    }
    if (!k) {
      if (l.find_first_not_of(" \t") == std::string_view::npos) continue;
      return Error{where(kernelsPath, i) + "text before the first 'Kernel ID:' line"};
    }
    if (std::regex_search(l.data(), l.data() + l.size(), m, time)) {
      auto parsed = parseInteger<int64_t>(m[1].str());
      if (!parsed)
        return Error{where(kernelsPath, i) + "execution time " + m[1].str() + " is out of range"};
      int64_t cycles = *parsed;
      if (cycles < 0) return Error{where(kernelsPath, i) + "a negative execution time"};
      g.cycles.back() = cycles;
      k->duration =
          static_cast<TimeNs>(std::llround(static_cast<double>(cycles) * 1e9 / kG10ClockHz));
      continue;
    }
    if (l.rfind("Input Tensors:", 0) == 0) {
      section = Inputs;
      continue;
    }
    if (l.rfind("Output Tensors:", 0) == 0) {
      section = Outputs;
      continue;
    }
    TensorLine t;
    std::string problem;
    if (section != None && parseTensorLine(l, t, problem)) {
      if (!problem.empty()) return Error{where(kernelsPath, i) + problem};
      auto it = index.find(t.id);
      if (it == index.end())
        return Error{where(kernelsPath, i) + "tensor" + std::to_string(t.id) +
                     " is not defined in tensors.config"};
      const SimTensor& def = g.workload.tensors[static_cast<size_t>(it->second)];
      if (def.bytes != t.bytes || def.global != t.weight) {
        return Error{where(kernelsPath, i) + "tensor" + std::to_string(t.id) +
                     " differs from its definition in tensors.config"};
      }
      (section == Inputs ? k->inputs : k->outputs).push_back(it->second);
      continue;
    }
    // Parent op lines, shapes and separators carry nothing the simulator needs.
  }
  if (g.workload.kernels.empty()) return Error{kernelsPath + ": no kernels"};
  int64_t total = 0;
  for (size_t i = 0; i < g.cycles.size(); ++i) {
    if (g.cycles[i] < 0)
      return Error{kernelsPath + ": kernel " + std::to_string(i) + " has no 'Execution Time'"};
    // Sums of kernel times (the iteration, the ideal) must stay inside int64.
    if (__builtin_add_overflow(total, g.cycles[i], &total) || total > (int64_t{1} << 61))
      return Error{kernelsPath + ": the kernels add up to more than 2^61 cycles (about 61 years)"};
  }
  g.workload.g10Cycles = g.cycles;
  // G10 ships a workload with the traces it was built from: with the two of faulting kernels,
  // the unified-memory policies run in G10's own simulator of them (simulator.h), as they do
  // for workloads built from G10's inputs. A directory without them keeps our fault model.
  if (g.workload.g10Batch > 0) {
    const std::string b = std::to_string(g.workload.g10Batch);
    const std::string inputPf = findFile(dir, "cudnn" + b + "InputPF.txt"),
                      pf = findFile(dir, "cudnn" + b + "PF.txt");
    if (!inputPf.empty() && !pf.empty()) {
      auto inputPfCycles = readG10TraceCycles(inputPf, g.cycles.size());
      if (!inputPfCycles) return inputPfCycles.failure();
      auto pfCycles = readG10TraceCycles(pf, g.cycles.size());
      if (!pfCycles) return pfCycles.failure();
      for (size_t i = 0; i < g.cycles.size(); ++i) {
        (*inputPfCycles)[i] = std::max((*inputPfCycles)[i], g.cycles[i]);
        (*pfCycles)[i] = std::max((*pfCycles)[i], (*inputPfCycles)[i]);
      }
      g.inputPfCycles = std::move(*inputPfCycles);
      g.pfCycles = std::move(*pfCycles);
      g.workload.g10InputPfCycles = g.inputPfCycles;
      g.workload.g10PfCycles = g.pfCycles;
    }
  }
  return g;
}

}  // namespace ts::memsim
