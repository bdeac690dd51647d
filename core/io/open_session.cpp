#include "io/open_session.h"

#include <filesystem>

#include "io/tscope_file.h"

namespace ts {

Result<SessionPtr> openSessionFile(const std::string& path, const Progress& progress) {
  // .tscope is the only format so far; its reader names the problem for any other file.
  return loadSession(path, progress);
}

Status writeSessionFile(const Session& session, const std::string& path,
                        const Progress& progress) {
  std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".tscope") return saveSession(session, path, progress);
  return Error{path + ": cannot write '" + ext + "' files (supported: .tscope)"};
}

}  // namespace ts
