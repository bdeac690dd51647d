#include "memsim/engine/tier_config.h"

#include <simdjson.h>

#include <cctype>
#include <cmath>
#include <fstream>
#include <sstream>

#include "util/format.h"
#include "util/text.h"

namespace ts::memsim {

namespace {

// A number and its unit: "15.754GB/s" → 15.754, "GB/s".
bool split(std::string_view text, double& number, std::string& unit) {
  text = trim(text);
  size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.'))
    ++i;
  if (i == 0) return false;
  std::string digits(text.substr(0, i));
  char* end = nullptr;
  number = std::strtod(digits.c_str(), &end);
  if (!end || *end != '\0' || !std::isfinite(number)) return false;
  unit = std::string(trim(text.substr(i)));
  return true;
}

double unitFactor(const std::string& unit) {
  static const std::pair<const char*, double> units[] = {{"", 1},
                                                         {"B", 1},
                                                         {"KB", 1e3},
                                                         {"MB", 1e6},
                                                         {"GB", 1e9},
                                                         {"TB", 1e12},
                                                         {"KiB", 1024},
                                                         {"MiB", 1 << 20},
                                                         {"GiB", 1073741824.0},
                                                         {"TiB", 1099511627776.0}};
  for (const auto& [name, factor] : units) {
    if (unit == name) return factor;
  }
  return -1;
}

}  // namespace

std::optional<int64_t> parseBytes(std::string_view text) {
  double n = 0;
  std::string unit;
  if (!split(text, n, unit)) return std::nullopt;
  double f = unitFactor(unit);
  if (f < 0 || n * f > 9.2e18) return std::nullopt;
  return static_cast<int64_t>(std::llround(n * f));
}

std::optional<double> parseBandwidth(std::string_view text) {
  double n = 0;
  std::string unit;
  if (!split(text, n, unit)) return std::nullopt;
  if (unit.empty()) return n;  // a plain number: bytes per second
  if (unit.size() < 2 || unit.substr(unit.size() - 2) != "/s") return std::nullopt;
  double f = unitFactor(unit.substr(0, unit.size() - 2));
  if (f < 0) return std::nullopt;
  return n * f;
}

std::vector<std::string> tierPresetNames() {
  return {"g10-default", "a100-40", "h100-80", "h200-141"};
}

// G10's defaults (its paper and configuration script); the GPU presets keep G10's host, SSD and
// latencies and change the GPU memory, the PCIe generation and the clock.
std::optional<TierConfig> tierPreset(std::string_view name) {
  TierConfig c;
  c.name = std::string(name);
  c.hostBytes = 128'000'000'000;
  c.ssdBytes = 3'200'000'000'000;
  c.ssdGpuBandwidth = 3.2e9;
  c.ssdHostBandwidth = 3.2e9;
  c.ssdReadLatencyNs = 12'000;
  c.ssdWriteLatencyNs = 16'000;
  c.systemLatencyNs = 45'000;
  c.pageBytes = 4096;
  if (name == "g10-default") {
    // G10's configuration files say "GB" and mean GiB (its log: 40 GB = 42,949,672,960 B), for
    // capacities and bandwidths alike.
    constexpr int64_t GiB = int64_t{1} << 30;
    c.gpuBytes = 40 * GiB;
    c.hostBytes = 128 * GiB;
    c.gpuHostBandwidth = 15.754 * GiB;  // PCIe 3.0 x16
    c.ssdGpuBandwidth = 3.2 * GiB;
    c.ssdHostBandwidth = 3.2 * GiB;
    c.gpuClockHz = 1.2e9;
  } else if (name == "a100-40") {
    // GPU memory as the cards report it (nvidia-smi, MiB): the data sheets' "40 GB", "80 GB",
    // "141 GB" read as 10^9 bytes would be 4 to 7 % less than the cards hold (an H200 measured
    // here: 143,771 MiB). Host memory, SSD capacity and bandwidths stay in the vendors' decimal
    // units, which is what they mean.
    constexpr int64_t MiB = int64_t{1} << 20;
    c.gpuBytes = 40'536 * MiB;
    c.gpuHostBandwidth = 31.5e9;  // PCIe 4.0 x16
    c.gpuClockHz = 1.41e9;
  } else if (name == "h100-80") {
    c.gpuBytes = int64_t{81'559} << 20;
    c.gpuHostBandwidth = 63e9;  // PCIe 5.0 x16
    c.gpuClockHz = 1.98e9;
  } else if (name == "h200-141") {
    c.gpuBytes = int64_t{143'771} << 20;
    c.gpuHostBandwidth = 63e9;
    c.gpuClockHz = 1.98e9;
  } else {
    return std::nullopt;
  }
  return c;
}

Status TierConfig::validate() const {
  if (gpuBytes <= 0) return Error{"GPU memory must be positive"};
  if (hostBytes < 0 || ssdBytes < 0)
    return Error{"host memory and SSD capacity must not be negative"};
  if (gpuHostBandwidth <= 0 || ssdGpuBandwidth <= 0 || ssdHostBandwidth <= 0)
    return Error{"bandwidths must be positive"};
  if (ssdReadLatencyNs < 0 || ssdWriteLatencyNs < 0 || systemLatencyNs < 0)
    return Error{"latencies must not be negative"};
  if (pageBytes <= 0 || (pageBytes & (pageBytes - 1)) != 0)
    return Error{"the page size must be a power of two"};
  if (gpuClockHz <= 0) return Error{"the GPU clock must be positive"};
  return {};
}

const std::vector<TierField>& tierFields() {
  static const std::vector<TierField> fields = {
      {"gpu-mem", TierUnit::Bytes, "40GB", true},
      {"host-mem", TierUnit::Bytes, "128GB", true},
      {"ssd", TierUnit::Bytes, "3TB", false},
      {"pcie-bw", TierUnit::Bandwidth, "15.754GB/s", true},
      {"ssd-bw", TierUnit::Bandwidth, "3.2GB/s", true},
      {"ssd-host-bw", TierUnit::Bandwidth, "3.2GB/s", false},
      {"ssd-read-latency", TierUnit::Latency, "12us", false},
      {"ssd-write-latency", TierUnit::Latency, "16us", false},
      {"system-latency", TierUnit::Latency, "45us", false},
      {"page", TierUnit::Bytes, "4KiB", false},
      {"gpu-clock", TierUnit::Frequency, "1.2GHz", false}};
  return fields;
}

const TierField* findTierField(std::string_view key) {
  for (const TierField& f : tierFields())
    if (f.key == key) return &f;
  return nullptr;
}

Status setTierField(TierConfig& c, std::string_view key, std::string_view value) {
  auto bytes = [&](int64_t& field) -> Status {
    auto v = parseBytes(value);
    if (!v)
      return Error{std::string(key) + ": '" + std::string(value) +
                   "' is not a size (e.g. 40GB, 128GiB)"};
    field = *v;
    return {};
  };
  auto rate = [&](double& field) -> Status {
    auto v = parseBandwidth(value);
    if (!v)
      return Error{std::string(key) + ": '" + std::string(value) +
                   "' is not a bandwidth (e.g. 15.754GB/s)"};
    field = *v;
    return {};
  };
  auto latency = [&](int64_t& field) -> Status {
    auto v = parseDuration(value);
    if (!v || *v < 0)
      return Error{std::string(key) + ": '" + std::string(value) +
                   "' is not a duration (e.g. 12us)"};
    field = *v;
    return {};
  };
  if (key == "preset") {
    auto p = tierPreset(value);
    if (!p) return Error{"preset: no preset '" + std::string(value) + "'"};
    c = *p;
    return {};
  }
  if (key == "gpu-mem") return bytes(c.gpuBytes);
  if (key == "host-mem") return bytes(c.hostBytes);
  if (key == "ssd") return bytes(c.ssdBytes);
  if (key == "page") return bytes(c.pageBytes);
  if (key == "pcie-bw") return rate(c.gpuHostBandwidth);
  if (key == "ssd-bw") {
    Status st = rate(c.ssdGpuBandwidth);
    if (st) c.ssdHostBandwidth = c.ssdGpuBandwidth;  // one SSD: both ways at its rate unless told
    return st;
  }
  if (key == "ssd-host-bw") return rate(c.ssdHostBandwidth);
  if (key == "ssd-read-latency") return latency(c.ssdReadLatencyNs);
  if (key == "ssd-write-latency") return latency(c.ssdWriteLatencyNs);
  if (key == "system-latency") return latency(c.systemLatencyNs);
  if (key == "gpu-clock") {
    double n = 0;
    std::string unit;
    if (!split(value, n, unit) || (unit != "GHz" && unit != "MHz" && unit != "Hz")) {
      return Error{"gpu-clock: '" + std::string(value) + "' is not a frequency (e.g. 1.2GHz)"};
    }
    c.gpuClockHz = n * (unit == "GHz" ? 1e9 : unit == "MHz" ? 1e6 : 1);
    return {};
  }
  return Error{"unknown setting '" + std::string(key) + "'"};
}

Result<TierConfig> loadTierConfig(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Error{path + ": cannot open"};
  std::stringstream buf;
  buf << in.rdbuf();
  std::string text = buf.str();
  TierConfig c = *tierPreset("g10-default");
  c.name = path;
  std::string_view body = trim(text);
  const bool json = !body.empty() && body.front() == '{';
  std::vector<std::pair<std::string, std::string>> pairs;
  std::vector<size_t> lineOf;  // 0 for JSON: its errors name the key instead
  if (json) {
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    simdjson::padded_string padded(text);
    if (auto err = parser.parse(padded).get(doc))
      return Error{path + ": not valid JSON: " + simdjson::error_message(err)};
    simdjson::dom::object object;
    if (doc.get_object().get(object))
      return Error{path + ": the JSON is not an object of settings"};
    for (auto [key, value] : object) {
      std::string v;
      if (value.is_string())
        v = std::string(std::string_view(value));
      else if (value.is_int64())
        v = std::to_string(int64_t(value));
      else if (value.is_uint64())
        v = std::to_string(uint64_t(value));
      else if (value.is_double())
        v = std::to_string(double(value));
      else
        return Error{path + ": \"" + std::string(key) + "\" must be text or a number"};
      pairs.emplace_back(std::string(key), v);
      lineOf.push_back(0);
    }
  } else {
    size_t line = 0;
    for (std::string_view l : splitLines(text)) {
      ++line;
      std::string_view s = trim(l.substr(0, l.find('#')));
      if (s.empty()) continue;
      auto eq = s.find('=');
      if (eq == std::string_view::npos) return Error{atLine(path, line) + "expected 'key = value'"};
      pairs.emplace_back(std::string(trim(s.substr(0, eq))), std::string(trim(s.substr(eq + 1))));
      lineOf.push_back(line);
    }
  }
  auto at = [&](size_t i) { return lineOf[i] ? atLine(path, lineOf[i]) : path + ": "; };
  // A preset first, wherever it is written: the other keys change it.
  for (size_t i = 0; i < pairs.size(); ++i) {
    if (pairs[i].first != "preset") continue;
    if (Status st = setTierField(c, "preset", pairs[i].second); !st)
      return st.failure().prefixed(at(i));
  }
  for (size_t i = 0; i < pairs.size(); ++i) {
    if (pairs[i].first == "preset") continue;
    if (Status st = setTierField(c, pairs[i].first, pairs[i].second); !st)
      return st.failure().prefixed(at(i));
  }
  c.name = path;
  if (Status st = c.validate(); !st) return st.failure().prefixed(path + ": ");
  return c;
}

std::string tiersSentence(const TierConfig& c) {
  auto rate = [](double bytesPerSecond) {
    return formatBytes(static_cast<uint64_t>(std::max(0.0, bytesPerSecond))) + "/s";
  };
  return c.name + ": GPU " + formatBytes(static_cast<uint64_t>(std::max<int64_t>(0, c.gpuBytes))) +
         ", host " + formatBytes(static_cast<uint64_t>(std::max<int64_t>(0, c.hostBytes))) +
         ", SSD " + formatBytes(static_cast<uint64_t>(std::max<int64_t>(0, c.ssdBytes))) +
         ", GPU ↔ host " + rate(c.gpuHostBandwidth) + ", SSD " + rate(c.ssdGpuBandwidth);
}

}  // namespace ts::memsim
