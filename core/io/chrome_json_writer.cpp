#include "io/chrome_json_writer.h"

#include <charconv>
#include <cmath>

#include "io/atomic_file.h"
#include "io/text_sink.h"
#include "session/occupancy.h"
#include "session/op_inputs.h"
#include "util/json_writer.h"

namespace ts {

namespace {

// GPU processes of rank r get pids r * kRankPidStride + ordinal; rank 0 keeps Kineto's pid =
// ordinal.
constexpr int64_t kRankPidStride = 1000;

bool isKinetoOpCategory(std::string_view domain) {
  return domain == "cpu_op" || domain == "Operator" || domain == "user_annotation";
}

class Exporter {
 public:
  Exporter(const Session& s, TextSink& out, const Progress& progress)
      : s_(s), out_(out), progress_(progress) {}

  Status run();

 private:
  // A fixed-point value (`scaled` / `scale`) as a JSON number with no trailing zeros: 0.625, 5.
  void fixed(uint64_t scaled, uint64_t scale) {
    number(static_cast<int64_t>(scaled / scale));
    uint64_t rest = scaled % scale;
    if (!rest) return;
    std::string digits;
    for (uint64_t unit = scale / 10; unit > 0; unit /= 10) {
      digits += static_cast<char>('0' + rest / unit % 10);
    }
    while (!digits.empty() && digits.back() == '0') digits.pop_back();
    out_.append('.');
    out_.append(digits);
  }
  void number(int64_t v) {
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    out_.append(std::string_view(buf, static_cast<size_t>(r.ptr - buf)));
  }
  void real(double v) {
    if (!std::isfinite(v)) {
      out_.append("null");
      return;
    }
    char buf[32];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    out_.append(std::string_view(buf, static_cast<size_t>(r.ptr - buf)));
  }
  // ns → µs text with exactly three decimals: no precision lost.
  void micros(TimeNs ns) {
    if (ns < 0) {
      out_.append('-');
      ns = -ns;
    }
    number(ns / 1000);
    char frac[5] = {'.', char('0' + ns / 100 % 10), char('0' + ns / 10 % 10), char('0' + ns % 10),
                    0};
    out_.append(std::string_view(frac, 4));
  }
  void string(std::string_view text) {
    std::string escaped;
    JsonWriter::escape(text, escaped);
    out_.append(escaped);
  }
  // A PyTorch op's recorded inputs, as the profiler writes them.
  void opInputs(std::string_view text) {
    const std::vector<OpInput> inputs = parseOpInputs(text);
    key("Input Dims");
    out_.append('[');
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (i) out_.append(',');
      out_.append('[');
      for (size_t d = 0; d < inputs[i].dims.size(); ++d) {
        if (d) out_.append(',');
        number(inputs[i].dims[d]);
      }
      out_.append(']');
    }
    out_.append(']');
    key("Input type");
    out_.append('[');
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (i) out_.append(',');
      string(inputs[i].type);
    }
    out_.append(']');
  }
  void key(std::string_view k) {
    out_.append(",\"");
    out_.append(k);
    out_.append("\":");
  }
  // pid and tid of an owner: numbers when the source had numbers, names otherwise.
  void owner(const Track& t) {
    if (t.thread != kNone) {
      const Thread& th = s_.threads[t.thread];
      const Process& p = s_.processes[th.process];
      key("pid");
      if (p.pid >= 0)
        number(p.pid);
      else
        string(p.name);
      key("tid");
      if (th.tid >= 0)
        number(th.tid);
      else
        string(th.name);
    } else {
      key("pid");
      number(gpuPid(t.device));
      key("tid");
      number(s_.streams[t.stream].streamId);
    }
  }
  int64_t gpuPid(uint32_t device) const {
    const Device& d = s_.devices[device];
    return int64_t{d.rank} * kRankPidStride + d.ordinal;
  }
  // Starts the next element of traceEvents.
  void next() {
    out_.append(first_ ? "\n" : ",\n");
    first_ = false;
  }
  void begin(char ph, std::string_view cat, StringId name) {
    next();
    out_.append("{\"ph\":\"");
    out_.append(ph);
    out_.append("\",\"cat\":");
    string(cat);
    key("name");
    string(s_.str(name));
  }
  void times(const Track& t, uint32_t i) {
    key("ts");
    micros(t.hot.start[i]);
    key("dur");
    micros(t.hot.end[i] - t.hot.start[i]);
  }
  void gpuArgs(const Track& t, uint32_t correlation, uint32_t context) {
    out_.append(",\"args\":{\"device\":");
    number(s_.devices[t.device].ordinal);
    key("stream");
    number(s_.streams[t.stream].streamId);
    key("context");
    number(context);
    key("correlation");
    number(correlation);
  }
  void event(const Track& t, uint32_t i);
  void metadata();
  void deviceProperties();
  void flows();

