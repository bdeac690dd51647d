// The capture launcher: starts the program with the injection library (argv as given, no shell;
// its stdout and stderr are the launcher's), receives every process's record stream on a private
// Unix socket (in a fresh 0700 directory), saves the session now and then while it runs — so a
// crash or a kill leaves a readable file, marked incomplete — and once at the end with the
// program's exit status.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "session/session.h"
#include "util/progress.h"
#include "util/result.h"

namespace ts::capture {

struct CaptureOptions {
  std::vector<std::string> argv;                         // program and arguments
  std::vector<std::pair<std::string, std::string>> env;  // added to the program's environment
  std::string workingDirectory;                          // empty: the launcher's
  std::string output;                                    // .tscope path (%p, %h, %r expanded)
  double durationSeconds = 0;  // > 0: stop after this long (the program is asked to terminate)
  double delaySeconds = 0;     // > 0: keep only what happens after this long
  std::string kinds;  // "kernel,memcpy,memset,runtime,driver,nvtx,sync"; empty: all but driver
  std::string injectionLibrary;  // empty: found beside the executable or in the build tree
  double saveIntervalSeconds = 2;
};

struct CaptureProgress {
  double elapsedSeconds = 0;
  size_t events = 0;
  uint64_t dropped = 0;  // records lost so far, whatever the cause (RecordSink::lost)
  size_t processes = 0;
  bool running = true;
};

struct CaptureResult {
  std::string output;           // the file written
  std::optional<int> exitCode;  // the program's, when it exited
  std::optional<int> signal;    // the signal that ended it, when one did
  size_t events = 0;
  size_t gpuEvents = 0;  // kernels, copies and memsets among them
  uint64_t dropped = 0;  // records lost, whatever the cause (the causes are among `messages`)
  bool incomplete = false;
  std::vector<std::string> messages;  // warnings for the user (no CUDA driver, another profiler)
  // How long each live snapshot and each write of the file took (`capture --timings`): what a
  // long capture costs as it grows.
  struct Timing {
    enum class What { Snapshot, Write, FinalSave } what = What::Snapshot;
    // Since the launch: when a snapshot was taken (its wait for the sink included), when a
    // periodic write was found done (it ended up to an interval before), when the final save ended.
    double atSeconds = 0;
    size_t events = 0;  // in the session taken or written
    double seconds = 0;
  };
  std::vector<Timing> timings;
};

struct CaptureHooks {
  // The one Progress every long job reports through (util/progress.h). Its cancel flag ends the
  // capture — a stop, not a failure: what was recorded is saved and returned; set before the
  // launch, nothing is run (Error::cancelled()). Stages: "launching", "recording", "saving"; the
  // fraction moves only when a duration is set.
  Progress progress;
  std::function<void(const CaptureProgress&)> live;  // the counts, about ten times a second
  std::function<void(SessionPtr)> snapshot;          // each live snapshot, for a live view
  // Each periodic write of the file once it is done, with the events it holds (on the capture's
  // thread, before the next write starts).
  std::function<void(size_t events)> saved;
  // Read when the stop comes: true leaves the program running (unrecorded) instead of asking it
  // to terminate.
  const std::atomic<bool>* keepRunning = nullptr;
};

// "%p" launcher pid, "%h" host name, "%r" rank from RANK / OMPI_COMM_WORLD_RANK / PMI_RANK /
// SLURM_PROCID (0 when none), "%%" a percent sign.
std::string expandOutputName(const std::string& pattern);

// The injection library to load: options, TSCOPE_INJECTION_LIBRARY, beside the running
// executable (../lib/<multiarch>/tensorscope/: the layout of the build tree and of an installed
// package). Empty when none exists.
std::string findInjectionLibrary(const std::string& requested = {});

// The CUPTI library the captured program's injection library opens (and NVTX is pointed at):
// TSCOPE_CUPTI_LIBRARY as given, else the first that exists of $CUDA_HOME's and /usr/local/cuda's
// libcupti.so.<major> / libcupti.so, then the toolkit this was built against. Empty when none
// exists: the capture then names the soname, for the dynamic loader's search path.
std::string findCuptiLibrary();

// Runs the program to its end (or the stop / duration) and writes the session. Errors before the
// launch (program not found, output not writable, no injection library) come back as an Error
// and nothing runs.
Result<CaptureResult> runCapture(const CaptureOptions& options, const CaptureHooks& hooks = {});

}  // namespace ts::capture
