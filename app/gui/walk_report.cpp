#include "app/gui/walk_report.h"

#include <QAbstractButton>
#include <QApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QTabWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QTimer>
#include <atomic>
#include <csignal>

#include "app/gui/main_window.h"
#include "io/atomic_file.h"
#include "views/session/session_view.h"
#include "views/simulation/overlay_pane.h"
#include "views/timeline/overview_strip.h"
#include "views/timeline/timeline_canvas.h"

namespace ts {

namespace {

std::atomic<bool> requested{false};

void onSignal(int) {
  requested = true;
}

QString describe(const QWidget* w) {
  QString name = w->objectName().isEmpty() ? QString::fromLatin1(w->metaObject()->className())
                                           : w->objectName();
  for (const QWidget* p = w->parentWidget(); p; p = p->parentWidget()) {
    if (!p->objectName().isEmpty() && !p->objectName().startsWith(QLatin1String("qt_"))) {
      name = p->objectName() + QLatin1Char('/') + name;
      break;
    }
  }
  return name;
}

// Text the user cannot read whole: a one-line label or a button narrower than its text.
QJsonArray clipped(const QWidget* top) {
  QJsonArray out;
  for (const QLabel* l : top->findChildren<QLabel*>()) {
    if (!l->isVisibleTo(top) || l->wordWrap() || l->text().isEmpty() || !l->pixmap().isNull())
      continue;
    if (Qt::mightBeRichText(l->text())) continue;  // rich text lays itself out
    const int need = l->fontMetrics().horizontalAdvance(l->text());
    if (need > l->contentsRect().width() + 1)
      out.append(QStringLiteral("%1: \"%2\" needs %3 px, has %4")
                     .arg(describe(l), l->text())
                     .arg(need)
                     .arg(l->contentsRect().width()));
  }
  for (const QAbstractButton* b : top->findChildren<QAbstractButton*>()) {
    if (!b->isVisibleTo(top) || b->text().isEmpty()) continue;
    if (b->sizeHint().width() > b->width() + 1)
      out.append(QStringLiteral("%1: \"%2\" needs %3 px, has %4")
                     .arg(describe(b), b->text())
                     .arg(b->sizeHint().width())
                     .arg(b->width()));
  }
  return out;
}

QJsonObject timelineReport(const TimelineCanvas* c) {
  QJsonObject t;
  const TimeAxis& a = c->axis();
  t[QStringLiteral("start")] = static_cast<double>(a.start() - c->session()->startTime());
  t[QStringLiteral("end")] =
      static_cast<double>(a.end(c->canvasWidth()) - c->session()->startTime());
  t[QStringLiteral("sessionDuration")] = static_cast<double>(c->session()->duration());
  const QPoint at = c->mapToGlobal(QPoint(0, 0));  // where a click lands on it
  t[QStringLiteral("x")] = at.x();
  t[QStringLiteral("y")] = at.y();
  t[QStringLiteral("rulerHeight")] = TimelineCanvas::kRulerHeight;
  t[QStringLiteral("height")] = c->height();
  t[QStringLiteral("gutter")] = c->gutter();
  t[QStringLiteral("width")] = c->width();
  t[QStringLiteral("rows")] = static_cast<int>(c->rows().size());
  if (auto s = c->selection()) {
    t[QStringLiteral("selectionStart")] = static_cast<double>(s->first - c->session()->startTime());
    t[QStringLiteral("selectionEnd")] = static_cast<double>(s->second - c->session()->startTime());
    t[QStringLiteral("selectionSummary")] = c->selectionSummary();
  }
  if (c->selected().event != kNone) {
    const Track& tr = c->session()->tracks[c->selected().track];
    t[QStringLiteral("selected")] =
        QString::fromStdString(std::string(c->session()->str(tr.hot.name[c->selected().event])));
  }
  return t;
}

}  // namespace

QJsonObject walkReport(const MainWindow& window) {
  QJsonObject r;
  r[QStringLiteral("windowWidth")] = window.width();
  r[QStringLiteral("windowHeight")] = window.height();
  r[QStringLiteral("tabs")] = window.tabs()->count();
  r[QStringLiteral("tab")] = window.tabs()->tabText(window.tabs()->currentIndex());
  r[QStringLiteral("clipped")] = clipped(&window);
  if (QWidget* modal = QApplication::activeModalWidget()) {
    r[QStringLiteral("dialog")] = modal->windowTitle();
    r[QStringLiteral("dialogClipped")] = clipped(modal);
  }
  if (const TimelineCanvas* c = window.currentTimeline())
    r[QStringLiteral("timeline")] = timelineReport(c);
  if (const SessionView* v = window.sessionView(window.tabs()->currentIndex())) {
    const QTabWidget* panes = v->bottomTabs();
    r[QStringLiteral("pane")] = panes->tabText(panes->currentIndex());
    r[QStringLiteral("paneHeight")] = panes->height();
    r[QStringLiteral("events")] = v->eventsTable()->model()->rowCount();
    r[QStringLiteral("details")] = v->details()->toPlainText().left(2000);
    if (OverviewStrip* strip = v->overviewStrip(); strip->isVisible()) {
      r[QStringLiteral("overviewY")] = strip->mapToGlobal(QPoint(0, 0)).y();
      r[QStringLiteral("overviewHeight")] = strip->height();
      r[QStringLiteral("overviewLanes")] = static_cast<int>(strip->lanes().size());
    }
    if (const OverlayPane* o = v->overlayPane())
      r[QStringLiteral("simulation")] = o->summary()->text();
  }
  r[QStringLiteral("lastError")] = window.lastError();
  return r;
}

void installWalkReport(const MainWindow& window) {
  const QString path = qEnvironmentVariable("TSCOPE_WALK_REPORT");
  if (path.isEmpty()) return;
  std::signal(SIGUSR1, onSignal);
  auto* poll = new QTimer(const_cast<MainWindow*>(&window));
  QObject::connect(poll, &QTimer::timeout, poll, [&window, path] {
    if (!requested.exchange(false)) return;
    const QByteArray json = QJsonDocument(walkReport(window)).toJson();
    (void)writeBytesAtomically(path.toStdString(), std::string_view(json.constData(), json.size()));
  });
  poll->start(50);
}

}  // namespace ts
