// RFC 4180 fields, both ways: the one quoting rule every CSV writer in Tensorscope uses, and the
// reader of single-line records (what those writers produce for numbers and names).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ts {

// Quotes a field when it holds a comma, a quote, CR or LF, doubling inner quotes.
void appendCsvField(std::string& out, std::string_view field);

// The fields of one record (a line without its line break). Quoted fields may hold commas and
// doubled quotes; nullopt for a quote left open or text after a closing quote.
std::optional<std::vector<std::string>> splitCsvRecord(std::string_view line);

}  // namespace ts
