// The walk report: what the window shows, as JSON, for the GUI walk test (tests/gui/walk.sh),
// which drives a real window with real input (xdotool) and asks, after each step, what a user
// would read off the screen — the current tab, the timeline's view and selection, the pane shown,
// the dialog open, and every visible label or button whose text does not fit. Off unless
// TSCOPE_WALK_REPORT names a file: then SIGUSR1 writes the report there (atomically).
#pragma once

#include <QJsonObject>
#include <QString>

namespace ts {

class MainWindow;

QJsonObject walkReport(const MainWindow& window);
// With TSCOPE_WALK_REPORT set: SIGUSR1 (polled every 50 ms on the GUI thread) writes the report.
void installWalkReport(const MainWindow& window);

}  // namespace ts
