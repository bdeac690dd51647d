// MainWindow: the application shell — menus, one tab per open session, drag and drop, recent
// files, and a status bar that shows load progress with a Cancel button.
#pragma once

#include <QList>
#include <QMainWindow>
#include <QStringList>

class QAction;
class QLabel;
class QMenu;
class QProgressBar;
class QStackedWidget;
class QTabWidget;
class QToolButton;
class QListWidget;

namespace ts {

class SessionLoadJob;
class SessionView;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // Starts loading each file off the GUI thread; each opens in its own tab.
  void openFiles(const QStringList& paths);
  void cancelLoads();
  int sessionCount() const;
  SessionView* sessionView(int index) const;
  QTabWidget* tabs() const { return tabs_; }
  int pendingLoads() const { return static_cast<int>(jobs_.size()); }
  QStringList recentFiles() const;
  const QString& lastError() const { return lastError_; }
  // Every action with a shortcut, for the shortcuts dialog and tests.
  QList<QAction*> shortcutActions() const;

 signals:
  void sessionOpened(const QString& path);
  void loadFailed(const QString& path, const QString& message);
  void idle();  // no load in progress any more

 protected:
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void createActions();
  void openDialog();
  void closeCurrent();
  void closeTab(int index);
  void showAbout();
  void showShortcuts();
  void addRecent(const QString& path);
  void rebuildRecentMenu();
  void jobFinished(SessionLoadJob* job);
  void updateStatus();
  void updateCentral();

  QStackedWidget* stack_ = nullptr;
  QTabWidget* tabs_ = nullptr;
  QListWidget* welcomeRecent_ = nullptr;
  QMenu* recentMenu_ = nullptr;
  QAction* openAction_ = nullptr;
  QAction* closeAction_ = nullptr;
  QAction* quitAction_ = nullptr;
  QAction* shortcutsAction_ = nullptr;
  QAction* aboutAction_ = nullptr;
  QAction* cancelAction_ = nullptr;
  QLabel* statusLabel_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QToolButton* cancelButton_ = nullptr;
  QList<SessionLoadJob*> jobs_;
  QString lastError_;
};

}  // namespace ts
