#include "app/gui/advise_flow.h"

#include <QTabWidget>

#include "app/gui/shell.h"
#include "views/advisor/advise_view.h"
#include "views/session/session_view.h"

namespace ts {

AdviseFlow::AdviseFlow(Shell& shell, QObject* parent) : QObject(parent), shell_(shell) {}

AdviseView* AdviseFlow::open(int tab) {
  QTabWidget* tabs = shell_.tabs();
  for (int i = 0; i < tabs->count(); ++i) {
    if (auto* view = qobject_cast<AdviseView*>(tabs->widget(i))) {
      tabs->setCurrentIndex(i);
      view->tabs()->setCurrentIndex(tab);
      view->refreshSessions();
      return view;
    }
  }
  auto* view = new AdviseView(
      [this] {
        // The measured sessions open now (not predictions of an earlier answer).
        std::vector<AdviseView::OpenSession> open;
        QTabWidget* t = shell_.tabs();
        for (int i = 0; i < t->count(); ++i) {
          if (SessionView* v = shell_.sessionView(i); v && !v->session()->provenance.simulation)
            open.push_back({t->tabText(i), v->session()});
        }
        return open;
      },
      tabs);
  connect(view, &AdviseView::timelineReady, this, [this](SessionPtr session, const QString& title) {
    SessionView* v = shell_.newSessionView(std::move(session), title);
    shell_.addTab(v, title, title);
  });
  view->tabs()->setCurrentIndex(tab);
  shell_.addTab(view, tr("Advise"),
                tr("What to change about where jobs run: share a GPU, fewer machines, mixed GPUs"));
  shell_.changed();
  return view;
}

}  // namespace ts
