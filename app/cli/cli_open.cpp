#include "app/cli/cli_open.h"

#include <algorithm>
#include <cstdio>

namespace ts::cli {

namespace {
bool recoverDamaged = false;  // one command per process: set once by main, before it runs
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

Result<SessionPtr> openForCli(const std::vector<std::string>& paths, OpenOptions options) {
  options.recover = options.recover || recoverDamaged;
  auto session = openSessionFiles(paths, options);
  if (!session && session.failure().code == ErrorCode::Damaged)
    return Error{session.error() + " (--recover opens it without the damaged part)",
                 ErrorCode::Damaged};
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

}  // namespace ts::cli
