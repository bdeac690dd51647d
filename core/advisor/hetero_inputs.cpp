#include "advisor/hetero_inputs.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "advisor/model_estimate.h"
#include "analysis/diagnosis.h"
#include "model/model_zoo.h"
#include "model/onnx_loader.h"

namespace ts::advisor {

namespace {

std::string trimmed(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return s.substr(i);
}

std::vector<std::string> commaSeparated(const std::string& text) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at <= text.size()) {
    const size_t comma = std::min(text.find(',', at), text.size());
    std::string item = trimmed(text.substr(at, comma - at));
    if (!item.empty()) out.push_back(std::move(item));
    at = comma + 1;
  }
  return out;
}

}  // namespace

Result<std::vector<std::string>> parseDevices(const std::vector<std::string>& items) {
  std::vector<std::string> types;
  for (const std::string& given : items) {
    // Commas between devices, or blanks where no count is given ("K80 V100").
    std::vector<std::string> devices;
    for (const std::string& item : commaSeparated(given)) {
      if (item.find(':') != std::string::npos) {
        devices.push_back(item);
        continue;
      }
      std::istringstream words(item);
      for (std::string w; words >> w;) devices.push_back(w);
    }
    for (const std::string& d : devices) {
      std::string type = d;
      long count = 1;
      if (auto colon = d.find(':'); colon != std::string::npos) {
        type = trimmed(d.substr(0, colon));
        const std::string n = trimmed(d.substr(colon + 1));
        char* end = nullptr;
        count = std::strtol(n.c_str(), &end, 10);
        if (n.empty() || *end != '\0' || count < 1 || count > 1024)
          return Error{"device " + d + ": the count must be 1 to 1024"};
      }
      if (type.empty()) return Error{"device " + d + ": no device type"};
      for (long i = 0; i < count; ++i) types.push_back(type);
    }
  }
  return types;
}

Result<std::map<std::string, double>> parseThroughputs(const std::string& text) {
  std::map<std::string, double> out;
  for (const std::string& item : commaSeparated(text)) {
    const size_t eq = item.find('=');
    char* end = nullptr;
    const std::string value = eq == std::string::npos ? "" : trimmed(item.substr(eq + 1));
    const double x = value.empty() ? 0 : std::strtod(value.c_str(), &end);
    std::string type = eq == std::string::npos ? "" : trimmed(item.substr(0, eq));
    if (type.empty() || value.empty() || *end != '\0' || !(x > 0))
      return Error{"throughput " + item + ": TYPE=X with X > 0"};
    for (char& c : type) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    out[type] = x;
  }
  return out;
}

Result<double> measuredSamplesPerSecond(const Session& run, int64_t batch) {
  if (batch < 1) return Error{"the run's batch must be at least 1"};
  DiagnoseOptions o;
  o.runRules = false;
  auto d = diagnose(run, o);
  if (!d) return std::move(d).failure();
  if (d->steps.steps.empty() || !(d->steps.median > 0))
    return Error{
        "the run marks no training steps (ProfilerStep#N, NVTX step ranges or a "
        "repeated kernel sequence): its throughput cannot be measured"};
  return static_cast<double>(batch) * 1e9 / d->steps.median;
}

Result<model::ModelGraph> loadModelAt(const std::string& what, int64_t batch) {
  model::LoadOptions o;
  o.batch = batch;
  return model::loadModelOrZoo(what, o);
}

Result<HeteroSetup> heteroSetup(const std::vector<std::string>& types, const std::string& model,
                                int64_t batch, model::Optimizer optimizer,
                                const std::map<std::string, double>& given,
                                const std::map<std::string, double>& measured) {
  HeteroSetup h;
  if (!model.empty()) {
    auto atBatch = loadModelAt(model, batch);
    if (!atBatch) return std::move(atBatch).failure();
    auto atOne = loadModelAt(model, 1), atTwo = loadModelAt(model, 2);
    if (!atOne) return std::move(atOne).failure();
    if (!atTwo) return std::move(atTwo).failure();
    auto e = estimateFromModel(*atBatch, *atOne, *atTwo, types, optimizer);
    if (!e) return Error{model + ": " + e.error()};
    h.devices = std::move(e->devices);
    h.layers = std::move(e->layers);
    h.memory = std::move(e->deviceMemory);
    h.gradientBytes = e->gradientBytes;
    h.assumptions = std::move(e->assumptions);
    h.allReduceAssumption = std::move(e->allReduceAssumption);
    h.modelName = atBatch->name.empty() ? model : atBatch->name;
  } else {
    for (const std::string& t : types) {
      HeteroDevice d;
      d.type = t;
      h.devices.push_back(d);
    }
    h.assumptions.push_back("no model: no memory limits, and no gradients to all-reduce");
  }
  for (HeteroDevice& d : h.devices) {
    std::string lower = d.type;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (auto it = measured.find(lower); it != measured.end()) {
      // How far the roofline was from the measurement, for the user to weigh the estimates.
      if (d.source == SpeedSource::Estimated && d.samplesPerSecond > 0) {
        char ratio[64];
        std::snprintf(ratio, sizeof ratio, "%.2f", it->second / d.samplesPerSecond);
        const std::string note = d.type + " measured at " + ratio +
                                 "× its roofline estimate: the other devices' estimates are "
                                 "likely off by as much";
        if (std::find(h.assumptions.begin(), h.assumptions.end(), note) == h.assumptions.end())
          h.assumptions.push_back(note);
      }
      d.samplesPerSecond = it->second, d.source = SpeedSource::Measured;
    }
    if (auto it = given.find(lower); it != given.end())
      d.samplesPerSecond = it->second, d.source = SpeedSource::Given;
    if (!(d.samplesPerSecond > 0))
      return Error{"no throughput for " + d.type + ": give one, or a model to estimate it from"};
  }
  if (!given.empty())
    h.assumptions.push_back(
        "given throughputs are relative samples per second: the predicted times are in the "
        "unit they imply (with K80=1, a sample takes 1 s on a K80)");
  return h;
}

}  // namespace ts::advisor
