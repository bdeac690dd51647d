// CompareView: two sessions (before / after) — their timelines stacked on one synchronised time
// axis (each measured from its own session's start; zoom and pan move both), and the kernel and
// copy comparison tables.
#pragma once

#include <QWidget>

#include "session/session.h"

namespace ts {

class TablePanel;
class TimelineCanvas;

class CompareView : public QWidget {
  Q_OBJECT
 public:
  CompareView(SessionPtr a, const QString& nameA, SessionPtr b, const QString& nameB, QWidget* parent = nullptr);

  TimelineCanvas* timelineA() const { return a_; }
  TimelineCanvas* timelineB() const { return b_; }
  TablePanel* kernels() const { return kernels_; }
  TablePanel* copies() const { return copies_; }

 private:
  void follow(TimelineCanvas* from, TimelineCanvas* to);

  TimelineCanvas* a_ = nullptr;
  TimelineCanvas* b_ = nullptr;
  TablePanel* kernels_ = nullptr;
  TablePanel* copies_ = nullptr;
  bool syncing_ = false;
};

}  // namespace ts
