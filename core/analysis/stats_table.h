// A statistics table as data: typed columns and rows of cells, so that the CLI (text, CSV, JSON)
// and the GUI (sortable table, charts) show the same numbers from one computation.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "util/time_ns.h"

namespace ts {

// How a column's numbers are read and shown. CSV and JSON carry the raw value (ns, bytes,
// percent, bytes per second); the text table and the GUI show it in human units.
enum class StatsUnit { Text, Count, Duration, Timestamp, Percent, Bytes, Bandwidth };

struct StatsColumn {
  std::string key;    // machine name: CSV header, JSON key ("total_ns", "time_pct")
  std::string title;  // header for people ("Total time")
  StatsUnit unit = StatsUnit::Text;
  // What the values mean, when the title cannot say it: the GUI's header tooltip, a legend line
  // under the text table.
  std::string description = {};
};

// Empty, text, an integer (counts, ns, bytes) or a real (percent, bandwidth, means).
using StatsCell = std::variant<std::monostate, std::string, int64_t, double>;

struct StatsTable {
  std::string report;  // "kern_sum", "gpu_util", "gpu_gaps", ...
  std::string title;
  std::vector<StatsColumn> columns;
  std::vector<std::vector<StatsCell>> rows;
  std::vector<std::string> notes;  // what the numbers mean, what was left out

  double number(size_t row, size_t column) const;     // 0 for text and empty cells
  std::string text(size_t row, size_t column) const;  // the cell in human units
  // The smallest difference between two times of the table's Timestamp columns (at least 1 ns):
  // how finely text() prints them, so that neighbouring rows never read the same.
  TimeNs timestampResolution() const;

  // A cache of timestampResolution(), not part of the table (public only so that tables stay
  // aggregates): valid for the rows it was found for.
  mutable const void* resolutionOf_ = nullptr;
  mutable size_t resolutionRows_ = 0;
  mutable TimeNs resolution_ = 0;
};

// The cell as a person reads it: "1.234 ms", "12.5 %", "1.5 GiB", "1,234".
std::string formatCell(const StatsCell& cell, StatsUnit unit);

// Aligned plain-text table with a title line and the notes under it.
std::string statsToText(const StatsTable& table);
// RFC 4180: header row of column keys, raw values.
std::string statsToCsv(const StatsTable& table);
// {"report", "title", "columns": [{key, title, unit}], "rows": [{key: value}], "notes"}; several
// tables make an array.
std::string statsToJson(const std::vector<StatsTable>& tables);

std::string_view toString(StatsUnit unit);

// Appends four cells — before, after, after − before, and that as a percentage of before — each
// left empty where a side is missing (or before is zero, for the percentage).
void appendChange(std::vector<StatsCell>& row, std::optional<int64_t> before,
                  std::optional<int64_t> after);

}  // namespace ts
