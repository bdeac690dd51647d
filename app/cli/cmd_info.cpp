// tensorscope-cli info: what a session holds.
#include <cstdio>

#include "app/cli/cli_args.h"
#include "app/cli/cli_open.h"
#include "io/open_session.h"
#include "session/session_summary.h"
#include "util/format.h"
#include "util/json_writer.h"

namespace ts::cli {

namespace {

constexpr const char* kHelp =
    "Usage: tensorscope-cli info FILE... [--json] [--ranks] [--recover]\n"
    "\n"
    "Prints each session's devices, time span and event counts. FILE is a .tscope session, an\n"
    "Nsight Systems SQLite export or a PyTorch profiler / Chrome trace JSON (plain or .gz),\n"
    "recognised by its content.\n"
    "  --ranks    open the files together as one multi-rank session (one rank per file)\n"
    "  --recover  open a damaged JSON trace without its damaged part (any command takes it)\n"
    "  --json     one JSON object per file (an array when several files are given) with keys\n"
    "             kernels, memcpy, memcpy_bytes (per kind: HtoD, DtoH, DtoD, PtoP, HtoH, other),\n"
    "             memsets, api_calls, nvtx_ranges, nvtx_marks, ranges, devices, streams,\n"
    "             threads, flows, events, start_ns, end_ns, duration_ns, incomplete (and\n"
    "             incomplete_reason when a damaged trace was opened)\n";

void writeJson(JsonWriter& w, const std::string& path, const Session& s, const SessionSummary& r) {
  w.beginObject();
  w.key("file").value(path);
  w.key("kernels").value(static_cast<uint64_t>(r.kernels));
  for (int pass = 0; pass < 2; ++pass) {
    w.key(pass == 0 ? "memcpy" : "memcpy_bytes").beginObject();
    for (int k = 0; k < kCopyKindCount; ++k) {
      w.key(toString(static_cast<CopyKind>(k)));
      w.value(pass == 0 ? static_cast<uint64_t>(r.memcpyCount[k]) : r.memcpyBytes[k]);
    }
    w.endObject();
  }
  w.key("memsets").value(static_cast<uint64_t>(r.memsets));
  w.key("memset_bytes").value(r.memsetBytes);
  w.key("api_calls").value(static_cast<uint64_t>(r.apiCalls));
  w.key("nvtx_ranges").value(static_cast<uint64_t>(r.nvtxRanges));
  w.key("nvtx_marks").value(static_cast<uint64_t>(r.nvtxMarks));
  w.key("ranges").value(static_cast<uint64_t>(r.otherRanges));
  w.key("counter_samples").value(static_cast<uint64_t>(r.counterSamples));
  w.key("flows").value(static_cast<uint64_t>(r.flows));
  w.key("devices").beginArray();
  for (const std::string& name : r.devices) w.value(name);
  w.endArray();
  w.key("ranks").value(static_cast<uint64_t>(s.ranks.size()));
  w.key("streams").value(static_cast<uint64_t>(r.streams));
  w.key("threads").value(static_cast<uint64_t>(r.threads));
  w.key("events").value(static_cast<uint64_t>(r.events));
  w.key("start_ns").value(r.start);
  w.key("end_ns").value(r.end);
  w.key("duration_ns").value(r.end - r.start);
  w.key("incomplete").value(s.provenance.incomplete);
  if (!s.provenance.incompleteReason.empty())
    w.key("incomplete_reason").value(s.provenance.incompleteReason);
  if (!s.provenance.captureCommand.empty())
    w.key("capture_command").value(s.provenance.captureCommand);
  if (s.provenance.exitCode) w.key("exit_code").value(*s.provenance.exitCode);
  if (!s.provenance.profiler.empty()) w.key("profiler").value(s.provenance.profiler);
  w.key("dropped_records").value(s.provenance.droppedRecords);
  w.endObject();
}

void printText(const std::string& path, const Session& s, const SessionSummary& r) {
  std::printf("%s\n", path.c_str());
  std::printf("  duration      %s (%lld ns)\n", formatDuration(r.end - r.start).c_str(),
              static_cast<long long>(r.end - r.start));
  for (uint32_t d = 0; d < s.devices.size(); ++d) {
    std::printf("  %-13s %s\n", d == 0 ? "devices" : "", s.deviceLabel(d).c_str());
  }
  std::printf("  streams       %zu\n  threads       %zu\n", r.streams, r.threads);
  std::printf("  events        %s\n", formatCount(r.events).c_str());
  std::printf("  kernels       %s\n", formatCount(r.kernels).c_str());
  for (int k = 0; k < kCopyKindCount; ++k) {
    if (r.memcpyCount[k] == 0) continue;
    std::printf("  memcpy %-6s %s (%s)\n", std::string(toString(static_cast<CopyKind>(k))).c_str(),
                formatCount(r.memcpyCount[k]).c_str(), formatBytes(r.memcpyBytes[k]).c_str());
  }
  std::printf("  memsets       %s (%s)\n", formatCount(r.memsets).c_str(),
              formatBytes(r.memsetBytes).c_str());
  std::printf("  API calls     %s\n", formatCount(r.apiCalls).c_str());
  std::printf("  NVTX          %s ranges, %s marks\n", formatCount(r.nvtxRanges).c_str(),
              formatCount(r.nvtxMarks).c_str());
  if (r.otherRanges) std::printf("  other ranges  %s\n", formatCount(r.otherRanges).c_str());
  std::printf("  flows         %s\n", formatCount(r.flows).c_str());
  if (!s.provenance.captureCommand.empty()) {
    std::printf("  captured      %s", s.provenance.captureCommand.c_str());
    if (s.provenance.exitCode) std::printf(" (exit status %d)", *s.provenance.exitCode);
    std::printf("\n");
  }
  if (!s.provenance.profiler.empty())
    std::printf("  recorded by   %s\n", s.provenance.profiler.c_str());
  if (s.provenance.droppedRecords) {
    std::printf("  LOST          %s records while recording: some events are missing\n",
                formatCount(s.provenance.droppedRecords).c_str());
  }
  if (!s.provenance.incompleteReason.empty()) {
    std::string reason = s.provenance.incompleteReason;  // a line per damaged file
    for (size_t at = reason.find('\n'); at != std::string::npos; at = reason.find('\n', at + 1))
      reason.insert(at + 1, "              ");
    std::printf("  INCOMPLETE: %s\n", reason.c_str());
  } else if (s.provenance.incomplete)
    std::printf("  INCOMPLETE: the capture ended before its last flush\n");
}

}  // namespace

int runInfo(const std::vector<std::string>& argv) {
  Args args;
  if (std::string e = args.parse(argv, {}, {"--json", "--ranks", "--help", "-h"}); !e.empty()) {
    std::fprintf(stderr, "tensorscope-cli info: %s\n\n%s", e.c_str(), kHelp);
    return kExitUsage;
  }
  if (args.flag("--help") || args.flag("-h")) {
    std::fputs(kHelp, stdout);
    return kExitOk;
  }
  if (args.positional().empty()) {
    std::fprintf(stderr, "tensorscope-cli info: no file given\n\n%s", kHelp);
    return kExitUsage;
  }
  bool json = args.flag("--json");
  // Each file alone, or (--ranks) all of them as one session.
  std::vector<std::vector<std::string>> groups;
  if (args.flag("--ranks")) {
    groups.push_back(args.positional());
  } else {
    for (const std::string& path : args.positional()) groups.push_back({path});
  }
  bool many = groups.size() > 1;
  JsonWriter w;
  if (json && many) w.beginArray();
  int status = kExitOk;
  for (const auto& group : groups) {
    std::string path = group.front();
    for (size_t i = 1; i < group.size(); ++i) path += " + " + group[i];
    auto session = openForCli(group);
    if (!session) {
      std::fprintf(stderr, "tensorscope-cli info: %s\n", session.error().c_str());
      status = kExitFailure;
      continue;
    }
    SessionSummary summary = summarize(**session);
    if (json)
      writeJson(w, path, **session, summary);
    else
      printText(path, **session, summary);
  }
  if (json && many) w.endArray();
  if (json && (status == kExitOk || many)) std::printf("%s\n", w.str().c_str());
  return status;
}

}  // namespace ts::cli
