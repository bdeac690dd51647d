#include "app/cli/cli_open.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>

#include "app/cli/cli_args.h"

namespace ts::cli {

namespace {
// One command per process: set once by main, before it runs.
bool recoverDamaged = false;
unsigned threadsToRead = 0;
}  // namespace

bool takeRecoverFlag(std::vector<std::string>& args) {
  // Not after "--": capture's program arguments are the program's.
  auto end = std::find(args.begin(), args.end(), "--");
  auto it = std::remove(args.begin(), end, std::string("--recover"));
  bool found = it != end;
  args.erase(it, end);
  return found;
}

void setRecoverDamagedTraces(bool on) {
  recoverDamaged = on;
}

bool recoverDamagedTraces() {
  return recoverDamaged;
}

unsigned readThreads() {
  return threadsToRead;
}

void setReadThreads(unsigned threads) {
  threadsToRead = threads;
}

bool takeThreadsOption(std::vector<std::string>& args, std::string& error) {
  auto end = std::find(args.begin(), args.end(), "--");
  auto it = std::find(args.begin(), end, std::string("--threads"));
  if (it == end) return true;
  if (it + 1 == end) {
    error = "--threads needs a number";
    return false;
  }
  const std::string& value = *(it + 1);
  unsigned n = 0;
  auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
  if (ec != std::errc() || ptr != value.data() + value.size() || n < 1 || n > 1024) {
    error = "--threads takes a whole number from 1 to 1024, not '" + value + "'";
    return false;
  }
  threadsToRead = n;
  args.erase(it, it + 2);
  return true;
}

OpenOptions cliOpenOptions(OpenOptions options) {
  options.recover = options.recover || recoverDamaged;
  if (options.threads == 0) options.threads = threadsToRead;
  return options;
}

Error withRecoverHint(const Error& error) {
  if (error.code != ErrorCode::Damaged) return error;
  return Error{error.message + " (--recover opens it without the damaged part)",
               ErrorCode::Damaged};
}

Result<SessionPtr> openForCli(const std::vector<std::string>& paths, OpenOptions options) {
  auto session = openSessionFiles(paths, cliOpenOptions(options));
  if (!session) return withRecoverHint(session.failure());
  // Whatever the command prints next describes a session without its damaged part: said once,
  // on stderr, so that tables and JSON on stdout stay as they are.
  if (session && !(*session)->provenance.incompleteReason.empty()) {
    std::fprintf(stderr,
                 "tensorscope-cli: note: opened without the damaged part (incomplete): %s\n",
                 (*session)->provenance.incompleteReason.c_str());
  }
  return session;
}

Result<SessionPtr> openForCli(const std::string& path) {
  return openForCli(std::vector<std::string>{path});
}

void noteIncomplete(const std::vector<std::string>& incomplete) {
  // Said once, on stderr, so that tables and JSON on stdout stay as they are.
  for (const std::string& why : incomplete) {
    std::fprintf(stderr,
                 "tensorscope-cli: note: opened without the damaged part (incomplete): %s\n",
                 why.c_str());
  }
}

// "I/N" → (I, N) with 0 <= I < N.
std::optional<std::pair<size_t, size_t>> parseShard(const std::string& text) {
  const size_t slash = text.find('/');
  if (slash == std::string::npos) return std::nullopt;
  auto i = parseUnsigned(text.substr(0, slash)), n = parseUnsigned(text.substr(slash + 1));
  if (!i || !n || *n < 1 || *i >= *n || *n > 1'000'000) return std::nullopt;
  return std::pair<size_t, size_t>{*i, *n};
}

std::optional<std::string> overwritesInput(const std::string& out,
                                           const std::vector<std::string>& inputs) {
  namespace fs = std::filesystem;
  if (out.empty()) return "the output needs a file name";
  std::error_code ec;
  const fs::path o = fs::absolute(out, ec).lexically_normal();
  for (const std::string& in : inputs) {
    std::error_code e1, e2;
    const bool same = fs::absolute(in, e1).lexically_normal() == o ||
                      (fs::exists(in, e2) && fs::exists(out, e2) && fs::equivalent(in, out, e2));
    if (same) return out + " is also an input: writing it would replace " + in;
  }
  return std::nullopt;
}

}  // namespace ts::cli
