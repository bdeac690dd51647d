// AdviseFlow: Simulate → Advise… — the Advise tab (views/advisor/advise_view.h) over the sessions
// open in the window, one tab however often it is asked for; a predicted run it offers opens as a
// session tab beside the measured ones.
#pragma once

#include <QObject>

namespace ts {

class AdviseView;
class Shell;

class AdviseFlow : public QObject {
  Q_OBJECT
 public:
  AdviseFlow(Shell& shell, QObject* parent);
  // Shows the Advise tab (made the first time), on `tab` of it.
  AdviseView* open(int tab = 0);

 private:
  Shell& shell_;
};

}  // namespace ts
