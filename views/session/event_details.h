// Every field of one event, as the details panel shows it (HTML), with the API call that launched
// it or the GPU work it launched (flows).
#pragma once

#include <QString>
#include <optional>
#include <utility>

#include "session/session.h"

namespace ts {

QString eventDetailsHtml(const Session& session, uint32_t track, uint32_t event);

// The links in it to other events ("Launched by"): "event:TRACK:EVENT".
QString eventLink(uint32_t track, uint32_t event);
std::optional<std::pair<uint32_t, uint32_t>> parseEventLink(const QString& link);

}  // namespace ts
