// ShortcutsDialog: every keyboard shortcut, read from the live actions so it never goes stale,
// grouped by menu, then the timeline's mouse and keys.
#pragma once

#include <QDialog>
#include <QList>

class QAction;

namespace ts {

// An action's keys that are no QAction shortcut (the canvas's Home for View → Show All), shown in
// its row: set as a property on the action.
inline constexpr char kMoreKeysProperty[] = "moreKeys";

class ShortcutsDialog : public QDialog {
  Q_OBJECT
 public:
  ShortcutsDialog(const QList<QAction*>& actions, QWidget* parent = nullptr);
};

}  // namespace ts
