#include "io/csv_writer.h"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "io/atomic_file.h"
#include "io/text_sink.h"
#include "session/occupancy.h"

namespace ts {

namespace {

constexpr const char* kHeaders[] = {
    "rank,start_ns,end_ns,duration_ns,name,device,stream,correlation,grid_x,grid_y,grid_z,block_x,"
    "block_y,block_z,registers_per_thread,static_shared_memory,dynamic_shared_memory,"
    "local_memory_per_thread,theoretical_occupancy,mangled_name",
    "rank,start_ns,end_ns,duration_ns,name,device,stream,correlation,kind,bytes,bandwidth_gb_s,"
    "src_kind,dst_kind,src_device,dst_device",
    "rank,start_ns,end_ns,duration_ns,name,device,stream,correlation,bytes,value,mem_kind",
    "rank,start_ns,end_ns,duration_ns,name,pid,tid,thread_name,domain,correlation,return_code",
    "rank,start_ns,end_ns,duration_ns,text,pid,tid,thread_name,device,stream,domain,depth,is_mark,"
    "color",
};

EventKind kindOf(CsvTable t) {
  switch (t) {
    case CsvTable::Kernels:
      return EventKind::Kernel;
    case CsvTable::Memcpy:
      return EventKind::Memcpy;
    case CsvTable::Memset:
      return EventKind::Memset;
    case CsvTable::Api:
      return EventKind::Api;
    case CsvTable::Nvtx:
      return EventKind::Nvtx;
  }
  return EventKind::Kernel;
}

class Rows {
 public:
  explicit Rows(std::string& line) : line_(line) {}
  void field(std::string_view text) {
    sep();
    appendCsvField(line_, text);
  }
  void field(int64_t v) {
    sep();
    line_ += std::to_string(v);
  }
  void field(double v) {
    sep();
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    line_ += buf;
  }
  void empty() { sep(); }
  void end() {
    line_ += "\r\n";  // RFC 4180 line breaks
    first_ = true;
  }

