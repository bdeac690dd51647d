// Shell: what the window's flows (app/gui/*_flow.h: capture, compare, export, simulation) need
// of the window, and no more — its tabs, a session tab made and wired like every other, errors
// shown without blocking, the recent files, and a word when tabs or background work change. The
// flows hold the work; the window holds menus, tabs and the status bar (hotspot's split of
// MainWindow and its per-feature controllers).
#pragma once

#include <QString>
#include <memory>

#include "session/session.h"

class QTabWidget;
class QWidget;

namespace ts {

class SessionView;
class TimelineRows;

class Shell {
 public:
  virtual ~Shell() = default;
  virtual QWidget* dialogParent() = 0;
  virtual QTabWidget* tabs() const = 0;
  virtual SessionView* sessionView(int index) const = 0;
  // Every session tab is made here, so each is wired once (however often it simulates).
  virtual SessionView* newSessionView(SessionPtr session, const QString& title,
                                      std::shared_ptr<const TimelineRows> rows = nullptr) = 0;
  // Adds `tab` as the current tab, titled in full in its tooltip (the bar may shorten the title).
  virtual void addTab(QWidget* tab, const QString& title, const QString& tooltip) = 0;
  virtual void showError(const QString& title, const QString& message) = 0;
  virtual void showMessage(const QString& message, int milliseconds) = 0;
  virtual void addRecent(const QString& path) = 0;
  // Tabs were added or removed, or background work started, moved on or ended.
  virtual void changed() = 0;
};

}  // namespace ts
