// CaptureFlow: File → Capture… — runs a program under capture, shows its counts in the status
// bar with a Stop button, and keeps one tab showing the newest snapshot while it runs (keeping
// the user's zoom), then the saved file under its name. Without capture support in this build,
// it explains why instead.
#pragma once

#include <QObject>
#include <QPointer>
#include <QString>
#include <memory>

#include "session/session.h"

class QLabel;
class QStatusBar;
class QToolButton;

namespace ts {

class CaptureJob;
struct CaptureRequest;
class TimelineRows;
class SessionView;
class Shell;

class CaptureFlow : public QObject {
  Q_OBJECT
 public:
  CaptureFlow(Shell& shell, QStatusBar* statusBar, QObject* parent);
  ~CaptureFlow() override;

  void dialog();  // File → Capture…
  void start(const CaptureRequest& request);
  // Ends the running capture; `terminateProgram` asks the program to exit, else it runs on.
  void stop(bool terminateProgram);
  void askStop();  // the Stop button: stop only, or stop and terminate
  bool capturing() const;
  SessionView* view() const;  // the capture's tab (null before a snapshot)

 signals:
  void finished(bool ok, const QString& message);
  void updated();  // the capture tab shows a newer snapshot

 private:
  // The capture's tab shows `session` (rows prebuilt off the GUI thread, or built here when null).
  void replaceView(SessionPtr session, const QString& title, bool live,
                   std::shared_ptr<const TimelineRows> rows = nullptr);
  void ended(bool ok, const QString& message, const QStringList& messages);

  Shell& shell_;
  CaptureJob* job_ = nullptr;
  QPointer<SessionView> view_;  // null again when the user closes the tab
  QLabel* status_ = nullptr;
  QToolButton* stopButton_ = nullptr;
};

}  // namespace ts
