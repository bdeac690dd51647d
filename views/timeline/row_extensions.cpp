#include "views/timeline/row_extensions.h"

#include <QCoreApplication>
#include <map>

#include "memsim/reports/overlay.h"
#include "timeline/diagnosis_rows.h"
#include "util/format.h"

namespace ts {

namespace {

QString tr(const char* text) {
  return QCoreApplication::translate("RowExtension", text);
}

QString html(std::string_view v) {
  return QString::fromUtf8(v.data(), static_cast<qsizetype>(v.size())).toHtmlEscaped();
}

// "1.2 ms → 1.5 ms (300 µs)", from the session's start.
QString when(const Session& s, const Track& t, uint32_t e) {
  const TimeNs length = std::max<TimeNs>(1, t.hot.end[e] - t.hot.start[e]);
  return tr("%1 → %2 (%3)")
      .arg(QString::fromStdString(formatTimestamp(t.hot.start[e] - s.startTime(), length)),
           QString::fromStdString(formatTimestamp(t.hot.end[e] - s.startTime(), length)),
           QString::fromStdString(formatDuration(t.hot.end[e] - t.hot.start[e])));
}

// The simulation overlay's rows: what the tensor is and where it is, what a transfer moved,
// which layer a simulated kernel belongs to.
std::map<std::string, RowExtension, std::less<>> registered() {
  std::map<std::string, RowExtension, std::less<>> rows;
  rows[memsim::kSimKernelsRow].tooltip = [](const Session& s, const TimelineRow&, const Track& t,
                                            uint32_t e) {
    std::string_view args = s.str(t.ranges.args[e]);
    return tr("<b>%1</b><br>%2<br>%3")
        .arg(html(s.str(t.hot.name[e])), args.empty() ? QString() : html(args), when(s, t, e));
  };
  RowExtension& transfers = rows[memsim::kTransferRow];
  transfers.labelSwatch = true;
  transfers.tooltip = [](const Session& s, const TimelineRow& row, const Track& t, uint32_t e) {
    return tr("<b>%1</b><br>%2 · %3<br>%4")
        .arg(html(s.str(t.hot.name[e])), html(row.label), html(s.str(t.ranges.args[e])),
             when(s, t, e));
  };
  rows[memsim::kTensorRow].tooltip = [](const Session& s, const TimelineRow& row, const Track& t,
                                        uint32_t e) {
    std::string_view args = s.str(t.ranges.args[e]);
    QString info = html(row.info).replace(QLatin1Char('\n'), QStringLiteral("<br>"));
    return tr("<b>%1</b><br>%2<br><br>%3")
        .arg(html(s.str(t.hot.name[e])) +
                 (args.empty() ? QString() : QStringLiteral(" · ") + html(args)),
             when(s, t, e), info);
  };
  // The diagnosis's steps: what the step spent, as the step table gives it.
  rows[kStepsRow].tooltip = [](const Session& s, const TimelineRow&, const Track& t, uint32_t e) {
    return tr("<b>%1</b><br>%2")
        .arg(html(s.str(t.hot.name[e])),
             html(s.str(t.ranges.args[e])).replace(QLatin1Char('\n'), QStringLiteral("<br>")));
  };
  return rows;
}

}  // namespace

const RowExtension* rowExtension(std::string_view name) {
  static const auto rows = registered();
  auto it = rows.find(name);
  return it == rows.end() ? nullptr : &it->second;
}

}  // namespace ts
