// MainWindow: the application shell — menus, one tab per open session, drag and drop, recent
// files, and a status bar that shows load and export progress with a Cancel button. What the menus
// start is held by flows (app/gui/*_flow.h): open, capture, compare, export, simulation, advise;
// they reach the window through the Shell interface.
#pragma once

#include <QList>
#include <QMainWindow>
#include <QMessageBox>
#include <QPointer>
#include <QStringList>
#include <memory>
#include <optional>
#include <utility>

#include "app/gui/shell.h"
#include "io/open_session.h"

class QAction;
class QLabel;
class QMenu;
class QProgressBar;
class QStackedWidget;
class QTabWidget;
class QToolButton;
class QListWidget;

namespace ts {

class AdviseFlow;
class CaptureFlow;
class CompareFlow;
class ExportFlow;
class OpenFlow;
class SimulationFlow;
class SessionView;
class TimelineCanvas;
class TimelineRows;

class MainWindow : public QMainWindow, public Shell {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // Starts loading each file off the GUI thread; each opens in its own tab.
  void openFiles(const QStringList& paths);
  // Opens several trace files as one multi-rank session, in one tab.
  void openRanks(const QStringList& paths, const OpenOptions& options = {});
  // Opens an ONNX model in a model tab (also what openFiles does with .onnx files).
  void openModel(const QString& path);
  void cancelLoads();  // and exports
  CaptureFlow* capture() const { return capture_; }
  CompareFlow* compare() const { return compare_; }
  ExportFlow* exports() const { return exports_; }
  OpenFlow* opener() const { return open_; }
  SimulationFlow* simulation() const { return simulation_; }
  AdviseFlow* advise() const { return advise_; }
  int sessionCount() const;
  SessionView* sessionView(int index) const override;
  // The timeline the View menu acts on: in the current tab (a session, a comparison, a
  // simulation), the one with focus, else the first shown.
  TimelineCanvas* currentTimeline() const;
  QTabWidget* tabs() const override { return tabs_; }
  QStringList recentFiles() const;
  const QString& lastError() const { return lastError_; }
  QString statusText() const;  // the status bar: what is open, by kind, or what is loading
  // Every action with a shortcut, for the shortcuts dialog and tests.
  QList<QAction*> shortcutActions() const;

  // Shell, for the flows.
  QWidget* dialogParent() override { return this; }
  SessionView* newSessionView(SessionPtr session, const QString& title,
                              std::shared_ptr<const TimelineRows> rows = nullptr) override;
  void addTab(QWidget* tab, const QString& title, const QString& tooltip) override;
  void showError(const QString& title, const QString& message) override;
  void showMessage(const QString& message, int milliseconds) override;
  void addRecent(const QString& path) override;
  void changed() override;

 signals:
  void sessionOpened(const QString& path);
  void loadFailed(const QString& path, const QString& message);
  void idle();  // no load or export in progress any more
  void modelOpened(const QString& path, bool ok);

 protected:
  // A session still being saved is finished before the window closes (a second close asks).
  void closeEvent(QCloseEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void createActions();
  void createSimulationMenus();
  void closeCurrent();
  void closeTab(int index);
  void showAbout();
  void showShortcuts();
  void rebuildRecentMenu();
  void updateStatus();
  void updateCentral();

  QStackedWidget* stack_ = nullptr;
  QTabWidget* tabs_ = nullptr;
  QListWidget* welcomeRecent_ = nullptr;
  QMenu* recentMenu_ = nullptr;
  QAction* openAction_ = nullptr;
  QAction* simulateRunAction_ = nullptr;
  QAction* simulateTimelineAction_ = nullptr;
  QAction* openRanksAction_ = nullptr;
  QAction* exportAction_ = nullptr;
  QAction* exportImageAction_ = nullptr;
  QList<QAction*> viewActions_;  // zoom, pan, history: act on the current tab's timeline
  QAction* findAction_ = nullptr;
  QAction* findNextAction_ = nullptr;
  QAction* findPreviousAction_ = nullptr;
  QAction* closeAction_ = nullptr;
  QAction* quitAction_ = nullptr;
  QAction* shortcutsAction_ = nullptr;
  QAction* aboutAction_ = nullptr;
  QAction* cancelAction_ = nullptr;
  QAction* captureAction_ = nullptr;
  QAction* openModelAction_ = nullptr;
  CaptureFlow* capture_ = nullptr;
  CompareFlow* compare_ = nullptr;
  ExportFlow* exports_ = nullptr;
  OpenFlow* open_ = nullptr;
  SimulationFlow* simulation_ = nullptr;
  AdviseFlow* advise_ = nullptr;
  QLabel* statusLabel_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QToolButton* cancelButton_ = nullptr;
  QString lastError_;
  bool closeWhenSaved_ = false;     // a close waits for the saves in progress
  bool stopSavesAndClose_ = false;  // unless the user chose to stop them
  QPointer<QMessageBox> stopSaveQuestion_;
};

}  // namespace ts
