// Imports an Nsight Systems SQLite export (`nsys export --type sqlite`): kernels, copies (peer and
// UVM too), memsets, CUDA runtime calls, NVTX marks and ranges, GPUs, processes and thread names.
// Strict about what it trusts (required columns, string ids, enum values: an error names the table
// and row), lenient about what is optional (missing tables, ENUM tables, older metadata names).
#pragma once

#include <string>

#include "io/import_info.h"
#include "io/sqlite_db.h"
#include "session/session_builder.h"
#include "util/progress.h"
#include "util/result.h"

namespace ts {

// True when an SQLite database has the tables of an nsys export.
bool isNsysExport(SqliteDb& db);

Result<ImportInfo> importNsysSqlite(const std::string& path, SqliteDb& db, SessionBuilder& builder,
                                    uint32_t rank, const Progress& progress = {});

}  // namespace ts
