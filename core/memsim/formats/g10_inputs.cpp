#include "memsim/formats/g10_inputs.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <limits>
#include <set>

#include "io/text_file.h"
#include "util/parse_number.h"
#include "util/text.h"

namespace ts::memsim {

namespace {

namespace fs = std::filesystem;

// A whole iteration's cycles, and so its ns and every sum of them, stay far inside int64.
constexpr int64_t kMaxTotalCycles = int64_t{1} << 61;

bool sameIgnoringCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

std::string existing(const std::vector<std::string>& candidates) {
  for (const std::string& c : candidates) {
    std::error_code ec;
    if (fs::is_regular_file(c, ec)) return c;
  }
  return {};
}

// results/<folder>/cudnn<B><kind>.txt; a G10 checkout names some "<B><kind>.txt".
std::string tracePath(const std::string& root, const G10ModelInfo& m, int64_t batch,
                      const char* kind) {
  const std::string dir = root + "/results/" + m.results + "/";
  const std::string b = std::to_string(batch);
  return existing({dir + "cudnn" + b + kind + ".txt", dir + b + kind + ".txt",
                   dir + "cudnn" + b + kind + ".txt.gz", dir + b + kind + ".txt.gz"});
}

std::string netPath(const std::string& root, const G10ModelInfo& m) {
  const std::string base = root + "/frontend/Nets/" + m.net + ".txt";
  return existing({base, base + ".gz"});
}

// "<kernel id> <value> <unit>" per kernel, ids 0, 1, 2, ... in order, exactly `count` of them.
Result<std::vector<std::string>> readTrace(const std::string& path, const char* unit,
                                           size_t count) {
  auto text = readTextFile(path);
  if (!text) return text.failure();
  std::vector<std::string> values;
  auto lines = splitLines(text->view());
  for (size_t i = 0; i < lines.size(); ++i) {
    std::vector<std::string_view> fields;
    std::string_view l = lines[i];
    size_t p = 0;
    while (p < l.size()) {
      while (p < l.size() && std::isspace(static_cast<unsigned char>(l[p]))) ++p;
      size_t q = p;
      while (q < l.size() && !std::isspace(static_cast<unsigned char>(l[q]))) ++q;
      if (q > p) fields.push_back(l.substr(p, q - p));
      p = q;
    }
    if (fields.empty()) continue;
    const std::string where = atLine(path, i + 1);
    if (fields.size() != 3 || fields[2] != unit)
      return Error{where + "expected '<kernel id> <value> " + unit + "'"};
    auto id = parseInteger<int64_t>(fields[0]);
    if (!id || *id != static_cast<int64_t>(values.size()))
      return Error{where + "kernel " + std::string(fields[0]) + " where kernel " +
                   std::to_string(values.size()) + " was due"};
    values.emplace_back(fields[1]);
  }
  if (values.size() != count)
    return Error{path + ": " + std::to_string(values.size()) + " kernels, where the model has " +
                 std::to_string(count) + " (a trace of another model or batch?)"};
  return values;
}

std::string batchesText(const std::vector<int64_t>& batches) {
  std::string s;
  for (int64_t b : batches) s += (s.empty() ? "" : ", ") + std::to_string(b);
  return s.empty() ? "none" : s;
}

std::vector<int64_t> tracedBatches(const std::string& root, const G10ModelInfo& m) {
  std::set<int64_t> found;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(root + "/results/" + m.results, ec)) {
    std::string name = entry.path().filename().string();
    if (name.size() > 3 && name.compare(name.size() - 3, 3, ".gz") == 0)
      name.resize(name.size() - 3);
    if (name.rfind("cudnn", 0) == 0) name = name.substr(5);
    if (name.size() < 5 || name.compare(name.size() - 4, 4, ".txt") != 0) continue;
    auto b = parseInteger<int64_t>(std::string_view(name).substr(0, name.size() - 4));
    if (!b || *b <= 0) continue;
    if (!tracePath(root, m, *b, "PF").empty() && !tracePath(root, m, *b, "InputPF").empty() &&
        !tracePath(root, m, *b, "Workspace").empty())
      found.insert(*b);
  }
  return {found.begin(), found.end()};
}

}  // namespace

