// SessionView: what one tab shows for one open session — the track tree, the timeline, and below
// it the details of the selected event and the session overview (devices, counts, provenance).
#pragma once

#include <QWidget>

#include "session/session.h"

class QTreeView;
class QTabWidget;
class QTextBrowser;
class QSplitter;

namespace ts {

class SessionTreeModel;
class TimelineCanvas;

class SessionView : public QWidget {
  Q_OBJECT
 public:
  SessionView(SessionPtr session, QString path, QWidget* parent = nullptr);

  const SessionPtr& session() const { return session_; }
  const QString& path() const { return path_; }
  SessionTreeModel* treeModel() const { return model_; }
  QTreeView* treeView() const { return tree_; }
  TimelineCanvas* timeline() const { return timeline_; }
  QTextBrowser* details() const { return details_; }

 private:
  QString overviewHtml() const;

  SessionPtr session_;
  QString path_;
  SessionTreeModel* model_ = nullptr;
  QTreeView* tree_ = nullptr;
  QTextBrowser* overview_ = nullptr;
  TimelineCanvas* timeline_ = nullptr;
  QTextBrowser* details_ = nullptr;
  QTabWidget* bottom_ = nullptr;
};

}  // namespace ts
