// Opens the export module (export_module.cpp) and runs the command there.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "app/cli/cli_args.h"
#include "app/cli/cli_open.h"

namespace ts::cli {

namespace {

using ExportFunction = int (*)(int, const char* const*, int, unsigned);

// TSCOPE_EXPORT_MODULE when set, else bin/../lib/<multiarch>/tensorscope: the layout of the build
// tree and of an installed package.
std::string modulePath() {
  if (const char* env = std::getenv("TSCOPE_EXPORT_MODULE"); env && *env) return env;
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "libtensorscope_export.so";
  return (self.parent_path().parent_path() / TSCOPE_PRIVATE_LIBDIR / "libtensorscope_export.so")
      .string();
}

}  // namespace

int runExportModule(const std::vector<std::string>& argv) {
  const std::string path = modulePath();
  void* module = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!module) {
    const char* why = dlerror();
    std::fprintf(stderr,
                 "tensorscope-cli export: cannot load the export module %s: %s (it comes with the "
                 "GUI: is Tensorscope installed whole?)\n",
                 path.c_str(), why ? why : "unknown error");
    return kExitFailure;
  }
  auto run = reinterpret_cast<ExportFunction>(dlsym(module, "tensorscope_cli_export"));
  if (!run) {
    const char* why = dlerror();
    std::fprintf(stderr, "tensorscope-cli export: %s is not Tensorscope's export module: %s\n",
                 path.c_str(), why ? why : "no tensorscope_cli_export in it");
    return kExitFailure;
  }
  std::vector<const char*> args;
  for (const std::string& a : argv) args.push_back(a.c_str());
  // The module stays loaded until the process ends: Qt's own threads and handlers may outlive
  // the call.
  return run(static_cast<int>(args.size()), args.data(), recoverDamagedTraces() ? 1 : 0,
             readThreads());
}

}  // namespace ts::cli