  const Session& s_;
  TextSink& out_;
  const Progress& progress_;
  bool first_ = true;
};

void Exporter::event(const Track& t, uint32_t i) {
  switch (t.kind) {
    case EventKind::Kernel: {
      KernelDetail k = t.kernels.row(i);
      begin('X', "kernel", t.hot.name[i]);
      owner(t);
      times(t, i);
      gpuArgs(t, k.correlation, k.context);
      key("registers per thread");
      number(k.registersPerThread);
      key("shared memory");
      number(int64_t{k.staticSharedMemory} + k.dynamicSharedMemory);
      out_.append(",\"grid\":[");
      number(k.gridX), out_.append(','), number(k.gridY), out_.append(','), number(k.gridZ);
      out_.append("],\"block\":[");
      number(k.blockX), out_.append(','), number(k.blockY), out_.append(','), number(k.blockZ);
      out_.append(']');
      if (k.mangled) key("mangled name"), string(s_.str(k.mangled));
      // What the profiler reported comes back as it was; else Tensorscope's own estimate.
      if (k.reportedStats & kReportedExternalId) key("external id"), number(k.externalId);
      if (k.reportedStats & kReportedBlocksPerSm)
        key("blocks per SM"), fixed(k.blocksPerSmX1000, 1000);
      if (k.reportedStats & kReportedWarpsPerSm)
        key("warps per SM"), fixed(k.warpsPerSmX1000, 1000);
      if (k.reportedStats & kReportedOccupancy) {
        key("est. achieved occupancy %");
        fixed(k.estOccupancyX100, 100);
      } else if (auto occ = estimatedAchievedOccupancy(s_.devices[t.device], k)) {
        key("est. achieved occupancy %");
        number(std::llround(*occ * 100));
      }
      out_.append("}}");
      return;
    }
    case EventKind::Memcpy: {
      MemcpyDetail m = t.memcpys.row(i);
      begin('X', "gpu_memcpy", t.hot.name[i]);
      owner(t);
      times(t, i);
      gpuArgs(t, m.correlation, m.context);
      key("bytes");
      number(static_cast<int64_t>(m.bytes));
      key("kind");
      string(toString(m.copyKind));
      TimeNs dur = t.hot.end[i] - t.hot.start[i];
      if (dur > 0)
        key("memory bandwidth (GB/s)"),
            real(static_cast<double>(m.bytes) / static_cast<double>(dur));
      if (m.copyKind == CopyKind::PtoP) {
        key("fromDevice"), number(m.srcDevice);
        key("toDevice"), number(m.dstDevice);
      }
      if (m.hasExternalId) key("External id"), number(m.externalId);
      if (m.migration) {  // Tensorscope's own args: read back as a migration
        key("unified memory migration"), number(1);
        key("migration cause"), number(static_cast<int64_t>(m.migrationCause));
        if (m.address) key("address"), number(static_cast<int64_t>(m.address));
      }
      out_.append("}}");
      return;
    }
    case EventKind::Memset: {
      MemsetDetail m = t.memsets.row(i);
      begin('X', "gpu_memset", t.hot.name[i]);
      owner(t);
      times(t, i);
      gpuArgs(t, m.correlation, m.context);
      key("bytes");
      number(static_cast<int64_t>(m.bytes));
      out_.append("}}");
      return;
    }
    case EventKind::Api:
      begin('X', t.apis.domain[i] == ApiDomain::Driver ? "cuda_driver" : "cuda_runtime",
            t.hot.name[i]);
      owner(t);
      times(t, i);
      out_.append(",\"args\":{\"correlation\":");
      number(t.apis.correlation[i]);
      if (t.apis.returnCode[i]) key("return code"), number(t.apis.returnCode[i]);
      out_.append("}}");
      return;
    case EventKind::Nvtx: {
      std::string_view domain = s_.str(t.nvtx.domain[i]);
      bool onStream = t.thread == kNone;
      std::string_view cat = onStream                     ? "gpu_user_annotation"
                             : isKinetoOpCategory(domain) ? domain
                                                          : "nvtx";
      if (t.nvtx.isMark[i]) {
        begin('i', cat, t.hot.name[i]);
        owner(t);
        key("ts");
        micros(t.hot.start[i]);
        out_.append(",\"s\":\"t\"");
      } else {
        begin('X', cat, t.hot.name[i]);
        owner(t);
        times(t, i);
      }
      out_.append(",\"args\":{\"domain\":");
      string(domain);
      if (t.nvtx.color[i]) key("color"), number(t.nvtx.color[i]);
      if (std::string_view text = s_.str(t.nvtx.inputs[i]); !text.empty()) opInputs(text);
      out_.append("}}");
      return;
    }
    case EventKind::Range: {
      begin('X', s_.str(t.ranges.category[i]), t.hot.name[i]);
      owner(t);
      times(t, i);
      std::string_view args = s_.str(t.ranges.args[i]);
      if (!args.empty() && args.front() == '{') {
        out_.append(",\"args\":");
        out_.append(args);  // JSON object text kept from the source
      }
      out_.append('}');
      return;
    }
  }
}

