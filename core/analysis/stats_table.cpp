#include "analysis/stats_table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "util/csv.h"
#include "util/format.h"
#include "util/json_writer.h"

namespace ts {

namespace {

// Display width of UTF-8 text ("µs" is two bytes, one column).
size_t displayWidth(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// Templated C++ kernel names run to thousands of characters: a text table shows the head of
// them (CSV and JSON keep every character).
constexpr size_t kMaxTextColumns = 100;

std::string clipped(const std::string& s) {
  if (displayWidth(s) <= kMaxTextColumns) return s;
  size_t bytes = 0, columns = 0;
  while (bytes < s.size() && columns < kMaxTextColumns - 1) {
    ++bytes;
    while (bytes < s.size() && (static_cast<unsigned char>(s[bytes]) & 0xC0) == 0x80) ++bytes;
    ++columns;
  }
  return s.substr(0, bytes) + "\u2026";
}

std::string realText(double v, const char* format) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// Raw value for CSV: integers as they are, reals with enough digits to read back.
std::string rawText(const StatsCell& cell) {
  if (const auto* s = std::get_if<std::string>(&cell)) return *s;
  if (const auto* i = std::get_if<int64_t>(&cell)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&cell))
    return std::isfinite(*d) ? realText(*d, "%.10g") : "";
  return {};
}

}  // namespace

std::string_view toString(StatsUnit unit) {
  switch (unit) {
    case StatsUnit::Text:
      return "text";
    case StatsUnit::Count:
      return "count";
    case StatsUnit::Duration:
      return "ns";
    case StatsUnit::Timestamp:
      return "timestamp_ns";
    case StatsUnit::Percent:
      return "percent";
    case StatsUnit::Bytes:
      return "bytes";
    case StatsUnit::Bandwidth:
      return "bytes_per_second";
  }
  return "text";
}

std::string formatCell(const StatsCell& cell, StatsUnit unit) {
  if (std::holds_alternative<std::monostate>(cell)) return {};
  if (const auto* s = std::get_if<std::string>(&cell)) return *s;
  double v = std::holds_alternative<int64_t>(cell) ? static_cast<double>(std::get<int64_t>(cell))
                                                   : std::get<double>(cell);
  if (!std::isfinite(v)) return "-";
  auto asInt = [&] { return static_cast<int64_t>(std::llround(v)); };
  switch (unit) {
    case StatsUnit::Text:
      return rawText(cell);
    case StatsUnit::Count:
      return std::holds_alternative<int64_t>(cell)
                 ? formatCount(static_cast<uint64_t>(std::max<int64_t>(asInt(), 0)))
                 : realText(v, "%.2f");
    case StatsUnit::Duration:
      return formatDuration(asInt());
    case StatsUnit::Timestamp:
      return formatDuration(asInt());
    case StatsUnit::Percent:
      // A small share keeps two digits (a GPU 0.02 % busy is not "0.0 %"), a tiny one says so
      // (not "7.8e-05 %").
      if (v != 0 && std::fabs(v) < 0.001) return v < 0 ? "> -0.001 %" : "< 0.001 %";
      return realText(v, v != 0 && std::fabs(v) < 0.095 ? "%.2g %%" : "%.1f %%");
    case StatsUnit::Bytes: {
      // Signed: a difference of bytes (the run moved more than the simulation) is negative.
      const int64_t b = asInt();
      const std::string size = formatBytes(static_cast<uint64_t>(b < 0 ? -b : b));
      return b < 0 ? "-" + size : size;
    }
    case StatsUnit::Bandwidth:
      return formatBandwidth(v);
  }
  return rawText(cell);
}

double StatsTable::number(size_t row, size_t column) const {
  const StatsCell& c = rows[row][column];
  if (const auto* i = std::get_if<int64_t>(&c)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(&c)) return *d;
  return 0.0;
}

std::string StatsTable::text(size_t row, size_t column) const {
  if (columns[column].unit == StatsUnit::Timestamp) {
    const StatsCell& cell = rows[row][column];
    if (const auto* ns = std::get_if<int64_t>(&cell))
      return formatTimestamp(*ns, timestampResolution());
  }
  return formatCell(rows[row][column], columns[column].unit);
}

TimeNs StatsTable::timestampResolution() const {
  if (resolutionOf_ == rows.data() && resolutionRows_ == rows.size()) return resolution_;
  std::vector<int64_t> times;
  for (size_t c = 0; c < columns.size(); ++c) {
    if (columns[c].unit != StatsUnit::Timestamp) continue;
    for (const auto& row : rows) {
      if (const auto* ns = std::get_if<int64_t>(&row[c])) times.push_back(*ns);
    }
  }
  std::sort(times.begin(), times.end());
  TimeNs best = 0;
  for (size_t i = 1; i < times.size(); ++i) {
    const TimeNs gap = times[i] - times[i - 1];
    if (gap > 0 && (best == 0 || gap < best)) best = gap;
  }
  resolutionOf_ = rows.data(), resolutionRows_ = rows.size(),
  resolution_ = std::max<TimeNs>(best, 1);
  return resolution_;
}

std::string statsToText(const StatsTable& t) {
  std::vector<std::vector<std::string>> cells;
  std::vector<size_t> width(t.columns.size(), 0);
  cells.reserve(t.rows.size() + 1);
  cells.emplace_back();
  for (const StatsColumn& c : t.columns) cells.back().push_back(c.title);
  for (size_t r = 0; r < t.rows.size(); ++r) {
    cells.emplace_back();
    for (size_t c = 0; c < t.columns.size(); ++c) cells.back().push_back(clipped(t.text(r, c)));
  }
  for (const auto& row : cells) {
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], displayWidth(row[c]));
  }
  std::string out = t.title + "\n\n";
  for (size_t r = 0; r < cells.size(); ++r) {
    std::string line;
    for (size_t c = 0; c < cells[r].size(); ++c) {
      const std::string& s = cells[r][c];
      size_t pad = width[c] - displayWidth(s);
      bool last = c + 1 == cells[r].size();
      // Text left-aligned, numbers right-aligned so that their units line up.
      if (t.columns[c].unit == StatsUnit::Text) {
        line += s;
        if (!last) line.append(pad, ' ');
      } else {
        line.append(pad, ' ');
        line += s;
      }
      if (!last) line += "  ";
    }
    out += line + "\n";
    if (r == 0) {
      size_t total = 0;
      for (size_t c = 0; c < width.size(); ++c) total += width[c] + (c + 1 < width.size() ? 2 : 0);
      out += std::string(total, '-') + "\n";
    }
  }
  if (t.rows.empty()) out += "(no rows)\n";
  bool legend = false;
  for (const StatsColumn& c : t.columns) {
    if (c.description.empty()) continue;
    out += (legend ? "" : "\n") + c.title + ": " + c.description + "\n";
    legend = true;
  }
  for (const std::string& n : t.notes) out += "\n" + n;
  if (!t.notes.empty()) out += "\n";
  return out;
}

