// The export command in a module of its own (libtensorscope_export.so, beside the capture
// library): it needs Qt to draw, which the CLI's other commands should not pay for at every
// start. The CLI opens it when asked to export (export_loader.cpp) and calls this one function.
#include <string>
#include <vector>

#include "app/cli/cli_args.h"
#include "app/cli/cli_open.h"

extern "C" __attribute__((visibility("default"))) int tensorscope_cli_export(
    int argc, const char* const* argv, int recover, unsigned threads) {
  // The module has its own copy of the global options: given again.
  ts::cli::setRecoverDamagedTraces(recover != 0);
  ts::cli::setReadThreads(threads);
  return ts::cli::runExport(std::vector<std::string>(argv, argv + argc));
}