void Exporter::metadata() {
  auto meta = [&](const char* what, auto pid, auto tid, std::string_view name, bool sort,
                  int64_t index) {
    next();
    out_.append("{\"ph\":\"M\",\"name\":\"");
    out_.append(what);
    out_.append("\"");
    pid();
    tid();
    out_.append(",\"args\":{");
    if (sort) {
      out_.append("\"sort_index\":");
      number(index);
    } else {
      out_.append("\"name\":");
      string(name);
    }
    out_.append("}}");
  };
  for (uint32_t d = 0; d < s_.devices.size(); ++d) {
    auto pid = [&] { key("pid"), number(gpuPid(d)); };
    auto tid0 = [&] { key("tid"), number(0); };
    meta("process_name", pid, tid0, s_.deviceLabel(d), false, 0);
    meta("process_sort_index", pid, tid0, {}, true, gpuPid(d));
  }
  for (uint32_t st = 0; st < s_.streams.size(); ++st) {
    auto pid = [&] { key("pid"), number(gpuPid(s_.streams[st].device)); };
    auto tid = [&] { key("tid"), number(s_.streams[st].streamId); };
    meta("thread_name", pid, tid, s_.streamLabel(st), false, 0);
  }
  for (const Process& p : s_.processes) {
    auto pid = [&] {
      key("pid");
      if (p.pid >= 0)
        number(p.pid);
      else
        string(p.name);
    };
    auto tid0 = [&] { key("tid"), number(0); };
    if (!p.name.empty()) meta("process_name", pid, tid0, p.name, false, 0);
    // Host processes after the GPUs unless the source gave an order.
    meta("process_sort_index", pid, tid0, {}, true,
         p.sortIndex ? p.sortIndex : 1'000'000 + std::max<int64_t>(p.pid, 0));
  }
  for (const Thread& th : s_.threads) {
    if (th.name.empty() || th.tid < 0) continue;
    const Process& p = s_.processes[th.process];
    auto pid = [&] {
      key("pid");
      if (p.pid >= 0)
        number(p.pid);
      else
        string(p.name);
    };
    auto tid = [&] { key("tid"), number(th.tid); };
    meta("thread_name", pid, tid, th.name, false, 0);
    if (th.sortIndex) meta("thread_sort_index", pid, tid, {}, true, th.sortIndex);
  }
}

