#include "io/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace ts {

namespace {

namespace fs = std::filesystem;

Status syncPath(const std::string& path, bool directory) {
  int fd = ::open(path.c_str(), directory ? (O_RDONLY | O_DIRECTORY) : O_RDONLY);
  if (fd < 0) return Error::io("cannot open for fsync");
  int rc = ::fsync(fd);
  ::close(fd);
  return rc == 0 ? Status{} : Status{Error::io("fsync failed")};
}

}  // namespace

Status writeFileAtomically(const std::string& path,
                           const std::function<Status(const std::string& tempPath)>& write) {
  fs::path target(path);
  fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return Error::notFound(path + ": cannot save: directory " + dir.string() + " does not exist");
  }
  if (fs::is_directory(target, ec)) return Error{path + ": cannot save: is a directory"};
  fs::path temp = dir / ("." + target.filename().string() + ".tmp-" + std::to_string(::getpid()));
  fs::remove(temp, ec);
  Status st = write(temp.string());
  if (st) st = syncPath(temp.string(), false);
  if (st && std::rename(temp.c_str(), target.c_str()) != 0) {
    st = Error::io(std::string("rename failed: ") + std::strerror(errno));
  }
  if (!st) {
    fs::remove(temp, ec);
    return st.failure().prefixed(path + ": cannot save: ");
  }
  (void)syncPath(dir.string(), true);  // best effort: the rename is already visible
  return {};
}

Status writeBytesAtomically(const std::string& path, std::string_view bytes) {
  return writeFileAtomically(path, [&](const std::string& temp) -> Status {
    std::ofstream out(temp, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out) return Error::io(path + ": cannot write");
    return {};
  });
}

}  // namespace ts