// A time in ms as G10 turns it into cycles at 1.2 GHz: truncated, not rounded.
Result<std::vector<int64_t>> readG10TraceCycles(const std::string& path, size_t count) {
  auto values = readTrace(path, "ms", count);
  if (!values) return values.failure();
  std::vector<int64_t> cycles;
  cycles.reserve(count);
  int64_t total = 0;  // each kernel is at most 1.2e15 cycles: no overflow before the check
  for (size_t i = 0; i < values->size(); ++i) {
    const std::string& v = (*values)[i];
    char* end = nullptr;
    const double ms = std::strtod(v.c_str(), &end);
    if (end != v.c_str() + v.size() || !std::isfinite(ms) || ms <= 0 || ms > 1e9)
      return Error{path + ": kernel " + std::to_string(i) + " has time '" + v +
                   "' (a positive number of ms expected)"};
    const auto c = static_cast<int64_t>(ms * kG10ClockHz / 1000.0);
    if (c <= 0)
      return Error{path + ": kernel " + std::to_string(i) + " takes " + v +
                   " ms, less than one cycle at 1.2 GHz"};
    cycles.push_back(c);
    total += c;
    if (total > kMaxTotalCycles)
      return Error{path + ": the kernels add up to more than 2^61 cycles (about 61 years)"};
  }
  return cycles;
}

const std::vector<G10ModelInfo>& g10Models() {
  static const std::vector<G10ModelInfo> kModels = {
      {"BERT", "BERT_Base", "BERT_Base", true, G10Family::Plain, 0, 210},
      {"VIT", "VIT", "VIT", true, G10Family::Plain, 0, 184},
      {"Inceptionv3", "Inceptionv3", "Inceptionv3", false, G10Family::Inception, 299, 0},
      {"ResNet152", "ResNet152", "ResNet152", false, G10Family::ResNet, 224, 0},
      {"SENet154", "SENet154", "SENet154", false, G10Family::SENet, 224, 0},
  };
  return kModels;
}

const G10ModelInfo* findG10Model(std::string_view experiment) {
  for (const G10ModelInfo& m : g10Models())
    if (sameIgnoringCase(m.experiment, experiment) || sameIgnoringCase(m.net, experiment))
      return &m;
  return nullptr;
}

std::string g10ModelNames() {
  std::string s;
  for (const G10ModelInfo& m : g10Models())
    s += (s.empty() ? "" : ", ") + std::string(m.experiment);
  return s;
}

Result<std::vector<G10InputsModel>> listG10Inputs(const std::string& root) {
  std::error_code ec;
  if (!fs::is_directory(root + "/frontend/Nets", ec) || !fs::is_directory(root + "/results", ec))
    return Error::notFound(root +
                           ": not a G10 folder (it needs frontend/Nets/ and results/, laid out "
                           "as in G10's repository)");
  std::vector<G10InputsModel> out;
  for (const G10ModelInfo& m : g10Models()) {
    if (netPath(root, m).empty()) continue;
    G10InputsModel entry{&m, tracedBatches(root, m)};
    if (!entry.batches.empty()) out.push_back(std::move(entry));
  }
  if (out.empty())
    return Error::notFound(root + ": no model of G10's (" + g10ModelNames() +
                           ") with its traces under results/");
  return out;
}

