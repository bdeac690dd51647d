// OpenFlow: File → Open…, Open as Ranks…, Open Model…, drops and recent files — each trace loads
// off the GUI thread into its own session tab (several files as ranks into one), a model into a
// model tab, a sweep table into a sweep tab. A file open already, or loading, only brings its tab
// forward. The window's status bar shows the loads' progress beside the exports'.
#pragma once

#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>

#include "io/open_session.h"

namespace ts {

class SessionLoadJob;
class Shell;
class SimulationFlow;

class OpenFlow : public QObject {
  Q_OBJECT
 public:
  OpenFlow(Shell& shell, SimulationFlow& simulation, QObject* parent);
  ~OpenFlow() override;

  void dialog();       // File → Open…
  void ranksDialog();  // File → Open as Ranks… (order and clock shifts in a dialog)
  void modelDialog();  // File → Open Model…
  // Each file in its own tab: traces and sessions load off the GUI thread, .onnx opens a model
  // tab, .csv a sweep.
  void openFiles(const QStringList& paths);
  // Several trace files as one multi-rank session, in one tab.
  void openRanks(const QStringList& paths, const OpenOptions& options = {});
  void openModel(const QString& path);

  void cancel();
  int pending() const { return static_cast<int>(jobs_.size()); }
  double progressSum() const;  // of every pending load, each in [0, 1]
  QString status() const;      // "Loading NAME…", "Loading 3 sessions…"

 signals:
  void sessionOpened(const QString& path);
  void loadFailed(const QString& path, const QString& message);
  void modelOpened(const QString& path, bool ok);
  void progressed();  // a load moved on, started or ended

 private:
  bool focusOpen(const QString& path);  // true: already open (its tab now current) or loading
  void startLoad(const QStringList& paths, const OpenOptions& options = {});
  void offerRecovery(const QStringList& paths, OpenOptions options, const QString& why);
  void finished(SessionLoadJob* job);

  Shell& shell_;
  SimulationFlow& simulation_;
  QList<SessionLoadJob*> jobs_;
};

}  // namespace ts
