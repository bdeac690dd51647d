// MainWindow: the application shell — menus, one tab per open session, drag and drop, recent
// files, and a status bar that shows load progress with a Cancel button.
#pragma once

#include <QList>
#include <QMainWindow>
#include <QStringList>
#include <memory>
#include <optional>
#include <utility>

#include "io/open_session.h"
#include "memsim/formats/workload_source.h"

class QAction;
class QLabel;
class QMenu;
class QProgressBar;
class QStackedWidget;
class QTabWidget;
class QToolButton;
class QListWidget;

namespace ts {

class CaptureJob;
class CompareView;
class OverlayPane;
struct CaptureRequest;
class SessionExportJob;
class SessionLoadJob;
class SessionView;
class TimelineCanvas;
class TimelineRows;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  // The file Export… offers for a tab, and the tabs Compare Sessions… offers (-1 when fewer than
  // two sessions are open).
  QString suggestedExportPath(int tab) const;
  std::pair<int, int> compareDefaults() const;
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // Starts loading each file off the GUI thread; each opens in its own tab.
  void openFiles(const QStringList& paths);
  // Opens several trace files as one multi-rank session, in one tab.
  void openRanks(const QStringList& paths, const OpenOptions& options = {});
  // Opens an ONNX model in a model tab (also what openFiles does with .onnx files).
  void openModel(const QString& path);
  bool openSweep(const QString& path);
  void openSimulation(
      const memsim::WorkloadSource& source);  // the what-if tab  // a simulate --sweep table; false
                                              // (and a message) when it is not one
  // A compare tab for two open session tabs (by index); false when they are not two sessions.
  bool compareSessions(int tabA, int tabB);
  // The current tab's visible timeline as an image (.png at twice the size, .svg, .pdf): an error
  // message or empty.
  Status exportTimelineImage(const QString& path);
  // Writes the current tab's session (format by extension) off the GUI thread.
  void exportCurrent(const QString& path, const WriteOptions& options);
  void cancelLoads();
  // Runs a program under capture; its tab grows while it runs (File → Capture…). Without capture
  // support in this build, explains why instead.
  void startCapture(const CaptureRequest& request);
  // Ends the running capture; `terminateProgram` asks the program to exit, else it runs on.
  void stopCapture(bool terminateProgram);
  bool capturing() const;
  SessionView* captureView() const { return captureView_; }
  int sessionCount() const;
  SessionView* sessionView(int index) const;
  // The timeline the View menu acts on: in the current tab (a session, a comparison, a
  // simulation), the one with focus, else the first shown.
  TimelineCanvas* currentTimeline() const;
  QTabWidget* tabs() const { return tabs_; }
  int pendingLoads() const { return static_cast<int>(jobs_.size()); }
  int pendingExports() const { return static_cast<int>(exports_.size()); }
  QStringList recentFiles() const;
  const QString& lastError() const { return lastError_; }
  QString statusText() const;  // the status bar: what is open, by kind, or what is loading
  // Every action with a shortcut, for the shortcuts dialog and tests.
  QList<QAction*> shortcutActions() const;
  // Model → Simulate Memory Tiers on the session in `tab` (its Simulation tab); null when the tab
  // holds no session.
  OverlayPane* simulateOnTimeline(int tab, const QString& modelPath, int64_t batch);
  // A built-in model written to the cache as an ONNX file (the simulations read files); empty
  // after an error, shown under `title`.
  QString zooModelFile(const QString& title, const QString& name);
  // A model tab's title: the file's name, or "resnet50 (built-in)" for a built-in model's file.
  static QString modelTitle(const QString& path);
  // A session tab's simulation against the run, in a compare tab of its own (null without one).
  CompareView* compareWithSimulation(SessionView* view);

 signals:
  void sessionOpened(const QString& path);
  void loadFailed(const QString& path, const QString& message);
  void exported(bool ok, const QString& message);
  void idle();  // no load or export in progress any more
  void captureFinished(bool ok, const QString& message);
  void captureUpdated();  // the capture tab shows a newer snapshot
  void modelOpened(const QString& path, bool ok);
  void overlayUpdated();  // a simulation on a timeline has its result (or its error)

 protected:
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void addCompareTab(CompareView* compare, const QString& title);  // current, titled in full
  void createActions();
  void openDialog();
  void openRanksDialog();
  void captureDialog();
  void openModelDialog();
  void exportTimelineImageDialog();
  void compareDialog();
  void simulateOnTimelineDialog();
  struct ModelChoice {
    QString path;
    int batch = 0;
  };
  std::optional<ModelChoice> chooseModel(const QString& title, const QString& batchLabel);
  void askStopCapture();
  void showCaptureSnapshot(SessionPtr session);
  void replaceCaptureView(SessionPtr session, const QString& title, bool live);
  SessionView* newSessionView(SessionPtr session, const QString& title,
                              std::shared_ptr<const TimelineRows> rows = nullptr);
  void exportDialog();
  bool focusOpen(const QString& path);  // true: already open (its tab now current) or loading
  void startLoad(const QStringList& paths, const OpenOptions& options = {});
  void showError(const QString& title, const QString& message);
  void closeCurrent();
  void closeTab(int index);
  void showAbout();
  void showShortcuts();
  void addRecent(const QString& path);
  void rebuildRecentMenu();
  void jobFinished(QObject* job);
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
  CaptureJob* capture_ = nullptr;
  SessionView* captureView_ = nullptr;
  QLabel* captureStatus_ = nullptr;
  QToolButton* stopButton_ = nullptr;
  QLabel* statusLabel_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QToolButton* cancelButton_ = nullptr;
  QList<SessionLoadJob*> jobs_;
  QList<SessionExportJob*> exports_;
  QString lastError_;
};

}  // namespace ts