std::string statsToCsv(const StatsTable& t) {
  std::string out;
  for (size_t c = 0; c < t.columns.size(); ++c) {
    if (c) out += ',';
    appendCsvField(out, t.columns[c].key);
  }
  out += "\r\n";
  for (const auto& row : t.rows) {
    for (size_t c = 0; c < row.size(); ++c) {
      if (c) out += ',';
      appendCsvField(out, rawText(row[c]));
    }
    out += "\r\n";
  }
  return out;
}

std::string statsToJson(const std::vector<StatsTable>& tables) {
  JsonWriter w;
  if (tables.size() != 1) w.beginArray();
  for (const StatsTable& t : tables) {
    w.beginObject();
    w.key("report").value(t.report);
    w.key("title").value(t.title);
    w.key("columns").beginArray();
    for (const StatsColumn& c : t.columns) {
      w.beginObject()
          .key("key")
          .value(c.key)
          .key("title")
          .value(c.title)
          .key("unit")
          .value(toString(c.unit))
          .endObject();
    }
    w.endArray();
    w.key("rows").beginArray();
    for (const auto& row : t.rows) {
      w.beginObject();
      for (size_t c = 0; c < row.size(); ++c) {
        w.key(t.columns[c].key);
        const StatsCell& cell = row[c];
        if (const auto* s = std::get_if<std::string>(&cell))
          w.value(*s);
        else if (const auto* i = std::get_if<int64_t>(&cell))
          w.value(*i);
        else if (const auto* d = std::get_if<double>(&cell))
          w.value(*d);
        else
          w.null();
      }
      w.endObject();
    }
    w.endArray();
    w.key("notes").beginArray();
    for (const std::string& n : t.notes) w.value(n);
    w.endArray();
    w.endObject();
  }
  if (tables.size() != 1) w.endArray();
  return w.str() + "\n";
}

void appendChange(std::vector<StatsCell>& row, std::optional<int64_t> before,
                  std::optional<int64_t> after) {
  // emplace_back per case: GCC 12 sees a maybe-uninitialized string in a ternary of variants.
  auto add = [&row](bool have, auto value) {
    if (have)
      row.emplace_back(value);
    else
      row.emplace_back(std::monostate{});
  };
  add(before.has_value(), before.value_or(0));
  add(after.has_value(), after.value_or(0));
  add(before && after, after.value_or(0) - before.value_or(0));
  add(before && after && *before != 0,
      before && *before != 0
          ? 100.0 * static_cast<double>(after.value_or(0) - *before) / static_cast<double>(*before)
          : 0.0);
}

}  // namespace ts
