// Adds a whole single-rank session (a .tscope file: a capture, an earlier import) to a builder as
// one rank, so that the per-rank files of a distributed capture open together as one multi-rank
// session. Strings are re-interned and entities re-keyed; flows are kept.
#pragma once

#include "io/import_info.h"
#include "session/session.h"
#include "session/session_builder.h"
#include "util/result.h"

namespace ts {

// What an importer would report of a whole single-rank session (its first timestamp, whether the
// clock is wall-clock, its rank and host), for aligning it with other ranks.
ImportInfo sessionImportInfo(const Session& source);

// `path` names the file in errors. A session that already holds several ranks is refused.
Status appendSession(const std::string& path, const Session& source, SessionBuilder& b,
                     uint32_t rank, ImportInfo& info);

}  // namespace ts
