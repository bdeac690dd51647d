#include "views/session/event_details.h"

#include <QObject>

#include "memsim/formats/sim_session.h"
#include "model/launch_context.h"
#include "session/occupancy.h"
#include "util/format.h"

namespace ts {

namespace {

QString esc(std::string_view s) {
  return QString::fromUtf8(s.data(), static_cast<int>(s.size())).toHtmlEscaped();
}
QString row(const QString& key, const QString& value) {
  return QStringLiteral("<tr><td style='padding-right:14px'><b>%1</b></td><td>%2</td></tr>")
      .arg(key, value);
}
QString num(uint64_t v) {
  return QString::fromStdString(formatCount(v));
}
QString dur(TimeNs ns) {
  return QString::fromStdString(formatDuration(ns));
}

}  // namespace

QString eventLink(uint32_t track, uint32_t event) {
  return QStringLiteral("event:%1:%2").arg(track).arg(event);
}

std::optional<std::pair<uint32_t, uint32_t>> parseEventLink(const QString& link) {
  const QStringList parts = link.split(QLatin1Char(':'));
  if (parts.size() != 3 || parts[0] != QLatin1String("event")) return std::nullopt;
  bool a = false, b = false;
  const uint32_t track = parts[1].toUInt(&a), event = parts[2].toUInt(&b);
  if (!a || !b) return std::nullopt;
  return std::pair(track, event);
}

QString eventDetailsHtml(const Session& s, uint32_t track, uint32_t e) {
  if (track >= s.tracks.size() || e >= s.tracks[track].size()) return {};
  const Track& t = s.tracks[track];
  const TimeNs start = t.hot.start[e], end = t.hot.end[e];
  QString html = QStringLiteral("<p><b>%1</b></p><table>").arg(esc(s.str(t.hot.name[e])));
  html += row(QObject::tr("Kind"), esc(toString(t.kind)));
  // Start and end to the digits the duration needs: an 822 µs kernel 43 s in is not "43.29 s".
  const TimeNs length = std::max<TimeNs>(1, end - start);
  auto at = [&](TimeNs t) {
    return QString::fromStdString(formatTimestamp(t - s.startTime(), length));
  };
  html += row(QObject::tr("Start"),
              QObject::tr("%1 after session start (%2 ns)").arg(at(start)).arg(start));
  html += row(QObject::tr("End"), QObject::tr("%1 (%2 ns)").arg(at(end)).arg(end));
  html += row(QObject::tr("Duration"), dur(end - start));
  if (t.device != kNone) html += row(QObject::tr("Device"), esc(s.deviceLabel(t.device)));
  if (t.stream != kNone) html += row(QObject::tr("Stream"), esc(s.streamLabel(t.stream)));
  if (t.thread != kNone) {
    html += row(QObject::tr("Thread"), esc(s.threadLabel(t.thread)) + QStringLiteral(" · ") +
                                           esc(s.processLabel(s.threads[t.thread].process)));
  }
  switch (t.kind) {
    case EventKind::Kernel: {
      KernelDetail k = t.kernels.row(e);
      if (k.mangled) html += row(QObject::tr("Mangled name"), esc(s.str(k.mangled)));
      // 0 is no correlation (predicted kernels, traces without launches), not an id.
      if (k.correlation) html += row(QObject::tr("Correlation id"), QString::number(k.correlation));
      html += row(QObject::tr("Context"), QString::number(k.context));
      if (k.gridX == 0 && k.blockX == 0) {
        // A prediction (or a trace that gave no launch configuration): nothing measured to show.
        html += row(QObject::tr("Launch configuration"), QObject::tr("not recorded"));
      } else {
        html += row(QObject::tr("Grid"),
                    QStringLiteral("%1 × %2 × %3").arg(k.gridX).arg(k.gridY).arg(k.gridZ));
        html += row(QObject::tr("Block"),
                    QStringLiteral("%1 × %2 × %3").arg(k.blockX).arg(k.blockY).arg(k.blockZ));
        html += row(QObject::tr("Registers per thread"), QString::number(k.registersPerThread));
        html +=
            row(QObject::tr("Shared memory"), QObject::tr("%1 static, %2 dynamic")
                                                  .arg(esc(formatBytes(k.staticSharedMemory)),
                                                       esc(formatBytes(k.dynamicSharedMemory))));
      }
      if (k.localMemoryPerThread)
        html +=
            row(QObject::tr("Local memory per thread"), esc(formatBytes(k.localMemoryPerThread)));
      // The PyTorch profiler's own figures, as it reported them.
      if (k.reportedStats & kReportedExternalId)
        html += row(QObject::tr("External id"), QString::number(k.externalId));
      if (k.reportedStats & kReportedOccupancy)
        html += row(
            QObject::tr("Est. achieved occupancy"),
            QObject::tr("%1 % (as the trace states)").arg(k.estOccupancyX100 / 100.0, 0, 'g', 4));
      if (k.reportedStats & (kReportedBlocksPerSm | kReportedWarpsPerSm)) {
        QStringList parts;
        auto count = [](uint32_t x1000, const QString& one, const QString& many) {
          return (x1000 == 1000 ? one : many).arg(x1000 / 1000.0, 0, 'g', 4);
        };
        if (k.reportedStats & kReportedBlocksPerSm)
          parts << count(k.blocksPerSmX1000, QObject::tr("%1 block"), QObject::tr("%1 blocks"));
        if (k.reportedStats & kReportedWarpsPerSm)
          parts << count(k.warpsPerSmX1000, QObject::tr("%1 warp"), QObject::tr("%1 warps"));
        html += row(QObject::tr("Per SM (as the trace states)"),
                    parts.join(QStringLiteral(", ")) + QObject::tr(" on average over the grid"));
      }
      if (auto o = theoreticalOccupancy(s.devices[t.device], k)) {
        html += row(QObject::tr("Theoretical occupancy"),
                    QObject::tr("%1 % (%2 blocks, %3 warps per SM; limited by %4)")
                        .arg(o->theoretical * 100, 0, 'f', 1)
                        .arg(o->blocksPerSm)
                        .arg(o->warpsPerSm)
                        .arg(esc(o->limiter)));
      } else {
        html +=
            row(QObject::tr("Theoretical occupancy"), QObject::tr("unknown (no device limits)"));
      }
      if (k.graphId) html += row(QObject::tr("CUDA graph"), QString::number(k.graphId));
      break;
    }
    case EventKind::Memcpy: {
      MemcpyDetail m = t.memcpys.row(e);
      html += row(QObject::tr("Copy kind"), esc(copyLabel(m.copyKind, m.migration)));
      if (m.migration) {
        html += row(QObject::tr("Cause"), esc(toString(m.migrationCause)));
        if (m.address)
          html +=
              row(QObject::tr("Address"), QStringLiteral("0x") + QString::number(m.address, 16));
      }
      html += row(QObject::tr("Bytes"), num(m.bytes) + QStringLiteral(" (") +
                                            esc(formatBytes(m.bytes)) + QStringLiteral(")"));
      if (end > start) {
        html +=
            row(QObject::tr("Bandwidth"), esc(formatBandwidth(static_cast<double>(m.bytes) * 1e9 /
                                                              static_cast<double>(end - start))));
      }
      html += row(QObject::tr("Source"),
                  esc(toString(m.srcKind)) +
                      (m.srcDevice >= 0 ? QObject::tr(" on GPU %1").arg(m.srcDevice) : QString()));
      html += row(QObject::tr("Destination"),
                  esc(toString(m.dstKind)) +
                      (m.dstDevice >= 0 ? QObject::tr(" on GPU %1").arg(m.dstDevice) : QString()));
      if (auto planned = memsim::simulatedTransferPlanned(s, t, e))
        html += row(QObject::tr("Moved"), *planned ? QObject::tr("planned")
                                                   : QObject::tr("on demand (a kernel needed it)"));
      html += row(QObject::tr("Correlation id"), QString::number(m.correlation));
      if (m.hasExternalId) html += row(QObject::tr("External id"), QString::number(m.externalId));
      break;
    }
    case EventKind::Memset: {
      MemsetDetail m = t.memsets.row(e);
      html += row(QObject::tr("Bytes"), num(m.bytes));
      html += row(QObject::tr("Value"), QString::number(m.value));
      html += row(QObject::tr("Memory"), esc(toString(m.memKind)));
      html += row(QObject::tr("Correlation id"), QString::number(m.correlation));
      if (m.hasExternalId) html += row(QObject::tr("External id"), QString::number(m.externalId));
      break;
    }
    case EventKind::Api:
      html += row(QObject::tr("API"), esc(toString(t.apis.domain[e])));
      html += row(QObject::tr("Correlation id"), QString::number(t.apis.correlation[e]));
      html += row(QObject::tr("Return code"), QString::number(t.apis.returnCode[e]));
      break;
    case EventKind::Nvtx:
      html += row(QObject::tr("Domain"), esc(s.str(t.nvtx.domain[e])));
      html += row(QObject::tr("Depth"), QString::number(t.hot.lane[e]));
      if (t.nvtx.inputs[e]) html += row(QObject::tr("Inputs"), esc(s.str(t.nvtx.inputs[e])));
      if (t.nvtx.color[e])
        html += row(QObject::tr("Colour"),
                    QStringLiteral("#%1").arg(t.nvtx.color[e], 8, 16, QLatin1Char('0')));
      break;
    case EventKind::Range:
      html += row(QObject::tr("Category"), esc(s.str(t.ranges.category[e])));
      if (t.ranges.args[e]) html += row(QObject::tr("Args"), esc(s.str(t.ranges.args[e])));
      break;
  }
  // Flows: what launched this, what this launched.
  for (size_t f = 0; f < s.flows.srcTrack.size(); ++f) {
    bool from = s.flows.dstTrack[f] == track && s.flows.dstEvent[f] == e;
    bool to = s.flows.srcTrack[f] == track && s.flows.srcEvent[f] == e;
    if (!from && !to) continue;
    uint32_t ot = from ? s.flows.srcTrack[f] : s.flows.dstTrack[f];
    uint32_t oe = from ? s.flows.srcEvent[f] : s.flows.dstEvent[f];
    const Track& other = s.tracks[ot];
    // A link: the details view selects and centres the other end (eventLink).
    html += row(from ? QObject::tr("Launched by") : QObject::tr("Launches"),
                QStringLiteral("<a href='%1'>%2</a>")
                    .arg(eventLink(ot, oe),
                         QObject::tr("%1 at %2")
                             .arg(esc(s.str(other.hot.name[oe])), at(other.hot.start[oe]))));
    // The PyTorch op the launching call ran in (the outermost aten:: one), with its inputs.
    if (!from || other.kind != EventKind::Api || other.thread == kNone) continue;
    for (const auto& hit : model::EnclosingRanges(s).at(other.thread, other.hot.start[oe])) {
      if (hit.name.rfind("aten::", 0) != 0) continue;
      html += row(QObject::tr("PyTorch op"), esc(hit.name));
      if (!hit.inputs.empty()) html += row(QObject::tr("Op inputs"), esc(hit.inputs));
      break;
    }
  }
  return html + QStringLiteral("</table>");
}

}  // namespace ts
