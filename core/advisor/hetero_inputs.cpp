#include "advisor/hetero_inputs.h"

#include <sys/stat.h>

#include <cctype>
#include <cstdlib>

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
    for (const std::string& d : commaSeparated(given)) {
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
  struct stat st {};
  if (::stat(what.c_str(), &st) == 0) return model::loadOnnxModel(what, o);
  auto bytes = model::zooModelBytes(what, batch);
  if (!bytes) return Error{what + ": no such file, nor a built-in model"};
  return model::loadOnnxBytes(*bytes, what, o);
}

}  // namespace ts::advisor
