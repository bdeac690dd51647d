// The Events table's rows filtered by name and put in a column's order: the part of listing a
// range that grows with its size, done off the GUI thread for big lists (EventsTableModel) and
// cancelled when the user asks for another list before it is done.
#pragma once

#include <QString>
#include <atomic>
#include <cstdint>
#include <vector>

#include "session/session.h"

namespace ts {

struct ListedEvent {
  uint32_t track, event;
};

// The columns of the table, which are the orders it can be sorted in.
enum class EventsColumn { Name, Start, Duration, Kind, Where, Correlation };

// The correlation id of an event that has one (kernels, copies, memsets, API calls), else 0.
uint32_t eventCorrelation(const Session& s, const ListedEvent& r);

// `rows` whose name contains `filter` (any case; all when empty), in `column`'s order (names by
// their text, the rest by number; ties keep their order in `rows`), reversed when `descending`.
// Returns false, leaving `out` unspecified, once `cancel` is set.
bool filterAndOrderEvents(const Session& s, const std::vector<ListedEvent>& rows,
                          const QString& filter, EventsColumn column, bool descending,
                          const std::atomic<bool>& cancel, std::vector<ListedEvent>& out);

}  // namespace ts
