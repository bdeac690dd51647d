// How the views show the rows other modules add to the timeline (TimelineRow::Kind::Extension),
// looked up by the name the module gives them (memsim/overlay.h: kSimKernelsRow, ...). The
// timeline canvas asks here instead of knowing any module's rows, so the next module (the
// diagnosis, the advisor) adds an entry here and its rows in core, and neither timeline/ nor the
// canvas changes.
#pragma once

#include <QString>
#include <functional>
#include <string_view>

#include "session/session.h"
#include "timeline/timeline_rows.h"

namespace ts {

struct RowExtension {
  bool labelSwatch = false;  // the label shows the colour of the row's events (one link's)
  // One event's tooltip (rich text).
  std::function<QString(const Session&, const TimelineRow&, const Track&, uint32_t event)> tooltip;
};

// Null for a name nothing registered (the canvas then draws the row as plain ranges).
const RowExtension* rowExtension(std::string_view name);

}  // namespace ts
