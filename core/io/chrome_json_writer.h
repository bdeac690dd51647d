// Exports a session as Chrome Trace Event JSON in the PyTorch profiler's (Kineto) conventions, so
// Perfetto UI, chrome://tracing and Tensorscope itself read it back: a process per GPU (pid = the
// device ordinal) with a thread per stream, host processes and threads as they were, X events with
// their args, launch flows, counters, process/thread names and device properties.
#pragma once

#include <string>

#include "session/session.h"
#include "util/progress.h"
#include "util/result.h"

namespace ts {

// Written atomically; a ".gz" suffix compresses the output.
Status exportChromeJson(const Session& session, const std::string& path,
                        const Progress& progress = {});

}  // namespace ts
