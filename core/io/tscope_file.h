// Saving and loading sessions as .tscope files (see tscope_schema.h and docs/tscope-format.md).
#pragma once

#include <string>

#include "session/session.h"
#include "util/progress.h"
#include "util/result.h"

namespace ts {

// Writes atomically: a temporary file beside `path`, fsync, rename, fsync of the directory.
// An interrupted save leaves the previous file untouched.
Status saveSession(const Session& session, const std::string& path, const Progress& progress = {});

// Reads and validates a session. Errors name the file and the problem: not SQLite, not a
// Tensorscope session, written by a newer schema, truncated, corrupt column chunk.
// Column chunks are decompressed on `threads` threads (0: one per core, at most 8).
Result<SessionPtr> loadSession(const std::string& path, const Progress& progress = {},
                               unsigned threads = 0);

// True when the file starts with the SQLite header (for format detection by content).
bool isSqliteFile(const std::string& path);

}  // namespace ts
