// Opens any session file Tensorscope reads, choosing the reader by content, not by extension.
#pragma once

#include <string>

#include "session/session.h"
#include "util/progress.h"
#include "util/result.h"

namespace ts {

Result<SessionPtr> openSessionFile(const std::string& path, const Progress& progress = {});

// Writes a session in the format its extension names (.tscope). Errors name the file.
Status writeSessionFile(const Session& session, const std::string& path,
                        const Progress& progress = {});

}  // namespace ts
