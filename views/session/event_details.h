// Every field of one event, as the details panel shows it (HTML), with the API call that launched
// it or the GPU work it launched (flows).
#pragma once

#include <QString>

#include "session/session.h"

namespace ts {

QString eventDetailsHtml(const Session& session, uint32_t track, uint32_t event);

}  // namespace ts
