#include "views/session/events_order.h"

#include <algorithm>
#include <string_view>

namespace ts {

namespace {

struct Cancelled {};

constexpr size_t kCheckEvery = size_t{1} << 14;  // rows or comparisons between looks at `cancel`

}  // namespace

uint32_t eventCorrelation(const Session& s, const ListedEvent& r) {
  const Track& t = s.tracks[r.track];
  switch (t.kind) {
    case EventKind::Kernel:
      return t.kernels.correlation[r.event];
    case EventKind::Memcpy:
      return t.memcpys.correlation[r.event];
    case EventKind::Memset:
      return t.memsets.correlation[r.event];
    case EventKind::Api:
      return t.apis.correlation[r.event];
    default:
      return 0;
  }
}

bool filterAndOrderEvents(const Session& s, const std::vector<ListedEvent>& rows,
                          const QString& filter, EventsColumn column, bool descending,
                          const std::atomic<bool>& cancel, std::vector<ListedEvent>& out) {
  auto nameOf = [&](const ListedEvent& r) { return s.tracks[r.track].hot.name[r.event]; };
  out.clear();
  if (filter.isEmpty()) {
    out = rows;
  } else {
    // Each distinct name matched once.
    std::vector<int8_t> match(s.strings.size(), -1);
    for (size_t i = 0; i < rows.size(); ++i) {
      if (i % kCheckEvery == 0 && cancel.load(std::memory_order_relaxed)) return false;
      const StringId id = nameOf(rows[i]);
      if (match[id] < 0) {
        std::string_view name = s.str(id);
        match[id] = QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size()))
                        .contains(filter, Qt::CaseInsensitive);
      }
      if (match[id]) out.push_back(rows[i]);
    }
  }
  // One number per row to sort by; names by the rank of their text among the names listed.
  std::vector<int64_t> nameRank;
  if (column == EventsColumn::Name) {
    std::vector<StringId> names;
    std::vector<uint8_t> seen(s.strings.size(), 0);
    for (const ListedEvent& r : out) {
      const StringId id = nameOf(r);
      if (!seen[id]) seen[id] = 1, names.push_back(id);
    }
    std::sort(names.begin(), names.end(),
              [&](StringId a, StringId b) { return s.str(a) < s.str(b); });
    nameRank.assign(s.strings.size(), 0);
    for (size_t i = 0; i < names.size(); ++i) nameRank[names[i]] = static_cast<int64_t>(i);
  }
  struct Keyed {
    int64_t key;
    uint32_t position;  // in `out`: ties keep it
  };
  std::vector<Keyed> keyed(out.size());
  for (size_t i = 0; i < out.size(); ++i) {
    if (i % kCheckEvery == 0 && cancel.load(std::memory_order_relaxed)) return false;
    const ListedEvent& r = out[i];
    const Track& t = s.tracks[r.track];
    int64_t key = 0;
    switch (column) {
      case EventsColumn::Name:
        key = nameRank[t.hot.name[r.event]];
        break;
      case EventsColumn::Start:
        key = t.hot.start[r.event];
        break;
      case EventsColumn::Duration:
        key = t.hot.end[r.event] - t.hot.start[r.event];
        break;
      case EventsColumn::Kind:
        key = static_cast<int64_t>(t.kind);
        break;
      case EventsColumn::Where:
        key = r.track;
        break;
      case EventsColumn::Correlation:
        key = eventCorrelation(s, r);
        break;
    }
    keyed[i] = {key, static_cast<uint32_t>(i)};
  }
  size_t comparisons = 0;
  try {
    std::sort(keyed.begin(), keyed.end(), [&](const Keyed& a, const Keyed& b) {
      if (++comparisons % kCheckEvery == 0 && cancel.load(std::memory_order_relaxed))
        throw Cancelled{};
      if (a.key != b.key) return descending ? a.key > b.key : a.key < b.key;
      return a.position < b.position;
    });
  } catch (const Cancelled&) {
    return false;
  }
  std::vector<ListedEvent> ordered(out.size());
  for (size_t i = 0; i < keyed.size(); ++i) ordered[i] = out[keyed[i].position];
  out = std::move(ordered);
  return !cancel.load(std::memory_order_relaxed);
}

}  // namespace ts
