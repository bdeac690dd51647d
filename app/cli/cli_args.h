// Command-line parsing for tensorscope-cli subcommands: positional arguments and --options.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analysis/stats_table.h"

namespace ts {
struct Diagnosis;
}

namespace ts::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

class Args {
 public:
  // `valued` lists the options that take a value (--events N); others are flags (--json).
  // Returns an error message, or an empty string.
  std::string parse(const std::vector<std::string>& argv, const std::set<std::string>& valued,
                    const std::set<std::string>& flags);

  bool flag(const std::string& name) const { return flags_.count(name) > 0; }
  std::optional<std::string> option(const std::string& name) const;  // the last one given
  std::vector<std::string> all(const std::string& name) const;       // every one, in order
  const std::vector<std::string>& positional() const { return positional_; }

 private:
  std::set<std::string> flags_;
  std::vector<std::pair<std::string, std::string>> options_;
  std::vector<std::string> positional_;
};

// A non-negative integer option's value; none when it is not one.
std::optional<unsigned long long> parseUnsigned(const std::string& text);

// "--range T0:T1": durations from the session start ("1.5ms:20ms"); either side may be empty.
struct RelativeRange {
  std::optional<int64_t> from, to;  // ns
};
std::optional<RelativeRange> parseRelativeRange(const std::string& text);

// Prints tables (or writes them atomically to `path`) as "table" (text), "csv" (several tables
// separated by an empty line) or "json" (an array when several). Returns the exit status; an error
// is reported as "tensorscope-cli COMMAND: ...".
int emitTables(const std::vector<StatsTable>& tables, const std::string& format,
               const std::optional<std::string>& path, const char* command);

// Prints a diagnosis as `diagnose` does: "table", "csv" or "json" (one object with coverage and
// notes), to stdout or atomically to `path`.
int printDiagnosis(const Diagnosis& diagnosis, const std::string& format,
                   const std::optional<std::string>& path, const char* command);

int runInfo(const std::vector<std::string>& argv);
int runConvert(const std::vector<std::string>& argv);
int runGenerate(const std::vector<std::string>& argv);
int runStats(const std::vector<std::string>& argv);
int runMerge(const std::vector<std::string>& argv);
int runDiagnose(const std::vector<std::string>& argv);
int runCapture(const std::vector<std::string>& argv);
int runModel(const std::vector<std::string>& argv);
int runCompare(const std::vector<std::string>& argv);
int runSimulate(const std::vector<std::string>& argv);
int runAdvise(const std::vector<std::string>& argv);
int runAdviseMultiplex(const std::vector<std::string>& argv);    // advise multiplex ...
int runAdviseConsolidate(const std::vector<std::string>& argv);  // advise consolidate ...
int runExport(const std::vector<std::string>& argv);             // with the GUI libraries only
// export from the module that holds it (export_module.cpp), loaded on demand: the CLI itself
// does not load Qt.
int runExportModule(const std::vector<std::string>& argv);

}  // namespace ts::cli
