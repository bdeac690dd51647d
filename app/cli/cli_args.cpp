#include "app/cli/cli_args.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "io/atomic_file.h"
#include "util/format.h"

namespace ts::cli {

std::string Args::parse(const std::vector<std::string>& argv, const std::set<std::string>& valued,
                        const std::set<std::string>& flags) {
  bool onlyPositional = false;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (onlyPositional || a.size() < 2 || a[0] != '-' || a == "-") {
      positional_.push_back(a);
      continue;
    }
    if (a == "--") {
      onlyPositional = true;
      continue;
    }
    std::string name = a, value;
    bool hasValue = false;
    if (auto eq = a.find('='); eq != std::string::npos && a.rfind("--", 0) == 0) {
      name = a.substr(0, eq);
      value = a.substr(eq + 1);
      hasValue = true;
    }
    if (valued.count(name)) {
      if (!hasValue) {
        if (i + 1 >= argv.size()) return "option " + name + " needs a value";
        value = argv[++i];
      }
      options_.emplace_back(name, value);
    } else if (flags.count(name) && !hasValue) {
      flags_.insert(name);
    } else {
      return "unknown option " + a;
    }
  }
  return {};
}

std::optional<std::string> Args::option(const std::string& name) const {
  std::optional<std::string> last;
  for (const auto& [key, value] : options_) {
    if (key == name) last = value;
  }
  return last;
}

std::vector<std::string> Args::all(const std::string& name) const {
  std::vector<std::string> values;
  for (const auto& [key, value] : options_) {
    if (key == name) values.push_back(value);
  }
  return values;
}

std::optional<unsigned long long> parseUnsigned(const std::string& text) {
  if (text.empty() || text[0] == '-' || text[0] == '+') return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
  if (errno != 0 || !end || *end != '\0') return std::nullopt;
  return value;
}

std::optional<RelativeRange> parseRelativeRange(const std::string& text) {
  auto colon = text.find(':');
  if (colon == std::string::npos) return std::nullopt;
  std::string a = text.substr(0, colon), b = text.substr(colon + 1);
  RelativeRange range;
  if (!a.empty() && !(range.from = parseDuration(a))) return std::nullopt;
  if (!b.empty() && !(range.to = parseDuration(b))) return std::nullopt;
  return range;
}

int emitTables(const std::vector<StatsTable>& tables, const std::string& format,
               const std::optional<std::string>& path, const char* command) {
  std::string out;
  if (format == "json") {
    out = statsToJson(tables);
  } else {
    for (size_t i = 0; i < tables.size(); ++i) {
      if (i) out += format == "csv" ? "\r\n" : "\n";
      out += format == "csv" ? statsToCsv(tables[i]) : statsToText(tables[i]);
    }
  }
  if (path) {
    if (Status st = writeBytesAtomically(*path, out); !st) {
      std::fprintf(stderr, "tensorscope-cli %s: %s\n", command, st.error().c_str());
      return kExitFailure;
    }
    return kExitOk;
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return kExitOk;
}

}  // namespace ts::cli
