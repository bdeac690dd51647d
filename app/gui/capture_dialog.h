// CaptureDialog (File → Capture…): what to run and what to record — program, arguments, working
// directory, environment, duration, delay, event kinds, output file. Plain Qt types, so it builds
// with or without capture support.
#pragma once

#include <QDialog>
#include <QStringList>

#include "util/result.h"

class QCheckBox;
class QDoubleSpinBox;
class QLineEdit;
class QPlainTextEdit;

namespace ts {

struct CaptureRequest {
  QStringList argv;  // program first
  QList<QPair<QString, QString>> env;
  QString workingDirectory;
  QString output;
  double durationSeconds = 0;  // 0: until the program exits
  double delaySeconds = 0;     // > 0: keep only what happens after this long (capture --delay)
  QStringList kinds;           // empty: the default set
};

class CaptureDialog : public QDialog {
  Q_OBJECT
 public:
  explicit CaptureDialog(QWidget* parent = nullptr);

  // The request, or what is wrong with it (nothing to run, a bad environment line, ...).
  Result<CaptureRequest> request() const;
  void setRequest(const CaptureRequest& request);  // also what tests fill in

 private:
  QLineEdit* program_ = nullptr;
  QLineEdit* arguments_ = nullptr;
  QLineEdit* directory_ = nullptr;
  QPlainTextEdit* environment_ = nullptr;
  QDoubleSpinBox* duration_ = nullptr;
  QDoubleSpinBox* delay_ = nullptr;
  QLineEdit* output_ = nullptr;
  QList<QCheckBox*> kinds_;
};

}  // namespace ts