Result<G10Workload> loadG10Inputs(const std::string& root, const std::string& experiment,
                                  int64_t batch) {
  const G10ModelInfo* m = findG10Model(experiment);
  if (!m)
    return Error::notFound("'" + experiment + "' is not a model of G10's evaluation (" +
                           g10ModelNames() + ")");
  if (batch <= 0) return Error{"the batch size must be positive"};
  const std::string net = netPath(root, *m);
  if (net.empty())
    return Error::notFound(root + "/frontend/Nets/" + m->net + ".txt: missing (is " + root +
                           " a G10 folder?)");
  const std::string times = tracePath(root, *m, batch, ""), pf = tracePath(root, *m, batch, "PF"),
                    inputPf = tracePath(root, *m, batch, "InputPF"),
                    workspace = tracePath(root, *m, batch, "Workspace");
  if (times.empty() || pf.empty() || inputPf.empty() || workspace.empty()) {
    return Error::notFound(root + "/results/" + m->results + "/cudnn" + std::to_string(batch) +
                           (times.empty()     ? ""
                            : pf.empty()      ? "PF"
                            : inputPf.empty() ? "InputPF"
                                              : "Workspace") +
                           ".txt: missing; G10 traced " + m->experiment + " at batch " +
                           batchesText(tracedBatches(root, *m)));
  }

  auto text = readTextFile(net);
  if (!text) return text.failure();
  auto graph = m->transformer
                   ? buildG10Transformer(text->view(), net, batch, m->globalBelow)
                   : buildG10Cnn(text->view(), net, m->family, batch, m->imageSize, m->imageSize);
  if (!graph) return graph.failure();
  const size_t n = graph->kernels.size();

  G10Workload g;
  g.directory = root;
  g.workload.name = std::string(m->experiment) + "-" + std::to_string(batch);
  auto cycles = readG10TraceCycles(times, n);
  if (!cycles) return cycles.failure();
  auto inputPfCycles = readG10TraceCycles(inputPf, n);
  if (!inputPfCycles) return inputPfCycles.failure();
  auto pfCycles = readG10TraceCycles(pf, n);
  if (!pfCycles) return pfCycles.failure();
  // G10 never lets a kernel run faster with faults than without.
  for (size_t i = 0; i < n; ++i) {
    (*inputPfCycles)[i] = std::max((*inputPfCycles)[i], (*cycles)[i]);
    (*pfCycles)[i] = std::max((*pfCycles)[i], (*inputPfCycles)[i]);
  }
  g.cycles = std::move(*cycles);
  g.inputPfCycles = std::move(*inputPfCycles);
  g.pfCycles = std::move(*pfCycles);

  // A kernel's workspace is one more tensor it writes, created after all the model's tensors.
  auto spaces = readTrace(workspace, "B", n);
  if (!spaces) return spaces.failure();
  for (size_t i = 0; i < n; ++i) {
    auto bytes = parseInteger<int64_t>((*spaces)[i]);
    if (!bytes || *bytes < 0 || *bytes > kMaxTensorBytes)
      return Error{workspace + ": kernel " + std::to_string(i) + " has workspace '" + (*spaces)[i] +
                   "' (bytes expected)"};
    if (*bytes == 0) continue;
    graph->kernels[i].outputs.push_back(static_cast<int>(graph->tensors.size()));
    graph->tensors.push_back({*bytes, false});
  }

  for (size_t t = 0; t < graph->tensors.size(); ++t) {
    const G10Graph::Tensor& gt = graph->tensors[t];
    if (gt.bytes > std::numeric_limits<int64_t>::max() - 4095)
      return Error{net + ": tensor" + std::to_string(t) + " is too large"};
    SimTensor st{"tensor" + std::to_string(t), (gt.bytes + 4095) / 4096 * 4096, gt.global};
    if (gt.global) st.kind = TensorClass::Weight;
    g.workload.tensors.push_back(std::move(st));
    g.tensorIds.push_back(static_cast<int>(t));
  }
  for (size_t i = 0; i < n; ++i) {
    G10Graph::Kernel& k = graph->kernels[i];
    SimKernel sk;
    sk.name = std::move(k.name);
    sk.duration =
        static_cast<TimeNs>(std::llround(static_cast<double>(g.cycles[i]) * 1e9 / kG10ClockHz));
    sk.inputs = std::move(k.inputs);
    sk.outputs = std::move(k.outputs);
    g.workload.kernels.push_back(std::move(sk));
  }
  g.workload.lossKernel = graph->lossKernel;
  g.workload.g10Model = m->experiment;
  g.workload.g10Batch = batch;
  g.workload.g10Cycles = g.cycles;
  g.workload.g10InputPfCycles = g.inputPfCycles;
  g.workload.g10PfCycles = g.pfCycles;
  return g;
}

}  // namespace ts::memsim
