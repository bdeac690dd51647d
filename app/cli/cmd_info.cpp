// tensorscope-cli info: what a session holds.
#include <algorithm>
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
    "  --threads N  read on N threads (default: one per core; any command takes it)\n"
    "  --json     one JSON object per file (an array when several files are given) with keys\n"
    "             kernels, memcpy, memcpy_bytes (per kind: HtoD, DtoH, DtoD, PtoP, HtoH, other),\n"
    "             memsets, api_calls, nvtx_ranges, nvtx_marks, ranges, devices, streams,\n"
    "             threads, flows, events, start_ns, end_ns, duration_ns, incomplete (and\n"
    "             incomplete_reason when a damaged trace was opened), unified_memory and\n"
    "             unified_memory_bytes (migrations per kind, not counted in memcpy),\n"
    "             gpu_page_faults, cpu_page_faults, counters (name, owner, unit, samples,\n"
    "             peak), skipped (what the reader left out, by what it was), ranks and\n"
    "             world_size (the job's rank count, when its traces say)\n";

// "GPU 0: NVIDIA A100", "python (1234)" or "session".
std::string counterOwner(const Session& s, const CounterTrack& c) {
  if (c.device != kNone) return s.deviceLabel(c.device);
  if (c.process != kNone) return s.processLabel(c.process);
  return "session";
}

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
  for (int pass = 0; pass < 2; ++pass) {
    w.key(pass == 0 ? "unified_memory" : "unified_memory_bytes").beginObject();
    for (int k = 0; k < kCopyKindCount; ++k) {
      if (r.migrationCount[k] == 0) continue;
      w.key(toString(static_cast<CopyKind>(k)));
      w.value(pass == 0 ? static_cast<uint64_t>(r.migrationCount[k]) : r.migrationBytes[k]);
    }
    w.endObject();
  }
  w.key("gpu_page_faults").value(r.gpuPageFaults);
  w.key("cpu_page_faults").value(r.cpuPageFaults);
  w.key("memsets").value(static_cast<uint64_t>(r.memsets));
  w.key("memset_bytes").value(r.memsetBytes);
  w.key("api_calls").value(static_cast<uint64_t>(r.apiCalls));
  w.key("nvtx_ranges").value(static_cast<uint64_t>(r.nvtxRanges));
  w.key("nvtx_marks").value(static_cast<uint64_t>(r.nvtxMarks));
  w.key("ranges").value(static_cast<uint64_t>(r.otherRanges));
  w.key("counter_samples").value(static_cast<uint64_t>(r.counterSamples));
  w.key("flows").value(static_cast<uint64_t>(r.flows));
  w.key("counters").beginArray();
  for (const CounterTrack& c : s.counters) {
    w.beginObject();
    w.key("name").value(c.name);
    w.key("owner").value(counterOwner(s, c));
    w.key("unit").value(c.unit);
    w.key("samples").value(static_cast<uint64_t>(c.size()));
    if (c.size())
      w.key("peak").value(*std::max_element(c.samples.value.begin(), c.samples.value.end()));
    w.endObject();
  }
  w.endArray();
  w.key("skipped").beginObject();
  for (const auto& [what, n] : s.provenance.skipped) w.key(what).value(n);
  w.endObject();
  w.key("devices").beginArray();
  for (const std::string& name : r.devices) w.value(name);
  w.endArray();
  w.key("ranks").value(static_cast<uint64_t>(s.ranks.size()));
  if (s.provenance.worldSize > 0) w.key("world_size").value(int64_t{s.provenance.worldSize});
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
  if (!s.provenance.lost.empty()) {  // the same records by cause, where the capture knew it
    w.key("lost").beginObject();
    for (const auto& [why, n] : s.provenance.lost) w.key(why).value(n);
    w.endObject();
  }
  w.endObject();
}

void printText(const std::string& path, const Session& s, const SessionSummary& r) {
  std::printf("%s\n", path.c_str());
  std::printf("  duration      %s (%lld ns)\n", formatDuration(r.end - r.start).c_str(),
              static_cast<long long>(r.end - r.start));
  for (uint32_t d = 0; d < s.devices.size(); ++d) {
    std::printf("  %-13s %s\n", d == 0 ? "devices" : "", s.deviceLabel(d).c_str());
  }
  if (s.provenance.worldSize > 0) {
    std::printf("  job           %zu of its %d ranks (distributedInfo.world_size)\n",
                s.ranks.size(), s.provenance.worldSize);
  }
  std::printf("  streams       %zu\n  threads       %zu\n", r.streams, r.threads);
  std::printf("  events        %s\n", formatCount(r.events).c_str());
  std::printf("  kernels       %s\n", formatCount(r.kernels).c_str());
  for (int k = 0; k < kCopyKindCount; ++k) {
    if (r.memcpyCount[k] == 0) continue;
    std::printf("  memcpy %-6s %s (%s)\n", std::string(toString(static_cast<CopyKind>(k))).c_str(),
                formatCount(r.memcpyCount[k]).c_str(), formatBytes(r.memcpyBytes[k]).c_str());
  }
  for (int k = 0; k < kCopyKindCount; ++k) {
    if (r.migrationCount[k] == 0) continue;
    std::printf("  unified memory %s: %s migration%s (%s)\n",
                std::string(toString(static_cast<CopyKind>(k))).c_str(),
                formatCount(r.migrationCount[k]).c_str(), r.migrationCount[k] == 1 ? "" : "s",
                formatBytes(r.migrationBytes[k]).c_str());
  }
  if (r.gpuPageFaults || r.cpuPageFaults) {
    std::printf("  page faults   %s on GPUs, %s on CPUs (unified memory)\n",
                formatCount(r.gpuPageFaults).c_str(), formatCount(r.cpuPageFaults).c_str());
  }
  std::printf("  memsets       %s (%s)\n", formatCount(r.memsets).c_str(),
              formatBytes(r.memsetBytes).c_str());
  std::printf("  API calls     %s\n", formatCount(r.apiCalls).c_str());
  std::printf("  NVTX          %s ranges, %s marks\n", formatCount(r.nvtxRanges).c_str(),
              formatCount(r.nvtxMarks).c_str());
  if (r.otherRanges) std::printf("  other ranges  %s\n", formatCount(r.otherRanges).c_str());
  std::printf("  flows         %s\n", formatCount(r.flows).c_str());
  size_t shownCounters = 0;
  for (const CounterTrack& c : s.counters) {
    if (c.size() == 0) continue;
    const double peak = *std::max_element(c.samples.value.begin(), c.samples.value.end());
    char number[32];
    std::snprintf(number, sizeof number, "%.6g", peak);
    const std::string shown = c.unit == "bytes" ? formatBytes(bytesOfValue(peak))
                                                : number + (c.unit.empty() ? "" : " " + c.unit);
    std::printf("  %-13s %s (%s): %s samples, peak %s\n", shownCounters++ == 0 ? "counters" : "",
                c.name.c_str(), counterOwner(s, c).c_str(), formatCount(c.size()).c_str(),
                shown.c_str());
  }
  if (!s.provenance.skipped.empty()) {
    bool first = true;
    for (const auto& [what, n] : s.provenance.skipped) {
      std::printf("  %-13s %s %s\n", first ? "left out" : "", formatCount(n).c_str(), what.c_str());
      first = false;
    }
  }
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
    for (const auto& [why, n] : s.provenance.lost)
      std::printf("                %s %s\n", formatCount(n).c_str(), why.c_str());
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
