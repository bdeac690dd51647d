// Atomic file replacement: write a temporary file beside the target, fsync it, rename it over the
// target, fsync the directory. A writer killed midway leaves the previous file untouched (and at
// worst a stray ".NAME.tmp-PID" beside it).
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "util/result.h"

namespace ts {

// Calls write(tempPath); on success moves the temporary file into place. Errors are prefixed with
// "PATH: cannot save: ".
Status writeFileAtomically(const std::string& path,
                           const std::function<Status(const std::string& tempPath)>& write);

// The same for bytes already in memory (reports, tables, workload files).
Status writeBytesAtomically(const std::string& path, std::string_view bytes);

}  // namespace ts
