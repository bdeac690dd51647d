// How every tensorscope-cli command opens sessions: with the global --recover and --threads
// (given anywhere on the command line) applied, and a damaged trace's error saying how to open it
// anyway.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "io/open_session.h"

namespace ts::cli {

// Takes "--recover" out of `args` wherever it is; true when it was there.
bool takeRecoverFlag(std::vector<std::string>& args);
void setRecoverDamagedTraces(bool on);
// Takes "--threads N" out of `args` wherever it is: how many threads read files (0, the default:
// one per core). False, with `error` set, for a value that is not a whole number 1–1024.
bool takeThreadsOption(std::vector<std::string>& args, std::string& error);
// The global options as taken, and given again (to the export module, which has its own copy).
bool recoverDamagedTraces();
unsigned readThreads();
void setReadThreads(unsigned threads);

// The options every command opens files with: the global --recover and --threads applied.
OpenOptions cliOpenOptions(OpenOptions options = {});
// What to add to a damaged file's error: how to open it anyway.
Error withRecoverHint(const Error& error);

Result<SessionPtr> openForCli(const std::vector<std::string>& paths, OpenOptions options = {});
Result<SessionPtr> openForCli(const std::string& path);

// Says on stderr, once per file, that files were opened without their damaged part (so that
// tables and JSON on stdout stay as they are).
void noteIncomplete(const std::vector<std::string>& incomplete);
// An error when writing `out` would replace one of `inputs` (the same path, or the same file by
// another path): a trace or a part overwritten by the tables made from it is lost.
std::optional<std::string> overwritesInput(const std::string& out,
                                           const std::vector<std::string>& inputs);
// --shard "I/N" → (I, N) with 0 <= I < N <= 1,000,000.
std::optional<std::pair<size_t, size_t>> parseShard(const std::string& text);

}  // namespace ts::cli
