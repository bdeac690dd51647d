// ExportFlow: File → Export… (a session as .tscope, Chrome JSON or CSV, written off the GUI
// thread, several at once) and File → Export Timeline Image… (the current tab's timeline as PNG,
// SVG or PDF). The window's status bar shows the exports' progress beside the loads'.
#pragma once

#include <QList>
#include <QObject>
#include <QString>

#include "io/open_session.h"
#include "util/result.h"

namespace ts {

class SessionExportJob;
class Shell;

class ExportFlow : public QObject {
  Q_OBJECT
 public:
  ExportFlow(Shell& shell, QObject* parent);
  ~ExportFlow() override;

  void dialog();  // File → Export…
  // Beside the tab's first file, under its name: a trace is offered as a .tscope session, a
  // session as Chrome JSON (never the file itself).
  QString suggestedPath(int tab) const;
  // Writes the current tab's session (format by extension) off the GUI thread.
  void start(const QString& path, const WriteOptions& options);
  // The current tab's visible timeline as an image (.png at twice the size, .svg, .pdf).
  Status timelineImage(const QString& path);
  void timelineImageDialog();

  void cancel();
  int pending() const { return static_cast<int>(jobs_.size()); }
  double progressSum() const;  // of every pending export, each in [0, 1]
  QString firstPath() const;   // the oldest pending export's file
  bool hasSession() const;     // the current tab holds a session to export

 signals:
  void exported(bool ok, const QString& message);
  void progressed();  // an export moved on, started or ended

 private:
  Shell& shell_;
  QList<SessionExportJob*> jobs_;
};

}  // namespace ts
