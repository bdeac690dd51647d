// ShortcutsDialog: every keyboard shortcut, read from the live actions so it never goes stale.
#pragma once

#include <QDialog>
#include <QList>

class QAction;

namespace ts {

class ShortcutsDialog : public QDialog {
  Q_OBJECT
 public:
  ShortcutsDialog(const QList<QAction*>& actions, QWidget* parent = nullptr);
};

}  // namespace ts