 private:
  void sep() {
    if (!first_) line_ += ',';
    first_ = false;
  }
  std::string& line_;
  bool first_ = true;
};

}  // namespace

std::optional<CsvTable> csvTableFromString(std::string_view name) {
  for (CsvTable t :
       {CsvTable::Kernels, CsvTable::Memcpy, CsvTable::Memset, CsvTable::Api, CsvTable::Nvtx}) {
    if (toString(t) == name) return t;
  }
  return std::nullopt;
}

std::string_view toString(CsvTable table) {
  switch (table) {
    case CsvTable::Kernels:
      return "kernels";
    case CsvTable::Memcpy:
      return "memcpy";
    case CsvTable::Memset:
      return "memset";
    case CsvTable::Api:
      return "api";
    case CsvTable::Nvtx:
      return "nvtx";
  }
  return "?";
}

Status exportCsv(const Session& s, CsvTable table, const std::string& path,
                 const Progress& progress) {
  const EventKind kind = kindOf(table);
  // Rows of every track of the kind, merged in time order.
  struct Ref {
    TimeNs start;
    uint32_t track, event;
  };
  std::vector<Ref> refs;
  for (uint32_t t = 0; t < s.tracks.size(); ++t) {
    if (s.tracks[t].kind != kind) continue;
    for (uint32_t i = 0; i < s.tracks[t].size(); ++i)
      refs.push_back({s.tracks[t].hot.start[i], t, i});
  }
  std::stable_sort(refs.begin(), refs.end(),
                   [](const Ref& a, const Ref& b) { return a.start < b.start; });

  return writeFileAtomically(path, [&](const std::string& temp) -> Status {
    TextSink sink(temp, false);
    std::string line = kHeaders[static_cast<int>(table)];
    line += "\r\n";
    Rows row(line);
    for (size_t r = 0; r < refs.size(); ++r) {
      const Track& t = s.tracks[refs[r].track];
      const uint32_t i = refs[r].event;
      const bool gpu = t.device != kNone;
      uint32_t rank =
          gpu ? s.devices[t.device].rank : s.processes[s.threads[t.thread].process].rank;
      row.field(int64_t{s.ranks[rank].rank});
      row.field(t.hot.start[i]);
      row.field(t.hot.end[i]);
      row.field(t.hot.end[i] - t.hot.start[i]);
      row.field(s.str(t.hot.name[i]));
      auto gpuColumns = [&](uint32_t correlation) {
        row.field(int64_t{s.devices[t.device].ordinal});
        row.field(int64_t{s.streams[t.stream].streamId});
        row.field(int64_t{correlation});
      };
      auto threadColumns = [&] {
        if (t.thread == kNone) {
          row.empty(), row.empty(), row.empty();
          return;
        }
        const Thread& th = s.threads[t.thread];
        row.field(s.processes[th.process].pid);
        row.field(th.tid);
        row.field(th.name);
      };
      switch (kind) {
        case EventKind::Kernel: {
          KernelDetail k = t.kernels.row(i);
          gpuColumns(k.correlation);
          for (uint32_t v : {k.gridX, k.gridY, k.gridZ, k.blockX, k.blockY, k.blockZ})
            row.field(int64_t{v});
          row.field(int64_t{k.registersPerThread});
          row.field(int64_t{k.staticSharedMemory});
          row.field(int64_t{k.dynamicSharedMemory});
          row.field(int64_t{k.localMemoryPerThread});
          if (auto o = theoreticalOccupancy(s.devices[t.device], k))
            row.field(o->theoretical);
          else
            row.empty();
          row.field(s.str(k.mangled));
          break;
        }
        case EventKind::Memcpy: {
          MemcpyDetail m = t.memcpys.row(i);
          gpuColumns(m.correlation);
          row.field(toString(m.copyKind));
          row.field(static_cast<int64_t>(m.bytes));
          TimeNs dur = t.hot.end[i] - t.hot.start[i];
          if (dur > 0)
            row.field(static_cast<double>(m.bytes) / static_cast<double>(dur));
          else
            row.empty();
          row.field(toString(m.srcKind));
          row.field(toString(m.dstKind));
          row.field(int64_t{m.srcDevice});
          row.field(int64_t{m.dstDevice});
          break;
        }
        case EventKind::Memset: {
          MemsetDetail m = t.memsets.row(i);
          gpuColumns(m.correlation);
          row.field(static_cast<int64_t>(m.bytes));
          row.field(int64_t{m.value});
          row.field(toString(m.memKind));
          break;
        }
        case EventKind::Api:
          threadColumns();
          row.field(toString(t.apis.domain[i]));
          row.field(int64_t{t.apis.correlation[i]});
          row.field(int64_t{t.apis.returnCode[i]});
          break;
        case EventKind::Nvtx:
          threadColumns();
          if (gpu)
            row.field(int64_t{s.devices[t.device].ordinal}),
                row.field(int64_t{s.streams[t.stream].streamId});
          else
            row.empty(), row.empty();
          row.field(s.str(t.nvtx.domain[i]));
          row.field(int64_t{t.hot.lane[i]});
          row.field(int64_t{t.nvtx.isMark[i]});
          if (t.nvtx.color[i]) {
            char buf[12];
            std::snprintf(buf, sizeof buf, "#%08X", t.nvtx.color[i]);
            row.field(std::string_view(buf));
          } else {
            row.empty();
          }
          break;
        case EventKind::Range:
          break;
      }
      row.end();
      if (line.size() > (1 << 20)) {
        sink.append(line);
        line.clear();
      }
      if ((r & 0xFFFF) == 0) {
        if (progress.cancelled()) return Error::cancelled();
        progress.update(static_cast<double>(r) /
                        static_cast<double>(std::max<size_t>(refs.size(), 1)));
      }
    }
    sink.append(line);
    return sink.finish();
  });
}

}  // namespace ts
