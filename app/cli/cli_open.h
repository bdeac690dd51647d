// How every tensorscope-cli command opens sessions: with the global --recover (given anywhere on
// the command line) applied, and a damaged trace's error saying how to open it anyway.
#pragma once

#include <string>
#include <vector>

#include "io/open_session.h"

namespace ts::cli {

// Takes "--recover" out of `args` wherever it is; true when it was there.
bool takeRecoverFlag(std::vector<std::string>& args);
void setRecoverDamagedTraces(bool on);

Result<SessionPtr> openForCli(const std::vector<std::string>& paths, OpenOptions options = {});
Result<SessionPtr> openForCli(const std::string& path);

}  // namespace ts::cli
