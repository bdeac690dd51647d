// tensorscope-cli convert: read any supported session file, write the format OUT names.
#include <cstdio>

#include "cli/cli_args.h"
#include "io/open_session.h"

namespace ts::cli {

namespace {
constexpr const char* kHelp =
    "Usage: tensorscope-cli convert IN OUT\n"
    "\n"
    "Reads IN (recognised by its content) and writes OUT in the format of its extension:\n"
    "  .tscope   Tensorscope session (SQLite container; see docs/tscope-format.md)\n"
    "The output is written atomically: an existing OUT is replaced only once the new file is\n"
    "complete.\n";
}

int runConvert(const std::vector<std::string>& argv) {
  Args args;
  if (std::string e = args.parse(argv, {}, {"--help", "-h"}); !e.empty()) {
    std::fprintf(stderr, "tensorscope-cli convert: %s\n\n%s", e.c_str(), kHelp);
    return kExitUsage;
  }
  if (args.flag("--help") || args.flag("-h")) {
    std::fputs(kHelp, stdout);
    return kExitOk;
  }
  if (args.positional().size() != 2) {
    std::fprintf(stderr, "tensorscope-cli convert: expected IN and OUT\n\n%s", kHelp);
    return kExitUsage;
  }
  auto session = openSessionFile(args.positional()[0]);
  if (!session) {
    std::fprintf(stderr, "tensorscope-cli convert: %s\n", session.error().c_str());
    return kExitFailure;
  }
  if (Status st = writeSessionFile(**session, args.positional()[1]); !st) {
    std::fprintf(stderr, "tensorscope-cli convert: %s\n", st.error().c_str());
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace ts::cli
