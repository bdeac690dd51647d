#include "timeline/zoom_history.h"

namespace ts {

namespace {

std::optional<TimeAxis> step(std::deque<TimeAxis>& from, std::deque<TimeAxis>& to,
                             const TimeAxis& current) {
  if (from.empty()) return std::nullopt;
  to.push_back(current);
  if (to.size() > ZoomHistory::kLimit) to.pop_front();
  TimeAxis next = from.back();
  from.pop_back();
  return next;
}

}  // namespace

void ZoomHistory::push(const TimeAxis& current) {
  back_.push_back(current);
  if (back_.size() > kLimit) back_.pop_front();
  forward_.clear();
}

std::optional<TimeAxis> ZoomHistory::back(const TimeAxis& current) {
  return step(back_, forward_, current);
}

std::optional<TimeAxis> ZoomHistory::forward(const TimeAxis& current) {
  return step(forward_, back_, current);
}

}  // namespace ts