// Launch flows as Kineto writes them (ac2g, id = correlation): the reader relinks them by
// correlation. Other flows get their own ids and bind by time.
void Exporter::flows() {
  for (size_t f = 0; f < s_.flows.srcTrack.size(); ++f) {
    const Track& src = s_.tracks[s_.flows.srcTrack[f]];
    const Track& dst = s_.tracks[s_.flows.dstTrack[f]];
    uint32_t si = s_.flows.srcEvent[f], di = s_.flows.dstEvent[f];
    uint32_t correlation = 0;
    if (src.kind == EventKind::Api) correlation = src.apis.correlation[si];
    bool launch = correlation != 0 &&
                  ((dst.kind == EventKind::Kernel && dst.kernels.correlation[di] == correlation) ||
                   (dst.kind == EventKind::Memcpy && dst.memcpys.correlation[di] == correlation) ||
                   (dst.kind == EventKind::Memset && dst.memsets.correlation[di] == correlation));
    for (int end = 0; end < 2; ++end) {
      const Track& t = end == 0 ? src : dst;
      uint32_t i = end == 0 ? si : di;
      next();
      out_.append("{\"ph\":\"");
      out_.append(end == 0 ? 's' : 'f');
      out_.append("\",\"cat\":");
      string(launch ? "ac2g" : "flow");
      out_.append(",\"name\":");
      string(launch ? "ac2g" : "flow");
      key("id");
      number(launch ? correlation : static_cast<int64_t>(f));
      owner(t);
      key("ts");
      micros(t.hot.start[i]);
      if (end == 1) out_.append(",\"bp\":\"e\"");
      out_.append('}');
    }
  }
}

void Exporter::deviceProperties() {
  out_.append("\"deviceProperties\":[");
  bool firstDevice = true;
  for (const Device& d : s_.devices) {
    if (d.rank != 0) continue;  // Kineto lists one machine's GPUs; other ranks' are in their names
    out_.append(firstDevice ? "\n" : ",\n");
    firstDevice = false;
    out_.append("{\"id\":");
    number(d.ordinal);
    key("name"), string(d.name);
    key("totalGlobalMem"), number(static_cast<int64_t>(d.memoryBytes));
    key("computeMajor"), number(d.computeMajor);
    key("computeMinor"), number(d.computeMinor);
    key("maxThreadsPerBlock"), number(d.maxThreadsPerBlock);
    key("maxThreadsPerMultiprocessor"), number(int64_t{d.maxWarpsPerSm} * d.warpSize);
    key("regsPerBlock"), number(d.maxRegistersPerBlock);
    key("regsPerMultiprocessor"), number(d.maxRegistersPerSm);
    key("warpSize"), number(d.warpSize);
    key("sharedMemPerBlock"), number(d.maxSharedMemoryPerBlock);
    key("sharedMemPerMultiprocessor"), number(d.maxSharedMemoryPerSm);
    key("numSms"), number(d.smCount);
    out_.append('}');
  }
  out_.append("],\n");
}

Status Exporter::run() {
  out_.append("{\"schemaVersion\":1,\"displayTimeUnit\":\"ns\",\n");
  if (!s_.multiRank() && !s_.ranks.empty()) {
    out_.append("\"distributedInfo\":{\"rank\":");
    number(s_.ranks[0].rank);
    out_.append("},\n");
  }
  deviceProperties();
  out_.append("\"traceEvents\":[");
  metadata();
  const size_t total = std::max<size_t>(s_.eventCount(), 1);
  size_t done = 0;
  for (const Track& t : s_.tracks) {
    for (uint32_t i = 0; i < t.size(); ++i) event(t, i);
    done += t.size();
    if (progress_.cancelled()) return Error::cancelled();
    progress_.update(0.95 * static_cast<double>(done) / static_cast<double>(total));
  }
  for (const CounterTrack& c : s_.counters) {
    for (size_t i = 0; i < c.size(); ++i) {
      next();
      out_.append("{\"ph\":\"C\",\"name\":");
      string(c.name);
      key("pid");
      if (c.device != kNone) {
        number(gpuPid(c.device));
      } else {
        const Process& p = s_.processes[c.process];
        if (p.pid >= 0)
          number(p.pid);
        else
          string(p.name);
      }
      key("ts");
      micros(c.samples.time[i]);
      out_.append(",\"args\":{\"value\":");
      real(c.samples.value[i]);
      out_.append("}}");
    }
  }
  flows();
  out_.append("\n]}\n");
  return {};
}

}  // namespace

Status exportChromeJson(const Session& session, const std::string& path, const Progress& progress) {
  bool gzip = path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
  return writeFileAtomically(path, [&](const std::string& temp) -> Status {
    TextSink sink(temp, gzip);
    Exporter exporter(session, sink, progress);
    Status st = exporter.run();
    Status closed = sink.finish();
    return st ? closed : st;
  });
}

}  // namespace ts
