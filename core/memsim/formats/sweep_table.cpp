#include "memsim/formats/sweep_table.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "io/text_file.h"
#include "memsim/engine/tier_config.h"
#include "util/csv.h"
#include "util/parse_number.h"
#include "util/text.h"

namespace ts::memsim {

namespace {

const char* const kColumns[] = {"policy",   "feasible", "iteration_ns",
                                "ideal_ns", "slowdown", "stall_ns"};

// The swept value in its unit: bytes, bytes/s (both whole, as the sweep's points are made) or a
// batch size.
StatsUnit valueUnit(const std::string& key) {
  const TierField* f = findTierField(key);
  if (!f) return StatsUnit::Count;  // batch
  return f->unit == TierUnit::Bytes ? StatsUnit::Bytes : StatsUnit::Bandwidth;
}

}  // namespace

StatsTable toStatsTable(const SweepTable& sweep) {
  StatsTable table;
  table.report = "memsim_sweep";
  table.title = "Sweep of " + sweep.key;
  table.columns = {
      {sweep.key, sweep.key, valueUnit(sweep.key)}, {kColumns[0], "Policy", StatsUnit::Text},
      {kColumns[1], "Feasible", StatsUnit::Text},   {kColumns[2], "Iteration", StatsUnit::Duration},
      {kColumns[3], "Ideal", StatsUnit::Duration},  {kColumns[4], "Slowdown", StatsUnit::Count},
      {kColumns[5], "Stall", StatsUnit::Duration}};
  for (const SweepPoint& p : sweep.points) {
    const auto value = static_cast<int64_t>(std::llround(p.value));
    if (p.feasible) {
      table.rows.push_back({value, p.policy, std::string("yes"), int64_t{p.iteration},
                            int64_t{p.ideal}, p.slowdown, int64_t{p.stall}});
    } else {
      table.rows.push_back({value, p.policy, std::string("no"), std::monostate{}, int64_t{p.ideal},
                            std::monostate{}, std::monostate{}});
    }
  }
  table.notes = sweep.notes;
  return table;
}

Result<SweepTable> loadSweepCsv(const std::string& path) {
  auto text = readTextFile(path);
  if (!text) return text.failure();
  const std::vector<std::string_view> lines = splitLines(text->view());
  SweepTable table;
  size_t index[std::size(kColumns)] = {};
  size_t width = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string_view line = lines[i];
    if (line.empty()) continue;
    const std::string where = atLine(path, i + 1);
    auto f = splitCsvRecord(line);
    if (!f) return Error{where + "a quoted field is not closed"};
    if (table.key.empty()) {
      for (size_t c = 0; c < std::size(kColumns); ++c) {
        auto it = std::find(f->begin() + 1, f->end(), kColumns[c]);
        if (f->size() < 2 || it == f->end())
          return Error{where + "not a simulate --sweep table (no '" + kColumns[c] + "' column)"};
        index[c] = static_cast<size_t>(it - f->begin());
      }
      table.key = (*f)[0];
      width = f->size();
      continue;
    }
    if (f->size() != width)
      return Error{where + "expected " + std::to_string(width) + " fields, found " +
                   std::to_string(f->size())};
    auto field = [&](size_t c) -> const std::string& { return (*f)[index[c]]; };
    SweepPoint p;
    char* end = nullptr;
    p.value = std::strtod((*f)[0].c_str(), &end);
    if (end == (*f)[0].c_str() || *end) return Error{where + "'" + (*f)[0] + "' is not a number"};
    p.policy = field(0);
    p.feasible = field(1) == "yes";
    if (auto ideal = parseInteger<TimeNs>(field(3))) p.ideal = *ideal;
    if (p.feasible) {
      auto iteration = parseInteger<TimeNs>(field(2));
      auto stall = parseInteger<TimeNs>(field(5));
      p.slowdown = std::strtod(field(4).c_str(), nullptr);
      if (!iteration || *iteration <= 0 || p.slowdown <= 0)
        return Error{where + "a feasible point without an iteration time"};
      p.iteration = *iteration;
      p.stall = stall.value_or(0);
    }
    table.points.push_back(p);
  }
  if (table.key.empty()) return Error{path + ": empty"};
  return table;
}

}  // namespace ts::memsim
