// How the user arranged a timeline's rows (moved, hidden), kept by each row's path — its label
// under its group rows' labels, "GPU 0: A100/Streams/Stream 7" — so it survives reopening the
// files, rows added or gone since, and a layout that numbers its rows differently. The canvas
// saves and restores it (QSettings); the math is here, without a widget.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "timeline/timeline_rows.h"

namespace ts {

// The row's label under the labels of the rows it sits under, in the layout's order.
std::string rowPath(const TimelineRows& rows, size_t row);
std::vector<std::string> rowPaths(const TimelineRows& rows);

struct RowArrangement {
  std::vector<std::string> order;   // paths in display order
  std::vector<std::string> hidden;  // paths of hidden rows
};

// What to save: `order` is the display order (row indices), `hidden` by row.
RowArrangement savedArrangement(const std::vector<std::string>& paths,
                                const std::vector<size_t>& order, const std::vector<bool>& hidden);

// A saved arrangement applied to rows with `paths`: saved rows take their saved places, rows the
// save did not have keep their own order after them; rows it hid are hidden, others shown.
void applyArrangement(const RowArrangement& saved, const std::vector<std::string>& paths,
                      std::vector<size_t>& order, std::vector<bool>& hidden);

}  // namespace ts
