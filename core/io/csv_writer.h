// Exports one table of a session (kernels, copies, memsets, API calls or NVTX ranges) as RFC 4180
// CSV with a header row, rows in time order.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "session/session.h"
#include "util/csv.h"
#include "util/progress.h"
#include "util/result.h"

namespace ts {

enum class CsvTable { Kernels, Memcpy, Memset, Api, Nvtx };

std::optional<CsvTable> csvTableFromString(std::string_view name);  // "kernels", "memcpy", ...
std::string_view toString(CsvTable table);

// Written atomically.
Status exportCsv(const Session& session, CsvTable table, const std::string& path,
                 const Progress& progress = {});

}  // namespace ts
