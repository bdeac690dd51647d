// RecordSink: the launcher's side of the record stream. Each connection (one per captured
// process, children included) feeds bytes as they arrive; complete frames are kept, a partial
// frame at the end of a connection is dropped and the capture marked incomplete. At any time the
// records so far become a Session snapshot (live view, periodic saves, the final file).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "capture/wire_format.h"
#include "session/live_session.h"
#include "session/session.h"
#include "util/result.h"

namespace ts::capture {

class RecordSink {
 public:
  RecordSink();
  ~RecordSink();
  RecordSink(const RecordSink&) = delete;
  RecordSink& operator=(const RecordSink&) = delete;

  // A new connection (a process that loaded the injection library).
  size_t open();
  // Bytes from connection `c`, in order. A malformed frame is an error: the connection's
  // remaining bytes are ignored and the capture is incomplete.
  Status feed(size_t c, std::string_view bytes);
  // The connection ended (the process exited or died).
  void close(size_t c);

  // Keep only events that end at or after `from` (CUPTI clock): --delay.
  void setWindowStart(TimeNs from) { windowStart_ = from; }

  // The records so far as a session. Complete when every connection sent its End frame, or
  // answered the launcher's flush request (a stop: what came after it is not wanted).
  // Each snapshot appends what came since the last one to a live session (session/live_session.h)
  // and lets the frames go, so it costs what is new, not everything recorded. `holdback` > 0 (a
  // live view): records that start within that long of the latest time seen wait for the next
  // snapshot, so that records arriving a little out of order still land in order; 0: everything,
  // flows sorted as a file holds them (a final snapshot).
  Result<SessionPtr> snapshot(const Provenance& provenance, TimeNs holdback = 0);
  // The growing session behind the snapshots (its counts and memory, for benchmarks and tests).
  const LiveSession& live() const;

  // Events received and kept: not those --delay left out (known once a snapshot has sorted them
  // out) nor those with impossible timestamps (among lost()).
  size_t events() const;
  uint64_t dropped() const;  // records CUPTI reported as dropped, all processes
  // Every record that is not in the session: dropped() and those left out (no timestamps,
  // impossible timestamps). The one number the user is told was lost; warnings() has the causes.
  uint64_t lost() const;
  // lost() by cause, the causes that occurred only (what the file keeps and the Overview lists).
  std::map<std::string, uint64_t> lostByCause() const;
  uint64_t unknown() const;  // CUPTI records of kinds not decoded
  bool complete() const;     // every connection ended cleanly (End or FlushDone, no partial bytes)
  // Every connection still open has answered the flush request (FlushDone) or ended.
  bool flushAnswered() const;
  size_t connections() const { return conns_.size(); }
  // Warnings and errors the targets sent (another profiler attached, CUPTI errors), in order.
  const std::vector<std::string>& messages() const { return messages_; }
  uint64_t incompleteRecords() const { return incomplete_; }  // left out: no timestamps
  // messages(), then what the sink itself has to say (records left out), for the user.
  std::vector<std::string> warnings() const;

 private:
  class Translator;  // snapshot()'s steps, kept from one snapshot to the next
  struct Connection {
    std::string pending;  // bytes of an incomplete frame
    bool open = true;
    bool hello = false, ended = false, broken = false, flushed = false;
    HelloFrame info;
    std::string host, command;
    uint64_t dropped = 0, unknown = 0, overhead = 0;
    uint64_t backlogDropped = 0, unreadable = 0;  // of `dropped`: by the target's queue, unreadable
    std::vector<std::pair<KernelFrame, uint32_t>> kernels;  // with the mangled name's index
    std::vector<MemcpyFrame> memcpys;
    std::vector<MemsetFrame> memsets;
    std::vector<std::pair<ApiFrame, uint32_t>> apis;
    struct Marker {
      MarkerFrame frame;
      uint32_t name, domain;
    };
    std::vector<Marker> markers;
    std::vector<std::pair<DeviceFrame, std::pair<std::string, std::string>>> devices;
    std::vector<ContextFrame> contexts;
    std::vector<StreamFrame> streams;
    std::vector<SyncFrame> syncs;
    std::vector<MemoryFrame> memory;
  };

  Status frame(Connection& c, FrameType type, std::string_view payload);
  bool incomplete(int64_t start, int64_t end);  // counts a record without timestamps
  uint32_t intern(const std::string& s);

  std::vector<Connection> conns_;
  std::vector<std::string> names_;
  std::unordered_map<std::string, uint32_t> nameIndex_;
  std::vector<std::string> messages_;
  size_t events_ = 0;
  uint64_t incomplete_ = 0;
  TimeNs windowStart_ = INT64_MIN;
  std::unique_ptr<Translator> translator_;
};

// "cudaLaunchKernel_v7000" → "cudaLaunchKernel"; other names unchanged.
std::string apiName(std::string_view name);
// The demangled form of a C++ symbol, or the name itself when it is not one.
std::string demangle(const std::string& mangled);

}  // namespace ts::capture
