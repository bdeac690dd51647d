// OpenRanksDialog: the files about to open as one multi-rank session, in rank order, each with a
// clock shift the user can set by hand (applied after the automatic alignment).
#pragma once

#include <QDialog>
#include <QStringList>

#include "io/open_session.h"

class QTableWidget;

namespace ts {

class OpenRanksDialog : public QDialog {
  Q_OBJECT
 public:
  OpenRanksDialog(const QStringList& paths, QWidget* parent = nullptr);

  QStringList paths() const;    // in the order shown (rank order)
  OpenOptions options() const;  // the shifts, by position

 private:
  void move(int delta);
  QTableWidget* table_ = nullptr;
};

}  // namespace ts
